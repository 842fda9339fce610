"""The HTTP session: requests over urllib3, with requests-cache on SQLite or Redis in front.

Pacing and retries are the send chain's (:mod:`.sending`), above the session. What is stored
is decided by :mod:`lookup_pandas.cache.policy`.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from requests_cache import CachedSession
    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> transport = MockTransport(lambda request: (200, envelope({"status": "ok"})))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     settings = Settings.build(api_key="lk_example", base_url="https://api.example.com",
    ...                               cache=Path(tmp, "answers.sqlite"))
    ...     session = build_session(settings, transport)
    ...     cached = isinstance(session, CachedSession)
    ...     session.release_cache()  # let go of the shared SQLite backend
    >>> cached
    True
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable
from typing import Any

import requests
from requests.adapters import BaseAdapter, HTTPAdapter
from requests_cache import CachedSession
from requests_cache.backends.base import BaseCache

from .._version import __version__
from ..cache.policy import IGNORED_PARAMETERS
from ..cache.sqlite import Entry, shared_backends
from ..config.settings import Settings
from ..store import answers_namespace, namespace, require_redis

__all__ = ["build_session"]


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
    """A CachedSession over the network, or over ``transport`` (a test's adapter).

    When the cache is off, it is a plain requests.Session.

    Example:
        >>> from lookup_pandas.testing import MockTransport, envelope
        >>> transport = MockTransport(lambda request: (200, envelope({"status": "ok"})))
        >>> settings = Settings.build(
        ...     api_key="lk_example", base_url="https://api.example.com", cache=False
        ... )
        >>> session = build_session(settings, transport)
        >>> session.get("https://api.example.com/api/data/v1/health").json()["data"]
        {'status': 'ok'}
        >>> session.headers["User-Agent"].startswith("lookup-pandas/")
        True
    """
    session: requests.Session
    if settings.cache_url is not None:
        require_redis()  # a ConfigurationError saying how to install redis
        from ..cache.redis import RedisAnswersCache
        from ..store.redis import Namespaces

        key_namespace = namespace(settings.api_key, settings.base_url)
        spaces = Namespaces(key_namespace, answers_namespace(settings))
        redis_backend = RedisAnswersCache(settings.cache_url, spaces)
        # One backend per session: its connection pool is closed with the session.
        session = _cached_session(redis_backend, settings, autoclose=True)
    elif settings.cache_path is not None:
        backend, entry = shared_backends().acquire(settings.cache_path)
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


def _release_cache(session: requests.Session, entry: Entry) -> Callable[[], None]:
    """``session.release_cache``: let go of the shared backend now (``Client.close``), once.

    A session collected first lets go from its finaliser (docs/decisions.md says how).
    """
    backends = shared_backends()
    queued = weakref.finalize(session, backends.release_later, entry)
    queued.atexit = False  # close_all closes every backend at exit

    def release_cache() -> None:
        queued()  # queues the entry the first time only (closed or collected, never both)
        backends.settle()

    return release_cache


def _cached_session(backend: BaseCache, settings: Settings, *, autoclose: bool) -> CachedSession:
    return CachedSession(
        backend=backend,
        autoclose=autoclose,
        expire_after=settings.expire_after,
        allowable_methods=("GET",),
        allowable_codes=(200, 422),  # 422: an unsupported reversal (cache.policy keeps which)
        ignored_parameters=IGNORED_PARAMETERS,  # the key headers: out of keys, redacted
        cache_control=False,  # the service's answers carry no caching headers we should obey
        stale_if_error=False,
    )


def _environment_once(session: requests.Session, base_url: str) -> None:
    """Read the proxy and CA-bundle settings from the environment once, not on every request.

    Example:
        >>> session = requests.Session()
        >>> _environment_once(session, "https://api.example.com")
        >>> session.trust_env
        False
    """
    session.proxies.update(requests.utils.get_environ_proxies(base_url))
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if bundle:
        session.verify = bundle
    session.trust_env = False
