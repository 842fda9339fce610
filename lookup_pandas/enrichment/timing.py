"""How long a run takes: single calls at the pace, batch jobs at the speed they resolve.

A batch job's speed, the items it resolves a second, is the service's: production documents
none, and the services seen resolve 10 to 300 a second. It is learned from the jobs a Client
watches (:func:`learn`) and kept in the store per base URL, never per key, for
``RESOLVE_RATE_KEPT_SECONDS`` (:mod:`lookup_pandas.store`); until then it is assumed
(:data:`ASSUMED_RESOLVE_RATE`).

>>> batch_time(200, 1, rate=10.0, per_minute=600.0, interval=1.5, at_once=4)  # 20 s resolving
(21.1, 15)
>>> batch_time(200, 1, rate=300.0, per_minute=600.0, interval=1.5, at_once=4)  # one interval
(1.7, 2)
"""

from __future__ import annotations

import math

from ..client.client import Client
from ..client.credits import kept_ladder
from ..config.settings import SAFE_DEFAULT_RATE_PER_MINUTE
from ..service.credits import paced_seconds
from ..store import service_namespace
from .batch_plan import Tracker
from .plan import ASSUMED_PAGE

__all__ = [
    "ASSUMED_RESOLVE_RATE",
    "batch_time",
    "jobs_at_once",
    "learn",
    "resolve_rate",
    "run_time",
]

#: Items a second a batch job is assumed to resolve until one was seen. Between the slowest
#: service seen (10 a second, issue 39) and the emulator's 300, nearer the slow end: a first
#: estimate is then at most twice too short there, and errs long, never short, on a fast one.
ASSUMED_RESOLVE_RATE = 20.0


def jobs_at_once(client: Client) -> int:
    """How many batch jobs a run keeps under way at once."""
    return max(2, client.max_workers)


def resolve_rate(client: Client) -> tuple[float, bool]:
    """Items a second this service's batch jobs resolve, and whether it was seen: as learned
    lately (True), else assumed (False)."""
    kept = client.parts.store.resolve_rate(service_namespace(client.settings.base_url))
    return (kept, True) if kept is not None and kept > 0 else (ASSUMED_RESOLVE_RATE, False)


def learn(client: Client, job: Tracker) -> None:
    """Keep what ``job`` (done) showed of the service's speed, for the next estimates.

    A figure seen while it resolved replaces the kept one. One seen only once it was done is a
    lower bound: kept when it is faster than what is kept (or assumed), else it teaches nothing.
    """
    if job.speed is None:
        return
    rate, bound = job.speed
    if bound and rate <= resolve_rate(client)[0]:
        return
    client.parts.store.keep_resolve_rate(service_namespace(client.settings.base_url), rate)


def batch_time(
    items: int,
    jobs: int,
    *,
    rate: float,
    per_minute: float | None,
    interval: float,
    at_once: int,
    page: int = ASSUMED_PAGE,
) -> tuple[float, int]:
    """Seconds and polls of ``items`` in ``jobs`` balanced jobs, ``at_once`` under way at once.

    Each job resolves at ``rate`` items a second, polled every ``interval`` while it resolves
    (the first poll one interval after its submit; no sooner than a send slot), its pages
    walked at once when it is done.
    Every submit and poll takes a send slot at ``per_minute`` (None: unpaced).
    """
    if items <= 0 or jobs <= 0:
        return 0.0, 0
    slot = 60.0 / per_minute if per_minute else 0.0
    size = -(-items // jobs)
    resolving = size / rate if rate > 0 and math.isfinite(rate) else 0.0
    period = max(interval, slot)  # a poll an interval apart, but never faster than the pace
    while_resolving = max(1, math.ceil(resolving / period - 1e-9))
    pages = -(-size // page)
    polls = max(while_resolving + (resolving > period), pages)
    one = while_resolving * period + max(0, pages - while_resolving) * slot
    waves = -(-jobs // at_once)
    seconds = max(waves * (one + slot), (jobs + jobs * polls) * slot)
    return round(seconds, 3), jobs * polls


def run_time(
    client: Client,
    singles: int,
    batch: tuple[int, int],
    stored_polls: int = 0,
    *,
    rate: float = ASSUMED_RESOLVE_RATE,
    cost: float = 1.0,
    balance: float | None = None,
) -> tuple[float | None, int]:
    """Seconds and polls of a run: ``batch`` (items, jobs: none without batch jobs) resolving
    ``rate`` items a second (:func:`resolve_rate`) and the ``stored_polls`` that collect stored
    jobs, or ``singles`` single calls instead when there are any (the polls are still those of
    ``batch``).

    Single calls take a slot each, slower once their credits drop the key's tier (the balance
    and the ladder known). The pace is the one learned, else what the run falls back to (the
    configured one, else the cheapest tier's). None: single calls on an unmetered key (their
    time is the service's latency, not known).
    """
    per_minute = (
        client.rate_limit_per_minute
        if client.parts.contact.rate_known
        else client.settings.rate_limit_per_minute or SAFE_DEFAULT_RATE_PER_MINUTE
    )
    slot = 60.0 / per_minute if per_minute else 0.0
    items, jobs = batch
    seconds, polls = batch_time(
        items,
        jobs,
        rate=rate,
        per_minute=per_minute,
        interval=client.settings.batch_poll_interval,
        at_once=jobs_at_once(client),
    )
    if singles:
        if not per_minute:
            return None, polls + stored_polls
        ladder = kept_ladder(client) or ()
        seconds = paced_seconds(singles, per_minute, cost=cost, balance=balance, ladder=ladder)
    return seconds + stored_polls * slot, polls + stored_polls
