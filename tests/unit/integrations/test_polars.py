"""Unit tests for lookup_pandas.integrations.polars: the pl_df.lookup registration, in either import
order, with or without pyarrow; no server."""

from __future__ import annotations

import subprocess

import polars as pl
import pytest

import lookup_pandas  # noqa: F401  registers pl_df.lookup (polars is imported above)
from lookup_pandas.integrations.polars import LookupNamespace

# -- registration ------------------------------------------------------------------------------


def test_the_namespace_is_registered():
    frame = pl.DataFrame({"handle": ["ada"]})
    assert isinstance(frame.lookup, LookupNamespace)
    assert "polars DataFrame" in (frame.lookup.enrich_profiles.__doc__ or "")
    assert "Estimate" in (frame.lookup.estimate_profiles.__doc__ or "")


_REGISTERS = (
    "frame = pl.DataFrame({'handle': ['ada']})\n"
    "print(type(frame.lookup).__module__, hasattr(pl.DataFrame(), 'lookup'))\n"
)
#: -W error::UserWarning: polars warns when a namespace shadows an attribute of DataFrame.
_STRICT = ["-W", "error::UserWarning", "-c"]
#: Fresh interpreters, run side by side and early (the ``fresh_runs`` fixture, tests/conftest.py).
#: The adapter is imported by a hook inside `import polars`: it must not need pyarrow there.
FRESH_RUNS = {
    "polars-first": [*_STRICT, "import polars as pl\nimport lookup_pandas\n" + _REGISTERS],
    "lookup_pandas-first": [*_STRICT, "import lookup_pandas\nimport polars as pl\n" + _REGISTERS],
    "without-pyarrow": [
        *_STRICT,
        "import sys\n"
        "sys.modules['pyarrow'] = None\n"
        "import lookup_pandas\n"
        "import polars as pl\n"
        "print(type(pl.DataFrame({'handle': ['ada']}).lookup).__name__)\n",
    ],
}


def _lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("imports", ["polars-first", "lookup_pandas-first"])
def test_the_namespace_registers_in_either_import_order(fresh_runs, imports):
    assert _lines(fresh_runs[imports]) == ["lookup_pandas.integrations.polars True"]


def test_importing_lookup_pandas_does_not_import_polars(fresh_import):
    loaded = fresh_import.after_import  # a fresh interpreter's, shared (tests/conftest.py)
    assert "lookup_pandas" in loaded
    assert not {m for m in loaded if m == "polars" or m.startswith("polars.")}
    assert "lookup_pandas.integrations.polars" not in loaded


def test_without_pyarrow_importing_polars_still_works_and_registers(fresh_runs):
    assert _lines(fresh_runs["without-pyarrow"]) == ["LookupNamespace"]
