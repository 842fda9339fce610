"""README.md is the first ten minutes: at most 10 KiB, and its table leads to every guide.

Its Python examples run against the emulator in tests/integration/docs/test_readme.py.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: Relative links, as GitHub follows them: [text](path) and [text](path#anchor).
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_at_most_10_kib() -> None:
    assert len(README.read_bytes()) <= 10_240


def test_every_link_of_the_readme_leads_to_a_file_of_the_repository() -> None:
    links = [link for link in LINK.findall(README.read_text(encoding="utf-8")) if "://" not in link]
    assert links
    missing = [link for link in links if not (ROOT / link).exists()]
    assert not missing, missing


def test_the_readme_links_every_guide() -> None:
    text = README.read_text(encoding="utf-8")
    guides = sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name != "index.md")
    assert len(guides) >= 13
    unlinked = [name for name in guides if f"](docs/{name})" not in text]
    assert not unlinked, unlinked


def test_the_install_says_how_without_a_package_index() -> None:
    # Issue 39: "pip install lookup-pandas" fails where the index does not have the package
    install = README.read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    assert "pip install lookup-pandas" in install
    assert "`pip install .`" in install and "`pip install dist/lookup_pandas-*.whl`" in install
    assert "make dist" in install


def test_the_readme_says_where_its_relative_links_lead() -> None:
    # Issue 39: on a package index's page they lead nowhere; the source holds every guide
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "The links below are relative to the source, a clone or the sdist" in text
