"""``lookup-pandas cache check | repair`` end to end (in this process), on real cache files.

A healthy file: check exits 0. A damaged one: check prints one line a fact and exits 1, saying
what cache repair keeps; repair exits 0 and the re-run buys only what the check said was lost.
The file held by another process, a Redis URL and no such file are one line and exit 2, never a
traceback. ``--cache PATH`` names the file instead of LOOKUP_CACHE.
"""

from __future__ import annotations

import sqlite3

import pytest

from lookup_pandas.cache import sqlite as cache_sqlite
from lookup_pandas.cli.exits import EXIT_CONFIG, EXIT_SERVICE

from ..cache.test_repair import HANDLES, buy, middle_leaf, overwrite_page
from ..cli_helpers import CliMain

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def cli_main(capsys) -> CliMain:
    return CliMain(capsys)


@pytest.fixture
def damaged(fake_service, tmp_path):
    path = tmp_path / "leads.sqlite"
    assert buy(fake_service, path) == len(HANDLES)
    overwrite_page(path, middle_leaf(path))
    return path


def facts(text: str) -> dict[str, str]:
    return dict(line.split(":", 1) for line in text.strip().splitlines())


def test_check_of_a_healthy_cache_exits_0(cli_main, fake_service, tmp_path):
    path = tmp_path / "leads.sqlite"
    buy(fake_service, path)
    done = cli_main({"LOOKUP_CACHE": str(path)}, "cache", "check")
    assert done.returncode == 0, done.stderr
    found = facts(done.stdout)
    assert found["answers"].strip() == f"{len(HANDLES)} readable"
    assert found["verdict"].strip() == "healthy" and done.stderr == ""


def test_a_damaged_cache_is_checked_repaired_and_only_its_lost_answers_bought(
    cli_main, fake_service, damaged
):
    done = cli_main({"LOOKUP_CACHE": str(damaged)}, "cache", "check")
    assert done.returncode == EXIT_SERVICE
    found = facts(done.stdout)
    readable, lost = found["answers"].replace(",", "").split()[::2][:2]
    assert int(readable) + int(lost) == len(HANDLES) and int(lost) > 0
    assert "lookup-pandas cache repair keeps the" in found["verdict"]

    done = cli_main({}, "cache", "repair", "--cache", str(damaged))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"repaired {damaged}: kept {readable} answers")
    assert "the damaged file is kept as" in done.stdout and len(done.stdout.splitlines()) == 1
    assert buy(fake_service, damaged) == int(lost)

    done = cli_main({"LOOKUP_CACHE": str(damaged)}, "cache", "check")
    assert done.returncode == 0


def test_repair_of_a_file_another_process_holds_is_one_line_and_exit_2(
    cli_main, damaged, monkeypatch
):
    monkeypatch.setattr(cache_sqlite, "BUSY_S", 1.0)
    holder = sqlite3.connect(damaged, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        done = cli_main({"LOOKUP_CACHE": str(damaged)}, "cache", "repair")
    finally:
        holder.rollback()
        holder.close()
    assert done.returncode == EXIT_CONFIG
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"lookup-pandas: StorageError: The cache file {damaged} is open in")


@pytest.mark.parametrize("action", ["check", "repair"])
def test_a_redis_url_or_no_such_file_is_one_line_and_exit_2(cli_main, tmp_path, action):
    done = cli_main({"LOOKUP_CACHE": "redis://:secret@localhost:6379/0"}, "cache", action)
    assert done.returncode == EXIT_CONFIG
    assert done.stderr.strip() == (
        "lookup-pandas: error: check and repair are for SQLite cache files, not "
        "redis://:***@localhost:6379/0"
    )
    done = cli_main({}, "cache", action, "--cache", str(tmp_path / "none.sqlite"))
    assert done.returncode == EXIT_CONFIG
    (line,) = done.stderr.strip().splitlines()
    assert "There is no cache file" in line and "none.sqlite" in line
