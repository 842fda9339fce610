"""A store that fails mid-run loses nothing paid for (issue 42, items 1, 2 and 5).

Each test lets a run buy some answers, then breaks the store as the ``FAULT_AT``-th request is
answered (an emulator override, so the moment is the same on every machine): the disk fills,
turns read-only, the file is deleted, another process takes its lock. The run stops with one
StorageError naming the file (or, for a deletion, goes on with one warning). Then the fault is
fixed and the run repeated; the figure is the issue's: **0 answers bought twice**, as the
emulator billed them, and the stopped run's summary counts every credit it billed.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import warnings

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.cache import sqlite as cache_sqlite
from lookup_pandas.cli.exits import EXIT_CONFIG

from ..cli_helpers import CliMain, emulator_env
from ..enrich_helpers import AfterN
from ..helpers import PROFILE
from .faults import TinyDisk, bought_twice, enrich

pytestmark = pytest.mark.timeout(120)

HANDLES = [f"fault{i:03d}-lead" for i in range(120)]
FAULT_AT = 30


@pytest.fixture(params=["tmpfs", "injected"])
def disk(request, tmp_path, monkeypatch):
    """A tiny disk: a real tmpfs where it can be mounted, and the injected faults everywhere (so
    both run where the tmpfs does)."""
    tiny = TinyDisk(tmp_path / "tiny", monkeypatch, real=request.param == "tmpfs")
    yield tiny
    tiny.unmount()


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    """The user's cache dir, where a journal goes when the cache's folder takes none."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home / "lookup_pandas" / "journals"


def client(svc, cache) -> lp.Client:
    return lp.Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache, max_workers=4)


def stopped_run(svc, cache, fault) -> lp.StorageError:
    """Run until the fault stops it; the StorageError it raised."""
    svc.override(PROFILE, AfterN(FAULT_AT, fault))
    with client(svc, cache) as first, pytest.raises(lp.StorageError) as caught:
        enrich(first, HANDLES)
    svc.override(PROFILE, None)
    return caught.value


def rerun_buys_nothing_twice(svc, cache) -> None:
    """The run again, the fault fixed: every row answered, no answer billed twice."""
    with client(svc, cache) as again:
        out = enrich(again, HANDLES)
    assert (out["lookup_status"] == "ok").all()
    assert bought_twice(svc.billed_handles()) == 0
    assert sorted(svc.billed_handles()) == sorted(HANDLES)  # each bought exactly once


def test_a_full_disk_keeps_the_answers_in_a_journal_and_the_rerun_buys_none_twice(
    fake_service, disk, user_cache
):
    cache = disk.root / "leads.sqlite"
    error = stopped_run(fake_service, cache, disk.fill)
    message = str(error)
    # The first write to fail names its file: the cache's, or the store's beside it (claims).
    assert error.kind == "full" and f"{disk.root}/leads." in message and "is full" in message
    assert "free some space" in message
    # The journal beside the cache is on the full disk too: answers went to the user's cache dir.
    journals = list(user_cache.glob("*.jsonl"))
    assert journals  # some answer failed to be written: the cache's write, or its fold
    for journal in journals:
        kept = len(journal.read_text().splitlines())
        assert kept >= 1 and str(journal) in message and f"{kept} answer" in message
        assert fake_service.api_key.encode() not in journal.read_bytes()
    assert error.summary.credits == fake_service.billed()  # the answers in flight included
    disk.free()
    rerun_buys_nothing_twice(fake_service, cache)
    assert not any(j.exists() for j in journals)  # folded in


def test_with_no_journal_anywhere_the_answers_wait_in_memory_for_a_rerun_in_this_process(
    fake_service, disk, monkeypatch
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(disk.root / "xdg"))  # on the full disk too
    cache = disk.root / "leads.sqlite"
    error = stopped_run(fake_service, cache, disk.fill)
    assert "kept only in this process's memory" in str(error)
    assert error.summary.credits == fake_service.billed()
    disk.free()
    rerun_buys_nothing_twice(fake_service, cache)


def test_a_cache_on_a_disk_turned_read_only_is_one_error_before_anything_is_sent(
    fake_service, disk
):
    # A chmod under a running process changes nothing (its files stay open for writing), and a
    # disk with files open for writing cannot be remounted read-only: this fault meets the next
    # run, at open.
    cache = disk.root / "leads.sqlite"
    with client(fake_service, cache) as first:
        enrich(first, HANDLES[:10])
    disk.read_only()
    fake_service.reset()
    with pytest.raises(lp.StorageError) as caught, client(fake_service, cache) as second:
        enrich(second, HANDLES)
    assert caught.value.kind == "read-only", str(caught.value)
    assert f"cache file {cache} cannot be written" in str(caught.value)
    assert fake_service.billed() == 0
    disk.writable()
    with client(fake_service, cache) as again:
        enrich(again, HANDLES)
    assert bought_twice(fake_service.billed_handles()) == 0
    assert not set(HANDLES[:10]) & set(fake_service.billed_handles())  # kept from the first run


