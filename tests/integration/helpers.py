"""Shared helpers for the integration tests: paths, a client factory and scripted overrides.

Everything here talks to the real emulator; overrides only script what the emulator cannot be
asked for with a knob (fail the first K times, a looping cursor, a page that goes back...).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from lookup_pandas import Client
from lookup_pandas.testing import FakeService, routes
from lookup_pandas.testing.replies import DROP, Reply, Request, fail, ok

PROFILE = routes.PROFILE
EMPLOYEES = routes.EMPLOYEES
SEARCH = routes.SEARCH
TIER = routes.TIER
DATA_PATHS = (PROFILE, EMPLOYEES, SEARCH)

__all__ = [
    "cache_reads",
    "DATA_PATHS",
    "DROP",
    "EMPLOYEES",
    "FailFirst",
    "PROFILE",
    "Reply",
    "SEARCH",
    "TIER",
    "Tap",
    "bad_gateway",
    "capture_request_ids",
    "data_count",
    "fail",
    "make_client",
    "ok",
    "rate_limited",
    "server_error",
    "unavailable",
    "wait_for_count",
]


def make_client(
    svc: FakeService, *, api_key: str | None = None, cache: Any = False, **kwargs: Any
) -> Client:
    """A Client on ``svc`` with the fixture's short back-off (overridable)."""
    opts: dict[str, Any] = {
        "backoff_base": 0.01,
        "backoff_max": 0.2,
        "retry_after_max": 2.0,
        "batch_poll_interval": 0.05,
    }
    opts.update(kwargs)
    return Client(api_key=api_key or svc.api_key, base_url=svc.base_url, cache=cache, **opts)


def data_count(svc: FakeService) -> int:
    """Requests the emulator saw on the data endpoints (the tier request excluded)."""
    return sum(svc.count(p) for p in DATA_PATHS)


def wait_until(condition: Callable[[], bool], *, within: float = 60.0) -> bool:
    """Poll (bounded) until ``condition()``; only to stop a hang, never a timing assertion."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def wait_for_count(svc: FakeService, path: str, n: int, *, within: float = 10.0) -> bool:
    """Wait (bounded) until the emulator has recorded ``n`` requests on ``path``.

    Used after client-side timeouts: the emulator records an abandoned request only when its
    handler finishes, which must happen before the fixture resets for the next test.
    """
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if svc.count(path) >= n:
            return True
        time.sleep(0.02)
    return svc.count(path) >= n


def capture_request_ids(client: Client) -> list[str | None]:
    """Record the X-Request-Id of every network answer the client's session receives."""
    ids: list[str | None] = []

    def hook(response: Any, *args: Any, **kwargs: Any) -> None:
        ids.append(response.headers.get("X-Request-Id"))

    client.session.hooks["response"].append(hook)
    return ids


# -- reply factories (a fresh Reply each time: the emulator stamps headers onto it) -------------


def server_error() -> Reply:
    return fail(500, "Internal server error")


def bad_gateway() -> Reply:
    html = (
        b"<html><head><title>502 Bad Gateway</title></head><body>"
        b"<h1>502 Bad Gateway</h1><hr>nginx</body></html>"
    )
    return Reply(502, html, {"Content-Type": "text/html"})


def unavailable() -> Reply:
    return fail(503, "Service temporarily unavailable", error_code="1072")


def rate_limited(retry_after: int | str, *, limit: float | None = None) -> Reply:
    errors: dict[str, Any] = {"current_tier": "Emulator"}
    if limit is not None:
        errors["current_limit"] = limit
    return fail(
        429, "Rate limit exceeded; slow down", errors=errors, **{"Retry-After": str(retry_after)}
    )


class FailFirst:
    """An override answering ``make()`` to the first ``k`` requests, then the real route."""

    def __init__(self, k: int, make: Callable[[], Reply]) -> None:
        self.k = k
        self.make = make
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, req: Request) -> Reply | None:
        with self._lock:
            self.calls += 1
            n = self.calls
        return self.make() if n <= self.k else None


class Tap:
    """An override that lets the real route answer and keeps every JSON body it sent."""

    def __init__(self, svc: FakeService, path: str) -> None:
        self.svc = svc
        self.path = path
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __call__(self, req: Request) -> Reply:
        try:
            reply = routes.ROUTES[self.path](self.svc.state, req)
        except routes.BadRequest as exc:
            reply = fail(400, "Validation failed", errors=exc.errors, error_code="VALIDATION_ERROR")
        with self._lock:
            self.bodies.append(json.loads(reply.body))
        return reply

    def emitted_cursors(self) -> list[str]:
        with self._lock:
            return [
                b["pagination"]["next_cursor"]
                for b in self.bodies
                if b.get("pagination", {}).get("next_cursor")
            ]


@contextlib.contextmanager
def cache_reads(client: Client) -> Iterator[list[str]]:
    """The cache keys the client reads from requests-cache while the block runs (the emulator
    cannot see a cache read): ``with cache_reads(client) as reads: ...; len(reads)``."""
    reads: list[str] = []
    backend = client.session.cache  # type: ignore[attr-defined]
    original = backend.get_responses

    def spy(keys: list[str]) -> Any:  # a run's read ahead, or one call's read (one key)
        reads.extend(keys)
        return original(keys)

    backend.get_responses = spy
    try:
        yield reads
    finally:
        backend.get_responses = original
