"""SQLite's file format as ``cache/pages.py`` reads it: varints, records, a leaf's cells, and
rows found on the pages of a real file, overflow pages and all."""

from __future__ import annotations

import contextlib
import sqlite3

import pytest

from lookup_pandas.cache.pages import cells, record, scan, varint


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"\x05", (5, 1)), (b"\x81\x00", (128, 2)), (b"\xff" * 8 + b"\x01", (2**64 - 255, 9))],
)
def test_varints(data, expected):
    assert varint(data, 0) == expected


def test_a_record_of_every_kind_a_cache_row_holds():
    # the header (its size; a text of 2, a blob of 1, an int8, zero, null), then the body
    payload = bytes([6, 17, 14, 1, 8, 0]) + b"ab" + b"\x7f" + b"\xff"
    assert record(payload) == ["ab", b"\x7f", -1, 0, None]


def test_a_record_cut_short_is_an_error():
    with pytest.raises(ValueError):
        record(bytes([3, 17, 14]) + b"a")


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.sqlite"
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("CREATE TABLE t (key TEXT PRIMARY KEY, value BLOB, expires INTEGER)")
        for i in range(1, 41):  # every 10th too big for a page: on overflow pages
            size = 20_000 if i % 10 == 0 else 900
            conn.execute("INSERT INTO t VALUES (?, ?, ?)", (f"k{i}", bytes([i]) * size, i))
        (usable,) = conn.execute("PRAGMA page_size").fetchone()
        leaf = conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 't' AND pagetype = 'leaf' LIMIT 1"
        ).fetchone()[0]
    return path, usable, leaf


def test_a_leaf_lists_its_cells(table):
    path, usable, leaf = table
    page = path.read_bytes()[(leaf - 1) * usable : leaf * usable]
    rowids = [rowid for rowid, _, _, _ in cells(page, usable)]
    assert rowids and rowids == sorted(rowids)


def test_rows_are_found_on_the_pages_with_their_overflow(table):
    path, _, _ = table
    wanted = {i: f"k{i}" for i in (1, 10, 33, 40)}
    found = scan(path, wanted)
    assert sorted(found) == [1, 10, 33, 40]
    assert found[10] == (10, "k10", bytes([10]) * 20_000, 10)
    assert found[33][2] == bytes([33]) * 900


def test_only_the_key_the_index_lists_is_taken(table):
    path, _, _ = table
    assert scan(path, {1: "another key", 2: "k2"}) == {2: (2, "k2", bytes([2]) * 900, 2)}
