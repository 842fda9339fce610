"""Unit tests for lookup_pandas.service.retry: Retry-After parsing, back-off delays, retryable
errors."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lookup_pandas.errors import (
    AuthenticationError,
    BudgetExceededError,
    ConfigurationError,
    NotFoundError,
    PaginationError,
    RateLimitError,
    RequestTimeoutError,
    ResponseError,
    ServerError,
    ServiceError,
    TransportError,
    ValidationError,
)
from lookup_pandas.service.retry import RetryPolicy, is_retryable, parse_retry_after

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)

# ---------------------------------------------------------------------------------------------
# parse_retry_after


@pytest.mark.parametrize(
    ("value", "expected"),
    [("3", 3.0), ("0", 0.0), (" 2.5 ", 2.5), ("120", 120.0), ("-4", 0.0)],
)
def test_parse_retry_after_seconds(value, expected):
    assert parse_retry_after(value) == expected


def test_parse_retry_after_http_date_in_the_future():
    value = "Wed, 01 May 2024 12:00:30 GMT"
    assert parse_retry_after(value, now=NOW) == pytest.approx(30.0)


def test_parse_retry_after_http_date_in_the_past_is_zero():
    assert parse_retry_after("Wed, 01 May 2024 11:59:00 GMT", now=NOW) == 0.0


def test_parse_retry_after_http_date_with_offset():
    # 14:01 at +02:00 is 12:01 UTC: 60 s after NOW.
    assert parse_retry_after("Wed, 01 May 2024 14:01:00 +0200", now=NOW) == pytest.approx(60.0)


def test_parse_retry_after_http_date_default_now_is_current_time():
    when = datetime.now(UTC) + timedelta(hours=1)
    seconds = parse_retry_after(when.strftime("%a, %d %b %Y %H:%M:%S GMT"))
    assert seconds is not None
    assert 0 < seconds <= 3600


@pytest.mark.parametrize("value", ["soon", "", "   ", "nan", "12 seconds", "Wed, 99 Foo 2024"])
def test_parse_retry_after_garbage_is_none(value):
    assert parse_retry_after(value, now=NOW) is None


def test_parse_retry_after_none_is_none():
    assert parse_retry_after(None) is None


def test_parse_retry_after_out_of_range_date_is_none_not_a_crash():
    # A malformed header ("None when absent or bad"): year too large for an int / a datetime.
    assert parse_retry_after("Mon, 20 Nov 10000 19:12:08 GMT", now=NOW) is None
    assert parse_retry_after("Mon, 20 Nov 99999999999999999999 19:12:08 GMT", now=NOW) is None


@settings(deadline=None)
@given(st.text(max_size=60))
def test_parse_retry_after_never_raises_and_is_non_negative(value):
    result = parse_retry_after(value, now=NOW)
    assert result is None or result >= 0


# ---------------------------------------------------------------------------------------------
# RetryPolicy.delay


def test_delay_honours_retry_after():
    policy = RetryPolicy(retry_after_max=60, rng=random.Random(0))
    assert policy.delay(0, retry_after=3.0) == 3.0
    assert policy.delay(4, retry_after=0.0) == 0.0


def test_delay_caps_retry_after():
    policy = RetryPolicy(retry_after_max=60)
    assert policy.delay(0, retry_after=900) == 60.0
    assert policy.delay(0, retry_after=float("inf")) == 60.0


def test_delay_docstring_example_range():
    policy = RetryPolicy(
        max_retries=5, backoff_base=0.5, backoff_max=30, retry_after_max=60, rng=random.Random(1)
    )
    for _ in range(100):
        assert 1.0 <= policy.delay(attempt=2) <= 2.0


@pytest.mark.parametrize("seed", range(5))
def test_delay_exponential_with_equal_jitter_bounded_by_backoff_max(seed):
    policy = RetryPolicy(backoff_base=0.5, backoff_max=30.0, rng=random.Random(seed))
    for attempt in range(12):
        ceiling = min(30.0, 0.5 * 2**attempt)
        for _ in range(20):
            d = policy.delay(attempt)
            assert ceiling / 2 <= d <= ceiling
    # Once the ceiling is reached it stays there.
    assert all(15.0 <= policy.delay(a) <= 30.0 for a in range(6, 40))


def test_delay_grows_exponentially_before_the_cap():
    # Lower bound of attempt n+1 is the ceiling of attempt n: strictly growing.
    policy = RetryPolicy(backoff_base=1.0, backoff_max=1000.0, rng=random.Random(3))
    delays = [policy.delay(a) for a in range(8)]
    for a in range(7):
        assert delays[a] <= 2**a <= delays[a + 1]
    assert delays[7] >= 64


def test_delay_is_reproducible_with_a_seeded_rng():
    a = RetryPolicy(rng=random.Random(42))
    b = RetryPolicy(rng=random.Random(42))
    assert [a.delay(i) for i in range(6)] == [b.delay(i) for i in range(6)]


def test_jitter_actually_varies():
    policy = RetryPolicy(backoff_base=1.0, backoff_max=30.0, rng=random.Random(7))
    assert len({policy.delay(3) for _ in range(20)}) > 1


def test_delay_for_a_very_large_attempt_stays_bounded():
    # max_retries has no upper bound in Settings, so attempt can be large.
    policy = RetryPolicy(backoff_base=0.5, backoff_max=30.0, rng=random.Random(0))
    assert 15.0 <= policy.delay(2000) <= 30.0


# ---------------------------------------------------------------------------------------------
# is_retryable


@pytest.mark.parametrize(
    "exc",
    [
        RateLimitError("429", status_code=429, retry_after=1),
        ServerError("503", status_code=503),
        TransportError("reset"),
        RequestTimeoutError("timed out"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_transient_errors_are_retryable(exc):
    assert is_retryable(exc) is True


@pytest.mark.parametrize(
    "exc",
    [
        AuthenticationError("403", status_code=403),
        ValidationError("400", status_code=400),
        NotFoundError("404", status_code=404),
        ResponseError("html", status_code=200),
        PaginationError("loop"),
        ConfigurationError("no key"),
        BudgetExceededError("budget", needed=2, allowed=1),
        ServiceError("other", status_code=200),
    ],
    ids=lambda e: type(e).__name__,
)
def test_final_errors_are_not_retryable(exc):
    assert is_retryable(exc) is False
