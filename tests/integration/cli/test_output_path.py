"""``-o`` naming the input file is refused (issue 30, item 5): exit 2, one line, nothing sent,
the input untouched, however the path is written, for people and companies, whole or in chunks.

The finding: ``lookup-pandas enrich IN.csv -o IN.csv`` overwrote the input, and the next run
failed with "would overwrite 21 existing columns".
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ..cli_helpers import CliMain

PEOPLE = "name,handle\nAda,ada-lovelace\nGrace,grace-hopper\nAlan,alan-turing\n"
COMPANIES = "name,slug\nAcme,acme\nGlobex,globex\nInitech,initech\n"


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def _same(work: Path) -> str:
    return "in.csv"


def _dot(work: Path) -> str:
    return "./in.csv"


def _up_and_down(work: Path) -> str:
    (work / "sub").mkdir()
    return "sub/../in.csv"


def _absolute(work: Path) -> str:
    return str(work / "in.csv")


def _symlink(work: Path) -> str:
    (work / "link.csv").symlink_to(work / "in.csv")
    return "link.csv"


def _hard_link(work: Path) -> str:
    os.link(work / "in.csv", work / "hard.csv")
    return "hard.csv"


#: How ``-o`` names the input (``in.csv`` in the working directory), each made on disk first.
SPELLINGS: dict[str, Callable[[Path], str]] = {
    "the same name": _same,
    "./": _dot,
    "dir/..": _up_and_down,
    "absolute": _absolute,
    "a symlink": _symlink,
    "a hard link": _hard_link,
}


@pytest.mark.parametrize("chunks", ["0", "2"], ids=["whole", "chunked"])
@pytest.mark.parametrize("companies", [False, True], ids=["people", "companies"])
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_an_output_that_is_the_input_is_refused_before_anything_is_sent(
    cli_main, fake_service, tmp_path, spelling, companies, chunks
):
    work = tmp_path / "work"
    work.mkdir()
    leads = work / "in.csv"
    leads.write_text(COMPANIES if companies else PEOPLE)
    before = leads.read_bytes()
    output = SPELLINGS[spelling](work)
    listed = sorted(p.name for p in work.iterdir())
    env = {
        "LOOKUP_BASE_URL": fake_service.base_url,
        "LOOKUP_API_KEY": fake_service.api_key,
        "LOOKUP_CACHE": str(tmp_path / "c.sqlite"),
    }
    kind = ["--companies"] if companies else []
    done = cli_main(
        env, "enrich", "in.csv", *kind, "-o", output, "--chunksize", chunks, "--no-progress",
        cwd=work,
    )  # fmt: skip

    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"lookup-pandas: error: cannot write {output}: it is the input file")
    assert "name another file with -o" in line
    assert done.stdout == ""
    assert fake_service.count() == 0
    assert leads.read_bytes() == before
    assert sorted(p.name for p in work.iterdir()) == listed  # no part file left behind


def test_another_output_beside_the_input_is_written(cli_main, fake_service, tmp_path):
    """The refusal is of the same file only: a new name in the same directory is fine, and
    a re-run onto that output (now existing) is too."""
    leads = tmp_path / "in.csv"
    leads.write_text(PEOPLE)
    env = {
        "LOOKUP_BASE_URL": fake_service.base_url,
        "LOOKUP_API_KEY": fake_service.api_key,
        "LOOKUP_CACHE": str(tmp_path / "c.sqlite"),
    }
    for _ in range(2):
        done = cli_main(env, "enrich", "in.csv", "-o", "./out.csv", "--no-progress", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    assert leads.read_text() == PEOPLE
    assert (tmp_path / "out.csv").read_text().startswith("name,handle,")
    assert fake_service.billed() == 3
