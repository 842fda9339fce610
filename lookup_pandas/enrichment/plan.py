"""The enrichment's plan, pure: what is cached, what to buy, batch or single, the budget.

Example::

    p = plan(["ada", "grace"], cached={"ada": Outcome(OK, {...})}.get, stored=[],
             options=Options(max_calls=5), batch_supported=None)
    p.read_ahead, p.to_fetch, p.batch     # True, ("grace",), False: below AUTO_THRESHOLD
    planned(estimate, client)             # an Estimate with its method, polls and seconds

Nothing here sends anything or reads a clock: the cache is a callable handed in (called only
when the plan needs the answers ahead of the run), the stored batch jobs a list.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..client.credits import kept_costs, kept_ladder
from ..errors import BudgetExceededError, InsufficientCreditsError, UsageError
from ..identifiers.kinds import PEOPLE, Kind
from ..service.credits import RouteCosts, paced_seconds, tier_change
from ..store import StoredJob
from .batch_plan import MAX_JOB_ITEMS, METHODS, use_batch
from .results import Errors, Estimate, Method, Outcome

if TYPE_CHECKING:
    from ..client.client import Client

__all__ = [
    "ASSUMED_PAGE",
    "Options",
    "Plan",
    "check_balance",
    "check_budget",
    "check_credits",
    "check_method",
    "check_options",
    "job_credits",
    "batch_told",
    "plan",
    "planned",
    "stored_batch_jobs_holding",
]

#: Results per poll assumed by an estimate: production does not document its page size (the
#: emulator's default is 100).
ASSUMED_PAGE = 100


@dataclass(frozen=True)
class Options:
    """The job's options that shape its plan. Example: ``Options(refresh=True, max_calls=10)``."""

    refresh: bool = False
    max_calls: int | None = None
    errors: Errors = "coerce"
    method: Method = "auto"
    max_credits: float | None = None
    provenance: bool = (
        False  # keep each value's source and time (lookup_pandas.enrichment.provenance)
    )


@dataclass(frozen=True)
class Plan:
    """What one enrichment does before it pays for anything.

    Example: ``Plan(cached={}, to_fetch=("ada",), batch=False)`` is the fast path: one pool
    of single calls, each reading the cache itself.

    ``cached``: the answers read ahead (empty unless ``read_ahead``); ``to_fetch``: the rest,
    to buy (or, on the fast path, to look up call by call); ``batch``: submit batch jobs for
    them; ``stored_batch_jobs``: stored batch jobs that hold some distinct handle (polled when
    ``resume``, else only forgotten once their inputs are cached); ``check_key``: answers
    were read ahead, so a key never seen to work is checked (free) before they are used.
    """

    cached: Mapping[str, Outcome] = field(default_factory=dict)
    to_fetch: tuple[str, ...] = ()
    batch: bool = False
    stored_batch_jobs: tuple[StoredJob, ...] = ()
    resume: bool = False
    read_ahead: bool = False
    #: Offline: the values the cache does not hold (``lookup_status="not_cached"``).
    not_cached: tuple[str, ...] = ()
    offline: bool = False

    @property
    def check_key(self) -> bool:
        """Answers read ahead are about to be used: the key must be known to work (online;
        offline nothing is sent, the key's check neither)."""
        return bool(self.cached) and not self.offline

    @property
    def batch_run(self) -> bool:
        """Batch jobs are submitted or stored ones looked at: a BatchRun is needed."""
        return self.batch or bool(self.stored_batch_jobs)


def check_offline(options: Options) -> None:
    """Offline, what cannot be done is refused before anything: ``refresh=True``."""
    if options.refresh:
        raise UsageError("refresh=True buys every answer again: it needs the network, not offline.")


def offline_plan(distinct: Sequence[str], *, cached: Callable[[str], Outcome | None]) -> Plan:
    """Offline: each value's stored answer (an expired one too), the rest ``not_cached``;
    nothing to fetch, so nothing to budget or pay for.

    Example: ``offline_plan(["ada", "grace"], cached={"ada": ok}.get)`` -> ``Plan(cached={"ada":
    ok}, not_cached=("grace",), read_ahead=True, offline=True)``
    """
    found = {h: o for h in distinct if (o := cached(h)) is not None}
    rest = tuple(h for h in distinct if h not in found)
    return Plan(cached=found, not_cached=rest, read_ahead=True, offline=True)


