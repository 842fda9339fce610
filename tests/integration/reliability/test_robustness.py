"""Robustness: malformed answers, servers that never answer, hostile handles, a walk that goes back.

Every failure here must surface as one of lookup_pandas.errors (never KeyError, TypeError,
JSONDecodeError or AttributeError), with a short message that says what was wrong; answers
that are not the service's envelope are neither retried (unless transient) nor cached.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import socket
import string
import threading
import time
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import lookup_pandas as lp
from lookup_pandas import Client
from lookup_pandas.client.fetching import fetched
from lookup_pandas.errors import (
    NotFoundError,
    PaginationError,
    RequestTimeoutError,
    ResponseError,
    ServiceError,
    TransportError,
)
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.testing import data

from ..helpers import EMPLOYEES, PROFILE, SEARCH, TIER, FailFirst, Reply, make_client, ok

pytestmark = pytest.mark.timeout(60)

MAX_MESSAGE = 500
FORBIDDEN = (KeyError, TypeError, json.JSONDecodeError, AttributeError, IndexError)


# -- helpers -------------------------------------------------------------------------------------


def raised(fn: Callable[[], Any]) -> BaseException:
    """Run ``fn``; return what it raised (fail the test when it raised nothing)."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the point is to see exactly what escapes
        return exc
    pytest.fail("expected an exception, got a result")


def envelope(data_: Any = None, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "success": True,
        "statusCode": 200,
        "message": "ok",
        "errors": None,
        "data": data_,
    }
    body.update(changes)
    return body


def json_reply(body: Any, status: int = 200) -> Reply:
    return Reply(status, json.dumps(body).encode(), {"Content-Type": "application/json"})


def check_response_error(exc: BaseException, *fragments: str, status: int = 200) -> str:
    """The exception is a ResponseError naming the status and every fragment, in < 500 chars."""
    assert not isinstance(exc, FORBIDDEN), f"raw {type(exc).__name__} escaped: {exc!r}"[:800]
    assert isinstance(exc, ResponseError), f"{type(exc).__name__}: {exc}"[:800]
    text = str(exc)
    assert len(text) < MAX_MESSAGE, f"message of {len(text)} chars: {text[:300]}..."
    assert f"HTTP {status}" in text, f"the message does not name HTTP {status}: {text!r}"
    assert exc.status_code == status
    for fragment in fragments:
        assert fragment.lower() in text.lower(), f"{fragment!r} not in {text!r}"
    return text


PERSON = data.person("ada")

# name -> (reply factory, fragments the message must contain). Profile answers, HTTP 200.
MALFORMED_PROFILE: dict[str, tuple[Callable[[], Reply], tuple[str, ...]]] = {
    "html": (
        lambda: Reply(
            200, b"<html><body><h1>Maintenance</h1></body></html>", {"Content-Type": "text/html"}
        ),
        ("not JSON",),
    ),
    "json-list": (lambda: json_reply([PERSON]), ("envelope",)),
    "json-string": (lambda: json_reply("ok"), ("envelope",)),
    "json-null": (lambda: json_reply(None), ("envelope",)),
    "dict-without-success": (lambda: json_reply({"status": "ok", "result": PERSON}), ("envelope",)),
    "success-missing": (
        lambda: json_reply({k: v for k, v in envelope(PERSON).items() if k != "success"}),
        ("envelope",),
    ),
    "success-string": (lambda: json_reply(envelope(PERSON, success="true")), ("envelope",)),
    "success-number": (lambda: json_reply(envelope(PERSON, success=1)), ("envelope",)),
    "success-without-data": (
        lambda: json_reply({k: v for k, v in envelope(PERSON).items() if k != "data"}),
        ("data",),
    ),
    "data-list": (lambda: json_reply(envelope([PERSON])), ("data",)),
    "data-string": (lambda: json_reply(envelope("prsn_123")), ("data",)),
    "data-null": (lambda: json_reply(envelope(None)), ("data",)),
    "empty-body": (lambda: Reply(200, b"", {"Content-Type": "application/json"}), ("not JSON",)),
    "invalid-utf8": (
        lambda: Reply(200, b'\xff\xfe{"success": true}', {"Content-Type": "application/json"}),
        ("not JSON",),
    ),
    "half-json": (
        lambda: Reply(
            200, b'{"success": true, "data": {"id": ', {"Content-Type": "application/json"}
        ),
        ("not JSON",),
    ),
}


