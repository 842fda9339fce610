"""The API key never lands in the cache file, a log line, a repr or an exception message.

A recognisable key is used so that a leak anywhere is a plain byte search away.
"""

from __future__ import annotations

import logging
import pickle
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from lookup_pandas import (
    AuthenticationError,
    RateLimitError,
    ResponseError,
    ServerError,
    ServiceError,
    TransportError,
    ValidationError,
)
from lookup_pandas.testing import FakeService

from .helpers import DROP, EMPLOYEES, PROFILE, SEARCH, TIER, make_client, rate_limited, server_error

KEY = "lk_test_SECRETSECRET123"
KEY_BYTES = KEY.encode()
HANDLE = "ada-lovelace-secret-test"
LOGGERS = ("", "urllib3", "requests", "requests_cache", "lookup_pandas")


@pytest.fixture
def secret_service() -> Iterator[FakeService]:
    with FakeService(api_key=KEY) as svc:
        yield svc


def cache_bytes(cache_path: Path) -> bytes:
    """Every file of the SQLite cache (the database, -wal, -shm), concatenated."""
    files = sorted(p for p in cache_path.parent.iterdir() if p.name.startswith(cache_path.name))
    assert files, "no cache file was written"
    return b"".join(p.read_bytes() for p in files)


def assert_no_key(text: str | bytes, where: str) -> None:
    if isinstance(text, bytes):
        assert KEY_BYTES not in text, f"the API key leaked into {where}"
        assert KEY.encode("utf-16-le") not in text, f"the API key leaked into {where} (UTF-16)"
    else:
        assert KEY not in text, f"the API key leaked into {where}"


def exercise(client, svc: FakeService) -> list[ServiceError]:
    """Successful calls on every surface, then every kind of failure; returns the failures."""
    assert client.profile(HANDLE)["handle"] == HANDLE
    assert client.profile("unknown-secret") is None
    assert len(list(client.paginate(EMPLOYEES, {"slug": "acme", "limit": 50},
                                    progress=False))) == 137
    assert len(list(client.paginate(SEARCH, {"title": "engineer", "limit": 50},
                                    max_records=120, progress=False))) == 120
    assert client.credits_tier()["balance"] > 0
    assert client.get(TIER)["success"] is True
    client.profile(HANDLE)  # a cache hit

    failures: list[ServiceError] = []

    def expect(exc_type, fn):
        with pytest.raises(exc_type) as info:
            fn()
        failures.append(info.value)

    expect(ValidationError, lambda: client.get(EMPLOYEES, {"slug": "acme", "limit": 0}))
    expect(ValidationError, lambda: client.get(SEARCH, {"title": "x", "cursor": "bogus"}))

    svc.override(PROFILE, lambda req: server_error())
    expect(ServerError, lambda: client.profile("grace"))
    svc.override(PROFILE, lambda req: (502, "<html>Bad Gateway</html>"))
    expect(ServerError, lambda: client.profile("grace"))
    svc.override(PROFILE, lambda req: (200, "<html>not json</html>"))
    expect(ResponseError, lambda: client.profile("grace"))
    svc.override(PROFILE, lambda req: rate_limited(0))
    expect(RateLimitError, lambda: client.profile("grace"))
    svc.override(PROFILE, lambda req: DROP)
    expect(TransportError, lambda: client.profile("grace"))
    svc.override(PROFILE, None)

    svc.rotate_key()  # the client's key is now refused: 403
    expect(AuthenticationError, lambda: client.profile("linus"))
    return failures


def test_key_is_absent_from_cache_logs_reprs_and_exceptions(secret_service, tmp_path, caplog):
    cache_path = tmp_path / "secret-cache.sqlite"
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name or None)

    client = make_client(secret_service, api_key=KEY, cache=cache_path, max_retries=1)
    try:
        failures = exercise(client, secret_service)

        # The cache, while the client is open (WAL not yet checkpointed) ...
        stored = cache_bytes(cache_path)
        assert HANDLE.encode() in stored, "the cache holds no response: this test proves nothing"
        assert_no_key(stored, "the cache file")

        # ... the reprs ...
        for obj in (client, client.settings, client.stats, client.session.headers):
            assert_no_key(repr(obj), f"repr({type(obj).__name__})")
            assert_no_key(str(obj), f"str({type(obj).__name__})")
    finally:
        client.close()

    # ... and the cache again once closed (the WAL may have been folded into the database).
    stored = cache_bytes(cache_path)
    assert HANDLE.encode() in stored
    assert_no_key(stored, "the cache file after close")

    # The log: every record of every logger, at DEBUG, with its traceback if any.
    assert any(PROFILE in r.getMessage() for r in caplog.records), "nothing was logged"
    assert any(r.name.startswith("urllib3") for r in caplog.records)
    for record in caplog.records:
        assert_no_key(record.getMessage(), f"the log line of {record.name}")
    assert_no_key(caplog.text, "the formatted log")

    # The exceptions: message, str, repr, the printed traceback, the pickle.
    assert len(failures) == 8
    kinds = {type(e) for e in failures}
    assert {ValidationError, ServerError, ResponseError, RateLimitError, TransportError,
            AuthenticationError} <= kinds
    for exc in failures:
        where = type(exc).__name__
        assert_no_key(str(exc), f"str({where})")
        assert_no_key(repr(exc), f"repr({where})")
        assert_no_key(exc.message, f"{where}.message")
        assert_no_key(repr(vars(exc)), f"vars({where})")
        assert_no_key("".join(traceback.format_exception(exc)), f"the traceback of {where}")
        assert_no_key(pickle.dumps(exc), f"pickle of {where}")
    assert failures[-1].status_code == 403


def test_panel_key_header_is_redacted_too(secret_service, tmp_path):
    """Even if a panel answer were stored, its request's X-AUTHAPI-Key would not be."""
    cache_path = tmp_path / "panel.sqlite"
    with make_client(secret_service, api_key=KEY, cache=cache_path) as client:
        client.profile(HANDLE)
        for _ in range(3):
            client.credits_tier()
        stored = cache_bytes(cache_path)
    assert HANDLE.encode() in stored
    assert_no_key(stored, "the cache file")
    assert_no_key(cache_bytes(cache_path), "the cache file after close")
