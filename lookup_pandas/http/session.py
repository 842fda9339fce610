"""The HTTP session: requests over urllib3, with requests-cache on SQLite or Redis in front.

Example::

    session = build_session(settings)           # or build_session(settings, MockTransport(...))
    session.get(url, params=..., headers={DATA_KEY_HEADER: key}, timeout=30)
    session.release_cache()                     # a SQLite cache: let go of the shared backend

Pacing and retries are the Client's, above this: it looks the cache up once, then paces and
sends with ``force_refresh`` so that requests-cache stores without a second lookup. What is
stored is the cache's own policy (:mod:`lookup_pandas.cache.policy`).
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
from ..cache.keys import remembered_key
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
    """A CachedSession (or a plain Session when the cache is off) over the network, or over
    ``transport`` (a test's adapter) when one is given.

    Example: ``build_session(Settings.build(api_key="k", cache=False))`` -> a requests.Session
    """
    session: requests.Session
    if settings.cache_url is not None:
        require_redis()  # a ConfigurationError saying how to install redis
        from ..cache.redis import RedisAnswersCache

        redis_backend = RedisAnswersCache(
            settings.cache_url,
            answers_namespace(settings),
            key_namespace=namespace(settings.api_key, settings.base_url),
        )
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

    A session garbage collected first lets go from its finaliser, which only queues the entry
    (the GC may run while this thread opens a cache); the next call to the shared backends
    closes what nobody uses any more, and ``close_all`` does at exit.
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
        allowable_codes=(200,),
        ignored_parameters=IGNORED_PARAMETERS,  # the key headers: out of keys, redacted
        key_fn=remembered_key,  # requests-cache's keys, worked out once per request
        cache_control=False,  # the service's answers carry no caching headers we should obey
        stale_if_error=False,
    )


def _environment_once(session: requests.Session, base_url: str) -> None:
    """Read proxy and CA-bundle settings from the environment now, not on every request
    (with ``trust_env`` on, requests reads the whole environment on every request).

    Example: ``_environment_once(session, "https://api.example.com")``
    """
    session.proxies.update(requests.utils.get_environ_proxies(base_url))
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if bundle:
        session.verify = bundle
    session.trust_env = False
