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
    ],
    # as where pyspark is not installed: a finder, first, that refuses it (issue 39)
    "no-pyspark": [
        "-c",
        "import importlib.abc, inspect, io, json, pydoc, sys\n"
        "class NoSpark(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] == 'pyspark':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NoSpark())\n"
        "import lookup_pandas as lp\n"
        "names = dir(lp)\n"
        "members = [name for name, _ in inspect.getmembers(lp)]\n"
        "out = io.StringIO()\n"
        "pydoc.Helper(output=out).help(lp)\n"
        "try:\n"
        "    lp.spark\n"
        "except ModuleNotFoundError as error:\n"
        "    spark = [type(error).__name__, str(error), error.name]\n"
        "print(json.dumps({'dir': names, 'members': members, 'help': out.getvalue(),\n"
        "                  'spark': spark}))\n",
    ],
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


def test_help_dir_and_getmembers_work_without_pyspark(fresh_runs):
    # Issue 39: help(lp) raised ModuleNotFoundError through the lazy lp.spark in dir(lp)
    done = fresh_runs["no-pyspark"]
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert "spark" not in seen["dir"] and {"SearchPanel", "testing"} <= set(seen["dir"])
    assert set(seen["dir"]) <= set(seen["members"])
    assert "class JobSummary" in seen["help"] and "configure(" in seen["help"]


def test_lp_spark_without_pyspark_says_which_extra_to_install(fresh_runs):
    done = fresh_runs["no-pyspark"]
    assert done.returncode == 0, done.stderr
    kind, message, name = json.loads(done.stdout.splitlines()[-1])["spark"]
    assert kind == "ModuleNotFoundError" and name == "pyspark"
    assert "pip install 'lookup-pandas[spark]'" in message


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