# -- 1. malformed answers: profile -----------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(MALFORMED_PROFILE))
def test_malformed_profile_answer_is_a_clear_response_error_not_retried_not_cached(
    fake_service, fake_client, kind
):
    make, fragments = MALFORMED_PROFILE[kind]
    fake_service.override(PROFILE, lambda req: make())

    exc = raised(lambda: fake_client.profile("ada"))
    check_response_error(exc, *fragments)
    assert fake_service.count(PROFILE) == 1, "a malformed answer is final: no retry"
    assert fake_client.stats.retries == 0

    # Not cached: asking again goes to the network again (and fails the same way).
    exc2 = raised(lambda: fake_client.profile("ada"))
    assert isinstance(exc2, ResponseError)
    assert fake_service.count(PROFILE) == 2, "the malformed answer was served from the cache"
    assert not fake_client.parts.cache.is_cached(PROFILE, {"handle": "ada"})

    # Once the service answers properly, the real record comes back.
    fake_service.override(PROFILE, None)
    assert fake_client.profile("ada") == PERSON
    assert fake_service.count(PROFILE) == 3


@pytest.mark.parametrize("kind", ["html", "json-list", "success-string", "empty-body"])
def test_malformed_answer_through_get_is_a_response_error(fake_service, fake_client, kind):
    make, fragments = MALFORMED_PROFILE[kind]
    fake_service.override(PROFILE, lambda req: make())
    exc = raised(lambda: fake_client.get(PROFILE, {"handle": "ada"}))
    check_response_error(exc, *fragments)
    assert fake_service.count(PROFILE) == 1


# -- 1. malformed answers: list endpoints ----------------------------------------------------------

SEARCH_PAGE = data.search(title="engineer")[:3]

MALFORMED_LIST: dict[str, tuple[Callable[[], Reply], tuple[str, ...]]] = {
    "html": (
        lambda: Reply(200, b"<!doctype html><title>Oops</title>", {"Content-Type": "text/html"}),
        ("not JSON",),
    ),
    "json-list": (lambda: json_reply(SEARCH_PAGE), ("envelope",)),
    "dict-without-success": (lambda: json_reply({"results": SEARCH_PAGE}), ("envelope",)),
    "success-string": (lambda: json_reply(envelope(SEARCH_PAGE, success="true")), ("envelope",)),
    "success-without-data": (lambda: json_reply({"success": True, "message": "ok"}), ("data",)),
    "data-dict": (
        lambda: json_reply(
            envelope(
                {"items": SEARCH_PAGE},
                pagination={"limit": 50, "has_more": False, "next_cursor": ""},
            )
        ),
        ("data",),
    ),
    "data-string": (lambda: json_reply(envelope("none")), ("data",)),
    "empty-body": (lambda: Reply(200, b""), ("not JSON",)),
    "pagination-not-object": (
        lambda: json_reply(envelope(SEARCH_PAGE, pagination=[1, 2])),
        ("pagination",),
    ),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED_LIST))
def test_malformed_search_page_through_paginate(fake_service, fake_client, kind):
    make, fragments = MALFORMED_LIST[kind]
    fake_service.override(SEARCH, lambda req: make())

    def walk() -> list[dict[str, Any]]:
        it = fake_client.paginate(SEARCH, {"title": "engineer", "limit": 50}, progress=False)
        return list(itertools.islice(it, 10_000))

    check_response_error(raised(walk), *fragments)
    assert fake_service.count(SEARCH) == 1
    # Not cached: a second walk asks the network again.
    assert isinstance(raised(walk), ResponseError)
    assert fake_service.count(SEARCH) == 2, "the malformed page was served from the cache"


