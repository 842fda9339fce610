"""What importing lookup_pandas costs: checked in a fresh interpreter, by sys.modules (one
interpreter for the package's tests here and elsewhere: the ``fresh_import`` fixture)."""

from __future__ import annotations

import json

import lookup_pandas as lp

HEAVY = ("ipywidgets", "tqdm.notebook", "lookup_pandas.widgets.panel", "lookup_pandas.testing")


#: Fresh interpreters, run early beside the other tests (the ``fresh_runs`` fixture,
#: tests/conftest.py); ``import lookup_pandas`` itself is the ``fresh_import`` fixture's.
FRESH_RUNS = {
    "plugin": [
        "-c",
        "import json, sys, pytest_lookup_pandas; print(json.dumps(sorted(sys.modules)))",
    ]
}


def test_importing_the_package_loads_no_widget_toolkit_and_no_emulator(fresh_import):
    loaded = fresh_import.after_import
    assert not loaded & set(HEAVY), loaded & set(HEAVY)
    assert "pandas" in loaded  # importing registers df.lookup: that needs pandas


def test_the_panel_and_the_emulator_load_on_first_use(fresh_import):
    loaded = fresh_import.after_first_use
    assert {"ipywidgets", "lookup_pandas.widgets.panel", "lookup_pandas.testing"} <= loaded


def test_lazy_names_are_listed_and_exported():
    assert {"SearchPanel", "testing"} <= set(dir(lp))
    assert "SearchPanel" in lp.__all__
    assert lp.SearchPanel.__name__ == "SearchPanel"


def test_the_pytest_plugin_imports_nothing_heavy_until_a_fixture_is_used(fresh_runs):
    # pytest loads it in every run of every project that installs lookup_pandas
    done = fresh_runs["plugin"]
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    heavy = {"pandas", "requests", "requests_cache", "ipywidgets", "lookup_pandas"}
    assert not loaded & heavy, loaded & heavy


def test_the_pytest_plugin_is_the_registered_entry_point():
    from importlib.metadata import entry_points

    plugins = {e.name: e.value for e in entry_points(group="pytest11")}
    assert plugins.get("lookup_pandas") == "pytest_lookup_pandas"
