"""How the CLI reads its CSV: lookup_pandas.cli.reading (rows counted to choose chunks)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from lookup_pandas.cli.reading import count_rows


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
