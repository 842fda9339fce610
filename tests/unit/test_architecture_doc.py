"""docs/architecture.md is drawn from the folders: every file it names exists where it says,
and its layer diagram is the import-linter contract's order."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "lookup_pandas"
PAGE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = PAGE.index(f"## {title}\n")
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start : end if end != -1 else None]


def _code_block(section: str) -> str:
    return section.split("```text\n", 1)[1].split("```", 1)[0]


def test_every_path_with_a_folder_exists() -> None:
    paths = set(re.findall(r"\b((?:[a-z_]+/)+[a-z_]+\.py)\b", PAGE))
    assert len(paths) > 30
    missing = sorted(p for p in paths if not (PACKAGE / p).exists() and not (ROOT / p).exists())
    assert not missing, missing


def test_each_folder_paragraph_names_modules_of_that_folder() -> None:
    paragraphs = _section("The folders, bottom up").split("\n\n")
    checked = 0
    for paragraph in paragraphs:
        folder = re.match(r"\*\*`([a-z_]+)/`\*\*", paragraph)
        if not folder:
            continue
        names = re.findall(r"`([a-z_]+\.py)`", paragraph)
        missing = [n for n in names if not (PACKAGE / folder.group(1) / n).exists()]
        assert not missing, (folder.group(1), missing)
        checked += len(names)
    assert checked > 40


def test_the_data_path_names_files_that_exist_from_the_accessor_to_the_socket() -> None:
    block = _code_block(_section("One enrichment, end to end"))
    steps = re.findall(r"^\s*([a-z_/]+\.py)\b", block, re.M)
    assert steps[0] == "accessor.py" and "http/session.py" in steps
    missing = [s for s in steps if not (PACKAGE / s).is_file()]
    assert not missing, missing


def test_the_layer_diagram_is_the_contracts_order() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = config["tool"]["importlinter"]["contracts"]
    drawn = _code_block(_section("The layers")).splitlines()
    assert len(drawn) == len(contract["layers"])
    for line, layer in zip(drawn, contract["layers"], strict=True):
        names = re.split(r"\s*[|:]\s*", layer)
        shown = re.findall(r"([a-z_]+)(?:/|\.py)", line)
        assert set(names) <= set(shown), (layer, line)


#: Every subpackage (data/ holds the sample CSV only).
FOLDERS = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_folder_of_the_package_is_on_the_page(folder: str) -> None:
    assert f"`{folder}/`" in PAGE
