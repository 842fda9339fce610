"""Unit tests for lookup_pandas.csv_chunks.scan, pass 1 of a chunked CSV: when to chunk, and the
distinct handles of the raw values in first-seen order across chunks."""

from __future__ import annotations

import pandas as pd
import pytest

from lookup_pandas.csv_chunks.scan import (
    AUTO_CHUNK_ROWS,
    CHUNK_ROWS,
    Scan,
    chunk_rows,
    scan_handles,
)
from lookup_pandas.identifiers.distinct import HandleMap

# -- when to chunk -------------------------------------------------------------------------------


def test_chunk_rows_asked_never_and_by_the_rows():
    assert chunk_rows(7, 10) == 7  # asked for, whatever the rows
    assert chunk_rows(0, 10 * AUTO_CHUNK_ROWS) is None  # 0: never
    assert chunk_rows(None, AUTO_CHUNK_ROWS + 1) == CHUNK_ROWS
    assert chunk_rows(None, AUTO_CHUNK_ROWS) is None  # one chunk's worth: read whole
    assert chunk_rows(None, None) is None  # not a regular file: rows unknown
    assert chunk_rows(None, 2_000, threshold=1_000) == CHUNK_ROWS
    assert chunk_rows(None, 500, threshold=1_000) is None
    with pytest.raises(ValueError):
        chunk_rows(-1, 10)


def test_the_cli_help_states_the_threshold_and_the_chunk_size():
    from lookup_pandas.cli.parser import build_parser

    enrich = build_parser()._subparsers._group_actions[0].choices["enrich"]  # type: ignore[union-attr]
    text = " ".join(enrich.format_help().split())
    assert f"{CHUNK_ROWS}-row chunks for an input of more than {AUTO_CHUNK_ROWS} rows" in text
    assert "--chunk-threshold" not in text  # for tests only


# -- raw values to handles ----------------------------------------------------------------------


def test_scan_counts_rows_and_keeps_distinct_handles_in_first_seen_order():
    chunks = [
        pd.Series(["bob", "", "Amy"], dtype="str"),
        pd.Series(["amy", "https://www.example.com/in/cid/", None], dtype="str"),
        pd.Series(["BOB", "dan"], dtype="str"),
    ]
    scan = scan_handles(chunks, HandleMap())
    assert (scan.rows, scan.valid, scan.distinct) == (8, 6, ["bob", "amy", "cid", "dan"])
    assert scan_handles([], HandleMap()) == Scan(0, 0, [])
