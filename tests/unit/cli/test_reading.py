"""How the CLI reads its CSV: lookup_pandas.cli.reading (rows counted to choose chunks)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from lookup_pandas.cli.exits import InputError
from lookup_pandas.cli.reading import _undecodable, count_rows, read_csv


def test_count_rows_counts_the_rows_below_the_header(tmp_path: Path) -> None:
    leads = tmp_path / "leads.csv"
    pd.DataFrame({"handle": ["ada", "grace", ""]}).to_csv(leads, index=False)
    assert count_rows(str(leads), 100) == 3
    leads.write_text("handle\nada\ngrace")  # no line end after the last row
    assert count_rows(str(leads), 100) == 2
    leads.write_text("handle\n")
    assert count_rows(str(leads), 100) == 0
    leads.write_text("")
    assert count_rows(str(leads), 100) == 0


def test_count_rows_stops_past_enough_and_may_only_over_count(tmp_path: Path) -> None:
    leads = tmp_path / "leads.csv"
    leads.write_text("handle\n" + "ada\n" * 10_000)
    assert count_rows(str(leads), 100) == 101  # more than enough: stops counting
    assert count_rows(str(leads), 10_000) == 10_000
    quoted = tmp_path / "quoted.csv"
    pd.DataFrame({"handle": ["ada"], "note": ["two\nlines"]}).to_csv(quoted, index=False)
    assert count_rows(str(quoted), 100) == 2  # one row; its line break counted: chunks, at worst


def test_count_rows_of_no_regular_file_is_unknown(tmp_path: Path) -> None:
    assert count_rows("-", 100) is None  # standard input
    assert count_rows(str(tmp_path), 100) is None  # a directory
    assert count_rows(str(tmp_path / "missing.csv"), 100) is None


def test_a_byte_that_cannot_be_decoded_is_named_by_its_true_line_and_offset(tmp_path: Path) -> None:
    # Issue 39: the error said "byte 1" wherever the byte was (pandas' position in its buffer)
    leads = tmp_path / "leads.csv"
    head = b"handle,name\n" + b"ada,Ada\n" * 300_000  # 2.4 MB: the byte lies past two blocks
    leads.write_bytes(head + b"jose,Jos\xe9\n")
    with pytest.raises(InputError) as refused:
        read_csv(str(leads), "utf-8")
    offset = len(head) + len("jose,Jos")
    assert f"(line 300002, byte offset {offset}: 0xe9: invalid continuation byte)" in str(
        refused.value
    )
    assert leads.read_bytes()[offset] == 0xE9  # counted from the file's first byte


def test_a_character_across_two_blocks_is_no_error(tmp_path: Path) -> None:
    leads = tmp_path / "leads.csv"
    text = b"handle\n" + b"a" * (2**20 - 8) + "é\n".encode()  # é's two bytes either side
    assert text[2**20 - 1 : 2**20 + 1] == "é".encode()
    leads.write_bytes(text)
    assert _undecodable(str(leads), "utf-8") is None
    assert _undecodable("-", "utf-8") is None  # standard input cannot be read again
