"""Pass 1 of a chunked CSV: when to chunk, and the distinct handles of the raw values.

Example:
    >>> chunk_rows(None, rows=500_000)  # more rows than AUTO_CHUNK_ROWS: chunks of 10,000
    10000
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from ..identifiers.distinct import HandleMap

#: Rows per chunk when chunking was not asked for; a file with more rows than this is read in
#: chunks unasked. A chunk's own memory, and a file's count of rows, do not depend on how many
#: of its values repeat; the whole-file path's does (every row's record is joined on).
#: An input of more rows than this is read in chunks unasked (its bytes do not matter).
AUTO_CHUNK_ROWS = 50_000
#: Rows per chunk then: smaller chunks lower the peak (a 500,000-row export: 228 MiB at 10,000,
#: 239 at 50,000) and cost no time, since the distinct values are enriched once, not per chunk.
CHUNK_ROWS = 10_000


def chunk_rows(requested: int | None, rows: int | None, threshold: int | None = None) -> int | None:
    """Rows per chunk, or None to read the file whole.

    ``requested`` is what the user asked for (0: never chunk). ``rows`` is how many rows the input
    has, at least (None when unknown, as for standard input). ``threshold`` is the row count above
    which it is chunked unasked (default :data:`AUTO_CHUNK_ROWS`).

    Example:
        >>> chunk_rows(None, 500_000), chunk_rows(None, 10_000), chunk_rows(None, None)
        (10000, None, None)
        >>> chunk_rows(0, 500_000), chunk_rows(500, 10)
        (None, 500)
    """
    if requested is not None:
        if requested < 0:
            raise ValueError(f"rows per chunk must be 0 or more, not {requested}")
        return requested or None
    if rows is not None and rows > (AUTO_CHUNK_ROWS if threshold is None else threshold):
        return CHUNK_ROWS
    return None


class InputChanged(Exception):
    """The file read in pass 2 is not the one read in pass 1 (it changed meanwhile)."""


@dataclass(frozen=True)
class Scan:
    """Pass 1's findings: ``rows``, the ``valid`` rows, and the ``distinct`` handles.

    The handles are in first-seen order, the order enrichment takes its records in.

    Example:
        >>> Scan(rows=4, valid=3, distinct=["ada", "grace"]).distinct
        ['ada', 'grace']
    """

    rows: int
    valid: int
    distinct: list[str]


def scan_handles(columns: Iterable[pd.Series], handles: HandleMap) -> Scan:
    """Pass 1: count rows and valid rows and collect the distinct handles, chunk by chunk.

    Example:
        >>> scan_handles([pd.Series(["ada", ""]), pd.Series(["grace", "Ada"])], HandleMap())
        Scan(rows=4, valid=3, distinct=['ada', 'grace'])
    """
    rows = valid = 0
    distinct: dict[str, None] = {}
    for values in columns:
        mapped = handles.map(values)
        rows += len(values)
        valid += mapped.valid_rows()
        distinct.update(dict.fromkeys(mapped.distinct()))
    return Scan(rows=rows, valid=valid, distinct=list(distinct))
