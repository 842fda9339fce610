"""``refresh="changed"``: check the cached answers through the job-change feed, before the run.

:func:`check_changes` reads each cached answer (expired or not), groups the organisations of
the checkable ones into feed queries (:mod:`lookup_pandas.enrichment.refresh_plan`), reads
each group's first page and decides from it, and returns what the run keeps and what it buys
anew. An answer the feed cannot check (a billed not-found, a record naming no current
position) is kept as it is until it expires (``expire_after``), then bought anew.
:func:`keep_checked` marks the kept answers checked (and keeps them another ``expire_after``),
beside the run (a task of its pool), and :func:`after_run` the bought movers' events acted on,
in the shared store.

Example: ``leads.lookup.enrich_profiles("handle", refresh="changed")``; its summary's ``refresh``
says what was checked, kept and bought anew.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Generator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import dataclass, field
from typing import Any

from ..client.client import Client
from ..client.credits import route_costs, unless_failing
from ..client.pagination import PagePlan, read_page
from ..display.facts import RefreshCounts, RefreshEstimate
from ..http.stats import ClientStats
from ..identifiers.kinds import Kind
from ..service.credits import RouteCosts
from ..service.job_changes import JobChange, read_event
from ..service.paths import JOB_CHANGES_PATH
from .plan import Options, check_budget, check_credits
from .refresh_plan import (
    FEED_PAGE,
    MAX_IDS_PER_CALL,
    CheckedAnswer,
    FeedRate,
    Group,
    checked_answer,
    decide,
    movers,
    organizations,
)
from .results import NOT_FOUND, OK, Outcome
from .single import cached_outcomes

__all__ = [
    "KEEP_CHUNK",
    "RefreshPlan",
    "after_run",
    "check_changes",
    "estimate_changes",
    "keep_checked",
    "most_and_least",
]


@dataclass(frozen=True)
class RefreshPlan:
    """What the run keeps and buys anew after the feed was read.

    ``kept``: the answers the feed checked, unchanged. ``cached``: those, and the answers it
    cannot check, not expired, kept as they are (neither checked nor renewed): every answer the
    run takes from the cache. ``checked_at``: when the feed was read.
    """

    kept: dict[str, Outcome]
    cached: dict[str, Outcome]
    counts: RefreshCounts
    checked_at: dt.datetime
    #: Each mover's events, marked acted on once it is bought anew.
    events: dict[str, set[str]]
    #: Each value's cache key (answers kept are marked checked by it).
    keys: dict[str, str]

    @property
    def fresh_after(self) -> float:
        """An answer stored after this time (epoch seconds) counts as new (another process
        bought it meanwhile)."""
        return self.checked_at.timestamp()


@dataclass
class _Cached:
    """What the cache holds for the values, and what a feed page and an answer cost.

    ``answers``: those the feed can check (``records``, their records). ``held``: answers the
    feed cannot check, not expired (kept as they are). ``uncheckable``: those expired (bought
    anew).
    """

    kind: Kind
    now: dt.datetime
    keys: dict[str, str]
    cost: float
    page: float
    answers: dict[str, CheckedAnswer] = field(default_factory=dict)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    held: list[str] = field(default_factory=list)
    uncheckable: list[str] = field(default_factory=list)
    uncached: list[str] = field(default_factory=list)

    def bounds(self) -> tuple[int, float, float]:
        """The feed calls the answers take before any page has taught the feed's rate, and the
        most and the least the refresh costs (:func:`most_and_least`)."""
        calls = len(organizations(list(self.answers.values())).groups(FeedRate()))
        expired, uncached = len(self.uncheckable), len(self.uncached)
        most, least = most_and_least(
            self.answers, calls, expired=expired, uncached=uncached, cost=self.cost, page=self.page
        )
        return calls, most, least


def _read_cache(
    client: Client, kind: Kind, distinct: Sequence[str], tally: ClientStats | None = None
) -> _Cached:
    """Each value's stored answer (expired too) and when it was bought or last checked.

    The route costs are read now if this Client has not read them yet (a free panel call,
    counted in ``tally`` too): a new Client has read none, and its most and least would count
    every profile and page at 1 credit, whatever the service charges.
    """
    costs = unless_failing(lambda c: route_costs(c, tally), client, RouteCosts())
    path, cache, now = kind.endpoint.path, client.parts.cache, dt.datetime.now(dt.UTC)
    keys = cache.keys(distinct, kind)
    checked = client.parts.store.checked_at(list(keys.values())) if keys else {}
    found = _Cached(kind, now, keys, costs.cost_of(path), costs.cost_of(JOB_CHANGES_PATH))
    for value in distinct:
        key = keys.get(value)
        stored = None if key is None else cache.stored_at_key(path, key)
        if key is None or stored is None:
            found.uncached.append(value)
            continue
        env, since, expired = stored
        if (mark := checked.get(key)) is not None:  # checked since it was bought
            since = max(since, dt.datetime.fromtimestamp(mark, dt.UTC))
        record = env.data if env is not None and isinstance(env.data, dict) else None
        answer = checked_answer(value, record, since=since, cost=found.cost, now=now)
        if answer is None or record is None:
            (found.uncheckable if expired else found.held).append(value)
        else:
            found.answers[value], found.records[value] = answer, record
    return found


def most_and_least(
    answers: Mapping[str, CheckedAnswer],
    groups: int,
    *,
    expired: int,
    uncached: int,
    cost: float,
    page: float,
) -> tuple[float, float]:
    """The most and the least a refresh costs, in credits.

    The most buys every checked answer anew, plus a page per group, the ``expired`` answers the
    feed cannot check and the ``uncached`` values. The least finds no mover: it reads a page per
    :data:`MAX_IDS_PER_CALL` organisations (a quiet first page packs the groups that full) and
    buys the expired answers; it counts nothing for the values not cached, which may be refused
    for that one record (opted out, premium-gated: never billed, never cached).

    >>> import datetime as dt
    >>> now = dt.datetime(2026, 11, 27, tzinfo=dt.UTC)
    >>> a = CheckedAnswer("ada", "prsn_1", "ada", ("org_1",), now, 1, 1.0)
    >>> most_and_least({"ada": a}, 1, expired=1, uncached=1, cost=1.0, page=1.0)
    (4.0, 2.0)
    """
    orgs = len({org for a in answers.values() for org in a.organizations})
    pages = -(-orgs // MAX_IDS_PER_CALL)
    most = sum(a.cost for a in answers.values()) + groups * page + (expired + uncached) * cost
    return most, pages * page + expired * cost


def estimate_changes(distinct: Sequence[str], client: Client, kind: Kind) -> RefreshEstimate:
    """What a refresh of ``distinct`` would check, and the most and the least it can cost.

    It reads the cache and the store only: no feed page. The feed calls are those the groups
    take before any page has taught the feed's rate (one event per organisation a week).
    """
    cached = _read_cache(client, kind, distinct)
    feed_calls, most, least = cached.bounds()
    return RefreshEstimate(
        checked=len(cached.answers),
        organizations=len(organizations(list(cached.answers.values())).order),
        feed_calls=feed_calls,
        uncheckable=len(cached.uncheckable),
        most=most,
        least=least,
        held=len(cached.held),
    )


def check_changes(
    distinct: Sequence[str],
    client: Client,
    kind: Kind,
    options: Options,
    tally: ClientStats,
    pool: Executor,
) -> RefreshPlan | None:
    """Read the feed for the cached answers of ``distinct``; the plan of what to keep and buy.

    None unless ``options.refresh="changed"`` online (offline, the plan refuses it).

    The answers the feed cannot check are held as they are while they last (``expire_after``).
    Refuses with BudgetExceededError, before any feed page is read, a refresh whose most
    (:func:`most_and_least`) exceeds ``options.max_credits``, or whose calls could exceed
    ``options.max_calls`` (each checked answer bought anew, plus a page per group). Its reads
    count in ``tally``, the run's, and the groups are read in the run's ``pool``.
    """
    if options.refresh != "changed" or client.settings.offline:
        return None
    cached = _read_cache(client, kind, distinct, tally)
    feed_calls, most, _ = cached.bounds()
    others = len(cached.uncheckable) + len(cached.uncached)  # bought whatever the feed says
    calls = len(cached.answers) + feed_calls + others
    check_budget(calls, 0, len(distinct), options.max_calls, kind.nouns)  # the most it can call
    check_credits(most, calls, options.max_credits)  # the most it can spend
    reader = _FeedReader(client, cached, tally, pool)
    reader.read_all()
    return reader.plan()


class _FeedReader:
    """Reads groups' feeds, deciding from each first page; collects movers and busy answers."""

    def __init__(self, client: Client, cached: _Cached, tally: ClientStats, pool: Executor) -> None:
        self.client, self.cached, self.answers = client, cached, cached.answers
        self.tally, self.pool = tally, pool
        self.found: dict[str, set[str]] = {}
        self.busy: set[str] = set()
        self.pages = 0
        self._lock = threading.Lock()  # the pool's groups share what they found
        self.credits_before = client.stats.credits_consumed

    def read_all(self) -> None:
        """Query every organisation's feed, and the groups that splits make.

        The first group is read alone, to learn the feed's rate. The rest are then grouped at
        that rate and read in the run's pool, each group deciding from its own first page,
        under the Client's one pace. Only this thread waits on them.
        """
        orgs, rate = organizations(list(self.answers.values())), FeedRate()
        if not orgs.order:
            return
        first = orgs.groups(rate)[0]
        splits = self._query(first, rate)
        groups = splits + orgs.groups(rate, start=len(first.organizations))
        pending = {self.pool.submit(self._query, g, rate) for g in groups}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:  # a split's groups are read in turn
                pending |= {self.pool.submit(self._query, g, rate) for g in future.result()}

    def _query(self, group: Group, rate: FeedRate) -> list[Group]:
        """Read ``group``'s first page, decide, carry it out; the groups a split makes."""
        pages = self._pages(group)
        events, last = next(pages)
        moved = self._note(events, group)
        with self._lock:  # the rate is learnt by every group's decision
            decision = decide(
                group, events, last=last, moved=moved, page_cost=self.cached.page, rate=rate
            )
        if decision.action == "read":
            for read, (events, last) in enumerate(pages, 1):
                self._note(events, group)
                if last:
                    break
                if read >= decision.pages:  # the feed burst past what its first page foretold
                    with self._lock:
                        self.busy.update(v for v in group.shares if v not in self.found)
                    break
        elif decision.action in ("buy", "split"):
            with self._lock:
                self.busy.update(decision.buy)
        pages.close()
        return list(decision.groups)

    def _pages(self, group: Group) -> Generator[tuple[list[JobChange], bool]]:
        """``group``'s feed, a page at a time: its events and whether it was the last page."""
        params = {
            "organization_ids": ",".join(group.organizations),
            "days_ago": group.days_ago,
            "limit": FEED_PAGE,
        }
        plan = PagePlan()
        sent: dict[str, Any] | None = plan.first(params)
        today, request = self.cached.now.date(), self.client.parts.sender.request
        while sent is not None:
            records, pagination = read_page(
                request, JOB_CHANGES_PATH, sent, plan, refresh=True, tally=self.tally
            )
            with self._lock:
                self.pages += 1
            sent = plan.next(sent, pagination, len(records))
            events = [read_event(r, today) for r in records if isinstance(r, Mapping)]
            yield events, sent is None

    def _note(self, events: list[JobChange], group: Group) -> set[str]:
        """Record the movers among ``events``; the group's answers known to have moved."""
        in_group = {v: self.answers[v] for v in group.shares}
        acted = self.client.parts.store.acted_changes([e.key for e in events]) if events else set()
        with self._lock:
            for value, keys in movers(events, in_group, acted).items():
                self.found.setdefault(value, set()).update(keys)
            return {v for v in in_group if v in self.found}

    def plan(self) -> RefreshPlan:
        """The refresh's plan: the kept answers, and those to buy anew."""
        cached, moved = self.cached, set(self.found)
        busy = self.busy - moved
        kept = {v: Outcome(OK, cached.records[v]) for v in cached.answers if v not in moved | busy}
        # read as any cached answer is (a cache hit); gone meanwhile (expired): bought anew
        keys = {v: cached.keys[v] for v in cached.held}  # the keys the cache was read by
        held = cached_outcomes(self.client, keys, cached.kind, tally=self.tally)
        expired = cached.uncheckable + [v for v in cached.held if v not in held]
        billed = self.client.stats.credits_consumed - self.credits_before
        counts = RefreshCounts(
            checked=len(cached.answers),
            unchanged=len(kept),
            moved=len(moved),
            busy=len(busy),
            uncheckable=len(expired),
            held=len(held),
            feed_pages=self.pages,
            feed_credits=billed if billed > 0 else self.pages * cached.page,
        )
        return RefreshPlan(
            kept=kept,
            cached={**kept, **held},
            counts=counts,
            checked_at=cached.now,
            events=dict(self.found),
            keys=cached.keys,
        )


