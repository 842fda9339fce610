"""What processes using one key share: the pace, claims on answers being bought, batch jobs.

Example::

    store = open_store(Path("leads.sqlite"), namespace("lk_...", "https://api.example.com"))
    store.reserve(1.05)                  # seconds until this caller's send slot (now reserved)
    store.defer(2.0)                     # a 429 said Retry-After: 2 -> nobody sends for 2 s
    store.claim_many(["key-of-ada"], ttl=540)   # {key: MINE}: fetch it; BUSY: another is;
    store.release_many(["key-of-ada"])   # RECHECK: another just fetched it: read the cache
    store.mark_key_seen()                # the key worked once: an all-cached run need not ask
    store.remember(StoredJob("job_1", ("ada", "grace"), submitted=time.time()))
    store.drop_inputs(lambda h: h == "ada")     # [("job_1", ("ada",))]: erased from the job

With an on-disk cache, everything lives in a small SQLite file beside it (``leads.store.sqlite``,
see :mod:`.local`), so every process on the machine using the same key and cache file shares
one sequence of send slots and never buys one answer twice; with ``cache="redis://..."`` in
Redis (:mod:`.redis`), shared by every machine pointing at it; without a cache, in memory for
the Client's lifetime. Every entry is filed under :func:`namespace`, a hash of the API key and
the base URL: the key itself is never stored. In a Redis whose URL names the team's namespace
(``?namespace=acme-sales``), the answers and the claims on them are filed under
:func:`named_namespace` instead (:func:`answers_namespace` picks), so a rotated key keeps them;
the pace, the batch jobs and the mark that the key worked stay the key's. The Pacer and the
Client ask the store; nothing above the Client knows which store is in use.
"""

from __future__ import annotations

import hashlib
import importlib
import math
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigurationError
from . import common
from .common import *  # noqa: F403  the vocabulary every store shares is the package's too

if TYPE_CHECKING:
    from ..config.settings import Settings

__all__ = [
    "MemoryStore",
    "answers_namespace",
    "named_namespace",
    "namespace",
    "open_store",
    "require_redis",
    "store_path",
]
__all__ += common.__all__


class MemoryStore:
    """The store of a Client without a cache: its own pace, claims and jobs, in memory.

    The Client's Pacer already spaces its threads, so ``reserve`` only honours deferrals here.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, common.StoredJob] = {}
        self._key_seen = -math.inf  # time.monotonic() when the key last worked

    def reserve(self, interval: float) -> float:
        return 0.0

    def defer(self, seconds: float) -> None:
        return None

    def slow_to(self, interval: float, seconds: float = common.SHARED_SLOWDOWN_SECONDS) -> None:
        return None

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        return dict.fromkeys(keys, common.MINE)  # one Client: its enrichment dedupes its own calls

    def renew(self, keys: list[str], ttl: float) -> None:
        return None

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        return None

    def key_seen(self) -> bool:
        return time.monotonic() - self._key_seen < common.KEY_SEEN_SECONDS

    def mark_key_seen(self) -> None:
        self._key_seen = time.monotonic()

    def remember(self, job: common.StoredJob) -> None:
        with self._lock:
            self._jobs[job.job_id] = job

    def jobs(self) -> list[common.StoredJob]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.submitted)

    def drop_job(self, job_id: str) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)

    forget = drop_job  # the former name

    def job(self, job_id: str) -> common.StoredJob | None:
        with self._lock:
            return self._jobs.get(job_id)

    def drop_inputs(
        self, matches: Callable[[str], bool], *, every_namespace: bool = False
    ) -> list[tuple[str, tuple[str, ...]]]:
        changed = []
        with self._lock:
            for job in list(self._jobs.values()):
                kept, dropped = common.split_inputs(job.inputs, matches)
                if not dropped:
                    continue
                if kept:
                    self._jobs[job.job_id] = common.StoredJob(job.job_id, kept, job.submitted)
                else:
                    del self._jobs[job.job_id]
                changed.append((job.job_id, dropped))
        return changed

    def clear_jobs(self, *, every_namespace: bool = False) -> int:
        with self._lock:
            removed = len(self._jobs)
            self._jobs.clear()
        return removed

    def count_jobs(self, *, every_namespace: bool = False) -> int:
        with self._lock:
            return len(self._jobs)

    def close(self) -> None:
        return None


def namespace(api_key: str, base_url: str) -> str:
    """The name entries are filed under: a hash of the key and the base URL, never the key."""
    digest = hashlib.sha256(f"lookup_pandas\x1f{base_url}\x1f{api_key}".encode())
    return digest.hexdigest()[:32]


def named_namespace(name: str, base_url: str) -> str:
    """The name a team's namespace is filed under: a hash of its name and the base URL, so
    one name used with two services (production, staging) never mixes their answers.

    Example: ``named_namespace("acme-sales", "https://api.example.com")`` -> ``"9c41..."``
    (never equal to a key's :func:`namespace`)
    """
    digest = hashlib.sha256(f"lookup_pandas\x1fnamed\x1f{base_url}\x1f{name}".encode())
    return digest.hexdigest()[:32]


def answers_namespace(settings: Settings) -> str:
    """Where a Client's answers (and the claims on them) are filed: the namespace its Redis
    URL names, else its key's.

    Example: ``answers_namespace(Settings.build(cache="redis://h/0?namespace=acme"))`` ->
    ``named_namespace("acme", base_url)``
    """
    name = settings.cache_namespace
    if name is None:
        return namespace(settings.api_key, settings.base_url)
    return named_namespace(name, settings.base_url)


def store_path(cache_path: Path) -> Path:
    """The store's file beside the cache: ``leads.sqlite`` -> ``leads.store.sqlite``."""
    return cache_path.with_name(f"{cache_path.stem}.store{cache_path.suffix or '.sqlite'}")


def open_store(cache: Path | str | None, ns: str, *, answers: str | None = None) -> common.Store:
    """The store for a cache: beside its file, in the Redis a ``redis://`` URL names, or in
    memory when there is no cache. ``ns``: the key's namespace; ``answers``: the namespace of
    the answers and their claims in a Redis (:func:`answers_namespace`; default ``ns``).

    Example: ``open_store("redis://:pw@redis.internal:6379/0", ns)`` -> a RedisStore.
    """
    if cache is None:
        return MemoryStore()
    from ..config.cache_urls import is_redis_url

    if isinstance(cache, str) and is_redis_url(cache):
        require_redis()
        from .redis import RedisStore

        return RedisStore(cache, ns, answers=answers)
    from .local import LocalStore

    return LocalStore(store_path(Path(cache)), ns)


def require_redis() -> None:
    """Nothing when the ``redis`` package is installed; else a ConfigurationError saying how to
    install it (the ``[redis]`` extra), for a Redis URL set without it.

    Example: ``require_redis(); from lookup_pandas.store.redis import RedisStore``
    """
    try:
        importlib.import_module("redis")
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "redis":
            raise
        raise ConfigurationError(
            "The cache is a Redis URL, but the redis package is not installed: "
            "pip install 'lookup_pandas[redis]'."
        ) from None
