"""CSV text exactly as ``DataFrame.to_csv`` writes it: records, row parts, the header.

Example:
    >>> csv_parts(pd.DataFrame({"a": ["x", None], "b": ["y,z", "w"]}))
    ['x,"y,z"', ',w']
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

#: What ends a CSV record: what ``DataFrame.to_csv`` writes by default.
TERMINATOR = os.linesep


def split_records(text: str, terminator: str = TERMINATOR) -> list[str]:
    r"""The records of CSV text that the csv module wrote, without their line ends.

    The csv module quotes every field that holds a line end, and doubles a quote inside a quoted
    field. So a line end ends its record when the record has an even number of quotes before it.

    Example:
        >>> split_records('a,"x\ny"\nb,c\n', "\n")
        ['a,"x\ny"', 'b,c']
    """
    pieces = text.split(terminator)
    if pieces.pop() != "":
        raise ValueError("CSV text must end with a line end")
    if '"' not in text:
        return pieces
    records: list[str] = []
    pending: list[str] = []
    odd = False
    for piece in pieces:
        pending.append(piece)
        odd ^= piece.count('"') % 2 == 1
        if not odd:
            records.append(terminator.join(pending))
            pending = []
    if pending:
        raise ValueError("CSV text ends inside a quoted field")
    return records


def csv_parts(frame: pd.DataFrame) -> list[str]:
    """Each row of ``frame`` as ``to_csv(index=False)`` writes its cells, without the line end.

    Parts of one row join with "," into that row. A lone empty field is an empty part (the csv
    module writes it as ``""``).

    Example:
        >>> csv_parts(pd.DataFrame({"a": ["x", None], "b": ["y,z", "w"]}))
        ['x,"y,z"', ',w']
    """
    if frame.shape[1] == 0:
        return [""] * len(frame)
    text = frame.to_csv(index=False, header=False, lineterminator=TERMINATOR)
    parts = split_records(text)
    if frame.shape[1] == 1:
        parts = ["" if part == '""' else part for part in parts]
    if len(parts) != len(frame):  # pragma: no cover - the rules above hold for the csv module
        raise AssertionError(f"{len(frame)} rows, {len(parts)} CSV records")
    return parts


def csv_header(columns: Sequence[Any]) -> str:
    """The header line ``to_csv`` writes for these columns, line end included.

    Example:
        >>> csv_header(["name", "a,b"]) == 'name,"a,b"' + TERMINATOR
        True
    """
    return pd.DataFrame(columns=list(columns)).to_csv(index=False, lineterminator=TERMINATOR)
