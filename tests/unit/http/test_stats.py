"""lookup_pandas.http.stats: the Client's counters, and a run's own tally beside them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import requests

from lookup_pandas.http.stats import ClientStats, StatsCounter, since


def answer(status: int = 200, consumed: str | None = "1") -> requests.Response:
    response = requests.Response()
    response.status_code = status
    if consumed is not None:
        response.headers["X-Credits-Consumed"] = consumed
    return response


def test_a_tally_counts_its_threads_and_the_client_counts_everyone():
    counter = StatsCounter()
    counter.account(answer())  # before any run: the Client's only
    with counter.tallied() as mine:
        counter.account(answer())
        counter.count(retries=1)
        with ThreadPoolExecutor(2, "t", counter.join, (counter.current(),)) as pool:
            list(pool.map(lambda _: counter.account(answer(429, None)), range(3)))
        other = threading.Thread(target=counter.account, args=(answer(),))  # not joined
        other.start()
        other.join()
    counter.account(answer())  # after: the Client's only
    assert (mine.sent, mine.rate_limited, mine.retries, mine.credits_consumed) == (4, 3, 1, 1.0)
    total = counter.snapshot()
    assert (total.sent, total.rate_limited, total.credits_consumed) == (7, 3, 4.0)
    assert counter.current() is None  # the block ended: this thread counts for no run


def test_tallies_nest_and_restore_the_outer_one():
    counter = StatsCounter()
    with counter.tallied() as outer:
        with counter.tallied() as inner:
            counter.count(cache_hits=2)
        counter.count(cache_hits=1)
    assert (outer.cache_hits, inner.cache_hits) == (1, 2)


def test_since_is_the_difference_of_two_snapshots():
    before = ClientStats(sent=2, credits_consumed=1.5, credits_balance=10.0)
    now = ClientStats(sent=5, retries=1, credits_consumed=4.0, credits_balance=7.5)
    delta = since(before, now)
    assert (delta.sent, delta.retries, delta.credits_consumed) == (3, 1, 2.5)
    assert delta.credits_balance == 7.5  # the latest seen, not a difference