def plan(
    distinct: Sequence[str],
    *,
    cached: Callable[[str], Outcome | None],
    stored: Sequence[StoredJob],
    options: Options,
    batch_supported: bool | None,
    balance_seen: bool = True,
    nouns: str = "handles",
) -> Plan:
    """The plan for ``distinct`` handles, or BudgetExceededError (nothing sent).

    Example: ``plan(["ada"], cached={}.get, stored=[], options=Options(),
    batch_supported=None)`` -> ``Plan(to_fetch=("ada",))``, ``cached`` never called.

    ``cached(handle)``: the stored answer, or None when it must be fetched; it is called only
    when the plan needs to know ahead: a budget must count what is to pay, ``errors="raise"``
    meets a cached failure before paying, and batch jobs (new or stored) are for what the cache
    does not hold, and a Client that has not seen its balance must know what is to buy before
    it can tell whether the balance pays for it (``balance_seen=False``). ``stored``: every
    stored batch job; those holding none of ``distinct`` are left alone.
    """
    jobs = tuple(stored_batch_jobs_holding(stored, distinct))
    resume = bool(jobs) and not options.refresh
    method = options.method
    if options.refresh:
        check_budget(len(distinct), 0, len(distinct), options.max_calls, nouns)  # all billed
        return Plan(
            to_fetch=tuple(distinct),
            batch=use_batch(method, len(distinct), batch_supported),
            stored_batch_jobs=jobs,
        )
    fast = (
        options.max_calls is None
        and options.max_credits is None
        and balance_seen
        and options.errors == "coerce"
        and not resume
        and not use_batch(method, len(distinct), batch_supported)
    )
    if fast:  # each call reads the cache, or fetches
        return Plan(to_fetch=tuple(distinct), stored_batch_jobs=jobs)
    found = {h: o for h in distinct if (o := cached(h)) is not None}
    to_fetch = tuple(h for h in distinct if h not in found)
    check_budget(len(to_fetch), len(found), len(distinct), options.max_calls, nouns)
    return Plan(
        cached=found,
        to_fetch=to_fetch,
        batch=use_batch(method, len(to_fetch), batch_supported),
        stored_batch_jobs=jobs,
        resume=resume,
        read_ahead=True,
    )


def check_budget(
    needed: int, cached: int, distinct: int, max_calls: int | None, nouns: str = "handles"
) -> None:
    """BudgetExceededError when ``needed`` billable calls are more than ``max_calls``.

    Example: ``check_budget(3, 1, 4, max_calls=2)`` raises; ``max_calls=None`` never does.
    """
    if max_calls is not None and needed > max_calls:
        raise BudgetExceededError(
            f"This enrichment needs {needed} billable calls ({cached} of {distinct} distinct "
            f"{nouns} are cached), more than max_calls={max_calls}. Nothing was sent.",
            needed=needed,
            allowed=max_calls,
        )


def job_credits(items: int, *, batch: bool, cost: float) -> float:
    """Credits ``items`` billable items cost: batch items 1 each, single calls ``cost`` each.

    Example: ``job_credits(50, batch=False, cost=2.0)`` -> ``100.0``
    """
    return float(items) if batch else items * cost


def check_credits(credits: float, items: int, max_credits: float | None) -> None:
    """BudgetExceededError when ``credits`` (for ``items`` billable items) are more than
    ``max_credits``.

    Example: ``check_credits(50, 50, max_credits=20)`` raises; ``max_credits=None`` never does.
    """
    if max_credits is not None and credits > max_credits:
        raise BudgetExceededError(
            f"This enrichment needs {credits:g} credits ({items} billable items), more than "
            f"max_credits={max_credits:g}. Nothing billable was sent.",
            needed=math.ceil(credits),
            allowed=math.floor(max_credits),
        )


def check_balance(credits: float, items: int, balance: float | None) -> None:
    """InsufficientCreditsError when the balance cannot pay ``credits`` (for ``items``
    billable items), naming both and how to go on; an unknown balance (None) passes.

    Example: ``check_balance(50, 50, 20)`` raises "... needs 50 credits ..., the balance is
    20 ... e.g. df.head(20) ..."
    """
    if balance is None or credits <= balance:
        return
    each = credits / items if items else 1.0
    affordable = max(0, math.floor(balance / each)) if each else items
    subset = (
        f"enrich a subset the balance can pay, e.g. df.head({affordable}) (cached rows are "
        f"free), with max_credits={balance:g} to refuse any job that would spend more"
        if affordable
        else "set max_credits= to refuse any job that would spend more than you have"
    )
    exc = InsufficientCreditsError(
        f"This enrichment needs {credits:g} credits ({items} billable items), and the balance "
        f"is {balance:g}. Nothing billable was sent. Top up, or {subset}."
    )
    exc.needed, exc.balance = credits, balance
    raise exc


def stored_batch_jobs_holding(
    stored: Sequence[StoredJob], handles: Sequence[str]
) -> list[StoredJob]:
    """The stored batch jobs (of earlier, interrupted runs) that hold any of ``handles``.

    Example: ``stored_batch_jobs_holding([StoredJob("j", ("ada",), 0.0)], ["bob"])`` -> ``[]``.
    """
    if not stored:
        return []
    wanted = set(handles)
    return [job for job in stored if not wanted.isdisjoint(job.inputs)]


def check_method(method: str) -> None:
    """``method`` is one of auto / batch / single, else a UsageError (nothing is sent).

    Example: ``check_method("bulk")`` raises UsageError.
    """
    if method not in METHODS:
        raise UsageError(f"method must be one of {', '.join(map(repr, METHODS))}, not {method!r}")


