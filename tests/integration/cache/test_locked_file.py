"""A cache file another process holds locked (issue 42, items 2 and 6): one clear StorageError
naming the file, within the busy timeout, and nothing sent. Before, opening it retried the
busy timeout 8 times (minutes), then raised sqlite3's own error, naming no file.

The lock is real: a second connection to the file holds ``BEGIN IMMEDIATE``, as a process frozen
mid-write does. The busy timeout is made 1 s (``cache.sqlite.BUSY_S``) to keep the test short.
"""

from __future__ import annotations

import sqlite3

import pytest

import lookup_pandas as lp
from lookup_pandas.cache import sqlite as cache_sqlite
from lookup_pandas.cli.exits import EXIT_CONFIG

from ..cli_helpers import CliMain, emulator_env


@pytest.fixture
def held(tmp_path, monkeypatch):
    """A cache file whose write lock another connection holds, and a 1 s busy timeout."""
    monkeypatch.setattr(cache_sqlite, "BUSY_S", 1.0)
    path = tmp_path / "held.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("CREATE TABLE frozen (x)")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO frozen VALUES (1)")  # a write under way, never committed
    for name in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm"))):
        name.chmod(0o600)  # private, as the library makes its own (else a warning line too)
    yield path
    holder.rollback()
    holder.close()


def test_a_cache_file_held_locked_is_one_storage_error_naming_it(fake_service, held):
    with pytest.raises(lp.StorageError) as caught:
        lp.Client(api_key=fake_service.api_key, base_url=fake_service.base_url, cache=held)
    message = str(caught.value)
    assert str(held) in message and "locked by another process" in message
    assert isinstance(caught.value, lp.ConfigurationError)  # the CLI's exit code for settings
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    assert fake_service.count() == 0  # nothing was sent


def test_the_command_line_says_so_in_one_line_and_exits_as_for_a_setting(
    capsys, fake_service, held, tmp_path
):
    done = CliMain(capsys)(emulator_env(fake_service, held), "tier")
    assert done.returncode == EXIT_CONFIG
    (line,) = done.stderr.strip().splitlines()
    assert (
        line.startswith("lookup-pandas: StorageError: The cache file ") and "LOOKUP_CACHE" in line
    )
    assert fake_service.count() == 0