@pytest.mark.parametrize("kind", ["html", "json-list", "success-string", "data-dict", "empty-body"])
def test_malformed_search_page_through_search_people(fake_service, fake_client, kind):
    make, fragments = MALFORMED_LIST[kind]
    fake_service.override(SEARCH, lambda req: make())
    exc = raised(lambda: lp.search_people("engineer", client=fake_client, progress=False))
    check_response_error(exc, *fragments)
    assert fake_service.count(SEARCH) == 1


# -- 1. truncated bodies (Content-Length larger than the body): transient --------------------------

FULL_BODY = json.dumps(envelope(PERSON, message="Profile retrieved successfully")).encode()


def truncated() -> Reply:
    body = FULL_BODY[: len(FULL_BODY) // 2]
    return Reply(
        200, body, {"Content-Type": "application/json", "Content-Length": str(len(FULL_BODY))}
    )


@pytest.mark.timeout(30)
def test_truncated_body_is_retried_then_raises_transport_error(fake_service):
    fake_service.override(PROFILE, lambda req: truncated())
    with make_client(fake_service, max_retries=2) as client:
        exc = raised(lambda: client.profile("ada"))
        stats = client.stats

    assert not isinstance(exc, FORBIDDEN), repr(exc)
    assert isinstance(exc, TransportError), f"{type(exc).__name__}: {exc}"
    assert not isinstance(exc, ResponseError)
    assert fake_service.count(PROFILE) == 2 + 1
    assert stats.retries == 2
    text = str(exc)
    assert len(text) < MAX_MESSAGE
    assert PROFILE in text


@pytest.mark.parametrize("k", [1, 2])
def test_truncation_that_happens_only_at_first_succeeds_on_retry(fake_service, fake_client, k):
    script = FailFirst(k, truncated)
    fake_service.override(PROFILE, script)

    assert fake_client.profile("ada") == PERSON
    assert script.calls == k + 1
    assert fake_service.count(PROFILE) == k + 1
    assert fake_client.stats.retries == k
    # The good answer (not the truncated one) is what was cached.
    assert fake_client.profile("ada") == PERSON
    assert fake_service.count(PROFILE) == k + 1


def test_truncated_search_page_is_retried_mid_walk(fake_service, fake_client):
    from ..helpers import Tap

    tap = Tap(fake_service, SEARCH)
    first_second_page = FailFirst(1, truncated)

    def script(req):
        if req.param("cursor") is not None and first_second_page(req) is not None:
            return truncated()
        return tap(req)

    fake_service.override(SEARCH, script)
    records = list(fake_client.paginate(SEARCH, {"title": "engineer", "limit": 50}, progress=False))
    expected = data.search(title="engineer")
    assert [r["id"] for r in records] == [r["id"] for r in expected]
    assert fake_client.stats.retries == 1


# -- 1. very large bodies ----------------------------------------------------------------

MB = 1024 * 1024


@pytest.mark.timeout(60)
def test_20_mb_of_html_with_200_is_a_short_response_error(fake_service, fake_client):
    body = b"<html><body>" + b"<p>lorem ipsum dolor sit amet</p>\n" * (20 * MB // 34) + b"</html>"
    assert len(body) >= 20 * MB - 100
    fake_service.override(PROFILE, lambda req: Reply(200, body, {"Content-Type": "text/html"}))

    exc = raised(lambda: fake_client.profile("ada"))
    check_response_error(exc, "not JSON")
    assert fake_service.count(PROFILE) == 1
    assert not fake_client.parts.cache.is_cached(PROFILE, {"handle": "ada"})


@pytest.mark.timeout(60)
def test_20_mb_json_without_envelope_is_a_short_response_error(fake_service, fake_client):
    body = json.dumps("x" * (20 * MB)).encode()
    fake_service.override(
        PROFILE, lambda req: Reply(200, body, {"Content-Type": "application/json"})
    )
    exc = raised(lambda: fake_client.profile("ada"))
    check_response_error(exc, "envelope")
    assert fake_service.count(PROFILE) == 1


@pytest.mark.timeout(60)
def test_5_mb_valid_profile_envelope_succeeds_and_is_cached(fake_service, fake_client):
    big = {**PERSON, "summary": "s" * (5 * MB)}
    body = json.dumps(envelope(big, message="Profile retrieved successfully")).encode()
    assert len(body) > 5 * MB
    fake_service.override(
        PROFILE, lambda req: Reply(200, body, {"Content-Type": "application/json"})
    )

    rec = fake_client.profile("ada")
    assert rec == big
    assert fake_service.count(PROFILE) == 1
    assert fake_client.profile("ada") == big  # from the cache
    assert fake_service.count(PROFILE) == 1


# -- 1. through the DataFrame layer --------------------------------------------------------------

ROW_SCRIPTS: dict[str, tuple[Callable[[], Reply], tuple[str, ...]]] = {
    "bad-html": (MALFORMED_PROFILE["html"][0], ("not JSON", "HTTP 200")),
    "bad-list": (MALFORMED_PROFILE["json-list"][0], ("envelope", "HTTP 200")),
    "bad-success": (MALFORMED_PROFILE["success-string"][0], ("envelope", "HTTP 200")),
    "bad-nodata": (MALFORMED_PROFILE["success-without-data"][0], ("data", "HTTP 200")),
    "bad-datalist": (MALFORMED_PROFILE["data-list"][0], ("data", "HTTP 200")),
    "bad-empty": (MALFORMED_PROFILE["empty-body"][0], ("not JSON", "HTTP 200")),
}


def _per_handle(req):
    script = ROW_SCRIPTS.get(req.param("handle") or "")
    return script[0]() if script else None


def test_enrich_coerce_records_malformed_answers_as_error_rows(fake_service, tmp_path):
    fake_service.override(PROFILE, _per_handle)
    handles = ["ada", *ROW_SCRIPTS, "grace", "bad-html"]
    frame = pd.DataFrame({"handle": handles, "n": range(len(handles))})
    with make_client(fake_service, cache=tmp_path / "c.sqlite", max_retries=1) as client:
        out = frame.lookup.enrich_profiles("handle", errors="coerce", client=client, progress=False)

    assert list(out["n"]) == list(range(len(handles)))
    pairs = zip(out["lookup_status"], out["lookup_error"], strict=True)
    by_handle = dict(zip(out["handle"], pairs, strict=True))
    assert by_handle["ada"][0] == "ok" and by_handle["grace"][0] == "ok"
    assert out.loc[out["handle"] == "ada", "profile_id"].item() == PERSON["id"]
    for handle, (_, fragments) in ROW_SCRIPTS.items():
        status, error = by_handle[handle]
        assert status == "error", (handle, status, error)
        assert isinstance(error, str) and len(error) < MAX_MESSAGE
        for fragment in fragments:
            assert fragment.lower() in error.lower(), (handle, fragment, error)
    # Each distinct malformed handle was asked once (no retry, the duplicate row shares it).
    for handle in ROW_SCRIPTS:
        assert fake_service.count(PROFILE, handle=handle) == 1, handle


def test_enrich_coerce_records_a_persistently_truncated_answer_as_error(fake_service, tmp_path):
    fake_service.override(
        PROFILE, lambda req: truncated() if req.param("handle") == "cut" else None
    )
    frame = pd.DataFrame({"handle": ["ada", "cut"]})
    with make_client(fake_service, cache=tmp_path / "c.sqlite", max_retries=1) as client:
        out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
    assert list(out["lookup_status"]) == ["ok", "error"]
    error = out["lookup_error"].iloc[1]
    assert isinstance(error, str) and len(error) < MAX_MESSAGE and PROFILE in error
    assert fake_service.count(PROFILE, handle="cut") == 2


def test_enrich_raise_surfaces_the_response_error_naming_the_handle(fake_service, fake_client):
    fake_service.override(PROFILE, _per_handle)
    frame = pd.DataFrame({"handle": ["bad-html"]})
    exc = raised(
        lambda: frame.lookup.enrich_profiles(
            "handle", errors="raise", client=fake_client, progress=False
        )
    )
    check_response_error(exc, "not JSON", "bad-html")


# -- 2. servers that accept and never (fully) answer -------------------------------------------

_REQUEST_LINE = re.compile(rb"^(?P<method>[A-Z]+) (?P<target>\S+) HTTP/1\.[01]\r\n", re.M)


class SilentServer:
    """A raw TCP server on loopback that reads requests and never answers (or stalls mid-body).

    ``mode="silent"``: never writes a byte. ``mode="stall-body"``: after each request's headers,
    writes a status line and headers promising 1000 bytes, then 20 bytes of body, then nothing.
    Sockets stay open until :meth:`stop`.
    """

    STALL_HEAD = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
    )
    STALL_BODY = b'{"success": true, "d'

    def __init__(self, mode: str = "silent") -> None:
        self.mode = mode
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.settimeout(0.05)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._conns: list[socket.socket] = []
        self._threads: list[threading.Thread] = []
        self.accepted = 0
        self.targets: list[str] = []  # request targets in arrival order
        self._acceptor = threading.Thread(
            target=self._accept_loop, daemon=True, name="silent-server"
        )

    @property
    def base_url(self) -> str:
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> SilentServer:
        self._acceptor.start()
        return self

    def paths(self) -> list[str]:
        with self._lock:
            return [t.split("?", 1)[0] for t in self.targets]

    def wait_for_requests(self, n: int, within: float = 5.0) -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline and len(self.paths()) < n:
            time.sleep(0.01)

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.accepted += 1
                self._conns.append(conn)
            t = threading.Thread(target=self._read_loop, args=(conn,), daemon=True)
            with self._lock:
                self._threads.append(t)
            t.start()

    def _read_loop(self, conn: socket.socket) -> None:
        conn.settimeout(0.05)
        buf = b""
        while not self._stopping.is_set():
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            if not chunk:
                return  # the client closed (its timeout); keep nothing else going
            buf += chunk
            while b"\r\n\r\n" in buf:
                head, buf = buf.split(b"\r\n\r\n", 1)
                m = _REQUEST_LINE.match(head + b"\r\n")
                with self._lock:
                    self.targets.append(m.group("target").decode("latin-1") if m else "?")
                if self.mode == "stall-body":
                    try:
                        conn.sendall(self.STALL_HEAD + self.STALL_BODY)
                    except OSError:
                        return

    def stop(self) -> None:
        self._stopping.set()
        self._acceptor.join(timeout=5)
        self._listener.close()
        with self._lock:
            conns, threads = list(self._conns), list(self._threads)
        for t in threads:
            t.join(timeout=5)
        for c in conns:
            c.close()

    def __enter__(self) -> SilentServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _silent_client(base_url: str, **kwargs: Any) -> Client:
    opts: dict[str, Any] = {
        "timeout": 0.3,
        "max_retries": 2,
        "backoff_base": 0.01,
        "backoff_max": 0.05,
        "rate_limit_per_minute": 6000,
        "cache": False,
    }
    opts.update(kwargs)
    return Client(api_key="lk_test_silent", base_url=base_url, **opts)


@pytest.mark.timeout(30)
def test_server_that_never_answers_raises_request_timeout_error_after_exact_attempts():
    max_retries = 2
    with SilentServer("silent") as server:
        client = _silent_client(server.base_url, max_retries=max_retries)
        try:
            exc = raised(lambda: client.profile("ada"))
            stats = client.stats
            pace = client.rate_limit_per_minute
        finally:
            client.close()
        attempts = max_retries + 1
        server.wait_for_requests(2 * attempts)
        paths = server.paths()
        accepted = server.accepted

    assert isinstance(exc, RequestTimeoutError), f"{type(exc).__name__}: {exc}"
    assert isinstance(exc, TransportError)
    text = str(exc)
    assert len(text) < MAX_MESSAGE and PROFILE in text and "0.3s" in text
    # Tier discovery times out through its own retries first (and falls back to the configured
    # pace), then the profile request gets its max_retries + 1 attempts: nothing more.
    assert paths == [TIER] * attempts + [PROFILE] * attempts
    assert accepted == 2 * attempts  # a timed-out connection is never reused
    assert stats.sent == 2 * attempts
    assert stats.retries == 2 * max_retries
    assert pace == 6000


@pytest.mark.timeout(30)
def test_silent_server_with_zero_retries_is_one_attempt_each():
    with SilentServer("silent") as server:
        client = _silent_client(server.base_url, max_retries=0)
        try:
            exc = raised(lambda: fetched(client.parts.sender.request, "ada", PEOPLE))
        finally:
            client.close()
        server.wait_for_requests(2)
        paths = server.paths()
    assert isinstance(exc, RequestTimeoutError), f"{type(exc).__name__}: {exc}"
    assert paths == [TIER, PROFILE]


@pytest.mark.timeout(30)
def test_server_that_stalls_mid_body_raises_a_timeout_error_not_a_hang():
    max_retries = 2
    with SilentServer("stall-body") as server:
        client = _silent_client(server.base_url, max_retries=max_retries)
        try:
            exc = raised(lambda: client.profile("ada"))
        finally:
            client.close()
        attempts = max_retries + 1
        server.wait_for_requests(2 * attempts)
        paths = server.paths()

    assert not isinstance(exc, FORBIDDEN), repr(exc)
    assert isinstance(exc, TransportError), f"{type(exc).__name__}: {exc}"
    assert len(str(exc)) < MAX_MESSAGE
    assert paths == [TIER] * attempts + [PROFILE] * attempts  # retried like any timeout
    # Headers arrived, then nothing within the timeout: that is a timeout, and should say so.
    assert isinstance(exc, RequestTimeoutError), (
        f"a read timeout mid-body surfaced as {type(exc).__name__}: {exc}"
    )


# -- 3. hostile handles reach the service intact ------------------------------------------------

EXPLICIT_HANDLES = [
    "&",
    "?",
    "#",
    "/",
    "%",
    "+",
    "=",
    "a b",
    " lead",
    "a\nb",
    "\x00",
    "ü",
    "😀",
    "../../etc",
    "a&handle=b",
    "x?y#z",
    "%41",
    "%2B",
    "%zz",
    "a+b",
    "a%20b",
    ";x=y",
    "handle=evil",
    "a\r\nX-Injected: 1",
    "ada#frag",
    "\u202eevil",
    "ada\u200b",
    "ü/😀?&=#%+",
]

HANDLES = st.text(
    alphabet=st.characters(exclude_categories=("Cs",)), min_size=1, max_size=200
).filter(lambda s: bool(s.strip()))


@pytest.fixture
def warm_client(fake_service):
    """A cache-less client whose tier discovery is done, so each call is one request."""
    with make_client(fake_service, cache=False, rate_limit_per_minute=6000) as client:
        client.credits_tier()
        yield client


def _sent_raw(client: Client, handle: str) -> dict[str, Any] | None:
    """GET the profile path with ``handle`` as it is. ``client.profile`` refuses values that
    cannot be a public handle (issue 21, :mod:`lookup_pandas.identifiers.handles`) and normalises
    the rest;
    the escape hatch ``client.get`` sends anything, so these tests reach the wire itself."""
    try:
        return dict(client.get(PROFILE, {"handle": handle})["data"])
    except NotFoundError:
        return None


def _assert_sent_intact(svc, client: Client, handle: str) -> None:
    before = len(svc.requests)
    rec = _sent_raw(client, handle)
    reqs = svc.requests
    assert len(reqs) == before + 1, f"{len(reqs) - before} requests for {handle!r}"
    last = reqs[-1]
    assert last.path == PROFILE, (handle, last.path)
    assert last.params == (("handle", handle),), (handle, last.params)
    assert last.status == 200
    if rec is not None:  # handles are case-insensitive: the record holds the canonical one
        assert rec["handle"] == handle.lower()


def _explicit(fn):
    for h in EXPLICIT_HANDLES:
        fn = example(h=h)(fn)
    return fn


@given(h=HANDLES)
@_explicit
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_any_handle_arrives_intact_as_the_only_parameter(fake_service, warm_client, h):
    _assert_sent_intact(fake_service, warm_client, h)


def test_ten_thousand_character_handle_arrives_intact(fake_service, warm_client):
    rng = random.Random(1234)
    alphabet = string.ascii_letters + "&?#/%+="
    h = "&?#/%+=" + "".join(rng.choice(alphabet) for _ in range(10_000 - 7))
    assert len(h) == 10_000
    _assert_sent_intact(fake_service, warm_client, h)


def test_blank_handles_are_refused_without_sending(fake_service, warm_client):
    before = len(fake_service.requests)
    for h in ["", " ", "\n\t", "\u2028", "\u3000"]:
        with pytest.raises(ValueError):
            warm_client.profile(h)
    assert len(fake_service.requests) == before


NEAR_COLLISIONS = [
    "a b",
    "a+b",
    "a%20b",
    "a%2Bb",
    "a%2bb",
    "a&b",
    "a&b=",
    "a;b",
    "A b",
    "a  b",
    "a\tb",
    "a/b",
    "a%2Fb",
    "a=b",
    "a%3Db",
    "a?b",
    "a#b",
    "ab",
]


def test_distinct_handles_get_distinct_cache_entries(fake_service, fake_client):
    """Handles that differ only in what URL-encoding could blur are never confused."""
    fake_client.credits_tier()  # tier discovery done: from now on one request per call
    for h in NEAR_COLLISIONS:
        _assert_sent_intact(fake_service, fake_client, h)
    sent = len(fake_service.requests)
    for h in NEAR_COLLISIONS:
        rec = _sent_raw(fake_client, h)  # from the cache: each handle its own answer
        assert rec is not None and rec["handle"] == h.lower()
    assert len(fake_service.requests) == sent
    assert fake_service.count(PROFILE) == len(NEAR_COLLISIONS)


# -- 4. an offset walk whose echoed start goes backwards -----------------------------------------


def test_offset_walk_whose_echoed_start_goes_back_raises_within_three_calls(
    fake_service, fake_client
):
    """Pages at start 0 and 50 are honest; asked for start 100 the service answers start 50
    (records 50..99 again). test_pagination covers an echo stuck at 0; this one goes back
    later, and checks that no record is handed out twice."""
    everyone = data.employees("acme")

    def goes_back(req):
        start = int(req.param("start") or 0)
        echoed = 50 if start == 100 else start
        return ok(
            everyone[echoed : echoed + 50],
            "Employees retrieved successfully",
            {"start": echoed, "limit": 50, "has_more": True},
        )

    fake_service.override(EMPLOYEES, goes_back)
    got: list[dict[str, Any]] = []
    exc = raised(
        lambda: got.extend(
            itertools.islice(
                fake_client.paginate(
                    EMPLOYEES, {"slug": "acme", "limit": 50}, style="offset", progress=False
                ),
                1000,
            )
        )
    )
    assert isinstance(exc, PaginationError), f"{type(exc).__name__}: {exc}"
    assert isinstance(exc, ServiceError)
    assert fake_service.count(EMPLOYEES) == 3
    starts = [r.param("start") for r in fake_service.requests if r.path == EMPLOYEES]
    assert starts == ["0", "50", "100"]


def test_offset_walk_going_back_never_yields_a_record_twice(fake_service, fake_client):
    everyone = data.employees("acme")

    def goes_back(req):
        start = int(req.param("start") or 0)
        echoed = 50 if start == 100 else start
        return ok(
            everyone[echoed : echoed + 50],
            "Employees retrieved successfully",
            {"start": echoed, "limit": 50, "has_more": True},
        )

    fake_service.override(EMPLOYEES, goes_back)
    got: list[dict[str, Any]] = []
    with pytest.raises(PaginationError):
        for rec in itertools.islice(
            fake_client.paginate(
                EMPLOYEES, {"slug": "acme", "limit": 50}, style="offset", progress=False
            ),
            1000,
        ):
            got.append(rec)
    ids = [r["id"] for r in got]
    assert len(ids) == len(set(ids)), (
        f"{len(ids) - len(set(ids))} records were yielded twice before the PaginationError"
    )
    assert ids == [r["id"] for r in everyone[:100]]
