"""Raw values to handles: each distinct raw value normalised once, then mapped onto the rows.

>>> m = HandleMap().map(["Ada", "@ada", None, "ada", "N/A", "Ada"])
>>> m.rows()
['ada', 'ada', None, 'ada', None, 'ada']
>>> m.distinct()
['ada']
>>> m.errors[m.codes].tolist()
[None, None, 'invalid handle: missing', None, 'invalid handle: missing', None]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype

from .kinds import PEOPLE, Kind

__all__ = ["HandleMap", "Mapped"]

#: A row's handle (None: invalid) and its lookup_error (None: valid).
_Entry = tuple[str | None, str | None]
_Codes = np.ndarray[Any, np.dtype[np.intp]]
_Objects = np.ndarray[Any, np.dtype[np.object_]]


@dataclass(frozen=True)
class Mapped:
    """A column of raw values, as distinct values and positions.

    ``codes[i]`` is row i's position in ``handles`` and ``errors``, which hold one entry per
    distinct raw value. The entries of valid values come in first-seen order.

    >>> m = HandleMap().map(["Ada", None, "ada", "@ada"])
    >>> m.codes.tolist(), m.handles.tolist()
    ([0, 3, 1, 2], ['ada', 'ada', 'ada', None])
    """

    codes: _Codes
    handles: _Objects  # the handle, or None when invalid
    errors: _Objects  # the lookup_error when invalid, else None

    @property
    def valid(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """For each distinct value, whether it is a handle.

        >>> HandleMap().map(["ada", "", "ada"]).valid.tolist()
        [True, False]
        """
        return np.array([h is not None for h in self.handles], dtype=bool)

    def rows(self) -> list[str | None]:
        """Each row's handle (None: invalid).

        >>> HandleMap().map(["Ada", "", "@ada"]).rows()
        ['ada', None, 'ada']
        """
        rows: list[str | None] = self.handles[self.codes].tolist()
        return rows

    def valid_rows(self) -> int:
        """How many rows hold a handle.

        >>> HandleMap().map(["Ada", "", "@ada"]).valid_rows()
        2
        """
        return int(np.count_nonzero(self.valid[self.codes]))

    def distinct(self) -> list[str]:
        """The distinct handles, in the order of their first row.

        >>> HandleMap().map(["Bob", "", "Ada", "bob"]).distinct()
        ['bob', 'ada']
        """
        return list(dict.fromkeys(h for h in self.handles.tolist() if h is not None))

    def spread(self, per_entry: Iterable[Any]) -> list[Any]:
        """One value per distinct value (as ``handles``), repeated onto the rows.

        >>> m = HandleMap().map(["Ada", None, "ada"])
        >>> m.spread(["ok" if h else "invalid" for h in m.handles])
        ['ok', 'invalid', 'ok']
        """
        values = np.empty(len(self.handles), dtype=object)
        values[:] = list(per_entry)
        spread: list[Any] = values[self.codes].tolist()
        return spread


class HandleMap:
    """Raw values to handles, each distinct raw value normalised once over every ``map``.

    The rules are the kind's (:meth:`~lookup_pandas.identifiers.kinds.Kind.clean`). The errors
    are what ``enrich_profiles`` writes. Memory grows with the distinct raw values.

    >>> handles = HandleMap()
    >>> handles.map(["Ada", 1.0]).errors.tolist()  # one chunk of a file
    [None, 'invalid handle: not text (float)']
    >>> handles.map([1, True, "x1y"]).rows()  # the next: 1, 1.0 and True stay apart
    [None, None, 'x1y']
    """

    def __init__(self, *, fold_case: bool = True, kind: Kind = PEOPLE) -> None:
        self.fold_case = fold_case
        self.kind = kind  # whose values: people's handles, companies' slugs (kinds.COMPANIES)
        self._known: dict[Any, _Entry] = {}  # a string, or (type, value) for any other value
        self._missing: dict[type, _Entry] = {}  # the entry of a missing value, by its type

    def _entry(self, key: Any, raw: Any) -> _Entry:
        entry = self._known.get(key)
        if entry is None:
            entry = self._known[key] = self.kind.clean(raw, self.fold_case)
        return entry

    def map(self, values: Iterable[Any]) -> Mapped:
        """The handle and error of every value, by position (see :class:`Mapped`).

        ``values``: a sequence, or a Series taken as its ``tolist()`` (Python scalars).

        >>> HandleMap().map(pd.Series(["Ada", None], dtype="string")).rows()
        ['ada', None]
        """
        if isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype):
            return self._text(values, values.dtype.na_value)
        raw = _objects(values)
        missing = pd.isna(raw)
        entries: list[_Entry] = []
        if not missing.any():
            return _mapped(self._present(raw, entries), entries)
        codes = np.empty(len(raw), dtype=np.intp)
        codes[~missing] = self._present(raw[~missing], entries)
        gaps = raw[missing]
        types, _ = pd.factorize(np.fromiter(map(type, gaps), dtype=object, count=len(gaps)))
        codes[missing] = types + len(entries)
        entries.extend(self._missing_entry(first) for first in _firsts(gaps, types))
        return _mapped(codes, entries)

    def _text(self, values: pd.Series, na_value: Any) -> Mapped:
        """A column of a string dtype (text, or its one missing value ``na_value``),
        factorized as it is held."""
        found, uniques = pd.factorize(values)
        codes = np.asarray(found, dtype=np.intp)
        entries = [self._entry(s, s) for s in uniques.tolist()]
        missing = codes < 0
        if missing.any():
            codes[missing] = len(entries)
            entries.append(self._missing_entry(na_value))
        return _mapped(codes, entries)

    def _present(self, values: _Objects, entries: list[_Entry]) -> _Codes:
        """The codes of ``values``, none of them missing. A new distinct value's entry goes on
        ``entries``."""
        if infer_dtype(values, skipna=False) in ("string", "empty"):
            found, uniques = pd.factorize(values)
            entries.extend(self._entry(s, s) for s in uniques.tolist())
            return np.asarray(found, dtype=np.intp)
        return np.asarray(self._by_type_and_value(values.tolist(), entries), dtype=np.intp)

    def _missing_entry(self, value: Any) -> _Entry:
        """The entry of a value pandas counts as missing: the same for every value of its type."""
        entry = self._missing.get(type(value))
        if entry is None:
            entry = self._missing[type(value)] = self.kind.clean(value, self.fold_case)
        return entry

    def _by_type_and_value(self, values: list[Any], entries: list[_Entry]) -> list[int]:
        """Codes of values of any type (none missing), grouped by type and value. A new group's
        entry goes on ``entries``."""
        seen: dict[Any, int] = {}
        codes = []
        for value in values:
            key = value if type(value) is str else (type(value), value)
            try:
                code = seen.get(key)
            except TypeError:  # unhashable: a list, a dict... normalised on its own
                codes.append(len(entries))
                entries.append(self.kind.clean(value, self.fold_case))
                continue
            if code is None:
                code = seen[key] = len(entries)
                entries.append(self._entry(key, value))
            codes.append(code)
        return codes


def _mapped(codes: _Codes, entries: list[_Entry]) -> Mapped:
    handles = np.empty(len(entries), dtype=object)
    errors = np.empty(len(entries), dtype=object)
    handles[:] = [h for h, _ in entries]
    errors[:] = [e for _, e in entries]
    return Mapped(codes=codes, handles=handles, errors=errors)


def _objects(values: Iterable[Any]) -> _Objects:
    """``values`` as a 1-d object array of the Python scalars they hold (a list inside stays
    one element): a Series's ``tolist()``, without the copy when it holds objects already."""
    if isinstance(values, pd.Series | pd.Index):
        if values.dtype == object:
            held: _Objects = values.to_numpy()
            return held
        values = values.tolist()
    items = values if isinstance(values, list) else list(values)
    return np.fromiter(items, dtype=object, count=len(items))


def _firsts(values: _Objects, codes: np.ndarray[Any, Any]) -> list[Any]:
    """The first value of each code (codes numbered in first-seen order)."""
    _, first = np.unique(codes, return_index=True)
    firsts: list[Any] = values[first].tolist()
    return firsts
