"""What every store shares: claim outcomes, timings, a stored batch job, and the Store protocol.

Example:
    >>> StoredJob("job_1", ("ada", "grace"), submitted=0.0).inputs
    ('ada', 'grace')
    >>> MINE, BUSY, RECHECK
    ('mine', 'busy', 'recheck')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "ACTED",
    "BUSY",
    "CHECKED",
    "DONE_SECONDS",
    "KEY_SEEN_SECONDS",
    "MARKS_KEPT_SECONDS",
    "MINE",
    "RECHECK",
    "RESOLVE_RATE_KEPT_SECONDS",
    "SHARED_SLOWDOWN_SECONDS",
    "Store",
    "StoredJob",
    "split_inputs",
]

#: The kinds of mark: an answer (its cache key) checked, a job-change event (its key) acted on.
CHECKED, ACTED = "checked", "acted"
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
#: How long a mark (an answer checked, a job change acted on) is kept after it was written: the
#: job-change feed reaches 365 days back, so an older mark can tell the refresh nothing.
MARKS_KEPT_SECONDS = 366 * 86400.0
#: How long a service's batch speed, learned from a job, is taken as its speed: a service's load
#: and its deployments change it, so an older figure is worth no more than the assumed one.
RESOLVE_RATE_KEPT_SECONDS = 7 * 86400.0


@dataclass(frozen=True)
class StoredJob:
    """A submitted batch job: its id, its inputs in submit order, and when it was submitted.

    Example:
        >>> StoredJob("job_1", ("ada",), submitted=1700000000.0).job_id
        'job_1'
    """

    job_id: str
    inputs: tuple[str, ...]
    submitted: float  # seconds since the epoch


class Store(Protocol):
    """The shared state of one key: its pace, its claims, its batch jobs, its refresh marks.

    A store subclasses it: the marks are written and read by its ``_mark`` and ``_marks``.

    Example: ``store.reserve(0.5)`` -> the seconds until this caller's send slot.
    """

    def reserve(self, interval: float) -> float:
        """Take the next send slot, ``interval`` after the last one. Returns the seconds until it.

        The slot comes later while a deferral, or a slower pace set after a 429, holds.
        """

    def defer(self, seconds: float) -> None:
        """No slot for anyone before ``seconds`` from now."""

    def slow_to(self, interval: float, seconds: float = SHARED_SLOWDOWN_SECONDS) -> None:
        """Every process keeps at least ``interval`` between slots for ``seconds``."""

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        """Claim each answer of ``keys`` for ``ttl`` seconds: MINE, BUSY or RECHECK each.

        - MINE: this holder's claim (taken, renewed, or taken over from an expired one).
        - RECHECK: claimed, but its last holder let go within :data:`DONE_SECONDS`. Read the cache.
        - BUSY: another live holder has it.
        """

    def renew(self, keys: list[str], ttl: float) -> None:
        """Extend this holder's claims on ``keys`` to ``ttl`` seconds from now."""

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        """Let go of this holder's claims on ``keys``.

        ``bought=True``: the answers are in the cache. The next claimants get RECHECK for a while.
        ``bought=False``: the claims are gone, and the next claimant gets MINE.
        """

    def key_seen(self) -> bool:
        """Whether this namespace's key worked within the last :data:`KEY_SEEN_SECONDS`."""

    def mark_key_seen(self) -> None:
        """Remember that this namespace's key worked (the namespace is a hash: no secret)."""

    def checked_at(self, keys: list[str]) -> dict[str, float]:
        """When the feed last confirmed each answer of ``keys`` (cache keys) unchanged.

        Seconds since the epoch. Keys never checked, or checked more than
        :data:`MARKS_KEPT_SECONDS` ago, are left out.
        """
        return self._marks(CHECKED, keys)

    def mark_checked(self, keys: list[str], when: float) -> None:
        """The answers of ``keys`` were confirmed unchanged at ``when`` (seconds since the epoch).

        A later mark already stored is kept: a mark never moves back.
        """
        self._mark(CHECKED, keys, when)

    def acted_changes(self, keys: list[str]) -> set[str]:
        """Which job-change events of ``keys`` were already acted on (their person bought anew)."""
        return set(self._marks(ACTED, keys))

    def mark_acted(self, keys: list[str]) -> None:
        """The job-change events of ``keys`` were acted on: their people were bought anew."""
        self._mark(ACTED, keys, None)

    def _marks(self, kind: str, keys: list[str]) -> dict[str, float]:
        """The live marks of ``kind`` among ``keys``: key -> its time, in one round trip."""

    def _mark(self, kind: str, keys: list[str], when: float | None) -> None:
        """Mark ``keys`` at ``when`` (None: now), kept :data:`MARKS_KEPT_SECONDS`."""

    def resolve_rate(self, service: str) -> float | None:
        """Items a second the batch jobs of ``service`` (:func:`service_namespace`) resolved, as
        last kept within :data:`RESOLVE_RATE_KEPT_SECONDS`; None when none was."""

    def keep_resolve_rate(self, service: str, rate: float) -> None:
        """Keep ``rate`` as the batch speed of ``service``, for every process and key using it."""

    def remember(self, job: StoredJob) -> None: ...

    def jobs(self) -> list[StoredJob]: ...

    def drop_job(self, job_id: str) -> None:
        """Drop the stored job ``job_id``. Nothing happens when it is not stored."""

    def job(self, job_id: str) -> StoredJob | None:
        """The stored job ``job_id`` as it is now, or None when it is not stored."""

    def drop_inputs(
        self, matches: Callable[[str], bool], *, every_namespace: bool = False
    ) -> list[tuple[str, tuple[str, ...]]]:
        """Erase the inputs ``matches`` accepts from the stored jobs. Returns ``(job_id, erased)``s.

        A job left with no inputs is removed. ``every_namespace`` reaches the jobs of every key the
        store holds.
        """

    def clear_jobs(self, *, every_namespace: bool = False) -> int:
        """Remove every stored job, claim and mark. Returns how many jobs were removed."""

    def count_jobs(self, *, every_namespace: bool = False) -> int:
        """How many jobs are stored."""

    def close(self) -> None: ...


def split_inputs(
    inputs: Sequence[str], matches: Callable[[str], bool]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(kept, dropped)``: a job's inputs, in order, split by ``matches``.

    Example:
        >>> split_inputs(("ada", "grace"), lambda h: h == "ada")
        (('grace',), ('ada',))
    """
    kept = tuple(h for h in inputs if not matches(h))
    dropped = tuple(h for h in inputs if matches(h))
    return kept, dropped
