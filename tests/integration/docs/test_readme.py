"""The README's Python examples run, as written, against the emulator in both record modes.

Each ```python block of the README's quick start is executed in order in one namespace, with
``lp.configure(...)`` pointed at the emulator and ``leads.csv`` the bundled sample lead list:
so an example that names a field or a filter production does not have fails here.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import lookup_pandas as lp
from lookup_pandas.demo import sample_leads_path

README = Path(__file__).resolve().parents[3] / "README.md"
CONFIGURE = re.compile(r"^lp\.configure\(.*$", re.MULTILINE)


def quick_start_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 4, "the quick start's four Python examples"
    return blocks


@pytest.mark.parametrize("sparse", [False, True], ids=["full", "sparse"])
def test_the_quick_start_examples_run_against_the_emulator(
    fake_service, tmp_path, monkeypatch, isolated_default_client, sparse
):
    fake_service.configure(sparse_records=sparse)
    shutil.copy(sample_leads_path(), tmp_path / "leads.csv")
    monkeypatch.chdir(tmp_path)
    blocks = quick_start_blocks()
    assert CONFIGURE.search(blocks[0]), "the first example configures the client"
    configure = (
        f"lp.configure(api_key={fake_service.api_key!r}, "
        f"base_url={fake_service.base_url!r}, cache='readme.sqlite')"
    )
    namespace: dict = {}
    for block in blocks:
        exec(compile(CONFIGURE.sub(configure, block), "README.md", "exec"), namespace)
    enriched = namespace["enriched"]
    assert enriched["lookup_status"].value_counts().to_dict() == {
        "ok": 225,
        "invalid": 15,
        "not_found": 10,
    }
    assert lp.overview(enriched, prefix="profile_")["handle"].notna().sum() == 225
    # the CRM export: every address that can be one verified, every row's work email looked for
    assert namespace["checked"]["lookup_status"].value_counts().to_dict() == {"ok": 8, "invalid": 6}
    assert namespace["found"]["email_found"].sum() >= 10
    assert "unsupported" in set(namespace["behind"]["lookup_status"])