#: Kept answers renewed per transaction, so the run's own writes wait little between them.
KEEP_CHUNK = 250


def keep_checked(client: Client, plan: RefreshPlan, kind: Kind) -> None:
    """Mark the kept answers checked, and keep them another ``expire_after``.

    Written in chunks of :data:`KEEP_CHUNK`, beside the purchases (a task of the run's pool);
    the run's caller waits for it once the run is over (a failed run keeps what the feed
    confirmed).
    """
    store, cache, path = client.parts.store, client.parts.cache, kind.endpoint.path
    keys = [plan.keys[v] for v in plan.kept if v in plan.keys]
    for i in range(0, len(keys), KEEP_CHUNK):
        chunk = keys[i : i + KEEP_CHUNK]
        store.mark_checked(chunk, plan.checked_at.timestamp())
        cache.renew(path, chunk)


def after_run(client: Client, plan: RefreshPlan, outcomes: Mapping[str, Outcome]) -> None:
    """Mark the bought movers' events acted on, so a second refresh buys none of them again.

    An event is marked once its person's answer was bought (found, or a billed not-found).
    """
    bought = [
        key
        for value, keys in plan.events.items()
        if (o := outcomes.get(value)) is not None and o.status in (OK, NOT_FOUND)
        for key in keys
    ]
    if bought:
        client.parts.store.mark_acted(bought)
