"""Retry decisions: which failures are worth another attempt, and how long to wait first.

Example::

    policy = RetryPolicy(max_retries=5, backoff_base=0.5, backoff_max=30, retry_after_max=60)
    policy.delay(attempt=2, retry_after=None)   # 1.0 .. 2.0 s (exponential, with jitter)
    policy.delay(attempt=0, retry_after=900)    # 60.0: Retry-After is honoured, but capped

Pure logic, no I/O: :mod:`lookup_pandas.http.sending` runs the loop (with
:mod:`lookup_pandas.http.decisions`), so every attempt goes back through the pacer
(retries done inside urllib3's adapter would bypass it).

Upper bound for one call: ``(max_retries + 1) * timeout`` waiting for answers, plus at most
``max_retries * max(backoff_max, retry_after_max)`` of back-off.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from ..errors import RateLimitError, ServerError, ServiceError, TransportError

__all__ = ["RetryPolicy", "is_retryable", "parse_retry_after"]


def is_retryable(exc: ServiceError) -> bool:
    """429, 5xx, dropped connections and timeouts are transient; everything else is final."""
    return isinstance(exc, RateLimitError | ServerError | TransportError)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or HTTP-date); None when absent or bad.

    Example: ``parse_retry_after("3") == 3.0``
    """
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            seconds = (when - (now or datetime.now(UTC))).total_seconds()
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


@dataclass(frozen=True)
class RetryPolicy:
    """How many attempts, and the wait before each retry."""

    max_retries: int = 5
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    retry_after_max: float = 60.0
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt + 1`` (``attempt`` counts from 0).

        The server's Retry-After wins when given (capped at ``retry_after_max``); otherwise
        exponential back-off with "equal jitter": half fixed, half random, so that threads
        that failed together do not retry together.
        """
        if retry_after is not None:
            return min(retry_after, self.retry_after_max)
        ceiling = min(self.backoff_max, self.backoff_base * (2 ** min(attempt, 60)))
        return float(ceiling / 2 + self.rng.uniform(0, ceiling / 2))
