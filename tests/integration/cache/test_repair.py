"""``cache check`` and ``cache repair`` on real cache files, damaged as disks damage them (issue 42,
item 2's corrupt part).

A run buys profiles from the emulator into a cache file; then one page of the answers' b-tree is
overwritten (with zeros, or random bytes), the file is cut short, or it is garbage. The check
counts what can be read and what cannot; the repair keeps every row of the other pages; a re-run
on the repaired file buys again exactly the answers the check said were lost, as the emulator
counts them. A file another process holds locked is refused, naming it; the API key is in no
byte of the repaired file.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
from pathlib import Path

import pytest

import lookup_pandas as lp
from lookup_pandas.cache import repair as cache_repair
from lookup_pandas.cache import sqlite as cache_sqlite
from lookup_pandas.store import store_path
from lookup_pandas.store.private_files import sqlite_files
from lookup_pandas.testing import FakeService

from ..helpers import PROFILE, make_client

pytestmark = pytest.mark.timeout(120)

HANDLES = [f"person-{i:05d}" for i in range(100, 160)]


def buy(svc: FakeService, path: Path) -> int:
    """Each of HANDLES looked up once on ``path``; returns the profiles the emulator billed."""
    before = svc.billed(PROFILE)
    with make_client(svc, cache=path) as client:
        for handle in HANDLES:
            client.profile(handle)
    return svc.billed(PROFILE) - before


@pytest.fixture
def cache_file(fake_service, tmp_path) -> Path:
    path = tmp_path / "leads.sqlite"
    assert buy(fake_service, path) == len(HANDLES)
    return path


def answer_pages(path: Path) -> list[int]:
    """The leaf pages of the answers' b-tree (SQLite's ``dbstat``)."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        query = "SELECT pageno FROM dbstat WHERE name = 'responses' AND pagetype = 'leaf'"
        return [page for (page,) in conn.execute(query)]


def overwrite_page(path: Path, page: int, data: bytes | None = None) -> None:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    with path.open("r+b") as f:
        f.seek((page - 1) * size)
        f.write(data if data is not None else bytes(size))


