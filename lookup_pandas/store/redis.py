"""The store shared by every machine: the pace, claims, batch jobs and marks in one Redis.

It connects at its first command. The keys it writes are listed in docs/decisions.md.

Example:
    >>> store = RedisStore("redis://:pw@redis.internal:6379/0", Namespaces("3f2a", "3f2a"))
    >>> store  # the password never shows
    RedisStore('redis://:***@redis.internal:6379/0', namespace='lookup_pandas:3f2a')
    >>> store.close()

Example: ``store.claim_many(keys, ttl=30)`` -> ``{key: MINE | BUSY | RECHECK}``, 1,000 keys
a round trip.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import redis
from redis.commands.core import Script

from ..config.cache_urls import redact_url
from ..errors import ConfigurationError
from . import common
from .holders import holder_gone, holder_name, retire
from .redis_connection import connect, key_prefix, translated
from .redis_scripts import (
    CLAIM,
    DONE,
    HELD,
    MARK,
    MERGE_HASH,
    MOVE_KEYS,
    PACE,
    REPLACE_JOB,
    TAKE_OVER,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")

__all__ = [
    "Namespaces",
    "RedisStore",
    "adopt",
    "members",
    "namespaces",
]

#: Keys a claim, renew or release script handles per round trip.
CHUNK = 1000

_CLAIM_STATES = {0: common.MINE, 2: common.RECHECK}  # BUSY: the holder's name
#: A mark's TTL, in whole seconds.
_MARKS_KEPT = int(common.MARKS_KEPT_SECONDS)
#: Times a stored job is read again when it changed while handles were erased from it.
_CAS_ATTEMPTS = 5


#: The last part of a service's batch-speed key, ``lookup_pandas:<service>:resolve-rate``.
_RATE = "resolve-rate"


def _rate_key(service: str) -> str:
    return f"{key_prefix(service)}:{_RATE}"


def _us(seconds: float) -> str:
    return str(round(seconds * 1_000_000))


def _ms(seconds: float) -> str:
    return str(max(1, round(seconds * 1000)))


@dataclass(frozen=True)
class Namespaces:
    """The two namespaces of one key in a shared Redis: its own, and the one of its answers.

    ``answers`` is the team's when the cache URL names one (``?namespace=``), else the key's.
    What the key filed under its own moves into the team's before the first command that needs
    it (:meth:`adoption`).

    Example:
        >>> Namespaces(key="3f2a", answers="3f2a").adoption(None, "redis://localhost")()  # none
    """

    key: str  # "" for cache management, which has no key
    answers: str

    def adoption(self, connection: redis.Redis, url: str) -> Callable[[], None]:
        """What moves the key's answers into the team's namespace (nothing, without one).

        It runs :func:`adopt` once, before the first command that needs it, by the first thread
        there.
        """
        if not self.key or self.key == self.answers:
            return lambda: None
        adopted, lock = threading.Event(), threading.Lock()

        def adoption() -> None:
            if adopted.is_set():
                return
            with lock:
                if not adopted.is_set():
                    adopt(connection, url, self.key, self.answers)
                    adopted.set()

        return adoption


class RedisStore(common.Store):
    """The shared pace, claims, batch jobs and marks of one key in the Redis at ``url``.

    ``spaces.key`` holds the key's pace, its jobs and the mark that it worked (``""`` for cache
    management without a key); ``spaces.answers`` the answers' claims and the refresh's marks
    (answers checked, job changes acted on), shared as the answers are.
    """

    def __init__(
        self, url: str, spaces: Namespaces, *, connection: redis.Redis | None = None
    ) -> None:
        self.url = url
        self._prefix = key_prefix(spaces.key)
        self._answers_ns = spaces.answers
        self._answers_prefix = key_prefix(spaces.answers)
        self._named = spaces.answers != spaces.key
        self._pace_key = f"{self._prefix}:pace"
        self._jobs_key = f"{self._prefix}:jobs"
        self._holder = holder_name()  # this store object's name on its claims
        self._redis = connection if connection is not None else connect(url)
        self._adopt = spaces.adoption(self._redis, url)
        scripts = (PACE, CLAIM, TAKE_OVER, HELD, REPLACE_JOB, MARK)
        self._scripts = {s: self._redis.register_script(s) for s in scripts}

    def __repr__(self) -> str:
        answers = f", answers={self._answers_prefix!r}" if self._named else ""
        return f"RedisStore({redact_url(self.url)!r}, namespace={self._prefix!r}{answers})"

    def close(self) -> None:
        retire(self._holder)  # what it still holds (a failed release) is anyone's
        self._redis.close()

    def _run(self, script: str, keys: list[Any], *args: Any) -> Any:
        """What the Lua ``script`` of :mod:`.redis_scripts` returns for ``keys`` and ``args``."""
        with translated(self.url):
            return self._scripts[script](keys=keys, args=list(args))

    # -- pace --------------------------------------------------------------------------------

    def reserve(self, interval: float) -> float:
        wait = self._run(PACE, [self._pace_key], "reserve", _us(max(0.0, interval)))
        return int(wait) / 1_000_000

    def defer(self, seconds: float) -> None:
        self._run(PACE, [self._pace_key], "defer", _us(max(0.0, seconds)))

    def slow_to(self, interval: float, seconds: float = common.SHARED_SLOWDOWN_SECONDS) -> None:
        self._run(PACE, [self._pace_key], "slow_to", _us(interval), _us(seconds))

    # -- claims ------------------------------------------------------------------------------

    def _claim_key(self, key: str) -> str:
        return f"{self._answers_prefix}:claim:{key}"

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        """One round trip a chunk; a second for the claims of holders gone, taken over."""
        states: dict[str, str] = {}
        for chunk in _chunks(list(dict.fromkeys(keys))):
            codes = self._run(CLAIM, [self._claim_key(k) for k in chunk], self._holder, _ms(ttl))
            busy: dict[str, str] = {}
            for key, code in zip(chunk, codes, strict=True):
                if isinstance(code, bytes):  # another holder's name
                    busy[key], states[key] = code.decode(errors="replace"), common.BUSY
                else:
                    states[key] = _CLAIM_STATES[int(code)]
            states.update(self._take_over(busy, ttl))
        return states

    def _take_over(self, busy: dict[str, str], ttl: float) -> dict[str, str]:
        """The claims of ``busy`` whose holder is gone, taken if still theirs: RECHECK, since
        the holder may have stored the answer before it went; the rest stay BUSY."""
        gone = {h: holder_gone(h) for h in set(busy.values())}
        taken = {k: h for k, h in busy.items() if gone[h]}
        if not taken:
            return {}
        keys = [self._claim_key(k) for k in taken]
        codes = self._run(TAKE_OVER, keys, self._holder, _ms(ttl), *taken.values())
        return {k: common.RECHECK for k, c in zip(taken, codes, strict=True) if int(c)}

    def renew(self, keys: list[str], ttl: float) -> None:
        self._let_go(keys, self._holder, _ms(ttl))

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        self._let_go(keys, DONE if bought else "", _ms(common.DONE_SECONDS))

    def _let_go(self, keys: list[str], value: str, ms: str) -> None:
        """Each claim of ``keys`` still held becomes ``value`` for ``ms`` (``""``: deleted)."""
        for chunk in _chunks(keys):
            self._run(HELD, [self._claim_key(k) for k in chunk], self._holder, value, ms)

    # -- keys seen to work --------------------------------------------------------------------

    def key_seen(self) -> bool:
        with translated(self.url):
            return bool(self._redis.exists(f"{self._prefix}:key-seen"))

    def mark_key_seen(self) -> None:
        with translated(self.url):
            self._redis.set(f"{self._prefix}:key-seen", b"1", ex=int(common.KEY_SEEN_SECONDS))

    # -- marks: answers checked, job changes acted on ----------------------------------------

    def _mark_key(self, kind: str, key: str) -> str:
        return f"{self._answers_prefix}:mark:{kind}:{key}"

    def _marks(self, kind: str, keys: list[str]) -> dict[str, float]:
        unique = list(dict.fromkeys(keys))
        if not unique:
            return {}
        self._adopt()  # the key's own marks moved in with its answers
        pipe = self._redis.pipeline(transaction=False)
        for chunk in _chunks(unique):
            pipe.mget([self._mark_key(kind, k) for k in chunk])
        with translated(self.url):
            values = [v for chunk_values in pipe.execute() for v in chunk_values]
        return {k: float(v) for k, v in zip(unique, values, strict=True) if v is not None}

    def _mark(self, kind: str, keys: list[str], when: float | None) -> None:
        if not keys:
            return
        self._adopt()
        names = [self._mark_key(kind, k) for k in dict.fromkeys(keys)]
        at = repr(time.time() if when is None else float(when))
        self._run(MARK, names, at, _MARKS_KEPT)

    # -- a service's batch speed (filed by base URL, not by key) ----------------------------

    def resolve_rate(self, service: str) -> float | None:
        with translated(self.url):
            raw: bytes | None = self._redis.get(_rate_key(service))  # type: ignore[assignment]
        try:
            return float(raw) if raw is not None else None
        except ValueError:  # not written by this store: no figure
            return None

    def keep_resolve_rate(self, service: str, rate: float) -> None:
        with translated(self.url):
            self._redis.set(
                _rate_key(service), repr(rate), ex=int(common.RESOLVE_RATE_KEPT_SECONDS)
            )

    # -- batch jobs --------------------------------------------------------------------------

    def remember(self, job: common.StoredJob) -> None:
        entry = json.dumps({"inputs": list(job.inputs), "submitted": job.submitted})
        self._adopt()  # the key counted among the namespace's: its jobs are found from it
        with translated(self.url):
            self._redis.hset(self._jobs_key, job.job_id, entry)

    def jobs(self) -> list[common.StoredJob]:
        with translated(self.url):
            entries: dict[bytes, bytes] = self._redis.hgetall(self._jobs_key)  # type: ignore[assignment]
        found = [_job(raw_id, raw, self._jobs_key) for raw_id, raw in entries.items()]
        return sorted((j for j in found if j is not None), key=lambda j: j.submitted)

    def drop_job(self, job_id: str) -> None:
        with translated(self.url):
            self._redis.hdel(self._jobs_key, job_id)

    # -- erasure (see lookup_pandas.cache.admin) ---------------------------------------------

    def job(self, job_id: str) -> common.StoredJob | None:
        with translated(self.url):
            raw: bytes | None = self._redis.hget(self._jobs_key, job_id)  # type: ignore[assignment]
        return None if raw is None else _job(job_id.encode(), raw, self._jobs_key)

    def _scan(self, suffix: str, every_namespace: bool) -> Iterator[bytes]:
        """The keys ``<prefix>:<suffix>`` of the answers' namespace or of all, by SCAN."""
        prefix = f"{key_prefix('*')}:" if every_namespace else f"{self._answers_prefix}:"
        with translated(self.url):
            yield from self._redis.scan_iter(match=prefix + suffix, count=1000)

    def _jobs_keys(self, every_namespace: bool) -> list[bytes]:
        """The jobs hashes cache management acts on.

        Those of every namespace, or the key's own and, in a named namespace, those of every key
        that used it.
        """
        if every_namespace:
            return list(self._scan("jobs", True))
        own = [self._jobs_key] if self._prefix != key_prefix("") else []
        if self._named:
            used = members(self._redis, self.url, self._answers_ns)
            own += [f"{key_prefix(ns)}:jobs" for ns in used]
        return [k.encode() for k in dict.fromkeys(own)]

    def drop_inputs(
        self, matches: Callable[[str], bool], *, every_namespace: bool = False
    ) -> list[tuple[str, tuple[str, ...]]]:
        """Erase inputs job by job, each rewritten only if it is still what was read.

        A job written meanwhile is read again, up to five times.
        """
        changed = []
        for key in self._jobs_keys(every_namespace):
            with translated(self.url):
                entries: dict[bytes, bytes] = self._redis.hgetall(key)  # type: ignore[assignment]
            for raw_id, raw in entries.items():
                dropped = self._drop_from(key, raw_id, raw, matches)
                if dropped:
                    changed.append((raw_id.decode(), dropped))
        return changed

    def _drop_from(
        self, key: bytes, job_id: bytes, raw: bytes | None, matches: Callable[[str], bool]
    ) -> tuple[str, ...]:
        for _ in range(_CAS_ATTEMPTS):
            job = None if raw is None else _job(job_id, raw, key.decode())
            if job is None:
                return ()
            kept, dropped = common.split_inputs(job.inputs, matches)
            if not dropped:
                return ()
            entry = json.dumps({"inputs": list(kept), "submitted": job.submitted}) if kept else ""
            if int(self._run(REPLACE_JOB, [key], job_id, raw, entry)):
                return dropped
            with translated(self.url):
                raw = self._redis.hget(key, job_id)  # type: ignore[assignment]
        raise ConfigurationError(
            f"The stored batch job {job_id.decode()} in the Redis at {redact_url(self.url)} "
            "kept changing while handles were erased from it; try again."
        )

    def clear_jobs(self, *, every_namespace: bool = False) -> int:
        removed = 0
        for key in self._jobs_keys(every_namespace):
            with translated(self.url):
                pipe = self._redis.pipeline(transaction=True)
                pipe.hlen(key)
                pipe.delete(key)
                removed += int(pipe.execute()[0])
        doomed = [*self._scan("claim:*", every_namespace), *self._scan("mark:*", every_namespace)]
        for chunk in _chunks(doomed):
            with translated(self.url):
                self._redis.delete(*chunk)
        return removed

    def count_jobs(self, *, every_namespace: bool = False) -> int:
        with translated(self.url):
            return sum(int(self._redis.hlen(key)) for key in self._jobs_keys(every_namespace))


