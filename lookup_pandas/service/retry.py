"""Retry decisions: which failures are worth another attempt, and how long to wait first.

>>> policy = RetryPolicy(max_retries=5, backoff_base=0.5, backoff_max=30.0, retry_after_max=60.0)
>>> 1.0 <= policy.delay(attempt=2) <= 2.0  # exponential, with jitter
True
>>> policy.delay(attempt=0, retry_after=900)  # Retry-After is honoured, but capped
60.0
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from ..errors import RateLimitError, ServerError, ServiceError, TransportError

__all__ = ["RetryPolicy", "is_retryable", "parse_retry_after"]


def is_retryable(exc: ServiceError) -> bool:
    """True for a transient failure: a 429, a 5xx, a dropped connection or a timeout.

    >>> from lookup_pandas.errors import RateLimitError, ValidationError
    >>> is_retryable(RateLimitError("Slow down")), is_retryable(ValidationError("Bad title"))
    (True, False)
    """
    return isinstance(exc, RateLimitError | ServerError | TransportError)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP-date), else None.

    >>> parse_retry_after("3"), parse_retry_after("soon"), parse_retry_after(None)
    (3.0, None, None)
    >>> now = datetime(2015, 10, 21, 7, 28, tzinfo=UTC)
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now=now)
    30.0
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
    """How many attempts, and the wait before each retry.

    >>> RetryPolicy(max_retries=0)
    RetryPolicy(max_retries=0, backoff_base=0.5, backoff_max=30.0, retry_after_max=60.0)
    """

    max_retries: int = 5
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    retry_after_max: float = 60.0
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt + 1`` (``attempt`` counts from 0).

        A Retry-After wins, capped at ``retry_after_max``. Else the back-off doubles, half of
        it fixed and half random.

        >>> policy = RetryPolicy(backoff_base=0.5, backoff_max=30.0)
        >>> 0.25 <= policy.delay(0) <= 0.5, 15.0 <= policy.delay(10) <= 30.0
        (True, True)
        >>> policy.delay(3, retry_after=2.5)
        2.5
        """
        if retry_after is not None:
            return min(retry_after, self.retry_after_max)
        ceiling = min(self.backoff_max, self.backoff_base * (2 ** min(attempt, 60)))
        return float(ceiling / 2 + self.rng.uniform(0, ceiling / 2))
