"""Records kept as JSON text by handle, and the dtypes one frame of them all would have.

Example:
    >>> store = FlatRecords()
    >>> store.add("ada", {"id": "prsn_1", "geo": {"city": "Oslo"}, "n": 3})
    >>> store.pop("ada")
    {'id': 'prsn_1', 'geo.city': 'Oslo', 'n': 3}
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import Any

from ..frames.records import flatten, records_to_frame, with_nullable_dtypes

#: A flattened record's fields, each with the type of its value (None: missing).
_Layout = tuple[tuple[str, type | None], ...]


class FlatRecords:
    """Records kept flattened, as JSON text, by handle, with their layouts for :class:`ColumnKinds`.

    ``store.add`` is what ``lookup_values(on_record=...)`` hands each record to. A layout is a
    record's fields and the type of each value. One record of each layout is enough to type the
    columns, and a file's records share a few layouts.

    Example:
        >>> store = FlatRecords()
        >>> store.add("ada", {"id": "prsn_1", "n": 3})
        >>> store.add("bob", {"id": "prsn_2", "n": 4})  # the same layout as ada's
        >>> list(store.examples(["ada", "bob"]))  # one record of each layout
        [{'id': 'prsn_1', 'n': 3}]
        >>> "bob" in store, len(store)
        (True, 2)
    """

    def __init__(self) -> None:
        self._text: dict[str, str] = {}
        self._layout: dict[str, _Layout] = {}  # handle -> its layout
        self._shared: dict[Any, Any] = {}  # each layout, and each of its fields, kept once
        self._sample: dict[tuple[str, type], Any] = {}  # (field, type) -> a value of it

    def add(self, handle: str, record: dict[str, Any]) -> None:
        flat = flatten(record)
        shared = self._shared
        fields = []
        for name, value in flat.items():
            field = (name, None if _missing(value) else type(value))
            if field not in shared:
                shared[field] = field
                if field[1] is not None:
                    self._sample[(name, field[1])] = value
            fields.append(shared[field])
        layout = tuple(fields)
        self._layout[handle] = shared.setdefault(layout, layout)
        self._text[handle] = json.dumps(flat)

    def pop(self, handle: str) -> dict[str, Any]:
        """The flattened record, which the store lets go of."""
        del self._layout[handle]
        flat: dict[str, Any] = json.loads(self._text.pop(handle))
        return flat

    def examples(self, handles: Iterable[str]) -> Iterator[dict[str, Any]]:
        """For each layout, in the order of ``handles``' records, a flattened record of it.

        Each field holds a value of its type, or None.
        """
        seen: set[_Layout] = set()
        for handle in handles:
            layout = self._layout[handle]
            if layout not in seen:
                seen.add(layout)
                yield {name: kind and self._sample[(name, kind)] for name, kind in layout}

    def __contains__(self, handle: object) -> bool:
        return handle in self._text

    def __len__(self) -> int:
        return len(self._text)


def _missing(value: Any) -> bool:
    """A value pandas counts as missing in a column of JSON values (None, NaN)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


class ColumnKinds:
    """The columns of flattened records, in first-seen order, and the dtype each has in one frame.

    It sees one record at a time. The dtypes are the nullable ones (``Int64``, ``boolean``), since
    rows without a record take missing values. pandas writes them as it writes ``int64`` and
    ``bool``.

    Example:
        >>> kinds = ColumnKinds()
        >>> kinds.add({"id": "p1", "n": 3})
        >>> kinds.add({"id": "p2", "n": 3.5, "x": None})
        >>> kinds.columns
        ['id', 'n', 'x']
        >>> dtypes = kinds.dtypes()
        >>> str(dtypes["n"]), "x" in dtypes  # x holds no value
        ('float64', False)
    """

    def __init__(self) -> None:
        self._firsts: dict[str, dict[type, Any]] = {}  # column -> type -> its first value

    @property
    def columns(self) -> list[str]:
        return list(self._firsts)

    def add(self, flat: dict[str, Any]) -> None:
        """Take a flattened record (:func:`lookup_pandas.frames.records.flatten`)."""
        for name, value in flat.items():
            firsts = self._firsts.setdefault(name, {})
            if not _missing(value):
                firsts.setdefault(type(value), value)

    def dtypes(self) -> dict[str, Any]:
        """The dtype of each column that holds a value (one with none stays object)."""
        sample = [{name: v} for name, firsts in self._firsts.items() for v in firsts.values()]
        if not sample:
            return {}
        typed = with_nullable_dtypes(records_to_frame(sample))
        return {str(name): dtype for name, dtype in typed.dtypes.items()}
