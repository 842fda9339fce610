"""The HTTP session: requests-cache on SQLite above a paced adapter.

Example::

    session = build_session(settings, Pacer(per_minute=60))
    session.get(url, params=..., headers={DATA_KEY_HEADER: key}, timeout=30)

Layering: ``CachedSession.send`` answers hits from SQLite and only hands misses to the adapter,
so :class:`PacedAdapter` (which waits for a pacer slot) is reached by real network calls alone:
cache hits spend no rate limit, and every retry, made by the Client above, takes a slot.

What is cached (:func:`should_cache`): successful envelopes and billed not-founds
(200 + success=false + a not-found error_code); never errors, 429s, 5xx, or the panel endpoint.
The policy is applied where responses are saved (:class:`PaidAnswersCache`), not as
requests-cache's ``filter_fn``: a rejected response there also *deletes* the entry already
stored under its key, so a failed ``refresh=True`` would throw away an answer already paid for.
The key headers are named in ``ignored_parameters`` with the exact casing we send, which is
what makes requests-cache redact them from stored requests (it matches names case-sensitively).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import weakref
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests_cache import CachedSession, SQLiteCache
from requests_cache.policy.settings import DEFAULT_IGNORED_PARAMS

from ._version import __version__
from .envelope import is_billed_not_found
from .pacing import Pacer
from .settings import Settings

logger = logging.getLogger(__name__)

__all__ = [
    "DATA_KEY_HEADER",
    "PANEL_KEY_HEADER",
    "PacedAdapter",
    "PaidAnswersCache",
    "build_session",
    "is_panel_url",
    "should_cache",
]

#: Header names exactly as sent (requests-cache redacts only exact-case matches).
DATA_KEY_HEADER = "X-service-apikey"
PANEL_KEY_HEADER = "X-AUTHAPI-Key"
PANEL_PREFIX = "/api/panel/"


#: The type of ``data`` each known data endpoint answers with.
_DATA_KIND: dict[str, type] = {
    "/people/profile": dict,
    "/companies/employees": list,
    "/people/search": list,
}


def is_panel_url(url: str) -> bool:
    """True for the panel surface (credits tier), which is never cached."""
    return PANEL_PREFIX in urlsplit(url).path


def should_cache(response: requests.Response) -> bool:
    """Keep what was paid for and is worth reusing.

    Example: a 200 envelope with ``success: true`` and usable ``data`` -> True; a 200 with
    ``error_code: "1010"`` (not found, billed) -> True; success=false for any other reason, no
    ``data``, ``data`` of the wrong type for the endpoint, or a malformed ``pagination`` -> False.
    """
    if response.status_code != 200 or is_panel_url(response.url or ""):
        return False
    try:
        body: Any = json.loads(response.content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    if not isinstance(body, dict):
        return False
    if is_billed_not_found(body):
        return True
    if body.get("success") is not True or "data" not in body:
        return False
    if not isinstance(body.get("pagination", {}), dict):
        return False
    # An answer the client would refuse must not be replayed from the cache for days.
    path = urlsplit(response.url or "").path
    expected = next((kind for suffix, kind in _DATA_KIND.items() if path.endswith(suffix)), None)
    return expected is None or isinstance(body["data"], expected)


class PaidAnswersCache(SQLiteCache):
    """The SQLite backend, storing only what :func:`should_cache` accepts."""

    def save_response(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        if should_cache(response):
            super().save_response(response, *args, **kwargs)
        else:
            logger.debug("not caching HTTP %s for %s", response.status_code,
                         urlsplit(response.url or "").path)


class _SharedBackends:
    """One SQLite backend (one connection) per cache file per process, shared by every Client.

    Two connections to one file in one process can stall each other for the whole busy
    timeout: a writer on connection A waits (in SQLite's busy handler) for B's write lock,
    while a reader on A blocks on A's mutex holding the GIL that B needs to commit (seen with
    gdb). Sharing one connection, behind requests-cache's lock, cannot do that; processes
    still each have their own, and WAL lets them share the file. The backend closes when the
    last Client using it closes (or is garbage collected), never under another's feet.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, list[Any]] = {}  # path -> [backend, number of users]

    def acquire(self, path: Path) -> tuple[PaidAnswersCache, str]:
        key = str(path.resolve())
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = [_open_backend(path), 0]
            entry[1] += 1
            return entry[0], key

    def release(self, key: str) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] > 0:
                return
            del self._entries[key]
        entry[0].close()


def _open_backend(path: Path, attempts: int = 8) -> PaidAnswersCache:
    """The backend for ``path``; retried while another process holds a new file's lock.

    Setting up WAL on a new file takes a lock that SQLite's busy timeout does not wait for, so
    two processes starting on the same new file at once could fail with "database is locked".
    """
    for attempt in range(attempts):
        try:
            return PaidAnswersCache(
                path,
                wal=True,  # readers never block the writer: several processes can share one file
                busy_timeout=30_000,  # ms to wait for another writer instead of failing
                timeout=30.0,
            )
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(min(1.0, 0.05 * 2**attempt))
    raise AssertionError("unreachable")  # pragma: no cover


_BACKENDS = _SharedBackends()


class PacedAdapter(HTTPAdapter):
    """An HTTPAdapter that waits for a pacer slot before each real send."""

    def __init__(self, pacer: Pacer, *, pool_maxsize: int = 10) -> None:
        super().__init__(pool_connections=4, pool_maxsize=pool_maxsize, max_retries=0)
        self.pacer = pacer

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> Any:
        # requests-cache writes its per-request options (expire_after, refresh) as Cache-Control
        # directives; they are for our cache, and a proxy on the way must not act on them.
        request.headers.pop("Cache-Control", None)
        self.pacer.wait()
        return super().send(request, *args, **kwargs)


def build_session(settings: Settings, pacer: Pacer) -> requests.Session:
    """A CachedSession (or a plain Session when the cache is off) with the paced adapter."""
    session: requests.Session
    if settings.cache_path is not None:
        settings.cache_path.parent.mkdir(parents=True, exist_ok=True)
        backend, key = _BACKENDS.acquire(settings.cache_path)
        session = CachedSession(
            backend=backend,
            autoclose=False,  # the backend is shared: release_cache() lets go of it
            expire_after=settings.expire_after,
            allowable_methods=("GET",),
            allowable_codes=(200,),
            ignored_parameters=(*DEFAULT_IGNORED_PARAMS, DATA_KEY_HEADER, PANEL_KEY_HEADER),
            cache_control=False,  # the service's answers carry no caching headers we should obey
            stale_if_error=False,
        )
        # Settings live on the shared backend, so expire_after is also sent with every request.
        session.release_cache = weakref.finalize(session, _BACKENDS.release, key)  # type: ignore[attr-defined]
    else:
        session = requests.Session()
    adapter = PacedAdapter(pacer, pool_maxsize=max(10, settings.max_workers * 2))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = f"lookup-pandas/{__version__}"
    session.headers["Accept"] = "application/json"
    _environment_once(session, settings.base_url)
    return session


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
