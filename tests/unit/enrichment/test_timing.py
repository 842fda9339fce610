"""Unit tests for lookup_pandas.enrichment.timing: how long batch jobs and single calls take, and
the batch speed a Client learns from the jobs it watches (kept per base URL)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import lookup_pandas as lp
from lookup_pandas.config.settings import SAFE_DEFAULT_RATE_PER_MINUTE
from lookup_pandas.enrichment.batch_plan import BatchPage, Tracker
from lookup_pandas.enrichment.timing import (
    ASSUMED_RESOLVE_RATE,
    batch_time,
    jobs_at_once,
    learn,
    resolve_rate,
    run_time,
)
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import service_namespace

URL = "http://127.0.0.1:9"


def client(url: str = URL, key: str = "lk_test_a", **options: object) -> lp.Client:
    return lp.Client(api_key=key, base_url=url, cache=False, **options)  # type: ignore[arg-type]


def done_job(items: int, at: float, *, seen_resolving: int | None = None) -> Tracker:
    """A job of ``items`` submitted at 0: seen with ``seen_resolving`` resolved at ``at``, else
    found done at ``at``."""
    job = Tracker("job_1", tuple(f"h{i}" for i in range(items)), now=0.0, interval=1.5)
    status, resolved = ("processing", seen_resolving) if seen_resolving else ("completed", items)
    answer = {"status": status, "total": items, "resolved": resolved, "next_cursor": 0}
    job.take(BatchPage.parse(answer, PEOPLE.endpoint), now=at)
    return job


# -- batch_time --------------------------------------------------------------------------------


def test_a_slow_service_takes_its_resolve_time_polled_every_interval():
    # 200 items at 10 a second: 20 s, a poll every 1.5 s; the emulator's run took 20.5 s, 15 polls
    seconds, polls = batch_time(200, 1, rate=10.0, per_minute=600.0, interval=1.5, at_once=4)
    assert 20 <= seconds <= 22 and polls == 15


def test_a_fast_service_takes_one_interval_then_its_pages():
    seconds, polls = batch_time(500, 1, rate=1000.0, per_minute=600.0, interval=1.5, at_once=4)
    assert seconds == pytest.approx(1.5 + 5 * 0.1)  # 5 pages, a slot each, and the submit
    assert polls == 5


def test_a_slow_pace_bounds_the_time_by_its_slots():
    # 5 jobs of 1,000 at 300 a second, 60 calls a minute: 5 submits and 50 polls, a second each
    seconds, polls = batch_time(5000, 5, rate=300.0, per_minute=60.0, interval=1.5, at_once=4)
    assert polls == 50 and seconds == pytest.approx(55.0)


def test_jobs_beyond_those_under_way_at_once_wait_their_turn():
    one, _ = batch_time(1000, 1, rate=10.0, per_minute=None, interval=1.5, at_once=2)
    three, _ = batch_time(3000, 3, rate=10.0, per_minute=None, interval=1.5, at_once=2)
    assert three == pytest.approx(2 * one)  # two waves of 100 s


@given(
    st.integers(1, 5000),
    st.floats(0.5, 1000.0),
    st.sampled_from([None, 7.0, 600.0]),
    st.integers(1, 4),
)
def test_the_time_is_at_least_the_resolve_time_and_one_interval(items, rate, per_minute, at_once):
    jobs = -(-items // 1000)
    size = -(-items // jobs)
    seconds, polls = batch_time(
        items, jobs, rate=rate, per_minute=per_minute, interval=1.5, at_once=at_once
    )
    assert seconds >= max(1.5, size / rate) - 1e-6
    assert polls >= jobs * -(-size // 100)  # at least every page of every job


def test_nothing_to_fetch_takes_no_time():
    assert batch_time(0, 0, rate=10.0, per_minute=60.0, interval=1.5, at_once=4) == (0.0, 0)


# -- the speed learned ---------------------------------------------------------------------------


def test_a_fresh_client_assumes_a_speed_then_learns_the_one_it_saw():
    c = client()
    assert resolve_rate(c) == (ASSUMED_RESOLVE_RATE, False)
    learn(c, done_job(100, 10.0, seen_resolving=50))
    assert resolve_rate(c) == (5.0, True)  # seen resolving: taken as it is, slower than assumed too
    learn(c, done_job(100, 2.0, seen_resolving=100))
    assert resolve_rate(c) == (50.0, True)  # the latest replaces it


def test_a_job_found_done_teaches_only_a_speed_above_the_one_kept():
    c = client()
    learn(c, done_job(10, 1.5))  # 6.7 a second at least: below the assumption, teaches nothing
    assert resolve_rate(c) == (ASSUMED_RESOLVE_RATE, False)
    learn(c, done_job(1000, 2.0))  # 500 a second at least
    assert resolve_rate(c) == (500.0, True)
    learn(c, done_job(100, 1.5))  # 67 at least: no news
    assert resolve_rate(c) == (500.0, True)


def test_the_speed_is_filed_by_base_url():
    c = client()
    learn(c, done_job(100, 10.0, seen_resolving=50))
    store = c.parts.store
    assert store.resolve_rate(service_namespace(URL)) == 5.0
    assert store.resolve_rate(service_namespace("http://127.0.0.1:10")) is None


# -- run_time ------------------------------------------------------------------------------------


def test_single_calls_before_the_pace_is_learned_are_timed_at_the_runs_fallback():
    seconds, polls = run_time(client(), 14, (0, 0))
    assert seconds == pytest.approx(14 * 60 / SAFE_DEFAULT_RATE_PER_MINUTE) and polls == 0
    configured, _ = run_time(client(rate_limit_per_minute=120.0), 14, (0, 0))
    assert configured == pytest.approx(7.0)


def test_single_calls_instead_of_batch_keep_the_polls_a_batch_run_would_make():
    seconds, polls = run_time(client(rate_limit_per_minute=60.0), 30, (30, 1))
    assert seconds == pytest.approx(30.0) and polls >= 1


def test_batch_jobs_are_timed_at_the_speed_learned():
    c = client(rate_limit_per_minute=600.0)
    assumed, _ = run_time(c, 0, (400, 1), rate=resolve_rate(c)[0])
    learn(c, done_job(100, 10.0, seen_resolving=100))  # 10 a second
    slow, polls = run_time(c, 0, (400, 1), rate=resolve_rate(c)[0])
    assert slow > 40 > assumed and polls >= 27


def test_batch_jobs_under_way_at_once_follow_the_workers():
    assert jobs_at_once(client(max_workers=1)) == 2 and jobs_at_once(client(max_workers=8)) == 8
