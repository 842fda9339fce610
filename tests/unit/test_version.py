"""One version, defined in lookup_pandas/_version.py: the build reads it from there, and
``lp.__version__``, ``lookup-pandas --version`` and CHANGELOG.md's latest release agree.

tests/integration/packaging/test_wheel.py checks the built wheel's name and metadata too.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import lookup_pandas as lp
from lookup_pandas import _version
from lookup_pandas.cli import main

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG = ROOT / "CHANGELOG.md"
#: A release's heading in Keep a Changelog's form: ``## [1.2.3] - 2026-11-27``.
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$")
SECTIONS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def released() -> list[tuple[str, str]]:
    """CHANGELOG.md's releases, newest first: (version, date)."""
    found = (RELEASE.match(line) for line in CHANGELOG.read_text(encoding="utf-8").splitlines())
    return [(m[1], m[2]) for m in found if m]


def test_the_version_is_defined_once_and_the_build_reads_it_from_there():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "lookup_pandas/_version.py"
    assert lp.__version__ is _version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", lp.__version__)


def test_the_command_line_shows_the_package_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"lookup-pandas {lp.__version__}\n"


def test_the_changelog_s_latest_release_is_the_package_version():
    releases = released()
    assert releases, "CHANGELOG.md names no release"
    assert releases[0][0] == lp.__version__
    dates = [date for _, date in releases]
    assert dates == sorted(dates, reverse=True)  # newest first


def test_the_changelog_is_in_keep_a_changelog_form():
    lines = CHANGELOG.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# Changelog"
    assert "https://keepachangelog.com/en/1.1.0/" in CHANGELOG.read_text(encoding="utf-8")
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[0] == "## [Unreleased]"  # the work after the latest release, on top
    assert all(RELEASE.match(h) for h in headings[1:]), headings
    sections = {line[4:] for line in lines if line.startswith("### ")}
    assert sections <= SECTIONS, sections - SECTIONS