def test_a_lock_held_mid_run_stops_it_within_the_busy_timeout(fake_service, tmp_path, monkeypatch):
    monkeypatch.setattr(cache_sqlite, "BUSY_S", 1.0)
    cache = tmp_path / "leads.sqlite"
    holder = sqlite3.connect(cache, isolation_level=None, check_same_thread=False)
    cache.chmod(0o600)  # private, as the library makes its own (else a warning too)

    def freeze() -> None:  # another process frozen mid-write
        holder.execute("BEGIN IMMEDIATE")

    error = stopped_run(fake_service, cache, freeze)
    assert error.kind == "locked" and f"cache file {cache} is locked" in str(error)
    assert "leads.journal.jsonl" in str(error)  # beside it: the folder is writable
    assert error.summary.credits == fake_service.billed()
    holder.rollback()
    holder.close()
    rerun_buys_nothing_twice(fake_service, cache)


def test_a_cache_file_deleted_mid_run_is_made_again_and_keeps_what_came_after(
    fake_service, tmp_path
):
    cache = tmp_path / "leads.sqlite"
    seen_before: set[str] = set()

    def delete() -> None:  # a clean-up script, or a user in another shell
        seen_before.update(fake_service.billed_handles())
        for suffix in ("", "-wal", "-shm"):
            cache.with_name(cache.name + suffix).unlink(missing_ok=True)

    fake_service.override(PROFILE, AfterN(FAULT_AT, delete))
    with client(fake_service, cache) as first, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = enrich(first, HANDLES)
    fake_service.override(PROFILE, None)
    assert (out["lookup_status"] == "ok").all()
    told = [w for w in caught if issubclass(w.category, lp.StorageWarning)]
    assert len(told) == 1 and str(cache) in str(told[0].message)
    assert cache.exists()
    fake_service.reset()
    with client(fake_service, cache) as again:
        enrich(again, HANDLES)
    # Bought again: only what the deleted file took with it (stored before the deletion).
    rebought = set(fake_service.billed_handles())
    assert rebought <= seen_before and len(rebought) < FAULT_AT


def test_an_emptied_cache_file_is_named_when_opened(fake_service, tmp_path):
    cache = tmp_path / "leads.sqlite"
    with client(fake_service, cache) as first:
        enrich(first, HANDLES[:5])
    for suffix in ("-wal", "-shm"):
        cache.with_name(cache.name + suffix).unlink(missing_ok=True)
    cache.write_bytes(b"")
    with pytest.warns(lp.StorageWarning, match="is empty"), client(fake_service, cache):
        pass


def test_a_damaged_cache_file_is_one_error_naming_the_repair(fake_service, tmp_path):
    cache = tmp_path / "leads.sqlite"
    cache.write_bytes(b"this is not a database, but a file someone wrote over it" * 100)
    cache.chmod(0o600)
    with pytest.raises(lp.StorageError) as caught:
        client(fake_service, cache)
    assert caught.value.kind == "corrupt" and str(cache) in str(caught.value)
    assert "lookup-pandas cache repair" in str(caught.value)
    assert fake_service.count() == 0


def test_the_command_line_says_a_full_disk_in_one_line_with_the_answers_kept(
    fake_service, disk, user_cache, tmp_path, capsys
):
    leads, out = tmp_path / "leads.csv", tmp_path / "out.csv"
    pd.DataFrame({"handle": HANDLES}).to_csv(leads, index=False)
    cache = disk.root / "leads.sqlite"
    env = emulator_env(fake_service, cache) | {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    fake_service.override(PROFILE, AfterN(FAULT_AT, disk.fill))
    done = CliMain(capsys)(env, "enrich", str(leads), "-o", str(out), "--no-progress",
                           "--method", "single")  # fmt: skip
    fake_service.override(PROFILE, None)
    assert done.returncode == EXIT_CONFIG
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("lookup-pandas: StorageError")]
    assert "is full" in line and "LOOKUP_CACHE" in line and "kept in" in line
    disk.free()
    # Again as a new process, as a user runs it: the stopped command left its claims (it exits
    # at once on an error), which a process that no longer runs does not hold.
    again = subprocess.run(
        [sys.executable, "-m", "lookup_pandas", "enrich", str(leads), "-o", str(out),
         "--no-progress"],
        env=os.environ | env, capture_output=True, text=True, timeout=90, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert bought_twice(fake_service.billed_handles()) == 0
    assert sorted(fake_service.billed_handles()) == sorted(HANDLES)
