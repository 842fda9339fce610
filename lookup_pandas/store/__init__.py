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
the base URL: the key itself is never stored. The Pacer and the Client ask the store; nothing
above the Client knows which store is in use.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = [
    "BUSY",
    "KEY_SEEN_SECONDS",
    "MINE",
    "RECHECK",
    "MemoryStore",
    "Store",
    "StoredJob",
    "namespace",
    "open_store",
    "split_inputs",
    "store_path",
]

#: Claim outcomes: the caller holds it and fetches; another holder is fetching it; the caller
#: holds it, but another holder released it lately: the answer is probably cached, look first.
MINE, BUSY, RECHECK = "mine", "busy", "recheck"
#: How long a released claim says "just fetched: read the cache" to the next claimant.
DONE_SECONDS = 120.0
#: How long a key seen to work is taken as working without asking again (a revoked key is
#: then found by the next run's one free tier read).
KEY_SEEN_SECONDS = 3600.0
#: How long a pace set after a 429 (a lower limit, or half) holds for every process.
SHARED_SLOWDOWN_SECONDS = 600.0


@dataclass(frozen=True)
class StoredJob:
    """A submitted batch job: its id, its inputs in submit order, and when it was submitted."""

    job_id: str
    inputs: tuple[str, ...]
    submitted: float  # seconds since the epoch


class Store(Protocol):
    """The shared state of one key (see the module doc)."""

    def reserve(self, interval: float) -> float:
        """Take the next send slot, ``interval`` after the previous one (or later: a deferral,
        a slower pace a 429 set); return the seconds until it starts."""
        ...

    def defer(self, seconds: float) -> None:
        """No slot for anyone before ``seconds`` from now."""
        ...

    def slow_to(self, interval: float, seconds: float = SHARED_SLOWDOWN_SECONDS) -> None:
        """Every process keeps at least ``interval`` between slots for ``seconds``."""
        ...

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        """Claim each answer of ``keys`` for ``ttl`` seconds: MINE, BUSY or RECHECK each.

        A claim of this holder's own is MINE again (and renewed); one whose holder let go
        within :data:`DONE_SECONDS` is RECHECK (claimed, but read the cache first); one held
        by another holder and not expired is BUSY. An expired claim (its holder died) is
        taken over."""
        ...

    def renew(self, keys: list[str], ttl: float) -> None:
        """Extend this holder's claims on ``keys`` to ``ttl`` seconds from now."""
        ...

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        """Let go of this holder's claims. ``bought``: the answers are in the cache now, so the
        next claimants are told RECHECK (read the cache first) for a while; else (a failure,
        a submit refused) the claims are simply gone and the next claimant gets MINE."""
        ...

    def key_seen(self) -> bool:
        """Whether this namespace's key (with its base URL) was seen to work within the last
        :data:`KEY_SEEN_SECONDS`: an answer accepted it. A run that is all cache hits checks
        a key not seen (a wrong key, or one revoked since)."""
        ...

    def mark_key_seen(self) -> None:
        """Remember that this namespace's key worked (no secret: the namespace is a hash)."""
        ...

    def remember(self, job: StoredJob) -> None: ...

    def jobs(self) -> list[StoredJob]: ...

    def forget(self, job_id: str) -> None: ...

    def job(self, job_id: str) -> StoredJob | None:
        """The stored job ``job_id`` as it is now (its inputs may have lost erased handles),
        or None when it is not stored (collected, expired, cleared)."""
        ...

    def drop_inputs(
        self, matches: Callable[[str], bool], *, every_namespace: bool = False
    ) -> list[tuple[str, tuple[str, ...]]]:
        """Erase the inputs ``matches`` accepts from every stored job (a job left with none is
        removed); return ``(job_id, inputs erased)`` for each job changed. ``every_namespace``:
        the jobs of every key this store holds, not only this namespace's."""
        ...

    def clear_jobs(self, *, every_namespace: bool = False) -> int:
        """Remove every stored job and every claim; return how many jobs were removed."""
        ...

    def count_jobs(self, *, every_namespace: bool = False) -> int:
        """How many jobs are stored."""
        ...

    def close(self) -> None: ...


class MemoryStore:
    """The store of a Client without a cache: its own pace, claims and jobs, in memory.

    The Client's Pacer already spaces its threads, so ``reserve`` only honours deferrals here.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, StoredJob] = {}
        self._key_seen = -math.inf  # time.monotonic() when the key last worked

    def reserve(self, interval: float) -> float:
        return 0.0

    def defer(self, seconds: float) -> None:
        return None

    def slow_to(self, interval: float, seconds: float = SHARED_SLOWDOWN_SECONDS) -> None:
        return None

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        return dict.fromkeys(keys, MINE)  # one Client: its enrichment dedupes its own calls

    def renew(self, keys: list[str], ttl: float) -> None:
        return None

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        return None

    def key_seen(self) -> bool:
        return time.monotonic() - self._key_seen < KEY_SEEN_SECONDS

    def mark_key_seen(self) -> None:
        self._key_seen = time.monotonic()

    def remember(self, job: StoredJob) -> None:
        with self._lock:
            self._jobs[job.job_id] = job

    def jobs(self) -> list[StoredJob]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.submitted)

    def forget(self, job_id: str) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)

    def job(self, job_id: str) -> StoredJob | None:
        with self._lock:
            return self._jobs.get(job_id)

    def drop_inputs(
        self, matches: Callable[[str], bool], *, every_namespace: bool = False
    ) -> list[tuple[str, tuple[str, ...]]]:
        changed = []
        with self._lock:
            for job in list(self._jobs.values()):
                kept, dropped = split_inputs(job.inputs, matches)
                if not dropped:
                    continue
                if kept:
                    self._jobs[job.job_id] = StoredJob(job.job_id, kept, job.submitted)
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


def split_inputs(
    inputs: Sequence[str], matches: Callable[[str], bool]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(kept, dropped)``: a job's inputs, in order, split by ``matches``.

    Example: ``split_inputs(("ada", "grace"), lambda h: h == "ada")`` -> ``(("grace",), ("ada",))``
    """
    kept = tuple(h for h in inputs if not matches(h))
    dropped = tuple(h for h in inputs if matches(h))
    return kept, dropped


def namespace(api_key: str, base_url: str) -> str:
    """The name entries are filed under: a hash of the key and the base URL, never the key."""
    digest = hashlib.sha256(f"lookup_pandas\x1f{base_url}\x1f{api_key}".encode())
    return digest.hexdigest()[:32]


def store_path(cache_path: Path) -> Path:
    """The store's file beside the cache: ``leads.sqlite`` -> ``leads.store.sqlite``."""
    return cache_path.with_name(f"{cache_path.stem}.store{cache_path.suffix or '.sqlite'}")


def open_store(cache: Path | str | None, ns: str) -> Store:
    """The store for a cache: beside its file, in the Redis a ``redis://`` URL names, or in
    memory when there is no cache.

    Example: ``open_store("redis://:pw@redis.internal:6379/0", ns)`` -> a RedisStore.
    """
    if cache is None:
        return MemoryStore()
    from ..settings import is_redis_url

    if isinstance(cache, str) and is_redis_url(cache):
        from .redis import RedisStore

        return RedisStore(cache, ns)
    from .local import LocalStore

    return LocalStore(store_path(Path(cache)), ns)
