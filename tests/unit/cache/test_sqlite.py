"""Unit tests for cache.sqlite: the shared backends (letting go never hangs), the file name,
and erasing for good (checkpoint retries, secure delete, VACUUM and an emptied log)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

import lookup_pandas as lp
from lookup_pandas.cache import sqlite

# -- the shared SQLite backends: letting go never hangs (issue 21, item 9) -----------------------


class FakeBackend:
    """What ``_open_backend`` returns here: no SQLite, only whether it was closed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


class Opener:
    """``_open_backend`` in these tests: records what it opened; ``during`` runs inside it,
    under the shared backends' lock, as the garbage collector can."""

    def __init__(self) -> None:
        self.opened: list[FakeBackend] = []
        self.during = lambda: None

    def __call__(self, path: Path) -> FakeBackend:
        self.during()
        self.opened.append(FakeBackend(path))
        return self.opened[-1]


@pytest.fixture
def opener(monkeypatch: pytest.MonkeyPatch) -> Opener:
    opener = Opener()
    monkeypatch.setattr(sqlite, "_open_backend", opener)
    return opener


def test_a_finaliser_only_queues_and_the_next_acquire_closes(opener, tmp_path):
    shared = sqlite._SharedBackends()
    a, entry_a = shared.acquire(tmp_path / "a.sqlite")
    shared.release_later(entry_a)  # what a session's finaliser does
    assert a.closed == 0 and len(shared._entries) == 1  # deferred: nothing done yet
    b, entry_b = shared.acquire(tmp_path / "b.sqlite")
    assert a.closed == 1 and list(shared._entries) == [str((tmp_path / "b.sqlite").resolve())]
    shared.release(entry_b)  # ordinary code (Client.close): done when it returns
    assert b.closed == 1
    assert shared._entries == {} and not shared._released  # nothing leaks


def test_releases_while_a_file_opens_wait_for_nothing_and_are_settled_after(opener, tmp_path):
    shared = sqlite._SharedBackends()
    a, first = shared.acquire(tmp_path / "a.sqlite")
    _, second = shared.acquire(tmp_path / "a.sqlite")  # two Clients share it
    assert first is second and len(opener.opened) == 1

    def collector_runs() -> None:  # inside acquire, with the lock held, on this thread
        shared.release_later(first)  # a session's finaliser
        shared.release(second)  # a __del__ somewhere calling Client.close()

    opener.during = collector_runs
    b, entry_b = shared.acquire(tmp_path / "b.sqlite")  # used to hang here
    assert a.closed == 1  # both releases counted as acquire left the lock
    assert list(shared._entries.values()) == [entry_b]
    opener.during = lambda: None
    shared.release(entry_b)
    assert b.closed == 1 and shared._entries == {} and not shared._released


def test_a_file_whose_last_user_is_gone_opens_afresh(opener, tmp_path):
    shared = sqlite._SharedBackends()
    old, entry = shared.acquire(tmp_path / "a.sqlite")
    shared.release_later(entry)
    new, again = shared.acquire(tmp_path / "a.sqlite")
    assert old.closed == 1 and new is not old and new.closed == 0  # never two open at once
    assert again.users == 1
    shared.release(again)
    assert new.closed == 1 and shared._entries == {}


def test_a_release_after_close_all_never_closes_a_newer_backend(opener, tmp_path):
    shared = sqlite._SharedBackends()
    old, stale = shared.acquire(tmp_path / "a.sqlite")
    shared.close_all()  # at exit
    assert old.closed == 1 and shared._entries == {}
    new, entry = shared.acquire(tmp_path / "a.sqlite")
    shared.release(stale)  # the Client of the closed backend, let go late
    assert new.closed == 0 and shared._entries == {entry.key: entry}
    shared.release(entry)
    assert new.closed == 1 and shared._entries == {}


def client_with_cache(path: Path) -> lp.Client:
    return lp.Client(api_key="k", base_url="http://127.0.0.1:9", cache=path)  # sends nothing


def spy_on_close(monkeypatch: pytest.MonkeyPatch, path: Path) -> list[bool]:
    """Record the real backend of ``path`` being closed (and still close it)."""
    backend = sqlite.shared_backends()._entries[str(path.resolve())].backend
    closed: list[bool] = []
    real_close = backend.close

    def close() -> None:
        closed.append(True)
        real_close()

    monkeypatch.setattr(backend, "close", close)
    return closed


def test_client_close_closes_its_backend_at_once(monkeypatch, tmp_path):
    path = tmp_path / "c.sqlite"
    client = client_with_cache(path)
    closed = spy_on_close(monkeypatch, path)
    client.close()
    assert closed == [True]
    assert not sqlite.shared_backends().is_open(path)
    client.close()  # a second close lets go of nothing more
    assert closed == [True]


def test_a_collected_client_is_closed_by_the_next_acquire_or_close(monkeypatch, tmp_path):
    path = tmp_path / "c.sqlite"
    client = client_with_cache(path)
    closed = spy_on_close(monkeypatch, path)
    client.me = client  # a cycle: only the garbage collector frees it
    del client
    gc.collect()  # its finaliser ran: the release is queued, not done
    assert closed == [] and sqlite.shared_backends().is_open(path)
    with client_with_cache(tmp_path / "other.sqlite"):  # acquire (and close) settle it
        assert closed == [True]
    assert not sqlite.shared_backends().is_open(path)
    assert not sqlite.shared_backends().is_open(tmp_path / "other.sqlite")


# -- erasing for good ---------------------------------------------------------------------------


def test_checkpointed_retries_then_gives_up():
    sleeps: list[float] = []
    answers = iter([False, False, True])
    assert sqlite.checkpointed(lambda: next(answers), attempts=5, pause=0.2, sleep=sleeps.append)
    assert sleeps == [0.2, 0.2]
    sleeps.clear()
    assert not sqlite.checkpointed(lambda: False, attempts=3, pause=0.1, sleep=sleeps.append)
    assert sleeps == [0.1, 0.1]  # no pause after the last try
