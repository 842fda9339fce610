"""What a Client has done: requests sent, cache hits, retries, credits (counted thread-safely).

Example:
    >>> counter, mine = StatsCounter(), ClientStats()
    >>> counter.count(cache_hits=1)
    >>> counter.count(mine, sent=2)  # a run's own tally, besides the Client's counters
    >>> mine.sent, mine.cache_hits, counter.snapshot().sent, counter.snapshot().cache_hits
    (2, 0, 2, 1)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import requests

from ..service.envelope import finite_number

__all__ = ["ClientStats", "StatsCounter"]


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

    def snapshot(self) -> ClientStats:
        """A copy of the counters."""
        with self._lock:
            return ClientStats(**vars(self._stats))

    def count(self, tally: ClientStats | None = None, /, **increments: int) -> None:
        """Add to counters by name, in the Client's and in ``tally`` (a run's own), if given.

        Example:
            >>> counter = StatsCounter()
            >>> counter.count(cache_hits=2, retries=1)
            >>> counter.snapshot().cache_hits
            2
        """
        with self._lock:
            for stats in (self._stats, tally) if tally else (self._stats,):
                for name, n in increments.items():
                    setattr(stats, name, getattr(stats, name) + n)

    def account(
        self, response: requests.Response, tally: ClientStats | None = None, *, batch: bool = False
    ) -> None:
        """A response from the network: one more sent, a 429, the credits its headers report
        (in ``tally`` too, if given).

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
            for stats in (self._stats, tally) if tally else (self._stats,):
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
