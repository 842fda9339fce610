"""A cache opened for managing: where it is, its answers (one backend per namespace), its store.

A cache file is acted on whole. A Redis is acted on in one namespace, or in all of them.

Example:
    >>> location = CacheLocation(None, "redis://:pw@redis.internal:6379/0", namespace="3f2a")
    >>> location  # the password never shows
    CacheLocation('redis://:***@redis.internal:6379/0', namespace='3f2a')
    >>> with OpenCache.open(CacheLocation(None)) as cache:  # no cache
    ...     cache.label, cache.answers
    ('off', [])
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache
from requests_cache.models.response import CachedResponse

from ..config.cache_urls import redact_url, redis_namespace
from ..config.settings import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_CACHE,
    Settings,
    cache_setting,
)
from ..errors import ConfigurationError
from ..store import (
    Store,
    answers_namespace,
    named_namespace,
    namespace,
    require_redis,
    store_path,
)
from ..store.private_files import sqlite_files
from .requests_cache_internals import redis_connection
from .sqlite import SQLiteAnswers, rewrite_file, shared_backends, sqlite_cache_file

__all__ = ["Answers", "CacheLocation", "OpenCache"]


@dataclass(frozen=True)
class CacheLocation:
    """Where a cache is, without a key or a service: what the cache commands work on.

    ``namespace`` is the namespace acted on in a Redis: the key's, or the team's that the URL
    names (None: every namespace there). ``name`` is the team's namespace's name, when the URL
    names one. A SQLite cache is acted on whole, whatever they say.

    Example:
        >>> CacheLocation(Path("leads.sqlite")).label
        'leads.sqlite'
    """

    path: Path | None
    url: str | None = field(default=None, repr=False)  # password and all: only to connect
    namespace: str | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        """The path, the Redis URL without its password, or ``"off"``."""
        if self.url is not None:
            return redact_url(self.url)
        return str(self.path) if self.path is not None else "off"

    def __repr__(self) -> str:
        name = f", name={self.name!r}" if self.name is not None else ""
        return f"CacheLocation({self.label!r}, namespace={self.namespace!r}{name})"

    @classmethod
    def from_environment(cls) -> CacheLocation:
        """The cache ``LOOKUP_CACHE`` names (a path, a Redis URL, ``off``), else the default file.

        In a Redis, the namespace acted on is the one the URL names, with ``LOOKUP_BASE_URL``
        (a ConfigurationError without it). Else it is the namespace of ``LOOKUP_API_KEY`` and
        ``LOOKUP_BASE_URL`` when both are set, else every namespace. No key is needed for a
        SQLite file or a named namespace.

        Example: ``CacheLocation.from_environment()`` -> ``CacheLocation('/home/ana/.cache/...')``
        """
        path, url = cache_setting(True)
        name = redis_namespace(url) if url is not None else None
        if name is not None:
            if not _set(ENV_BASE_URL):
                raise ConfigurationError(
                    f"{ENV_CACHE} names the namespace {name}, which is kept per service: set "
                    f"{ENV_BASE_URL} too (the key is not needed)."
                )
            # The base URL read as a Client reads it; the key is not needed for a named one.
            key = os.environ.get(ENV_API_KEY, "").strip() or "-"
            base = Settings.build(api_key=key, cache=False)
            return cls(path, url, named_namespace(name, base.base_url), name)
        if url is not None and _set(ENV_API_KEY) and _set(ENV_BASE_URL):
            settings = Settings.build(cache=False)  # the key and URL, read as a Client reads them
            return cls(path, url, namespace(settings.api_key, settings.base_url))
        return cls(path, url)


def _set(name: str) -> bool:
    return bool(os.environ.get(name, "").strip())


class Answers(Protocol):
    """One requests-cache backend's answers, as cache management uses them.

    Example: :class:`.sqlite.SQLiteAnswers`, :class:`.redis.RedisAnswers`
    """

    def keys(self) -> list[str]: ...

    def readable(self) -> Iterator[CachedResponse]: ...

    def read(self, key: str) -> object: ...  # None: unreadable; KeyError: deleted meanwhile

    def delete(self, keys: Sequence[str]) -> None: ...

    def delete_expired(self) -> int: ...


@dataclass(eq=False, repr=False)
class OpenCache:
    """A cache opened for managing: its answers, its store, how to measure and rewrite it.

    It is built from a Client (:meth:`of_client`) or from a :class:`CacheLocation` (:meth:`open`,
    which closes what it opened).

    Example: ``with OpenCache.open(CacheLocation.from_environment()) as cache: cache.size()``
    """

    label: str
    answers: list[Answers]
    store: Store  # an empty MemoryStore without a cache
    _: KW_ONLY
    every_namespace: bool
    sqlite: SQLiteAnswers | None = None
    store_file: Path | None = None
    redis: tuple[Any, str, list[str]] | None = None  # (connection, url, namespaces)

    @classmethod
    def of_client(cls, settings: Settings, cache: BaseCache | None, store: Store) -> OpenCache:
        """What a Client holds: its cache backend (None: no cache) and its store."""
        label = settings.cache_label
        if cache is None:
            return cls(label, [], store, every_namespace=False)
        if isinstance(cache, SQLiteCache):
            assert settings.cache_path is not None
            sqlite = SQLiteAnswers(cache)
            file = store_path(settings.cache_path)
            return cls(label, [sqlite], store, every_namespace=True, sqlite=sqlite, store_file=file)
        url = settings.cache_url
        assert url is not None
        from .redis import RedisAnswers

        answers: list[Answers] = [RedisAnswers(cache, url)]  # the key's answers adopted first
        connection = redis_connection(cache)
        names = _measured(connection, url, answers_namespace(settings), settings.cache_namespace)
        return cls(label, answers, store, every_namespace=False, redis=(connection, url, names))

    @classmethod
    @contextlib.contextmanager
    def open(cls, location: CacheLocation | OpenCache) -> Iterator[OpenCache]:
        """The cache at ``location``, closed afterwards (one already open stays open).

        A missing SQLite file is not created.
        """
        if isinstance(location, OpenCache):
            yield location
        elif location.url is not None:
            with _open_redis(location) as opened:
                yield opened
        elif location.path is not None:
            with _open_sqlite(location.path) as opened:
                yield opened
        else:
            from ..store.local import MemoryStore

            yield cls("off", [], MemoryStore(), every_namespace=False)

    def securely(self) -> AbstractContextManager[None]:
        """Deleting with SQLite's ``secure_delete`` on (nothing to do on Redis)."""
        return self.sqlite.securely() if self.sqlite is not None else contextlib.nullcontext()

    def rewrite(self) -> list[Path]:
        """Rewrite the SQLite files, empty their write-ahead logs, and return those not done."""
        failed = []
        if self.sqlite is not None and not self.sqlite.rewrite():
            failed.append(self.sqlite.path)
        store_file = self.store_file
        if store_file is not None and store_file.exists() and not rewrite_file(store_file):
            failed.append(store_file)
        return failed

    def size(self) -> int | None:
        """Bytes on disk (SQLite, with ``-wal`` and ``-shm``) or in memory (Redis)."""
        if self.redis is not None:
            from .redis import memory_usage

            return memory_usage(*self.redis)
        files = []
        if self.sqlite is not None:
            files += sqlite_files(self.sqlite.path)
        if self.store_file is not None:
            files += sqlite_files(self.store_file)
        return sum(f.stat().st_size for f in files if f.exists())


