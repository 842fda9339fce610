"""lookup_pandas.http.stats: the Client's counters, and a run's own tally beside them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import requests

from lookup_pandas.http.stats import ClientStats, StatsCounter


def answer(status: int = 200, consumed: str | None = "1") -> requests.Response:
    response = requests.Response()
    response.status_code = status
    if consumed is not None:
        response.headers["X-Credits-Consumed"] = consumed
    return response


def test_a_tally_counts_what_is_counted_for_it_and_the_client_counts_everyone():
    counter, mine = StatsCounter(), ClientStats()
    counter.account(answer())  # before any run: the Client's only
    counter.account(answer(), mine)
    counter.count(mine, retries=1)
    with ThreadPoolExecutor(2, "t") as pool:  # any thread counts for the tally it is handed
        list(pool.map(lambda _: counter.account(answer(429, None), mine), range(3)))
    other = threading.Thread(target=counter.account, args=(answer(),))  # another run's: not mine
    other.start()
    other.join()
    counter.account(answer())  # after: the Client's only
    assert (mine.sent, mine.rate_limited, mine.retries, mine.credits_consumed) == (4, 3, 1, 1.0)
    total = counter.snapshot()
    assert (total.sent, total.rate_limited, total.credits_consumed) == (7, 3, 4.0)


def test_two_tallies_count_apart():
    counter, one, two = StatsCounter(), ClientStats(), ClientStats()
    counter.count(two, cache_hits=2)
    counter.count(one, cache_hits=1)
    assert (one.cache_hits, two.cache_hits, counter.snapshot().cache_hits) == (1, 2, 3)
