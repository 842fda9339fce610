"""The enrichment's run: a :class:`~lookup_pandas.enrichment.plan.Plan` carried out, and its counts.

>>> from concurrent.futures import ThreadPoolExecutor
>>> import lookup_pandas as lp
>>> from lookup_pandas.identifiers.kinds import PEOPLE
>>> from lookup_pandas.enrichment.plan import plan
>>> from lookup_pandas.testing import MockTransport, people_service
>>> transport = MockTransport(people_service({"id": "prsn_1", "handle": "ada"}))
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
...                    transport=transport)
>>> options = Options(progress=False)
>>> the_plan = plan(["ada"], cached={}, stored=[], options=options,
...                 batch_supported=None)
>>> with ThreadPoolExecutor(client.max_workers) as pool:  # the run's one pool
...     state = EnrichmentRun(client, the_plan, options, pool=pool, kind=PEOPLE)
...     state.run()
>>> state.outcomes["ada"].status, state.counts["fetched"]
('ok', 1)
>>> state.kept_text(1, "topping up")  # doctest: +ELLIPSIS
"1 of this job's 1 billable answers are kept in the cache..."

The order: the answers read ahead, then the batch jobs
(:mod:`lookup_pandas.enrichment.batch_run`), then single calls for the rest, each a task of the
run's pool (its caller's: see "Locks, threads and pools" in docs/architecture.md).
When the values mix names and ids, that is done for the names, then for the ids their records
did not name (:mod:`lookup_pandas.enrichment.aliases`).
With a cache, the calls' claims are taken a window ahead in one store call
(:class:`~lookup_pandas.store.claims.ClaimWindow`).

It stops at once on an AuthenticationError, a ConfigurationError or an
InsufficientCreditsError. It stops too after ``max(3, max_workers)`` handles in a row failed
like an outage (docs/enriching.md). What was fetched is in the cache, and a re-run resumes there.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import KW_ONLY, dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..client.client import Client, ClientStats
from ..client.credits import kept_costs
from ..display.progress import Bar, Progress
from ..errors import (
    AuthenticationError,
    BatchUnavailableError,
    BudgetExceededError,
    InsufficientCreditsError,
    ServerError,
    ServiceError,
    TransportError,
)
from ..identifiers.kinds import Kind
from ..service.credits import RouteCosts
from ..service.envelope import Envelope
from ..store.claims import ClaimWindow
from ..store.pacing import check_cancel
from .aliases import HeldIds
from .batch_run import BatchRun, out_of_credits
from .plan import Options, Plan
from .provenance import Source, arrived
from .results import (
    ERROR,
    NOT_FOUND,
    OK,
    REFUSED,
    JobSummary,
    OnRecord,
    Outcome,
    handed,
    row_error,
)
from .single import SingleCalls, fetch_one, in_cache, not_cached_outcome, window_size

if TYPE_CHECKING:
    from .background import Watch

__all__ = ["EnrichmentRun", "fetched_as"]

#: Failures (after all retries) that, so many in a row, mean the service is down or unreachable.
_OUTAGE = (TransportError, ServerError)

_Fetched = Future[tuple[Outcome, bool] | None]
#: A background job cancelled: it stops as on Ctrl-C (the calls in flight land).
_CANCELLED = "cancelled: what was fetched is cached; a re-run resumes there"


def fetched_as(outcome: Outcome) -> str:
    """How a fetched answer is counted: ``failed``, ``refused`` (a 403, not billed) or ``fetched``.

    >>> fetched_as(Outcome("forbidden", error="opted out")), fetched_as(Outcome(OK, {}))
    ('refused', 'fetched')
    """
    if outcome.status == ERROR:
        return "failed"
    return "refused" if outcome.status in REFUSED else "fetched"


@dataclass(eq=False, repr=False)
class EnrichmentRun:
    """One enrichment's run of ``plan``: its outcomes, counts and progress bar, and the calls.

    The caller makes it, then calls :meth:`run` (see the module's example): when the run stops
    on an exception, the caller holds what it did. The main thread hands the handles to the
    pool, and only it touches the counts; no task of the pool waits on another. At most
    ``4 x max_workers`` calls wait in the pool's queue (see docs/decisions.md).
    """

    client: Client
    plan: Plan
    options: Options
    _: KW_ONLY
    #: The run's one pool (``max_workers`` threads): its single calls, its batch jobs' submits
    #: and polls; its caller's feed reads and keep-checked work too.
    pool: Executor
    kind: Kind
    #: What this run sent and spent, counted by every call it makes (not another run's on
    #: the same Client).
    tally: ClientStats = field(default_factory=ClientStats)
    on_record: OnRecord | None = None
    #: A background job's watch: its view stands for the bar, and once its cancel event is
    #: set, the run stops as on Ctrl-C.
    watch: Watch | None = None
    bar: Bar | None = None  # drawn while it runs
    #: Each value's cache key, worked out once a run (:meth:`keys_of` adds those missing).
    keys: dict[str, str] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict, init=False)
    counts: dict[str, int] = field(
        default_factory=lambda: {"cached": 0, "fetched": 0, "refused": 0, "failed": 0},
        init=False,
    )
    batch_jobs: int = field(default=0, init=False)  # batch jobs polled: submitted, or resumed
    #: Items of the batch jobs this run polled that resolved while it ran, each billed then.
    batch_billed: int = field(default=0, init=False)
    batch_recorded: int = field(default=0, init=False)  # handles recorded from those so far
    batch_shown: str = field(default="", init=False)  # "done/total" batch jobs, on the bar
    _waiting: int = field(default=0, init=False)  # calls waiting for another's purchase
    #: Answers that landed in the cache from calls in flight when the run stopped.
    landed: int = field(default=0, init=False)
    #: The latest failures in a row, if outage-like.
    _outage: list[ServiceError] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.parts = parts = self.client.parts
        self._breaker_after = max(3, parts.settings.max_workers)
        # A call's cost, for the bar's cap: the route costs are read before the run, if at all.
        costs = kept_costs(self.client) or RouteCosts()
        self._cost = max(1.0, costs.cost_of(self.kind.endpoint.path))
        self._each = costs.item_cost(self.kind.endpoint)  # a batch item's, as it resolves
        self.refresh = self.options.refresh is True
        self.cancel = self.watch.cancel if self.watch else None
        #: With provenance, how each value's answer came (lookup_pandas.enrichment.provenance).
        self.sources: dict[str, Source] | None = {} if self.options.provenance else None
        #: After ``refresh="changed"``, the feed's findings.
        self.checked = self.plan.checked
        #: The ids bought after the names, unless a record bought for a name names them.
        self.held = HeldIds.of(self.plan.to_fetch, self.kind)
        self._calls = SingleCalls(
            parts.sender.request,
            self.kind,
            refresh=self.refresh,
            fresh_after=self.plan.fresh_after,
            tally=self.tally,
        )

    def run(self) -> None:
        """Carry the plan out: record what was read ahead, run the batch jobs, then single calls."""
        plan, options, kind, held = self.plan, self.options, self.kind, self.held
        batch = self._batch_run(held.phases()[0])
        total = len(plan.cached) + len(plan.to_fetch) + len(plan.not_cached)
        shown = Progress if self.watch is None else self.watch.progress
        with shown(options.progress, total=total, desc=kind.desc, unit=f" {kind.noun}") as bar:
            self.bar = bar
            if self.watch is not None:
                self.watch.traffic = self.tally  # the run's own: its 429s, on its line
            try:
                for handle, outcome in plan.cached.items():
                    self.keep(handle, outcome, "cached")
                for handle in plan.not_cached:  # offline
                    self.keep(handle, not_cached_outcome(), "not_cached")
                for later, phase in enumerate(held.phases()):
                    if later:  # the ids no record of the names named
                        phase = self.answered_by_names(phase)
                        unsupported = self.parts.batch.supported_for(kind) is False
                        batch = None if batch is None or unsupported else self._batch_run(phase)
                    singles = self.run_batch_jobs(batch, options.method) if batch else phase
                    if batch is not None and (over := self.over_budget(singles, total)):
                        batch.finish()  # collected: the single calls would go past the cap
                        raise over
                    self.run_singles(singles)
                    if batch is not None:
                        batch.finish()  # collected: those it could pay for, if it ran out
                        if left := batch.unaffordable:
                            bought, each = self.counts["fetched"], batch.each
                            raise out_of_credits(left, batch.refusal, kind, bought, each)
                        self.batch_jobs += batch.batch_jobs
            except BaseException as exc:  # no credits, a rejected key, Ctrl-C, a cancel, an outage
                self._told(exc, batch, total)
                raise

    def _told(self, exc: BaseException, batch: BatchRun | None, total: int) -> None:
        """Tell on ``exc``, which stops the run, what was kept (a re-run buys only the rest)
        and what batch jobs in flight go on billing (Ctrl-C)."""
        if isinstance(exc, InsufficientCreditsError | AuthenticationError):
            fix = "fixing the key" if isinstance(exc, AuthenticationError) else "topping up"
            told = self.kept_text(total, fix)  # a key's hint says where the key came from
            exc.hint = f"{exc.hint}. {told}" if exc.hint else told
        if batch is not None:
            self.batch_billed = batch.billed  # every item seen resolved, collected or not
            going_on = batch.in_flight() if isinstance(exc, KeyboardInterrupt) else None
            if going_on is not None:
                exc.add_note(going_on)  # shown under the traceback, and by the CLI

    def _batch_run(self, handles: Sequence[str]) -> BatchRun | None:
        """The batch part of the plan for ``handles`` (jobs to submit, stored ones to resume)."""
        if not self.plan.batch_run:
            return None
        return BatchRun(
            self.client,
            handles,
            submit=self.plan.batch,
            stored=self.plan.stored_batch_jobs,
            resume=self.options.refresh is False,
            kind=self.kind,
            cancel=self.cancel,
            tally=self.tally,
            pool=self.pool,
            keys=self.keys_of(handles),
        )

    def credits(self, *, shown: bool = False) -> float:
        """Credits this run paid: what the answers reported, plus each batch item resolved at
        its cost (the Data API's 1, the Email API's its route's), not counted twice when its
        answer reported it too. ``shown`` gives the bar's figure, which never runs ahead of the
        handles recorded (and a refresh's feed pages).

        Example: ``state.credits()`` is ``190.0`` after 190 single calls at 1 credit.
        """
        traffic, each = self.tally, self._each
        consumed, by_batch = traffic.credits_consumed, traffic.batch_credits
        singles, items = consumed - by_batch, max(self.batch_billed * each, by_batch)
        if shown:  # a refresh="changed" read its feed pages before the run: all are shown
            paid = (self.counts["fetched"] - self.batch_recorded) * self._cost
            singles = min(singles, paid + (self.checked.feed_credits if self.checked else 0.0))
            items = min(items, self.batch_recorded * each)
        return singles + items

    def kept_text(self, total: int, fix: str) -> str:
        """What a run stopped for want of credits or a key keeps, of its ``total`` billable values.

        ``fix`` says what to do first. An opted-out person is never billed, so not counted.
        See the module's example.
        """
        outcomes = self.outcomes.values()
        kept = sum(in_cache((o, False)) for o in outcomes) + self.landed
        billable = total - sum(o.status in REFUSED for o in outcomes)
        return (
            f"{kept} of this job's {billable} billable answers are kept in the cache; after "
            f"{fix}, a re-run buys only the other {billable - kept}"
        )

    def over_budget(self, handles: Sequence[str], total: int) -> BudgetExceededError | None:
        """The error that stops the run before single calls for ``handles``, left by its batch
        jobs, would take it past ``max_credits`` or ``max_calls``; None when they fit.

        The job was priced before the batch jobs: a fallback (no batch jobs after all, items
        left in a job's ``errors``) buys at the single route's cost. What the cache holds is
        not counted, unless a refresh buys it anew; ``total`` is the job's billable values.
        """
        options, path, params = self.options, self.kind.endpoint.path, self.kind.params
        if (options.max_credits is None and options.max_calls is None) or not handles:
            return None
        cached = self.parts.cache.is_cached
        buying = [h for h in handles if options.refresh or not cached(path, params(h))]
        cost = (kept_costs(self.client) or RouteCosts()).cost_of(path)
        spent, credits = self.credits(), len(buying) * cost
        feed = self.checked.feed_pages if self.checked else 0
        calls = self.batch_billed + self.counts["fetched"] - self.batch_recorded + feed
        nouns = self.kind.noun if len(buying) == 1 else self.kind.nouns
        kept = self.kept_text(total, "raising the budget")
        if options.max_credits is not None and spent + credits > options.max_credits:
            left = options.max_credits - spent
            return BudgetExceededError(
                f"The batch jobs left {len(buying)} {nouns} to single calls, which need "
                f"{credits:g} credits ({cost:g} each), and {max(0.0, left):g} of "
                f"max_credits={options.max_credits:g} are left ({spent:g} spent). None was "
                f"sent. {kept}",
                needed=math.ceil(credits),
                allowed=max(0, math.floor(left)),
            )
        if options.max_calls is not None and calls + len(buying) > options.max_calls:
            left_calls = max(0, options.max_calls - calls)
            return BudgetExceededError(
                f"The batch jobs left {len(buying)} {nouns} to single calls, and {left_calls} "
                f"of max_calls={options.max_calls} are left ({calls} billable calls made). None "
                f"was sent. {kept}",
                needed=len(buying),
                allowed=left_calls,
            )
        return None

    def summary(self, rows: int, statuses: dict[str, int], *, seconds: float) -> JobSummary:
        """What this run did, for ``rows`` rows of these ``statuses``, and its traffic."""
        traffic = self.tally
        return JobSummary(
            rows=rows,
            statuses=statuses,
            cached=self.counts["cached"],
            fetched=self.counts["fetched"],
            failed=self.counts["failed"],
            refused=self.counts["refused"],
            credits=self.credits(),
            requests=traffic.sent,
            rate_limited=traffic.rate_limited,
            retries=traffic.retries,
            seconds=seconds,
            jobs=self.batch_jobs,
        )

    def keep(self, handle: str, outcome: Outcome, count: str, via: str = "single") -> None:
        """Keep ``handle``'s outcome and count it in ``count`` (cached, fetched, refused, ...);
        ``via``: how an answer not cached came, ``single`` or ``batch``."""
        if self.held is not None:
            self.held.note(handle, outcome)
        self.outcomes[handle] = handed(self.on_record, handle, outcome)
        self.counts[count] = self.counts.get(count, 0) + 1  # not_cached: offline only
        if self.sources is not None and count not in ("not_cached", "refused"):  # none bought
            self.sources[handle] = ("cache", None) if count == "cached" else arrived(via)
        self._show(1)
        if self.options.errors == "raise" and outcome.status != OK:
            raise row_error(handle, outcome, self.kind.noun)
        if count in ("fetched", "refused", "failed"):
            self._watch_outage(outcome)

    def answered_by_names(self, ids: Sequence[str]) -> list[str]:
        """Record each of ``ids`` a record of this run names with that record (not bought
        again, counted as cached, its source the record's). Returns the ids left to buy."""
        named = self.held.named() if self.held is not None else {}
        for value, (name, outcome) in named.items():
            self.keep(value, outcome, "cached")
            if self.sources is not None and name in self.sources:
                self.sources[value] = self.sources[name]
        return [value for value in ids if value not in named]

    def _show(self, n: int) -> None:
        """Advance the bar by ``n`` handles and show the counts, most telling first."""
        counts: dict[str, Any] = {
            "fetched": self.counts["fetched"],
            "credits": f"{self.credits(shown=True):g}",
        }
        self._waiting = self.parts.counter.waiting
        if self._waiting:
            counts["waiting"] = f"{self._waiting} {self.kind.nouns} another process is buying"
        if self.batch_shown:
            counts["jobs"] = self.batch_shown
        if self.counts["refused"]:  # opted out, premium-gated: answered, not billed
            counts["refused"] = self.counts["refused"]
        counts.update(cached=self.counts["cached"], failed=self.counts["failed"])
        if c := self.checked:  # refresh="changed": moved, bought at a busy feed, pages read
            busy = f", {c.busy} at a busy feed" if c.busy else ""
            counts.update(checked=f"{c.checked} ({c.moved} moved{busy})", feed_pages=c.feed_pages)
            if c.uncheckable:  # bought anew: no organisation to read the feed of
                counts["not_checkable"] = c.uncheckable
        if "not_cached" in self.counts:  # offline
            counts["not_cached"] = self.counts["not_cached"]
        if self.bar is not None:
            self.bar.update(n, **counts)

    def _watch_outage(self, outcome: Outcome) -> None:
        """The breaker: so many fetches in a row that failed like an outage end the run."""
        if not isinstance(outcome.exc, _OUTAGE) or outcome.status != ERROR:
            self._outage.clear()
            return
        self._outage.append(outcome.exc)
        if len(self._outage) < self._breaker_after:
            return
        last = self._outage[-1]
        stopped = type(last)(
            f"Stopped: {len(self._outage)} {self.kind.nouns} in a row failed after every retry, "
            f"the last with: {last}. The service at {self.parts.settings.base_url} looks down or "
            f"unreachable; the {self.counts['fetched']} answers fetched are cached, and a "
            "re-run resumes from there",
            status_code=last.status_code,
            url=last.url,
        )
        raise stopped

    def run_batch_jobs(self, batch: BatchRun, method: str) -> list[str]:
        """Record every result of ``batch``'s jobs. Returns the handles left for single calls.

        A service found to have no batch jobs leaves every handle not yet answered to single
        calls with ``method="auto"``. With ``"batch"`` it raises BatchUnavailableError.
        """
        try:
            for handle, answer in batch:
                self.batch_billed = batch.billed
                self.batch_recorded += 1
                self.batch_shown = f"{batch.batch_jobs_done}/{batch.batch_jobs_total}"
                if isinstance(answer, Envelope):
                    outcome = Outcome(OK, answer.data)
                else:
                    outcome = Outcome(NOT_FOUND, error=answer.message, exc=answer)
                self.keep(handle, outcome, "fetched", "batch")
        except BatchUnavailableError:
            if method == "batch":
                raise
            return [h for h in batch.handles if h not in self.outcomes]
        self.batch_billed = batch.billed
        self.batch_shown = f"{batch.batch_jobs_done}/{batch.batch_jobs_total}"
        self._show(0)  # the batch jobs' final count
        return batch.fallback

    def run_singles(self, handles: Iterable[str]) -> None:
        """Fetch ``handles`` in the pool, their claims taken a window ahead (with a cache)."""
        parts, stop, pool = self.parts, self._calls.stop, self.pool
        workers = parts.settings.max_workers
        window = None if self.refresh else ClaimWindow(parts.claims, window_size(workers))
        pending: dict[_Fetched, str] = {}
        try:
            for handle, held in self._windows(handles, window):
                check_cancel(self.cancel, _CANCELLED)
                future = pool.submit(self._fetch, handle, held, window)
                pending[future] = handle
                self._harvest(pending, block=len(pending) >= 4 * workers, window=window)
            while pending:
                check_cancel(self.cancel, _CANCELLED)
                self._harvest(pending, block=True, window=window)
        except BaseException:
            # An error to raise, an authentication failure, or Ctrl-C: send nothing more. The
            # calls in flight finish, since their answers are paid for and land in the cache.
            stop.set()
            for future in pending:
                future.cancel()  # not started: never sent
            wait(pending)
            self.landed = sum(
                f.done() and not f.cancelled() and f.exception() is None and in_cache(f.result())
                for f in pending
            )
            raise
        finally:
            if window is not None:
                window.close()  # the claims of calls never started are let go unbought

    def _windows(
        self, handles: Iterable[str], window: ClaimWindow | None
    ) -> Iterator[tuple[str, tuple[str, str] | None]]:
        """Each handle with its claim (key, state) held by ``window``, or None (the call claims).

        A window is claimed as it is reached, and its held handles go first. Why: see "Claims
        in windows" in docs/decisions.md. No cache: none held.
        """
        if window is None:
            yield from ((handle, None) for handle in handles)
            return
        remaining = iter(handles)
        while chunk := list(islice(remaining, window.size)):
            held = window.hold(self.keys_of(chunk))
            yield from held.items()
            yield from ((handle, None) for handle in chunk if handle not in held)

    def keys_of(self, values: Sequence[str]) -> dict[str, str]:
        """Their cache keys (none without a cache), each made once a run, in the main thread."""
        if missing := [v for v in values if v not in self.keys]:
            self.keys.update(self.parts.cache.keys(missing, self.kind))
        return {v: self.keys[v] for v in values if v in self.keys}

    def _fetch(
        self,
        handle: str,
        held: tuple[str, str] | None,
        window: ClaimWindow | None,
    ) -> tuple[Outcome, bool] | None:
        """:func:`fetch_one` in a pool thread, telling ``window`` when a held claim is done."""
        result = None
        try:
            result = fetch_one(self._calls, handle, held)
            return result
        finally:
            if held is not None and window is not None:
                window.finished(held[0], bought=in_cache(result))

    def _harvest(
        self, pending: dict[_Fetched, str], *, block: bool, window: ClaimWindow | None = None
    ) -> None:
        if window is not None and window.due():
            window.flush()
        done, _ = wait(pending, timeout=0.5 if block else 0, return_when=FIRST_COMPLETED)
        if not done and (self.parts.counter.waiting or self._waiting):
            self._show(0)  # calls wait for another process, or stopped: the bar says why
        # Every answer in first: a call that raised (a rejected key) raises only after them.
        for future in sorted(done, key=lambda f: f.exception() is not None):
            handle = pending.pop(future)
            result = future.result()  # an AuthenticationError surfaces here
            if result is None:
                continue
            outcome, from_cache = result
            self.keep(handle, outcome, "cached" if from_cache else fetched_as(outcome))
