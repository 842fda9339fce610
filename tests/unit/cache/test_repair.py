"""The decisions of ``cache check | repair``, without a file: the walk over a damaged table,
the name a damaged file is kept under, and what a check says."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from requests_cache.backends.sqlite import SQLiteCache
from requests_cache.serializers import pickle_serializer

from lookup_pandas.cache.repair import TOP, kept_name, walk
from lookup_pandas.cache.reports import CacheCheck, Repaired

MALFORMED = sqlite3.DatabaseError("database disk image is malformed")


class Table:
    """Rows by rowid, some on damaged pages (no row of them can be reached, nor sought past
    within them), some with a value that cannot be read; it counts the reads."""

    def __init__(self, rowids, damaged=(), unreadable=()):
        self.rowids = sorted(rowids)
        self.damaged = set(damaged)
        self.unreadable = set(unreadable)
        self.reads = 0

    def _seek(self, x):
        self.reads += 1
        following = [r for r in self.rowids if r > x]
        if x + 1 in self.damaged or (following and following[0] in self.damaged):
            raise MALFORMED
        return following[0] if following else None

    def rows_after(self, x):
        while (rowid := self._seek(x)) is not None:
            if rowid in self.unreadable:
                raise MALFORMED
            yield rowid, f"k{rowid}", b"v", None
            x = rowid

    def next_rowid(self, x):
        return self._seek(x)


def walked(table):
    return [row[0] for row in walk(table.rows_after, table.next_rowid)]


def test_a_sound_table_is_read_whole():
    assert walked(Table(range(1, 50))) == list(range(1, 50))


@pytest.mark.parametrize(
    "damaged",
    [range(1, 5), range(20, 31), range(45, 50), [*range(10, 12), *range(30, 40)]],
    ids=["first page", "a middle page", "last page", "two pages"],
)
def test_only_the_rows_of_damaged_pages_are_lost(damaged):
    table = Table(range(1, 50), damaged=damaged)
    assert walked(table) == [r for r in range(1, 50) if r not in set(damaged)]


def test_a_row_whose_value_cannot_be_read_is_the_only_one_stepped_over():
    assert walked(Table(range(1, 10), unreadable=[4, 5])) == [1, 2, 3, 6, 7, 8, 9]


def test_gaps_in_rowids_are_no_damage():
    rowids = [1, 2, 1_000, 10**12, TOP]
    assert walked(Table(rowids)) == rowids
    assert walked(Table(rowids, damaged=[1_000])) == [1, 2, 10**12, TOP]


def test_a_table_nothing_can_be_read_of_ends_bounded():
    class Broken:
        reads = 0

        def fail(self, x):
            self.reads += 1
            raise MALFORMED

    broken = Broken()
    assert walk(broken.fail, broken.fail) == []
    assert broken.reads <= 2 * 64  # doubling to the last rowid, never on without end


def test_a_damaged_page_costs_a_bounded_number_of_reads():
    table = Table(range(1, 10_001), damaged=range(5_000, 5_100))
    assert len(walked(table)) == 10_000 - 100
    assert table.reads < 10_000 + 2 * 64


def test_the_damaged_file_is_kept_under_its_name_the_utc_time_and_sqlite():
    moment = datetime(2026, 12, 2, 22, 30, 5, tzinfo=UTC)
    assert kept_name(Path("/c/leads.db"), moment).name == "leads.corrupt-20261202T223005Z.db"
    assert kept_name(Path("/c/leads.sqlite"), moment, 2).name == (
        "leads.corrupt-20261202T223005Z-2.sqlite"
    )


def test_what_a_check_says():
    damaged = CacheCheck(Path("c.sqlite"), problems=("malformed",), answers=9, lost_answers=2)
    assert not damaged.healthy
    assert "keeps the 9 answers it can read; the 2 lost" in damaged.verdict
    lines = str(damaged).splitlines()
    assert "answers:    9 readable, 2 lost" in lines and lines[-1].startswith("verdict:")
    assert "(at least)" in CacheCheck(Path("c"), lost_answers=1, counted=False).verdict
    store_only = CacheCheck(Path("c"), store=False)
    assert not store_only.healthy and not store_only.needs_repair
    assert "the store file beside it is damaged: move it aside" in store_only.verdict
    assert "not a SQLite database" in CacheCheck(Path("c"), database=False).verdict
    assert CacheCheck(Path("c"), held=True).healthy  # held is said, but is no damage


def test_what_a_repair_says():
    done = Repaired(Path("c.sqlite"), Path("c.corrupt-T.sqlite"), answers=1, aliases=2,
                    lost_answers=3)  # fmt: skip
    assert str(done) == (
        "repaired c.sqlite: kept 1 answer and 2 aliases; lost 3 answers (bought again when "
        "needed); the damaged file is kept as c.corrupt-T.sqlite"
    )


def test_the_answers_are_read_with_the_sqlite_backends_own_serializer(tmp_path):
    cache = SQLiteCache(tmp_path / "c.sqlite")
    try:
        assert cache.responses.serializer.name == pickle_serializer.name  # a copy of it
    finally:
        cache.close()
