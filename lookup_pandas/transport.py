"""The HTTP session (requests-cache on SQLite or Redis), and what an answer is worth keeping.

Example::

    session = build_session(settings)           # or build_session(settings, MockTransport(...))
    session.get(url, params=..., headers={DATA_KEY_HEADER: key}, timeout=30)
    parsed_answer(response, PROFILE_PATH)       # its Envelope, decoded and checked once

Pacing and retries are the Client's, above this: it looks the cache up once, then paces and
sends with ``force_refresh`` so that requests-cache stores without a second lookup.

What is cached (:func:`should_cache`): the answers the Client would accept, as
:func:`parsed_answer` reads them (a success whose ``data`` is of the endpoint's kind), and
billed not-founds (200 + success=false + a not-found error_code); never errors, 429s, 5xx, or
the panel endpoint. The body is decoded and checked once per answer: the cache policy keeps its
reading on the response, and the Client takes it from there.
The policy is applied where responses are saved (:class:`PaidAnswersOnly`, the one copy both
backends use: :class:`PaidAnswersCache` on SQLite, ``RedisAnswersCache`` in
:mod:`lookup_pandas.store.redis`), not as requests-cache's ``filter_fn``: a rejected response
there also *deletes* the entry already stored under its key, so a failed ``refresh=True`` would
throw away an answer already paid for.
The key headers are named in ``ignored_parameters`` with the exact casing we send, which is
what makes requests-cache redact them from stored requests (it matches names case-sensitively).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import functools
import io
import json
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests
import urllib3
from requests.adapters import BaseAdapter, HTTPAdapter
from requests_cache import CachedSession
from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache
from requests_cache.policy.settings import DEFAULT_IGNORED_PARAMS

from ._version import __version__
from .endpoints import BATCH_PATH, checked_data, is_panel
from .envelope import NOT_FOUND_CODES, Envelope, parse_envelope
from .errors import ConfigurationError, NotFoundError, ServiceError
from .private_files import prepare_sqlite_file
from .settings import Settings, default_cache_path

logger = logging.getLogger(__name__)
T = TypeVar("T")

__all__ = [
    "DATA_KEY_HEADER",
    "IGNORED_PARAMETERS",
    "PANEL_KEY_HEADER",
    "PaidAnswersCache",
    "PaidAnswersOnly",
    "BATCH_NOT_FOUND_MESSAGE",
    "build_session",
    "parsed_answer",
    "profile_answer_from_batch",
    "should_cache",
]

#: Header names exactly as sent (requests-cache redacts only exact-case matches).
DATA_KEY_HEADER = "X-service-apikey"
PANEL_KEY_HEADER = "X-AUTHAPI-Key"
#: What requests-cache leaves out of cache keys and redacts from stored requests.
IGNORED_PARAMETERS = (*DEFAULT_IGNORED_PARAMS, DATA_KEY_HEADER, PANEL_KEY_HEADER)

_PARSED = "_lookup_parsed"  # where a response keeps its one reading: Envelope or ServiceError


def _read(response: requests.Response, path: str, from_cache: bool) -> Envelope | ServiceError:
    """The answer decoded and checked: its Envelope (data of the endpoint's kind), or the
    ServiceError it means."""
    try:
        env = parse_envelope(
            response.status_code,
            response.headers,
            response.content,
            url=path,
            from_cache=from_cache,
        )
        checked_data(env, path)
        return env
    except ServiceError as exc:
        return exc


def parsed_answer(response: requests.Response, path: str, *, from_cache: bool = False) -> Envelope:
    """The checked Envelope of ``response``, or the ServiceError it means, raised.

    Example: ``parsed_answer(session.get(url, ...), PROFILE_PATH).data``

    A response the cache policy already read (a fresh answer, on its way into the cache) is
    not decoded again.
    """
    outcome = getattr(response, _PARSED, None)
    if outcome is None:
        outcome = _read(response, path, from_cache)
    if isinstance(outcome, ServiceError):
        raise outcome
    return outcome


def should_cache(response: requests.Response) -> bool:
    """Keep what was paid for and is worth reusing: what the Client would accept.

    Example: a 200 envelope with ``success: true`` and ``data`` of the endpoint's kind ->
    True; a 200 with ``error_code: "1010"`` (not found, billed) -> True; success=false for any
    other reason, no ``data``, ``data`` of the wrong kind, a malformed ``pagination``, any
    status but 200, the panel endpoint or a batch job's poll -> False (an answer the Client
    would refuse must not be replayed from the cache for days; a poll is not billed, its
    results are cached one by one as profile answers, and a stored page of them would keep
    people that ``forget`` erased).
    """
    path = urlsplit(response.url or "").path
    if response.status_code != 200 or is_panel(path) or path.startswith(BATCH_PATH):
        return False
    outcome = _read(response, path, from_cache=False)
    # The Client reads this same outcome, not the body (a response type that takes no new
    # attribute is simply read again there).
    with contextlib.suppress(AttributeError):
        setattr(response, _PARSED, outcome)
    if isinstance(outcome, NotFoundError):
        return outcome.status_code == 200 and outcome.error_code in NOT_FOUND_CODES
    return isinstance(outcome, Envelope)


#: The message of a batch job's not-found, as a single lookup's answer carries it.
BATCH_NOT_FOUND_MESSAGE = "Profile not found"


def profile_answer_from_batch(
    request: requests.PreparedRequest, record: dict[str, Any] | None, job_id: str
) -> requests.Response:
    """The answer ``GET /people/profile`` gives, made from one batch job result, so that it is
    cached (and read back) exactly as a single lookup's: the record with ``success: true``, or
    ``record=None``: the billed not-found (200, ``success: false``, ``error_code`` 1010).

    Example: ``profile_answer_from_batch(client._prepare(PROFILE_PATH, {"handle": "ada"}),
    {"id": "prsn_1", "handle": "ada"}, "job_1").status_code == 200``

    ``X-Batch-Job-Id`` names the job it came from. It goes through requests' own
    ``build_response``, so requests-cache stores it like any answer from the network.
    """
    if record is None:
        body: dict[str, Any] = {
            "success": False,
            "message": BATCH_NOT_FOUND_MESSAGE,
            "errors": None,
            "data": None,
            "error_code": "1010",
        }
    else:
        body = {
            "success": True,
            "statusCode": 200,
            "message": "Profile retrieved by a batch job",
            "errors": None,
            "data": record,
        }
    content = json.dumps(body).encode()
    raw = urllib3.HTTPResponse(
        body=io.BytesIO(content),
        headers={
            "Content-Type": "application/json",
            "Content-Length": str(len(content)),
            "X-Batch-Job-Id": job_id,
        },
        status=200,
        reason="OK",
        preload_content=False,
        decode_content=False,
        request_url=request.url,
    )
    return _response_builder().build_response(request, raw)


@functools.cache
def _response_builder() -> HTTPAdapter:
    """An adapter used only for requests' ``build_response`` (it sends nothing)."""
    return HTTPAdapter()


