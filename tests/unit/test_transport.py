"""Unit tests for transport.should_cache / parsed_answer and endpoints.is_panel (no network)."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests

import lookup_pandas as lp
from lookup_pandas import transport
from lookup_pandas.endpoints import is_panel
from lookup_pandas.transport import should_cache

DATA_URL = "http://127.0.0.1:8080/api/data/v1/people/profile?handle=ada"
PANEL_URL = "http://127.0.0.1:8080/api/panel/credits/tier/k/"


def response(status: int, content: bytes | dict | list, url: str = DATA_URL) -> requests.Response:
    r = requests.Response()
    r.status_code = status
    r._content = content if isinstance(content, bytes) else json.dumps(content).encode()
    r.url = url
    r.headers["Content-Type"] = "application/json"
    return r


SUCCESS = {
    "success": True,
    "statusCode": 200,
    "message": "ok",
    "errors": None,
    "data": {"id": "prsn_1", "handle": "ada"},
}


def test_success_envelope_is_cached():
    assert should_cache(response(200, SUCCESS)) is True


def test_success_list_page_is_cached():
    body = {
        "success": True,
        "message": "ok",
        "data": [{"id": 1}],
        "pagination": {"page": 1, "limit": 50, "has_more": False},
    }
    assert (
        should_cache(response(200, body, "http://127.0.0.1:8080/api/data/v1/companies/employees"))
        is True
    )


@pytest.mark.parametrize("code", ["1010", "1020", 1010])
def test_billed_not_found_is_cached(code):
    body = {
        "success": False,
        "message": "not found",
        "error_code": code,
        "data": None,
        "errors": None,
    }
    assert should_cache(response(200, body)) is True


@pytest.mark.parametrize("code", ["1050", "VALIDATION_ERROR", None])
def test_200_success_false_other_reasons_not_cached(code):
    body = {"success": False, "message": "nope", "error_code": code, "data": None, "errors": None}
    assert should_cache(response(200, body)) is False


@pytest.mark.parametrize("status", [500, 502, 503, 429, 404, 403, 401, 400])
def test_error_statuses_not_cached(status):
    body = {"success": False, "message": "err", "data": None, "errors": None}
    assert should_cache(response(status, body)) is False


def test_404_with_billed_not_found_body_not_cached():
    body = {"success": False, "message": "not found", "error_code": "1010", "data": None}
    assert should_cache(response(404, body)) is False


def test_5xx_even_claiming_success_not_cached():
    assert should_cache(response(500, SUCCESS)) is False


def test_a_batch_poll_is_never_cached():
    # its results are cached one by one; a stored page would keep people forget() erased
    body = {"success": True, "message": "ok", "data": {"status": "done", "results": []}}
    poll = "http://127.0.0.1:1/api/data/v1/people/batch/enrich/job_1?cursor=0"
    assert should_cache(response(200, body, poll)) is False


def test_panel_url_never_cached_even_on_success():
    body = {
        "success": True,
        "message": "ok",
        "data": {"balance": 10, "current_tier": {"limit_per_minute": 7}},
    }
    assert should_cache(response(200, body, PANEL_URL)) is False


@pytest.mark.parametrize(
    "content",
    [
        b"<html>ok</html>",
        b"",
        b'{"success": true, "data"',
        b"\xff\xfe\xfa",
        b"[1, 2]",
        b'"ok"',
        b"null",
    ],
    ids=["html", "empty", "truncated", "binary", "list", "string", "null"],
)
def test_non_envelope_200_not_cached(content):
    assert should_cache(response(200, content)) is False


@pytest.mark.parametrize("success", ["true", 1, None])
def test_success_must_be_boolean_true(success):
    body = dict(SUCCESS, success=success)
    assert should_cache(response(200, body)) is False


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (PANEL_URL, True),
        ("http://127.0.0.1:8080/api/panel/", True),
        ("http://127.0.0.1:8080/api/data/v1/people/profile", False),
        ("http://127.0.0.1:8080/api/data/v1/people/search?q=/api/panel/", False),
        ("", False),
    ],
)
def test_is_panel(url, expected):
    assert is_panel(urlsplit(url).path) is expected


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
    monkeypatch.setattr(transport, "_open_backend", opener)
    return opener


def test_a_finaliser_only_queues_and_the_next_acquire_closes(opener, tmp_path):
    shared = transport._SharedBackends()
    a, entry_a = shared.acquire(tmp_path / "a.sqlite")
    shared.release_later(entry_a)  # what a session's finaliser does
    assert a.closed == 0 and len(shared._entries) == 1  # deferred: nothing done yet
    b, entry_b = shared.acquire(tmp_path / "b.sqlite")
    assert a.closed == 1 and list(shared._entries) == [str((tmp_path / "b.sqlite").resolve())]
    shared.release(entry_b)  # ordinary code (Client.close): done when it returns
    assert b.closed == 1
    assert shared._entries == {} and not shared._released  # nothing leaks


def test_releases_while_a_file_opens_wait_for_nothing_and_are_settled_after(opener, tmp_path):
    shared = transport._SharedBackends()
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
    shared = transport._SharedBackends()
    old, entry = shared.acquire(tmp_path / "a.sqlite")
    shared.release_later(entry)
    new, again = shared.acquire(tmp_path / "a.sqlite")
    assert old.closed == 1 and new is not old and new.closed == 0  # never two open at once
    assert again.users == 1
    shared.release(again)
    assert new.closed == 1 and shared._entries == {}


def test_a_release_after_close_all_never_closes_a_newer_backend(opener, tmp_path):
    shared = transport._SharedBackends()
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
    backend = transport._BACKENDS._entries[str(path.resolve())].backend
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
    assert str(path.resolve()) not in transport._BACKENDS._entries
    client.close()  # a second close lets go of nothing more
    assert closed == [True]


def test_a_collected_client_is_closed_by_the_next_acquire_or_close(monkeypatch, tmp_path):
    path = tmp_path / "c.sqlite"
    client = client_with_cache(path)
    closed = spy_on_close(monkeypatch, path)
    client.me = client  # a cycle: only the garbage collector frees it
    del client
    gc.collect()  # its finaliser ran: the release is queued, not done
    assert closed == [] and str(path.resolve()) in transport._BACKENDS._entries
    with client_with_cache(tmp_path / "other.sqlite"):  # acquire (and close) settle it
        assert closed == [True]
    assert str(path.resolve()) not in transport._BACKENDS._entries
    assert str((tmp_path / "other.sqlite").resolve()) not in transport._BACKENDS._entries