def _job(job_id: bytes, raw: bytes, where: str) -> common.StoredJob | None:
    """A stored job's entry, read. None, with a warning, when it cannot be read."""
    try:
        entry = json.loads(raw)
        return common.StoredJob(
            job_id.decode(), tuple(str(x) for x in entry["inputs"]), float(entry["submitted"])
        )
    except (ValueError, KeyError, TypeError):
        logger.warning("ignoring an unreadable stored batch job in %s", where)
        return None


def namespaces(connection: redis.Redis, url: str) -> list[str]:
    """Every namespace with anything in the Redis at ``url`` (``lookup_pandas:<ns>:...``).

    Example: ``namespaces(connect(url), url)`` -> ``["3f2a...", "9c41..."]``
    """
    found: set[str] = set()
    with translated(url):
        for key in connection.scan_iter(match=f"{key_prefix('*')}:*", count=1000):
            parts = key.split(b":", 2)
            if len(parts) == 3 and parts[1] and parts[2] != _RATE.encode():  # a service's
                found.add(parts[1].decode(errors="replace"))
    return sorted(found)


def members(connection: redis.Redis, url: str, ns: str) -> list[str]:
    """The namespaces of the keys that used the named namespace ``ns`` (none for a key's own).

    Example: ``members(connect(url), url, named_namespace("acme", base))`` -> ``["3f2a..."]``
    """
    with translated(url):
        found: set[bytes] = connection.smembers(f"{key_prefix(ns)}:keys")  # type: ignore[assignment]
    return sorted(m.decode() for m in found)