class PaidAnswersOnly(BaseCache):
    """The save policy of every backend, mixed in before it: only what :func:`should_cache`
    accepts is stored (``class PaidAnswersCache(PaidAnswersOnly, SQLiteCache)``)."""

    def save_response(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        if should_cache(response):
            super().save_response(response, *args, **kwargs)
        else:
            logger.debug(
                "not caching HTTP %s for %s",
                response.status_code,
                urlsplit(response.url or "").path,
            )


class PaidAnswersCache(PaidAnswersOnly, SQLiteCache):
    """The SQLite backend, storing only what :func:`should_cache` accepts."""


class _Entry:
    """One shared backend and how many use it: what :meth:`_SharedBackends.acquire` lends."""

    __slots__ = ("backend", "key", "users")

    def __init__(self, key: str, backend: PaidAnswersCache) -> None:
        self.key = key  # the resolved path of the cache file
        self.backend = backend
        self.users = 0  # acquired and not yet released (counted under the lock)


class _SharedBackends:
    """One SQLite backend (one connection) per cache file per process, shared by every Client.

    Example::

        backend, entry = _BACKENDS.acquire(path)   # the file's backend, opened by its first user
        _BACKENDS.release(entry)                   # closed here when it was the last user

    Two connections to one file in one process can stall each other for the whole busy
    timeout: a writer on connection A waits (in SQLite's busy handler) for B's write lock,
    while a reader on A blocks on A's mutex holding the GIL that B needs to commit (seen with
    gdb). Sharing one connection, behind requests-cache's lock, cannot do that; processes
    still each have their own, and WAL lets them share the file. The backend closes when the
    last Client using it closes (or is garbage collected), never under another's feet.

    Letting go never waits for the lock (issue 21, item 9). :meth:`acquire` holds it while a
    file opens, which is slow and allocates a lot, so the garbage collector can run in there
    and free a Client (notebooks keep Clients in cycles: a failed cell's traceback) whose
    finaliser lets go of its backend *on the same thread*. Waiting for a plain lock there hung
    the process; an RLock would not hang but would change the table in the middle of
    ``acquire``. So:

    - a finaliser only queues the entry (:meth:`release_later`: ``deque.append``, atomic, no
      Python-level lock), and touches nothing else;
    - the queue is worked off (:meth:`settle`: counts down, and closes a backend whose last
      user is gone) by ordinary code: before and after every :meth:`acquire`, in every
      :meth:`release` (``Client.close``), and at exit (:meth:`close_all`);
    - :meth:`settle` only *tries* the lock. When it is taken (by another thread, or by this
      one further up the stack), its holder works the queue off after letting go of it, and
      sees what was queued before the try: nothing is left behind. Single-threaded, a release
      is done (the backend closed, if it was the last user) when it returns;
    - backends are closed outside the lock. Each acquire is released once (a session's
      finaliser runs once, called by ``close()`` or by the GC); a release for a backend
      :meth:`close_all` already closed is ignored, so it never closes a newer backend of the
      same file. A file whose last user is gone is opened afresh by the next ``acquire``.

    The only wait for the lock is in :meth:`acquire` (and :meth:`close_all`, at exit), which
    nothing calls from a finaliser.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}  # resolved path -> its backend and users
        self._released: collections.deque[_Entry] = collections.deque()  # not yet counted

    def acquire(self, path: Path) -> tuple[PaidAnswersCache, _Entry]:
        """The backend of ``path`` (opened if nobody uses it), and the entry to release."""
        key = str(path.resolve())
        self.settle()  # Clients freed since: one may have been this file's last user
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = _Entry(key, _open_backend(path))  # the GC may free Clients in here
                self._entries[key] = entry
            entry.users += 1
        self.settle()  # what was released meanwhile, on this thread or another
        return entry.backend, entry

    def release(self, entry: _Entry) -> None:
        """Let go of ``entry`` from ordinary code (``Client.close``): its backend closes now if
        this was the last user (or, when another thread holds the lock, as that one leaves)."""
        self.release_later(entry)
        self.settle()

    def release_later(self, entry: _Entry) -> None:
        """Let go of ``entry`` from a finaliser: only queued (no lock), closed by a later call."""
        self._released.append(entry)

    def settle(self) -> None:
        """Count the queued releases and close the backends nobody uses any more; never waits."""
        while self._released:
            if not self._lock.acquire(blocking=False):
                return  # its holder settles after letting go, and sees what is queued now
            unused = []
            try:
                while self._released:
                    entry = self._released.popleft()
                    entry.users -= 1
                    if entry.users == 0 and self._entries.get(entry.key) is entry:
                        del self._entries[entry.key]
                        unused.append(entry.backend)
            finally:
                self._lock.release()
            for backend in unused:
                # the GC may queue more meanwhile: the loop looks again
                backend.close()  # type: ignore[no-untyped-call]

    def close_all(self) -> None:
        """Close every backend, used or not (at exit; requests-cache reopens one used later)."""
        with self._lock:
            self._released.clear()
            entries = list(self._entries.values())
            self._entries.clear()
        for entry in entries:
            entry.backend.close()  # type: ignore[no-untyped-call]


def _open_backend(path: Path) -> PaidAnswersCache:
    """The backend for ``path``, set up while other processes may be setting it up too.

    The file is made private (0600, its directories 0700) before SQLite opens it, and one that
    was there already is checked (:mod:`.private_files`); so is the library's own default
    directory.
    """
    path = sqlite_cache_file(path)
    prepare_sqlite_file(path, check_dir=path.parent == default_cache_path().parent)
    return while_locked(
        lambda: PaidAnswersCache(
            path,
            wal=True,  # readers never block the writer: several processes can share one file
            busy_timeout=30_000,  # ms to wait for another writer instead of failing
            timeout=30.0,
        )
    )


def sqlite_cache_file(path: Path) -> Path:
    """The file the SQLite cache of ``path`` is in: requests-cache adds ``.sqlite`` to a name
    without a suffix (``LOOKUP_CACHE=/tmp/leads`` -> ``/tmp/leads.sqlite``)."""
    return path if path.suffix else path.with_name(f"{path.name}.sqlite")


def while_locked(open_: Callable[[], T], attempts: int = 8) -> T:
    """``open_()``, tried again while another connection holds a new SQLite file's lock.

    Example: ``conn = while_locked(lambda: set_up(sqlite3.connect(path)))``

    Setting up WAL on a new file takes a lock that SQLite's busy timeout does not wait for, so
    two connections (threads or processes) starting on the same new file at once could fail
    with "database is locked".
    """
    for attempt in range(attempts):
        try:
            return open_()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(min(1.0, 0.05 * 2**attempt))
    raise AssertionError("unreachable")  # pragma: no cover


_BACKENDS = _SharedBackends()
# Closed in order at exit (SQLite checkpoints the WAL into the file), whoever still uses them.
atexit.register(_BACKENDS.close_all)


class _Adapter(HTTPAdapter):
    """The network: urllib3's pool, with no retries of its own (the Client's are paced)."""

    def __init__(self, *, pool_maxsize: int = 10) -> None:
        super().__init__(pool_connections=4, pool_maxsize=pool_maxsize, max_retries=0)

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        # requests-cache writes its per-request options (expire_after, refresh) as Cache-Control
        # directives; they are for our cache, and a proxy on the way must not act on them.
        request.headers.pop("Cache-Control", None)
        return super().send(request, *args, **kwargs)


def build_session(settings: Settings, transport: BaseAdapter | None = None) -> requests.Session:
    """A CachedSession (or a plain Session when the cache is off) over the network, or over
    ``transport`` (a test's adapter) when one is given."""
    session: requests.Session
    if settings.cache_url is not None:
        from .store import namespace

        redis_backend = _redis_store_module().RedisAnswersCache(
            settings.cache_url, namespace(settings.api_key, settings.base_url)
        )
        # One backend per session: its connection pool is closed with the session.
        session = _cached_session(redis_backend, settings, autoclose=True)
    elif settings.cache_path is not None:
        backend, entry = _BACKENDS.acquire(settings.cache_path)
        # The backend is shared: release_cache() lets go of it.
        session = _cached_session(backend, settings, autoclose=False)
        # Settings live on the shared backend, so expire_after is also sent with every request.
        session.release_cache = _release_cache(session, entry)  # type: ignore[attr-defined]
    else:
        session = requests.Session()
    adapter = transport or _Adapter(pool_maxsize=max(10, settings.max_workers * 2))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = f"lookup-pandas/{__version__}"
    session.headers["Accept"] = "application/json"
    _environment_once(session, settings.base_url)
    return session


def _release_cache(session: requests.Session, entry: _Entry) -> Callable[[], None]:
    """``session.release_cache``: let go of the shared backend now (``Client.close``), once.

    A session garbage collected first lets go from its finaliser, which only queues the entry
    (the GC may run while this thread opens a cache: :class:`_SharedBackends`); the next call
    to the shared backends closes what nobody uses any more, and ``close_all`` does at exit.
    """
    queued = weakref.finalize(session, _BACKENDS.release_later, entry)
    queued.atexit = False  # close_all closes every backend at exit

    def release_cache() -> None:
        queued()  # queues the entry the first time only (closed or collected, never both)
        _BACKENDS.settle()

    return release_cache


def _redis_store_module() -> Any:
    """:mod:`lookup_pandas.store.redis`, or a ConfigurationError saying how to install redis."""
    try:
        from .store import redis as module
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "redis":
            raise
        raise ConfigurationError(
            "The cache is a Redis URL, but the redis package is not installed: "
            "pip install 'lookup_pandas[redis]'."
        ) from None
    return module


def _cached_session(backend: BaseCache, settings: Settings, *, autoclose: bool) -> CachedSession:
    return CachedSession(
        backend=backend,
        autoclose=autoclose,
        expire_after=settings.expire_after,
        allowable_methods=("GET",),
        allowable_codes=(200,),
        ignored_parameters=IGNORED_PARAMETERS,  # the key headers: out of keys, redacted
        cache_control=False,  # the service's answers carry no caching headers we should obey
        stale_if_error=False,
    )


def _environment_once(session: requests.Session, base_url: str) -> None:
    """Read proxy and CA-bundle settings from the environment now, not on every request.

    With ``trust_env`` on, requests scans the whole environment twice per request for proxies
    (measured: ~1 ms of CPU per call, most of our per-request overhead under a thread pool).
    The same settings, read once when the client is built, keep working behind a proxy.
    """
    session.proxies.update(requests.utils.get_environ_proxies(base_url))
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if bundle:
        session.verify = bundle
    session.trust_env = False
