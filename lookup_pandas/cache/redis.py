"""The Redis backend: the answers of one namespace in a shared Redis, as JSON with their TTLs.

Example:
    >>> spaces = Namespaces(key="", answers="3f2a")
    >>> backend = RedisAnswersCache("redis://:pw@redis.internal:6379/0", spaces)
    >>> backend.cache_name  # it connects at its first command
    'lookup_pandas:3f2a:cache'

Example: ``RedisAnswers(backend, url).keys()``: what cache management reads and deletes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import redis
from requests_cache.backends.base import BaseCache
from requests_cache.backends.redis import RedisCache
from requests_cache.models.response import CachedResponse

from ..config.cache_urls import redact_url
from ..store.redis import Namespaces
from ..store.redis_connection import connect, key_prefix, redis_error, translated
from . import requests_cache_internals as internals
from .journal import journal_for_redis
from .policy import PaidAnswersOnly
from .redis_checks import RedisContact

__all__ = ["RedisAnswers", "RedisAnswersCache", "memory_usage"]

#: Redis keys measured with MEMORY USAGE, or aliases checked, per round trip.
_MEMORY_CHUNK = 500


def _translated_command(name: str) -> Callable[..., Any]:
    """``RedisAnswersCache.<name>``: the inherited method, within :func:`translated`, after the
    first contact's checks (:class:`~.redis_checks.RedisContact`)."""

    def command(self: RedisAnswersCache, *args: Any, **kwargs: Any) -> Any:
        self.adopted()
        self.contact.check()
        with translated(self.url):
            return getattr(super(RedisAnswersCache, self), name)(*args, **kwargs)

    command.__name__, command.__qualname__ = name, f"RedisAnswersCache.{name}"
    return command


class RedisAnswersCache(PaidAnswersOnly, RedisCache):
    """requests-cache's Redis backend for the answers worth keeping, as JSON with their own TTLs.

    A failed command is a ConfigurationError. The answers are filed under ``spaces.answers``.
    What the key filed under its own moves in before the first command
    (:meth:`~lookup_pandas.store.redis.Namespaces.adoption`).

    Example: ``CachedSession(backend=RedisAnswersCache(url, Namespaces(key_ns, ns)))``
    """

    def __init__(
        self, url: str, spaces: Namespaces, *, connection: redis.Redis | None = None
    ) -> None:
        self.url = url
        conn = connection if connection is not None else connect(url)
        super().__init__(
            namespace=f"{key_prefix(spaces.answers)}:cache",
            connection=conn,
            serializer="json",  # never pickle: see the module doc
            ttl=True,  # each entry expires through its own TTL
        )
        #: Moves the key's answers into the named namespace, once (nothing without one).
        self.adopted = spaces.adoption(conn, url)
        self.journal = journal_for_redis(redact_url(url), spaces.answers)
        #: What this Redis can lose, told before the first command (StorageWarning).
        self.contact = RedisContact(conn, url, spaces.answers)

    def __repr__(self) -> str:
        return f"RedisAnswersCache({redact_url(self.url)!r}, namespace={self.cache_name!r})"

    def _prune_redirects(self) -> None:
        """requests-cache's, in pipelined round trips: each alias whose answer is gone (its
        TTL ran out, or deleted) is removed. Its own asks Redis once per alias."""
        redirects = list(self.redirects.items())
        conn = internals.redis_connection(self)
        gone: list[str] = []
        for start in range(0, len(redirects), _MEMORY_CHUNK):
            chunk = redirects[start : start + _MEMORY_CHUNK]
            pipe = conn.pipeline(transaction=False)
            for _, target in chunk:
                pipe.exists(internals.redis_answer_key(self, target))
            gone.extend(
                alias for (alias, _), found in zip(chunk, pipe.execute(), strict=True) if not found
            )
        if gone:
            self.redirects.bulk_delete(gone)

    def write_answer(self, *args: Any, **kwargs: Any) -> None:
        """The policy's write of an answer and its aliases, then the mark that this machine
        stored answers here."""
        self._write_answer(*args, **kwargs)
        self.contact.stored()

    def read_many(self, table: Any, keys: Sequence[str]) -> dict[str, Any]:
        """One ``MGET`` of the answers, or one ``HMGET`` of the aliases' hash."""
        if not keys:
            return {}
        conn = internals.redis_connection(self)
        if table is self.responses:
            values = conn.mget([internals.redis_answer_key(self, k) for k in keys])
        else:  # the redirects: one hash
            values = conn.hmget(table._hash_key, list(keys))
        found = {
            k: table.deserialize(k, v) for k, v in zip(keys, values, strict=True) if v is not None
        }
        return {k: v for k, v in found.items() if v is not None}  # None: unreadable

    # requests-cache's commands, each with a failed Redis command as a ConfigurationError.
    get_response = _translated_command("get_response")
    get_responses = _translated_command("get_responses")
    _write_answer = _translated_command("write_answer")  # a failed save goes to the journal
    contains = _translated_command("contains")
    delete = _translated_command("delete")


class RedisAnswers:
    """requests-cache's Redis backend of one namespace, as cache management reads and deletes it.

    Example: ``RedisAnswers(RedisAnswersCache(url, ns), url).delete_expired()`` -> ``3``
    """

    def __init__(self, cache: BaseCache, url: str) -> None:
        self.cache = cache
        self.url = url
        if isinstance(cache, RedisAnswersCache):
            cache.adopted()  # what a Client manages includes what its key filed before

    def keys(self) -> list[str]:
        with translated(self.url):
            return list(self.cache.responses.keys())

    def readable(self) -> Iterator[CachedResponse]:
        with translated(self.url):
            yield from self.cache.filter(valid=True, expired=True)

    def read(self, key: str) -> object:
        """The answer stored under ``key`` (None when unreadable). KeyError when it is gone."""
        with translated(self.url):
            return self.cache.responses[key]

    def delete(self, keys: Sequence[str]) -> None:
        if keys:
            with translated(self.url):
                self.cache.delete(*keys)

    def delete_expired(self) -> int:
        """Delete the expired answers, and the aliases of those whose TTL ran out already."""
        with translated(self.url):
            expired = [r.cache_key for r in self.cache.filter(valid=False, expired=True)]
            self.cache.delete(*expired)
        return len(expired)


def memory_usage(connection: redis.Redis, url: str, names: list[str]) -> int | None:
    """``MEMORY USAGE`` summed over every key of the namespaces. None when the server refuses it.

    Example: ``memory_usage(connect(url), url, [ns])`` -> ``52113``
    """
    total = 0
    try:
        for ns in names:
            keys = list(connection.scan_iter(match=f"{key_prefix(ns)}:*", count=1000))
            for start in range(0, len(keys), _MEMORY_CHUNK):
                pipe = connection.pipeline(transaction=False)
                for key in keys[start : start + _MEMORY_CHUNK]:
                    pipe.memory_usage(key)
                total += sum(int(n or 0) for n in pipe.execute())
    except redis.exceptions.ResponseError:  # MEMORY refused (an ACL, a managed Redis)
        return None
    except redis.exceptions.RedisError as exc:
        raise redis_error(url, exc) from None
    return total
