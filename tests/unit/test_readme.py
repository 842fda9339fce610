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
