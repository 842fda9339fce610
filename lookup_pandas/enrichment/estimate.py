"""An estimate's method, time and credits, at a Client's pace, route costs and tier ladder.

:func:`lookup_pandas.enrichment.lookup.estimate_values` counts what a job would fetch;
:func:`planned` says how it would fetch it, how long that takes and what it costs.

Example: ``planned(Estimate(rows=1, valid=1, unique=1, cached=0, to_fetch=1), client).method``
is ``"single"`` until the service is known to have batch jobs (docs/decisions.md).
"""

from __future__ import annotations

import dataclasses

from ..client import credits as credit_facts
from ..client.client import Client
from ..client.credits import kept_costs, kept_ladder, unless_failing
from ..display.facts import RefreshEstimate
from ..identifiers.kinds import Kind
from ..service.credits import RouteCosts, tier_change
from .batch_plan import MAX_JOB_ITEMS, use_batch
from .plan import ASSUMED_PAGE, batch_told, job_credits
from .results import Estimate, Method
from .timing import ASSUMED_RESOLVE_RATE, resolve_rate, run_time

__all__ = ["planned", "read_credit_facts"]


def read_credit_facts(client: Client) -> float | None:
    """The balance now, with the route costs and the ladder read for :func:`planned`.

    The balance (read with the key) goes first, so the public reads never stand for a key check.
    """
    balance = unless_failing(credit_facts.balance, client, None)
    unless_failing(credit_facts.route_costs, client, RouteCosts())
    unless_failing(credit_facts.ladder, client, None)
    return balance


def planned(
    est: Estimate,
    client: Client,
    method: Method,
    kind: Kind,
    checks: RefreshEstimate | None = None,
) -> Estimate:
    """``est`` with the method, jobs, polls and seconds for its ``to_fetch`` at the Client's pace
    and the speed its service's batch jobs resolve (:mod:`lookup_pandas.enrichment.timing`).

    Until the pace is learned (``client.credits_tier()``, free), it is what the run would fall
    back to. ``kind`` gives the route's cost and the batch jobs. ``checks``: what a
    ``refresh="changed"`` would check; its feed calls are timed and its most is the credits.
    Why batch speed waits for a service known to have them: docs/decisions.md.

    Example: ``planned(Estimate(rows=1, valid=1, unique=1, cached=0, to_fetch=1), client)``
    has ``method="single"``.
    """
    rest = est.to_fetch - est.stored_items  # what no stored batch job holds
    supported = batch_told(client.parts.batch.supported_for(kind), kept_costs(client), kind)
    batch = use_batch(method, rest, supported)
    jobs = -(-rest // MAX_JOB_ITEMS) if batch else 0
    # collected whatever the method: a page each, and the poll that finds each done
    stored_polls = -(-est.stored_items // ASSUMED_PAGE) + est.stored_jobs if est.stored_jobs else 0
    by_batch = batch or (est.stored_jobs and rest == 0)
    costs = kept_costs(client) or RouteCosts()  # not read yet: 1 a call
    # what is to fetch, and the items stored batch jobs hold, at an item's cost
    stored = est.stored_items * costs.item_cost(kind.endpoint)
    credits = job_credits(rest, batch=batch, costs=costs, kind=kind) + stored
    ladder = kept_ladder(client)
    # Batch speed is promised only by a service known to have batch jobs. Until then, the
    # time is that of single calls (what the run falls back to), never the faster one.
    singles = rest if not batch or (supported is None and method == "auto") else 0
    if checks is not None:  # the most: every checked answer bought, and each feed call's page
        credits, singles = checks.most, singles + checks.feed_calls
    rate, seen = resolve_rate(client) if batch else (None, False)
    seconds, polls = run_time(
        client,
        singles,
        (rest, jobs),
        stored_polls,
        rate=rate or ASSUMED_RESOLVE_RATE,
        cost=costs.cost_of(kind.endpoint.path),
        balance=est.balance,
    )
    return dataclasses.replace(
        est,
        refresh=checks,
        method="none" if est.to_fetch == 0 else "batch" if by_batch else "single",
        jobs=jobs,
        polls=polls,
        seconds=seconds,
        resolve_rate=rate if not singles else None,
        resolve_rate_seen=seen,
        credits=credits,
        tier_change=(
            tier_change(ladder, est.balance, credits)
            if ladder and est.balance is not None
            else None
        ),
    )
