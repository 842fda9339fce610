"""What every store shares: claim outcomes, timings, a stored batch job, and the Store protocol.

Example::

    store.claim_many(["key-of-ada"], ttl=540)   # {"key-of-ada": MINE}
    StoredJob("job_1", ("ada", "grace"), submitted=time.time())
    split_inputs(("ada", "grace"), lambda h: h == "ada")   # (("grace",), ("ada",))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "BUSY",
    "DONE_SECONDS",
    "KEY_SEEN_SECONDS",
    "MINE",
    "RECHECK",
    "SHARED_SLOWDOWN_SECONDS",
    "Store",
    "StoredJob",
    "split_inputs",
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

    def drop_job(self, job_id: str) -> None:
        """Drop the stored job ``job_id`` (collected, or given up); nothing when not stored."""
        ...

    def forget(self, job_id: str) -> None: ...  # the former name of drop_job

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


def split_inputs(
    inputs: Sequence[str], matches: Callable[[str], bool]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(kept, dropped)``: a job's inputs, in order, split by ``matches``.

    Example: ``split_inputs(("ada", "grace"), lambda h: h == "ada")`` -> ``(("grace",), ("ada",))``
    """
    kept = tuple(h for h in inputs if not matches(h))
    dropped = tuple(h for h in inputs if matches(h))
    return kept, dropped
