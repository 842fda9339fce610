"""What runs share through the cache's location: the batch jobs submitted and not yet collected.

Example::

    store = open_store(Path("leads.sqlite"), namespace("lk_...", "https://api.example.com"))
    store.remember(StoredJob("job_1", ("ada", "grace"), submitted=time.time()))
    store.jobs()            # [StoredJob(job_id='job_1', inputs=('ada', 'grace'), ...)]
    store.forget("job_1")

With an on-disk cache the jobs live in a small SQLite file beside it (``leads.store.sqlite``,
see :mod:`.local`), so a run after Ctrl-C, a kernel restart or a crash finds them; without one,
in memory for the Client's lifetime. Every entry is filed under :func:`namespace`, a hash of the
API key and the base URL: the key itself is never stored.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = ["JobStore", "MemoryJobStore", "StoredJob", "namespace", "open_store", "store_path"]


@dataclass(frozen=True)
class StoredJob:
    """A submitted batch job: its id, its inputs in submit order, and when it was submitted."""

    job_id: str
    inputs: tuple[str, ...]
    submitted: float  # seconds since the epoch


class JobStore(Protocol):
    """Where submitted batch jobs are remembered until every input of theirs is cached."""

    def remember(self, job: StoredJob) -> None: ...

    def jobs(self) -> list[StoredJob]: ...

    def forget(self, job_id: str) -> None: ...


class MemoryJobStore:
    """The jobs of a Client without an on-disk cache: kept for its lifetime only."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, StoredJob] = {}

    def remember(self, job: StoredJob) -> None:
        with self._lock:
            self._jobs[job.job_id] = job

    def jobs(self) -> list[StoredJob]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: j.submitted)

    def forget(self, job_id: str) -> None:
        with self._lock:
            self._jobs.pop(job_id, None)


def namespace(api_key: str, base_url: str) -> str:
    """The name entries are filed under: a hash of the key and the base URL, never the key."""
    digest = hashlib.sha256(f"lookup_pandas\x1f{base_url}\x1f{api_key}".encode())
    return digest.hexdigest()[:32]


def store_path(cache_path: Path) -> Path:
    """The store's file beside the cache: ``leads.sqlite`` -> ``leads.store.sqlite``."""
    return cache_path.with_name(f"{cache_path.stem}.store{cache_path.suffix or '.sqlite'}")


def open_store(cache_path: Path | None, ns: str) -> JobStore:
    """The store for a cache file (beside it), or one in memory when there is no cache."""
    if cache_path is None:
        return MemoryJobStore()
    from .local import LocalJobStore

    return LocalJobStore(store_path(cache_path), ns)
