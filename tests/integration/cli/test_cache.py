"""``lookup-pandas cache info | prune | clear | forget`` end to end (in this process; y/N asked on
a pseudo-terminal in a real one).

The cache is filled through the emulator in this process; the commands run with
``LOOKUP_CACHE`` alone (no API key, no base URL: they touch the cache only). What is checked:
info's figures agree with the Client's; prune removes what expired; clear refuses without a
terminal unless ``--yes``, asks y/N on one (a pseudo-terminal here), and empties the cache;
forget takes handles, profile URLs and ``--from-csv FILE -c COLUMN`` (skipping cells that are
no handle), leaves no byte of them in the files, and a removal another process kept from being
complete exits 5 with one line; bad input is one line and exit 2, never a traceback.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from lookup_pandas.testing import FakeService

from ..cache.test_admin import (
    EMPLOYED,
    SEARCHED,
    enrich,
    fill,
    found_in,
    lead_frame,
    needles,
    sqlite_files,
    wait_until,
)
from ..cli_helpers import CliMain, Done
from ..helpers import PROFILE, make_client

pytestmark = pytest.mark.timeout(180)

CLI = [sys.executable, "-m", "lookup_pandas"]


def cache_env(cache: Path | str) -> dict[str, str]:
    """The environment with LOOKUP_CACHE only: no key, no base URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env["LOOKUP_CACHE"] = str(cache)
    return env


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def cli(cli_main: CliMain, cache: Path | str, *args: str, cwd: Path | None = None) -> Done:
    """``cache ARGS`` with LOOKUP_CACHE alone, stdin empty (not a terminal)."""
    return cli_main({"LOOKUP_CACHE": str(cache)}, "cache", *args, cwd=cwd)


