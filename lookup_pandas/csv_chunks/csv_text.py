"""CSV text exactly as ``DataFrame.to_csv`` writes it: records, row parts, the header."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

#: What ends a CSV record: what ``DataFrame.to_csv`` writes by default.
TERMINATOR = os.linesep


def split_records(text: str, terminator: str = TERMINATOR) -> list[str]:
    r"""The records of CSV text that the csv module wrote (as pandas does: minimal quoting,
    quotes doubled), without their line ends.

    Example: ``split_records('a,"x\ny"\nb,c\n', "\n")`` -> ``['a,"x\ny"', 'b,c']``

    The csv module quotes every field holding a character of the line end, and doubles a
    quote inside a quoted field; so a line end with an even number of quotes before it, in
    its record, ends the record, and any other is inside a quoted field.
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
    """Each row of ``frame`` as ``frame.to_csv(index=False)`` writes its cells: quoted where
    needed, joined by commas, no line end. Parts of one row join with "," into that row.

    Example: ``csv_parts(pd.DataFrame({"a": ["x", None], "b": ["y,z", "w"]}))`` ->
    ``['x,"y,z"', ',w']``

    Pandas does every cell (missing values, numbers, flags, quoting); a lone empty field,
    which the csv module writes as ``""`` (an empty line would be no row at all), is an empty
    part: within a longer row it is written as nothing.
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
    r"""The header line ``to_csv`` writes for these columns, line end included.

    Example: ``csv_header(["name", "a,b"])`` -> ``'name,"a,b"\n'``
    """
    return pd.DataFrame(columns=list(columns)).to_csv(index=False, lineterminator=TERMINATOR)
