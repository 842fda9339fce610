"""What a Client has done: requests sent, cache hits, retries, credits (counted thread-safely).

Example:
    >>> counter = StatsCounter()
    >>> counter.count(cache_hits=1)
    >>> with counter.tallied() as mine:  # this run's own counts, besides the Client's
    ...     counter.count(sent=2)
    >>> mine.sent, mine.cache_hits, counter.snapshot().sent, counter.snapshot().cache_hits
    (2, 0, 2, 1)
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
    """What a Client has done so far: a snapshot, as :attr:`Client.stats` gives it.

    Example:
        >>> import lookup_pandas as lp
        >>> from lookup_pandas.testing import MockTransport, envelope
        >>> def answer(request):
        ...     if "/credits/tier/" in request.url:
        ...         return 200, envelope({"current_tier": {"limit_per_minute": 60000}})
        ...     billed = {"X-Credits-Consumed": "1", "X-Credits-Balance": "99"}
        ...     return 200, envelope({"id": "prsn_1", "handle": "ada"}), billed
        >>> with lp.Client(api_key="lk_example", base_url="https://api.example.com",
        ...                transport=MockTransport(answer), cache=False) as client:
        ...     _ = client.profile("ada")
        ...     stats = client.stats
        >>> stats.sent, stats.credits_consumed, stats.credits_balance  # the tier read is free
        (2, 1.0, 99.0)
    """

    sent: int = 0  # requests that went to the network (retries included)
    cache_hits: int = 0  # answers read from the on-disk cache (free)
    retries: int = 0  # attempts after a transient failure
    rate_limited: int = 0  # 429 answers received
    credits_consumed: float = 0.0  # sum of X-Credits-Consumed
    #: The part of credits_consumed that batch-job answers reported. Production bills batch
    #: items as they resolve, and does not document whether a poll's header reports them.
    batch_credits: float = 0.0
    credits_balance: float | None = None  # last X-Credits-Balance seen


def since(before: ClientStats, now: ClientStats) -> ClientStats:
    """What was counted between two snapshots (the balance: the latest seen).

    Example:
        >>> before = ClientStats(sent=3, credits_consumed=3.0, credits_balance=100)
        >>> now = ClientStats(sent=5, credits_consumed=5.0, credits_balance=98)
        >>> delta = since(before, now)
        >>> delta.sent, delta.credits_consumed, delta.credits_balance
        (2, 2.0, 98)
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
    """The counters of one Client, and the calls now waiting for another process's claim.

    Example:
        >>> counter = StatsCounter()
        >>> counter.count(retries=1)
        >>> counter.snapshot().retries
        1
    """

    def __init__(self) -> None:
        self._stats = ClientStats()
        self._lock = threading.Lock()
        self._waiting = 0
        self._local = threading.local()  # .tally: the run this thread counts for, if any

    @contextmanager
    def tallied(self) -> Iterator[ClientStats]:
        """A tally of what this thread counts until the block ends, besides the Client's.

        Example:
            >>> counter = StatsCounter()
            >>> with counter.tallied() as mine:
            ...     counter.count(sent=1)
            >>> counter.count(sent=1)  # after the block: the Client's counters only
            >>> mine.sent, counter.snapshot().sent
            (1, 2)
        """
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
        """Count this thread's work for ``tally`` too: a run's pool threads join its tally.

        Example:
            >>> import threading
            >>> counter = StatsCounter()
            >>> with counter.tallied() as mine:
            ...     run = counter.current()
            ...     def work():
            ...         counter.join(run)
            ...         counter.count(sent=1)
            ...     worker = threading.Thread(target=work)
            ...     worker.start()
            ...     worker.join()
            >>> mine.sent
            1
        """
        self._local.tally = tally

    def _targets(self) -> tuple[ClientStats, ...]:
        tally = self.current()
        return (self._stats,) if tally is None else (self._stats, tally)

    def snapshot(self) -> ClientStats:
        """A copy of the counters."""
        with self._lock:
            return ClientStats(**vars(self._stats))

    def count(self, **increments: int) -> None:
        """Add to counters by name.

        Example:
            >>> counter = StatsCounter()
            >>> counter.count(cache_hits=2, retries=1)
            >>> counter.snapshot().cache_hits
            2
        """
        with self._lock:
            for stats in self._targets():
                for name, n in increments.items():
                    setattr(stats, name, getattr(stats, name) + n)

    def account(self, response: requests.Response, *, batch: bool = False) -> None:
        """A response from the network: one more sent, a 429, the credits its headers report.

        Example:
            >>> response = requests.Response()
            >>> response.status_code = 200
            >>> response.headers.update({"X-Credits-Consumed": "1", "X-Credits-Balance": "41"})
            >>> counter = StatsCounter()
            >>> counter.account(response, batch=True)
            >>> counter.snapshot()
            ClientStats(sent=1, cache_hits=0, retries=0, rate_limited=0, credits_consumed=1.0,
                        batch_credits=1.0, credits_balance=41.0)
        """
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
        """``n`` more (or fewer) calls waiting for an answer another process is buying.

        Example:
            >>> counter = StatsCounter()
            >>> counter.count_waiting(2)
            >>> counter.count_waiting(-1)
            >>> counter.waiting
            1
        """
        with self._lock:
            self._waiting += n

    @property
    def waiting(self) -> int:
        """Calls now waiting for an answer another process is buying."""
        with self._lock:
            return self._waiting
