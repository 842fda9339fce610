"""What importing lookup_pandas costs: checked in a fresh interpreter, by sys.modules."""

from __future__ import annotations

import json
import subprocess
import sys

import lookup_pandas as lp

HEAVY = ("ipywidgets", "tqdm.notebook", "lookup_pandas.widgets", "lookup_pandas.testing")


def _modules_after(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_importing_the_package_loads_no_widget_toolkit_and_no_emulator():
    loaded = _modules_after("import lookup_pandas")
    assert not loaded & set(HEAVY), loaded & set(HEAVY)
    assert "pandas" in loaded  # importing registers df.lookup: that needs pandas


def test_the_panel_and_the_emulator_load_on_first_use():
    loaded = _modules_after("import lookup_pandas as lp\nlp.SearchPanel\nlp.testing.FakeService")
    assert {"ipywidgets", "lookup_pandas.widgets", "lookup_pandas.testing"} <= loaded


def test_lazy_names_are_listed_and_exported():
    assert {"SearchPanel", "testing"} <= set(dir(lp))
    assert "SearchPanel" in lp.__all__
    assert lp.SearchPanel.__name__ == "SearchPanel"


def test_the_pytest_plugin_imports_nothing_heavy_until_a_fixture_is_used():
    # pytest loads it in every run of every project that installs lookup_pandas
    loaded = _modules_after("import pytest_lookup_pandas")
    heavy = {"pandas", "requests", "requests_cache", "ipywidgets", "lookup_pandas"}
    assert not loaded & heavy, loaded & heavy


def test_the_pytest_plugin_is_the_registered_entry_point():
    from importlib.metadata import entry_points

    plugins = {e.name: e.value for e in entry_points(group="pytest11")}
    assert plugins.get("lookup_pandas") == "pytest_lookup_pandas"
