"""Unit tests for the argument types argparse checks (lookup_pandas.cli.options)."""

from __future__ import annotations

import argparse

import pytest

from lookup_pandas.cli.options import page_size, rate, rows


def test_argument_types():
    assert rows("0") == 0 and rows("7") == 7
    assert rate("0") == 0.0 and rate("2.5") == 2.5
    assert page_size("1") == 1
    for parse, text in (
        (rows, "-1"),
        (rows, "x"),
        (rate, "-0.5"),
        (rate, "inf"),
        (rate, "nan"),
        (page_size, "0"),
    ):
        with pytest.raises(argparse.ArgumentTypeError):
            parse(text)
