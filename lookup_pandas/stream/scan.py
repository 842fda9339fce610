"""Pass 1 of a chunked CSV: when to chunk, raw values to handles, the distinct handles."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..handles import normalise_handle
from ..kinds import PEOPLE, Kind

#: An input file larger than this (bytes) is read in chunks even without ``--chunksize``.
AUTO_CHUNK_BYTES = 64 * 2**20
#: Rows per chunk when chunking was not asked for (a chunk of a few columns: tens of MiB).
AUTO_CHUNK_ROWS = 100_000


def chunk_rows(requested: int | None, size: int | None, threshold: int | None = None) -> int | None:
    """Rows per chunk, or None to read the file whole.

    Example: ``chunk_rows(None, 80 * 2**20)`` -> ``100_000`` (over 64 MiB: chunks);
    ``chunk_rows(None, 10_000)`` -> ``None``; ``chunk_rows(0, 80 * 2**20)`` -> ``None``
    (0: never chunk); ``chunk_rows(500, 10)`` -> ``500`` (asked for).

    ``size`` is the input's size in bytes (None when unknown: not chunked unless asked);
    ``threshold`` the size above which it is chunked unasked (default AUTO_CHUNK_BYTES).
    """
    if requested is not None:
        if requested < 0:
            raise ValueError(f"rows per chunk must be 0 or more, not {requested}")
        return requested or None
    if size is not None and size > (AUTO_CHUNK_BYTES if threshold is None else threshold):
        return AUTO_CHUNK_ROWS
    return None


class InputChanged(Exception):
    """The file read in pass 2 is not the one read in pass 1 (it changed meanwhile)."""


@dataclass(frozen=True)
class Mapped:
    """A column of raw values, as distinct values and positions.

    ``codes[i]`` is row i's position in ``handles`` / ``errors``: one entry per distinct raw
    value (in first-seen order), then one for a missing value (code -1 picks it).
    """

    codes: np.ndarray[Any, np.dtype[np.intp]]
    handles: np.ndarray[Any, np.dtype[np.object_]]  # the handle, or None when invalid
    errors: np.ndarray[Any, np.dtype[np.object_]]  # the lookup_error when invalid, else None

    @property
    def valid(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """For each distinct value: is it a handle."""
        return np.array([h is not None for h in self.handles], dtype=bool)


class HandleMap:
    """Raw values to handles, normalising each distinct raw value once over the whole file.

    Example::

        handles = HandleMap()
        m = handles.map(pd.Series(["Ada", "@ada", None, "ada", "N/A"]))
        m.handles[m.codes]    # ["ada", "ada", None, "ada", None]
        m.errors[m.codes]     # [None, None, "invalid handle: missing", None,
                              #  "invalid handle: missing"]

    The rules are :func:`lookup_pandas.handles.normalise_handle`'s, with ``fold_case``; the
    errors are what ``enrich_profiles`` writes. Memory grows with the distinct raw values.
    """

    def __init__(self, *, fold_case: bool = True, kind: Kind = PEOPLE) -> None:
        self.fold_case = fold_case
        self.kind = kind  # whose values: people's handles, companies' slugs (kinds.COMPANIES)
        self._known: dict[Any, tuple[str | None, str | None]] = {}
        self._missing = (None, kind.invalid_error(math.nan, fold_case))

    def _entry(self, raw: Any) -> tuple[str | None, str | None]:
        entry = self._known.get(raw)
        if entry is None:
            handle = normalise_handle(raw, fold_case=self.fold_case, rules=self.kind.rules)
            error = None if handle is not None else self.kind.invalid_error(raw, self.fold_case)
            entry = (handle, error)
            self._known[raw] = entry
        return entry

    def map(self, values: pd.Series) -> Mapped:
        """The handle and error of every value, by position (see :class:`Mapped`)."""
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        entries = [self._entry(raw) for raw in uniques]
        entries.append(self._missing)  # code -1: a missing value
        handles = np.empty(len(entries), dtype=object)
        errors = np.empty(len(entries), dtype=object)
        handles[:] = [h for h, _ in entries]
        errors[:] = [e for _, e in entries]
        return Mapped(codes=np.asarray(codes, dtype=np.intp), handles=handles, errors=errors)


@dataclass(frozen=True)
class Scan:
    """Pass 1's findings: ``rows``, the ``valid`` rows, and the ``distinct`` handles in
    first-seen order (the order enrichment takes its records in)."""

    rows: int
    valid: int
    distinct: list[str]


def scan_handles(columns: Iterable[pd.Series], handles: HandleMap) -> Scan:
    """Pass 1: count rows and valid rows and collect the distinct handles, chunk by chunk.

    Example: ``scan_handles([pd.Series(["ada", ""]), pd.Series(["grace", "Ada"])],
    HandleMap())`` -> ``Scan(rows=4, valid=3, distinct=["ada", "grace"])``
    """
    rows = valid = 0
    distinct: dict[str, None] = {}
    for values in columns:
        mapped = handles.map(values)
        rows += len(values)
        valid += int(np.count_nonzero(mapped.valid[mapped.codes]))
        # factorize lists the raw values in first-seen order: so are their handles
        distinct.update(dict.fromkeys(h for h in mapped.handles if h is not None))
    return Scan(rows=rows, valid=valid, distinct=list(distinct))