def real_cli(cache: Path | str, *args: str, stdin: int) -> subprocess.CompletedProcess[str]:
    """``cache ARGS`` in a process of its own, reading ``stdin`` (a terminal)."""
    return subprocess.run(
        [*CLI, "cache", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=cache_env(cache),
        stdin=stdin,
    )


def cached(svc: FakeService, cache: Path, handles: list[str]) -> list[bool]:
    with make_client(svc, cache=cache) as client:
        return [client.parts.cache.is_cached(PROFILE, {"handle": h}) for h in handles]


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def test_info_needs_no_key_and_agrees_with_the_client(cli_main, fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        fill(fake_service, client)
        info = client.cache_info()
    done = cli(cli_main, cache, "info")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        f"cache:      {cache}",
        f"answers:    {info.entries:,}",
    ]
    assert "size:       " in done.stdout and "stored:     from " in done.stdout
    assert "batch jobs: 1 stored, not yet collected" in done.stdout
    assert "Traceback" not in done.stderr


def test_info_on_a_cache_that_does_not_exist_creates_nothing(cli_main, tmp_path):
    cache = tmp_path / "nowhere" / "c.sqlite"
    done = cli(cli_main, cache, "info")
    assert done.returncode == 0, done.stderr
    assert "answers:    none" in done.stdout and "size:       0 bytes" in done.stdout
    assert not cache.parent.exists()
    assert cli(cli_main, "off", "info").stdout.strip() == "cache:      off (nothing is cached)"


def test_prune_removes_what_expired(cli_main, fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    brief, lasting = ["person-00800", "person-00801"], ["person-00810"]
    with make_client(fake_service, cache=cache, expire_after=1) as client:
        enrich(lead_frame(brief), client, method="single")
    with make_client(fake_service, cache=cache) as client:
        enrich(lead_frame(lasting), client, method="single")
        assert wait_until(lambda: client.cache_info().expired == 2)
    done = cli(cli_main, cache, "prune")
    assert done.returncode == 0, done.stderr
    assert one_line(done.stdout) == f"removed 2 expired answers from {cache}"
    assert cached(fake_service, cache, brief + lasting) == [False, False, True]


def test_clear_is_refused_without_a_terminal_unless_yes(cli_main, fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        fill(fake_service, client)
        entries = client.cache_info().entries
    refused = cli(cli_main, cache, "clear")  # stdin is /dev/null
    assert refused.returncode == 2 and refused.stdout == ""
    assert one_line(refused.stderr).startswith("lookup-pandas: error: cache clear removes")
    assert "--yes" in refused.stderr
    assert cached(fake_service, cache, [SEARCHED]) == [True]

    done = cli(cli_main, cache, "clear", "--yes")
    assert done.returncode == 0, done.stderr
    assert one_line(done.stdout) == f"removed {entries:,} answers and 1 batch job from {cache}"
    assert cached(fake_service, cache, [SEARCHED, EMPLOYED]) == [False, False]
    assert found_in(sqlite_files(cache), needles(SEARCHED) + needles(EMPLOYED)) == {}


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("answer", ["n", "y"])
def test_clear_asks_on_a_terminal(fake_service, tmp_path, answer):
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        client.profile(SEARCHED)
    leader, follower = os.openpty()
    try:
        os.write(leader, f"{answer}\n".encode())
        done = real_cli(cache, "clear", stdin=follower)
    finally:
        os.close(follower)
        os.close(leader)
    assert "Remove every cached answer and stored batch job in" in done.stderr
    assert "[y/N]" in done.stderr
    if answer == "y":
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("removed 1 answer and 0 batch jobs")
    else:
        assert done.returncode == 1
        assert "nothing was removed" in done.stderr and done.stdout == ""
    assert cached(fake_service, cache, [SEARCHED]) == [answer == "n"]


def test_forget_handles_and_profile_urls(cli_main, fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        fill(fake_service, client)
    wanted = needles(SEARCHED) + needles(EMPLOYED)
    assert found_in(sqlite_files(cache), wanted)  # the scan finds them before
    url = f"https://www.example.com/in/{EMPLOYED.upper()}/?utm_source=mail"
    done = cli(cli_main, cache, "forget", SEARCHED, url, "nobody-at-all")
    assert done.returncode == 0, done.stderr
    line = one_line(done.stdout)
    assert line.startswith(f"forgot 3 handles in {cache}: removed 2 profile answers, ")
    assert line.endswith("1 batch job; nothing was stored about nobody-at-all")
    assert found_in(sqlite_files(cache), wanted) == {}
    assert cached(fake_service, cache, [SEARCHED, EMPLOYED, "person-00100"]) == [
        False,
        False,
        True,
    ]


def test_forget_from_a_csv_column_skips_cells_that_are_no_handle(cli_main, fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        fill(fake_service, client)
    leads = tmp_path / "erase.csv"
    leads.write_text(
        "name,lead\n"
        f"Guido,https://www.example.com/in/{SEARCHED}/\n"
        "Blank,\n"
        "Missing,N/A\n"
        f"Sophie, {EMPLOYED.upper()} \n",
        encoding="utf-8",
    )
    done = cli(cli_main, cache, "forget", "--from-csv", str(leads), "-c", "lead")
    assert done.returncode == 0, done.stderr
    assert one_line(done.stderr) == (
        "lookup-pandas: skipped 2 cells of 'lead' that are no handle (blank, N/A, ...)"
    )
    assert one_line(done.stdout).startswith("forgot 2 handles in ")
    assert found_in(sqlite_files(cache), needles(SEARCHED) + needles(EMPLOYED)) == {}

    missing = cli(cli_main, cache, "forget", "--from-csv", str(leads), "-c", "handle")
    assert missing.returncode == 2
    assert one_line(missing.stderr) == (
        f"lookup-pandas: error: no column 'handle' in {leads} (columns: name, lead)"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "lookup-pandas: error: name the handles or profile URLs to forget"),
        (
            ("ada", "N/A"),
            "lookup-pandas: UsageError: Not a handle, person id, profile URL, email address or "
            "(first name, last name, domain): 'N/A'",
        ),
        (("--from-csv", "no-such.csv"), "lookup-pandas: error: no such file: no-such.csv"),
    ],
)
def test_forget_refuses_bad_input_in_one_line(cli_main, tmp_path, args, message):
    cache = tmp_path / "c.sqlite"
    done = cli(cli_main, cache, "forget", *args, cwd=tmp_path)
    assert done.returncode == 2
    assert one_line(done.stderr).startswith(message)
    assert "Traceback" not in done.stderr and not cache.exists()


def test_forget_that_a_reader_kept_from_completing_exits_5(cli_main, fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        client.profile(SEARCHED)
    reader = sqlite3.connect(cache, isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM responses").fetchone()  # another process reading
        done = cli(cli_main, cache, "forget", SEARCHED)
    finally:
        reader.close()
    assert done.returncode == 5
    assert one_line(done.stdout).startswith("forgot 1 handle in ")
    assert one_line(done.stderr).startswith("lookup-pandas: warning: another process was reading")
    again = cli(cli_main, cache, "forget", SEARCHED)
    assert again.returncode == 0, again.stderr
    assert found_in(sqlite_files(cache), needles(SEARCHED)) == {}