def check_options(errors: str, max_calls: int | None, max_credits: float | None = None) -> None:
    """The job's options, checked before anything is read or sent (UsageError).

    Example: ``check_options("ignore", None)``, ``check_options("raise", -1)`` and
    ``check_options("coerce", None, max_credits=-5)`` raise.
    """
    if errors not in ("coerce", "raise"):
        raise UsageError(f"errors must be 'coerce' or 'raise', not {errors!r}")
    if max_calls is not None and (
        isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 0
    ):
        raise UsageError(f"max_calls must be a whole number >= 0 or None, not {max_calls!r}")
    if max_credits is not None and (
        isinstance(max_credits, bool)
        or not isinstance(max_credits, int | float)
        or not max_credits >= 0
        or math.isinf(max_credits)
    ):
        raise UsageError(f"max_credits must be a number >= 0 or None, not {max_credits!r}")


def planned(
    est: Estimate, client: Client, method: Method = "auto", kind: Kind = PEOPLE
) -> Estimate:
    """``est`` with the method, jobs, polls and seconds for its ``to_fetch`` at the Client's
    pace as it stands (call again after ``client.learn_pace()`` to time it).

    Example: ``planned(Estimate(rows=1, valid=1, unique=1, cached=0, to_fetch=1), client)
    .method`` -> ``"single"``. ``kind``: whose lookups (their route's cost, their batch jobs).
    """
    rest = est.to_fetch - est.stored_items  # what no stored batch job holds
    supported = batch_told(client.batch_supported_for(kind), kept_costs(client), kind)
    batch = use_batch(method, rest, supported)
    jobs = -(-rest // MAX_JOB_ITEMS) if batch else 0
    polls = -(-rest // ASSUMED_PAGE) + jobs if batch else 0
    if est.stored_jobs:  # collected whatever the method
        polls += -(-est.stored_items // ASSUMED_PAGE) + est.stored_jobs
    by_batch = batch or (est.stored_jobs and rest == 0)
    credits = _credits(client, rest, batch, est.stored_items, kind.endpoint.path)
    ladder = kept_ladder(client)
    # Batch speed is promised only by a service known to have batch jobs: until then, the
    # time is that of single calls (what the run falls back to), never the faster one.
    singles = rest if not batch or (supported is None and method == "auto") else 0
    return dataclasses.replace(
        est,
        method="none" if est.to_fetch == 0 else "batch" if by_batch else "single",
        jobs=jobs,
        polls=polls,
        seconds=_expected_seconds(
            client,
            singles,
            jobs if not singles else 0,
            polls if not singles else 0,
            cost=_cost(client, kind.endpoint.path),
            balance=est.balance,
        ),
        credits=credits,
        tier_change=(
            tier_change(ladder, est.balance, credits)
            if ladder and est.balance is not None
            else None
        ),
    )


def batch_told(known: bool | None, costs: RouteCosts | None, kind: Kind = PEOPLE) -> bool | None:
    """Whether the service has ``kind``'s batch jobs, as far as is known without sending
    anything: what a submit told the Client (``known``), else what the route costs tell
    (production lists its batch routes, at 0 credits), else None.

    Example: ``batch_told(None, RouteCosts({}))`` -> ``False``;
    ``batch_told(None, None)`` -> ``None``
    """
    if known is not None or costs is None or kind.endpoint.batch is None:
        return known
    return costs.lists(kind.endpoint.batch)


def _cost(client: Client, path: str) -> float:
    """A single call's credits at the route costs the Client has read (else 1)."""
    costs = kept_costs(client)
    return costs.cost_of(path) if costs is not None else 1.0


def _credits(client: Client, rest: int, batch: bool, stored_items: int, path: str) -> float:
    """Credits of ``rest`` items fetched by batch or single calls, plus the items stored batch
    jobs hold (1 each), at the route costs the Client has read (else 1 each)."""
    return job_credits(rest, batch=batch, cost=_cost(client, path)) + stored_items


def _expected_seconds(
    client: Client,
    to_fetch: int,
    jobs: int,
    polls: int,
    *,
    cost: float = 1.0,
    balance: float | None = None,
) -> float | None:
    """How long fetching takes at the Client's pace: a slot per single call (slower once their
    credits drop the key's tier, when the balance and ladder are known), or per submit and
    poll plus one poll interval for batch; None when the pace is unknown or there is none."""
    per_minute = (
        client.rate_limit_per_minute if client.pace_known else client.settings.rate_limit_per_minute
    )
    if to_fetch == 0 and polls == 0:
        return 0.0
    if not per_minute:
        return None
    ladder = kept_ladder(client) or ()
    seconds = paced_seconds(to_fetch, per_minute, cost=cost, balance=balance, ladder=ladder)
    if polls:
        seconds += (jobs + polls) * 60.0 / per_minute + client.settings.batch_poll_interval
    return seconds
