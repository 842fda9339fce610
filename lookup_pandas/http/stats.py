"""What a Client has done: requests sent, cache hits, retries, credits (counted thread-safely).

Example::

    counter = StatsCounter()
    counter.count(cache_hits=1)
    counter.account(response)          # sent, a 429, X-Credits-Consumed, X-Credits-Balance
    counter.snapshot().credits_consumed
    with counter.tallied() as mine:    # what this thread (and the threads that join it) counts
        ...                            # mine.sent: this run's requests, not another run's

A run's own tally is what its summary reports: two enrichments at once on one Client (two
background jobs) each count their own requests and credits, not the Client's total.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import requests

from ..service.envelope import finite_number

__all__ = ["ClientStats", "StatsCounter", "since"]


@dataclass
class ClientStats:
    """What a Client has done so far (a snapshot; see :attr:`Client.stats`)."""

    sent: int = 0  # requests that went to the network (retries included)
    cache_hits: int = 0  # answers read from the on-disk cache (free)
    retries: int = 0  # attempts after a transient failure
    rate_limited: int = 0  # 429 answers received
    credits_consumed: float = 0.0  # sum of X-Credits-Consumed
    #: the part of credits_consumed that batch-job answers reported (production bills batch
    #: items as they resolve; whether a poll's header reports them is not documented)
    batch_credits: float = 0.0
    credits_balance: float | None = None  # last X-Credits-Balance seen


def since(before: ClientStats, now: ClientStats) -> ClientStats:
    """What was counted between two snapshots (the balance: the latest seen).

    Example: ``since(before, client.stats).sent`` -> requests sent since ``before``.
    """
    return ClientStats(
        sent=now.sent - before.sent,
        cache_hits=now.cache_hits - before.cache_hits,
        retries=now.retries - before.retries,
        rate_limited=now.rate_limited - before.rate_limited,
        credits_consumed=now.credits_consumed - before.credits_consumed,
        batch_credits=now.batch_credits - before.batch_credits,
        credits_balance=now.credits_balance,
    )


class StatsCounter:
    """The counters of one Client, and the calls now waiting for another process's claim."""

    def __init__(self) -> None:
        self._stats = ClientStats()
        self._lock = threading.Lock()
        self._waiting = 0
        self._local = threading.local()  # .tally: the run this thread counts for, if any

    @contextmanager
    def tallied(self) -> Iterator[ClientStats]:
        """A tally of what this thread counts from now on (besides the Client's counters),
        until the block ends. Example: ``with counter.tallied() as mine: ...; mine.sent``"""
        previous = self.current()
        tally = ClientStats()
        self.join(tally)
        try:
            yield tally
        finally:
            self.join(previous)

    def current(self) -> ClientStats | None:
        """The tally this thread counts for (None: the Client's counters only)."""
        tally: ClientStats | None = getattr(self._local, "tally", None)
        return tally

    def join(self, tally: ClientStats | None) -> None:
        """Count this thread's work for ``tally`` too: a run's pool threads join its tally."""
        self._local.tally = tally

    def _targets(self) -> tuple[ClientStats, ...]:
        tally = self.current()
        return (self._stats,) if tally is None else (self._stats, tally)

    def snapshot(self) -> ClientStats:
        """A copy of the counters."""
        with self._lock:
            return ClientStats(**vars(self._stats))

    def count(self, **increments: int) -> None:
        """Add to counters by name. Example: ``counter.count(cache_hits=1)``"""
        with self._lock:
            for stats in self._targets():
                for name, n in increments.items():
                    setattr(stats, name, getattr(stats, name) + n)

    def account(self, response: requests.Response, *, batch: bool = False) -> None:
        """A response from the network: one more sent, a 429, the credits its headers report."""
        consumed = finite_number(response.headers.get("X-Credits-Consumed"))
        balance = finite_number(response.headers.get("X-Credits-Balance"))
        with self._lock:
            for stats in self._targets():
                stats.sent += 1
                if response.status_code == 429:
                    stats.rate_limited += 1
                if consumed is not None:
                    stats.credits_consumed += consumed
                    if batch:
                        stats.batch_credits += consumed
                if balance is not None:
                    stats.credits_balance = balance

    def count_waiting(self, n: int) -> None:
        """``n`` more (or fewer) calls waiting for an answer another process is buying."""
        with self._lock:
            self._waiting += n

    @property
    def waiting(self) -> int:
        """Calls now waiting for an answer another process is buying."""
        with self._lock:
            return self._waiting
