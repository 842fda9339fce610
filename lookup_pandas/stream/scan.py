"""Pass 1 of a chunked CSV: when to chunk, raw values to handles, the distinct handles."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from ..distinct import HandleMap as HandleMap
from ..distinct import Mapped as Mapped

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
        valid += mapped.valid_rows()
        distinct.update(dict.fromkeys(mapped.distinct()))
    return Scan(rows=rows, valid=valid, distinct=list(distinct))
