"""What a Client has done: requests sent, cache hits, retries, credits (counted thread-safely).

Example::

    counter = StatsCounter()
    counter.count(cache_hits=1)
    counter.account(response)          # sent, a 429, X-Credits-Consumed, X-Credits-Balance
    counter.snapshot().credits_consumed
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import requests

from .envelope import finite_number

__all__ = ["ClientStats", "StatsCounter"]


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


class StatsCounter:
    """The counters of one Client, and the calls now waiting for another process's claim."""

    def __init__(self) -> None:
        self._stats = ClientStats()
        self._lock = threading.Lock()
        self._waiting = 0

    def snapshot(self) -> ClientStats:
        """A copy of the counters."""
        with self._lock:
            return ClientStats(**vars(self._stats))

    def count(self, **increments: int) -> None:
        """Add to counters by name. Example: ``counter.count(cache_hits=1)``"""
        with self._lock:
            for name, n in increments.items():
                setattr(self._stats, name, getattr(self._stats, name) + n)

    def account(self, response: requests.Response, *, batch: bool = False) -> None:
        """A response from the network: one more sent, a 429, the credits its headers report."""
        consumed = finite_number(response.headers.get("X-Credits-Consumed"))
        balance = finite_number(response.headers.get("X-Credits-Balance"))
        with self._lock:
            self._stats.sent += 1
            if response.status_code == 429:
                self._stats.rate_limited += 1
            if consumed is not None:
                self._stats.credits_consumed += consumed
                if batch:
                    self._stats.batch_credits += consumed
            if balance is not None:
                self._stats.credits_balance = balance

    def count_waiting(self, n: int) -> None:
        """``n`` more (or fewer) calls waiting for an answer another process is buying."""
        with self._lock:
            self._waiting += n

    @property
    def waiting(self) -> int:
        """Calls now waiting for an answer another process is buying."""
        with self._lock:
            return self._waiting