@contextlib.contextmanager
def _open_sqlite(path: Path) -> Iterator[OpenCache]:
    from ..store.local import LocalStore

    file = sqlite_cache_file(path)
    stored = store_path(path)
    store = LocalStore(stored, namespace="")  # every namespace: see the module doc
    with contextlib.ExitStack() as stack, contextlib.closing(store):  # the store closed first
        sqlite = None
        if file.exists():  # never create a cache only to say it is empty
            backend, shared = shared_backends().acquire(path)
            stack.callback(shared_backends().release, shared)
            sqlite = SQLiteAnswers(backend)
        answers: list[Answers] = [sqlite] if sqlite is not None else []
        yield OpenCache(
            str(path), answers, store, every_namespace=True, sqlite=sqlite, store_file=stored
        )


@contextlib.contextmanager
def _open_redis(location: CacheLocation) -> Iterator[OpenCache]:
    require_redis()  # a ConfigurationError saying how to install redis
    from ..store.redis import Namespaces, RedisStore, namespaces
    from ..store.redis_connection import connect
    from .redis import RedisAnswers, RedisAnswersCache

    url = location.url
    assert url is not None
    with contextlib.closing(connect(url)) as connection:
        ns = location.namespace
        names = [ns] if ns is not None else namespaces(connection, url)
        answers: list[Answers] = [
            RedisAnswers(RedisAnswersCache(url, Namespaces("", n), connection=connection), url)
            for n in names
        ]
        if location.name is not None and ns is not None:  # the team's: jobs of its keys
            store = RedisStore(url, Namespaces("", ns), connection=connection)
            names = _measured(connection, url, ns, location.name)
        else:
            store = RedisStore(url, Namespaces(ns or "", ns or ""), connection=connection)
        redis = (connection, url, names)
        yield OpenCache(location.label, answers, store, every_namespace=ns is None, redis=redis)


def _measured(connection: Any, url: str, ns: str, name: str | None) -> list[str]:
    """The namespaces whose keys a Redis cache's size counts.

    For the team's named namespace, that includes the keys that used it (their pace, jobs, marks).
    """
    if name is None:
        return [ns]
    from ..store.redis import members

    return [ns, *members(connection, url, ns)]