def middle_leaf(path: Path) -> int:
    pages = answer_pages(path)
    assert len(pages) >= 3  # the run's answers fill several pages
    return pages[len(pages) // 2]


# -- a healthy cache ---------------------------------------------------------------------------


def test_a_healthy_cache_counts_every_answer_the_run_stored(fake_service, cache_file):
    before = cache_file.read_bytes()
    found = cache_repair.check(cache_file)
    assert found.healthy and found.database and not found.problems
    assert found.answers == len(HANDLES) and found.lost_answers == 0
    assert found.store is True  # the store file beside it reads
    assert cache_file.read_bytes() == before  # checked, not changed
    repaired = cache_repair.repair(cache_file)
    assert repaired.kept_as is None  # healthy: left as it is
    assert list(cache_file.parent.glob("*.corrupt-*")) == []


# -- damaged pages -----------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["zeros", "random bytes"])
def test_a_damaged_page_loses_only_its_answers_and_the_rerun_buys_only_those(
    fake_service, cache_file, damage
):
    page = middle_leaf(cache_file)
    size = 4096
    noise = random.Random(42).randbytes(size) if damage == "random bytes" else None
    overwrite_page(cache_file, page, noise)
    damaged = cache_file.read_bytes()

    found = cache_repair.check(cache_file)
    assert not found.healthy and found.problems
    assert found.counted and 0 < found.lost_answers < len(HANDLES) // 2
    assert found.answers + found.lost_answers == len(HANDLES)
    assert cache_file.read_bytes() == damaged  # the check never writes

    repaired = cache_repair.repair(cache_file)
    assert (repaired.answers, repaired.lost_answers) == (found.answers, found.lost_answers)
    assert repaired.kept_as is not None and repaired.kept_as.read_bytes() == damaged
    assert repaired.kept_as.name.startswith("leads.corrupt-")
    assert not any(p.exists() for p in sqlite_files(cache_file)[1:])  # the old -wal, -shm
    assert cache_file.stat().st_mode & 0o777 == 0o600
    assert cache_repair.check(cache_file).healthy

    assert buy(fake_service, cache_file) == found.lost_answers  # only the lost bought again
    assert buy(fake_service, cache_file) == 0


def test_answers_still_in_the_write_ahead_log_are_counted_and_the_log_left_as_it_is(
    fake_service, tmp_path
):
    """A writer killed before its checkpoint leaves answers in ``-wal`` alone: copied mid-run."""
    copy = tmp_path / "copy"
    copy.mkdir()
    with make_client(fake_service, cache=tmp_path / "leads.sqlite") as client:
        for handle in HANDLES:
            client.profile(handle)
        for file in sqlite_files(tmp_path / "leads.sqlite"):
            (copy / file.name).write_bytes(file.read_bytes())
    path, log = copy / "leads.sqlite", copy / "leads.sqlite-wal"
    before = path.read_bytes(), log.read_bytes()
    assert before[1]  # the answers are in the log
    found = cache_repair.check(path)
    assert found.healthy and found.answers == len(HANDLES)
    assert (path.read_bytes(), log.read_bytes()) == before  # never checkpointed by the check


def test_a_file_cut_short_keeps_what_is_before_the_cut(fake_service, cache_file):
    size = cache_file.stat().st_size
    with cache_file.open("r+b") as f:
        f.truncate(size * 2 // 3)
    found = cache_repair.check(cache_file)
    assert not found.healthy and 0 < found.answers < len(HANDLES)
    assert found.answers + found.lost_answers == len(HANDLES)  # its key index is before the cut

    repaired = cache_repair.repair(cache_file)
    assert repaired.answers == found.answers
    assert buy(fake_service, cache_file) == len(HANDLES) - repaired.answers


def test_a_row_whose_value_cannot_be_read_is_the_only_one_lost(fake_service, tmp_path):
    path = tmp_path / "big.sqlite"
    with make_client(fake_service, cache=path) as client:
        client.profile(HANDLES[0])
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as conn:
        (value, expires) = conn.execute("SELECT value, expires FROM responses").fetchone()
        conn.execute(  # a value too big for one page: its end is on overflow pages
            "INSERT INTO responses (key, value, expires) VALUES ('big', ?, ?)",
            (bytes(value) + bytes(20_000), expires),
        )
        overflow = [
            page
            for (page,) in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'responses' AND pagetype = 'overflow'"
            )
        ]
    overwrite_page(path, overflow[0], (2**32 - 1).to_bytes(4, "big"))  # its chain broken
    found = cache_repair.check(path)
    assert (found.answers, found.lost_answers) == (1, 1)


def test_a_value_requests_cache_cannot_read_is_lost_too(fake_service, tmp_path):
    path = tmp_path / "leads.sqlite"
    with make_client(fake_service, cache=path) as client:
        client.profile(HANDLES[0])
        client.profile(HANDLES[1])
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("UPDATE responses SET value = zeroblob(length(value)) WHERE rowid = 1")
    found = cache_repair.check(path)
    assert (found.answers, found.lost_answers) == (1, 1)
    cache_repair.repair(path)
    assert buy(fake_service, path) == len(HANDLES) - 1  # the other one is still cached


# -- not a database ----------------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"garbage " * 1000])
def test_a_file_that_is_no_database_is_kept_aside_for_an_empty_cache(
    fake_service, tmp_path, content
):
    path = tmp_path / "leads.sqlite"
    path.write_bytes(content)
    found = cache_repair.check(path)
    assert not found.database and not found.healthy

    repaired = cache_repair.repair(path)
    assert not repaired.database and repaired.answers == 0
    assert repaired.kept_as is not None and repaired.kept_as.read_bytes() == content
    assert "was not a SQLite database" in str(repaired)
    assert cache_repair.check(path).healthy
    assert buy(fake_service, path) == len(HANDLES)  # a working cache, empty


def test_there_being_no_file_is_a_storage_error_naming_it(tmp_path):
    with pytest.raises(lp.StorageError, match="no cache file .*missing.sqlite"):
        cache_repair.check(tmp_path / "missing.sqlite")


# -- another process --------------------------------------------------------------------------


@pytest.fixture
def held(cache_file, monkeypatch):
    """The cache file, damaged, with another connection holding ``BEGIN IMMEDIATE``; 1 s busy
    timeout."""
    monkeypatch.setattr(cache_sqlite, "BUSY_S", 1.0)
    overwrite_page(cache_file, middle_leaf(cache_file))
    holder = sqlite3.connect(cache_file, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    yield cache_file
    holder.rollback()
    holder.close()


def test_check_says_another_process_holds_the_file(held):
    found = cache_repair.check(held)
    assert found.held and not found.healthy
    assert "another process holds its write lock" in str(found)


def test_repair_refuses_a_file_another_process_holds_naming_it(held):
    before = held.read_bytes()
    with pytest.raises(lp.StorageError, match=f"{held}.*another process"):
        cache_repair.repair(held)
    assert held.read_bytes() == before
    assert list(held.parent.glob("*.corrupt-*")) == []


def test_repair_refuses_a_file_another_connection_only_has_open(cache_file, monkeypatch):
    monkeypatch.setattr(cache_sqlite, "BUSY_S", 1.0)
    overwrite_page(cache_file, middle_leaf(cache_file))
    reader = sqlite3.connect(cache_file)
    reader.execute("SELECT count(*) FROM sqlite_master").fetchone()  # open, idle
    try:
        with pytest.raises(lp.StorageError, match="is open in another process"):
            cache_repair.repair(cache_file)
    finally:
        reader.close()


def test_the_api_key_is_in_no_byte_of_the_repaired_file(fake_service, cache_file):
    overwrite_page(cache_file, middle_leaf(cache_file))
    cache_repair.repair(cache_file)
    assert fake_service.api_key.encode() not in cache_file.read_bytes()


def test_a_damaged_store_file_is_said_and_left_to_the_user(fake_service, cache_file):
    stored = store_path(cache_file)
    stored.write_bytes(b"garbage " * 1000)
    before = cache_file.read_bytes()
    found = cache_repair.check(cache_file)
    assert found.store is False and not found.healthy and not found.needs_repair
    assert "move it aside" in found.verdict
    assert cache_repair.repair(cache_file).kept_as is None  # the answers need nothing
    assert cache_file.read_bytes() == before and stored.read_bytes() == b"garbage " * 1000


def interior_pages(path: Path) -> list[int]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        query = "SELECT pageno FROM dbstat WHERE name = 'responses' AND pagetype = 'internal'"
        return [page for (page,) in conn.execute(query)]


def test_rows_below_a_damaged_interior_page_are_found_on_their_own_pages(fake_service, cache_file):
    (root,) = interior_pages(cache_file)  # the b-tree's root: no row can be reached through it
    overwrite_page(cache_file, root)
    found = cache_repair.check(cache_file)
    assert found.problems and (found.answers, found.lost_answers) == (len(HANDLES), 0)
    assert found.needs_repair  # its b-tree is rebuilt
    assert cache_repair.repair(cache_file).answers == len(HANDLES)
    assert cache_repair.check(cache_file).healthy
    assert buy(fake_service, cache_file) == 0


def test_a_row_deleted_before_the_damage_never_comes_back(fake_service, cache_file):
    with contextlib.closing(sqlite3.connect(cache_file, isolation_level=None)) as conn:
        conn.execute("PRAGMA secure_delete = OFF")  # its bytes stay on the page
        conn.execute("DELETE FROM responses WHERE rowid = 7")
    (root,) = interior_pages(cache_file)
    overwrite_page(cache_file, root)
    found = cache_repair.check(cache_file)
    assert (found.answers, found.lost_answers) == (len(HANDLES) - 1, 0)
    cache_repair.repair(cache_file)
    assert buy(fake_service, cache_file) == 1  # the deleted one only