def adopt(connection: redis.Redis, url: str, key_ns: str, ns: str) -> int:
    """Move a key's answers, and their marks, into the named namespace ``ns``; count the key in.

    Each entry keeps its TTL. An entry that ``ns`` already holds wins. Returns how many answers
    moved. Once the key is counted, this is one round trip that moves nothing.

    Example: ``adopt(connect(url), url, namespace(key, base), named_namespace("acme", base))``
    -> ``1234``
    """
    keys_key = f"{key_prefix(ns)}:keys"
    old, new = f"{key_prefix(key_ns)}:".encode(), f"{key_prefix(ns)}:".encode()
    with translated(url):
        if connection.sismember(keys_key, key_ns):
            return 0
        move = connection.register_script(MOVE_KEYS)
        moved = _move_all(connection, move, old + b"cache", new + b"cache")
        _move_all(connection, move, old + b"mark", new + b"mark")
        redirects = [old + b"cache-redirects", new + b"cache-redirects"]
        connection.register_script(MERGE_HASH)(keys=redirects)
        connection.sadd(keys_key, key_ns)
    if moved:
        logger.info("moved %d answers of this key into the cache's named namespace", moved)
    return moved


def _move_all(connection: redis.Redis, move: Script, old: bytes, new: bytes) -> int:
    """Move every key ``<old>:...`` to ``<new>:...`` (:data:`MOVE_KEYS`). Returns how many moved."""
    found = list(connection.scan_iter(match=old + b":*", count=1000))
    moved = 0
    for chunk in _chunks(found):
        moved += int(move(keys=[k for key in chunk for k in (key, new + key[len(old) :])]))
    return moved


def _chunks(keys: list[T]) -> Iterator[list[T]]:
    for start in range(0, len(keys), CHUNK):
        yield keys[start : start + CHUNK]
