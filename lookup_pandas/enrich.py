"""Profile enrichment: the engine behind ``df.lookup.enrich_profiles`` and ``lp.get_profiles``.

Example::

    result = lookup_values(["ada", " https://www.example.com/in/ada/ ", "", "unknown-x"],
                           client=client)
    result.status        # ["ok", "ok", "invalid", "not_found"]: "ada" was requested once

Flow: normalise every value -> distinct valid handles -> (with a budget, ``errors="raise"``,
batch jobs in view or stored jobs to resume) the answers already in the cache, counted first
without the network -> the service's batch jobs for the rest (``method``, see
:mod:`lookup_pandas.batch`), whose results are cached exactly as single answers -> a thread pool
of ``Client.profile_answer`` for whatever is left: each call reads the cache once, or waits for
its pacing slot and fetches -> records flattened once per handle -> spread back over the rows,
by position. Nothing here mutates its input.

A job stops, raising, instead of grinding on: at once on an AuthenticationError or a
ConfigurationError (a base URL where the service does not answer: every further call would fail
the same way), and after ``max(3, max_workers)`` handles in a row failed at transport level or
with a 5xx, each after all its retries (the service is down or unreachable). What was fetched
before is in the cache; a re-run resumes there.
"""

from __future__ import annotations

import copy
import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from .batch import MAX_JOB_ITEMS, METHODS, use_batch
from .batch_run import BatchRun
from .client import PROFILE_PATH, Client, ClientStats
from .envelope import Envelope
from .errors import (
    AuthenticationError,
    BatchUnavailableError,
    BudgetExceededError,
    ConfigurationError,
    NotFoundError,
    ServerError,
    ServiceError,
    TransportError,
    UsageError,
)
from .frames import records_to_frame, with_nullable_dtypes, with_person_fields
from .handles import invalid_reason, normalise_handle
from .pacing import Cancelled
from .progress import Progress
from .store import DONE_SECONDS, StoredJob

__all__ = [
    "Estimate",
    "JobSummary",
    "Lookup",
    "estimate_values",
    "invalid_error",
    "planned",
    "lookup_values",
]

Errors = Literal["coerce", "raise"]
Method = Literal["auto", "batch", "single"]
OK, NOT_FOUND, INVALID, ERROR = "ok", "not_found", "invalid", "error"
STATUSES = (OK, NOT_FOUND, INVALID, ERROR)

#: Errors that end a job at once: every further call would fail the same way.
_FATAL = (AuthenticationError, ConfigurationError)
#: Failures (after all retries) that, so many in a row, mean the service is down or unreachable.
_OUTAGE = (TransportError, ServerError)


#: How long a miss read ahead of the job spares the call its own cache lookup: well inside the
#: time a claim let go of after a purchase says "read the cache first" (store.DONE_SECONDS).
FRESH_MISS_SECONDS = DONE_SECONDS / 2
#: Results per poll assumed by an estimate: production does not document its page size (the
#: emulator's default is 100).
ASSUMED_PAGE = 100


@dataclass(frozen=True)
class Estimate:
    """What an enrichment would do, told without sending anything.

    ``to_fetch`` is the number of billable items it would pay for (single calls or batch
    items: the same count). ``method`` is how it would fetch them: ``"batch"``, ``"single"``
    or ``"none"`` (nothing to fetch); with ``method="auto"`` a service whose batch support is
    not known yet is assumed to have it (a 404 to the first submit falls back to single).
    ``jobs`` and ``polls`` count the batch calls: new jobs, and polls (at ASSUMED_PAGE results
    each, plus one a job) of the new and the stored jobs. ``seconds`` is the expected
    duration from the Client's pace: a slot per single call, ``jobs + polls`` slots plus one
    poll interval for batch (how fast the service resolves items is not known); None when the
    pace is not known yet (nothing has been sent; ``client.learn_pace()`` reads it from the
    credits tier, unbilled) or the key is unmetered (then latency, not the pace, decides).
    """

    rows: int
    valid: int
    unique: int
    cached: int
    to_fetch: int
    method: str = "none"
    jobs: int = 0
    polls: int = 0
    seconds: float | None = None
    #: Batch jobs of an earlier, interrupted run that hold some of ``to_fetch``: collected,
    #: not submitted again; ``stored_items`` of ``to_fetch`` are in them.
    stored_jobs: int = 0
    stored_items: int = 0


@dataclass(frozen=True)
class _Outcome:
    status: str
    record: dict[str, Any] | None = None
    error: str | None = None
    exc: ServiceError | None = None  # what to raise with errors="raise"


@dataclass(frozen=True)
class JobSummary:
    """What one enrichment did: the same counts its progress bar showed, and the traffic.

    Example: ``str(summary)`` -> ``"250 rows (225 ok, 10 not_found, 15 invalid, 0 error) in
    4.1s: 0 cached, 190 fetched, 0 failed; 191 requests sent, 0 answered 429, 0 retries;
    190 credits"``. ``cached`` / ``fetched`` / ``failed`` count distinct handles: each is
    looked up in the cache once, and a miss is fetched (and paid for) once.
    """

    rows: int
    statuses: dict[str, int]  # ok / not_found / invalid / error -> rows
    cached: int
    fetched: int
    failed: int
    credits: float
    requests: int  # sent to the network, retries and the tier look-up included
    rate_limited: int  # answers 429
    retries: int
    seconds: float
    jobs: int = 0  # batch jobs polled (submitted by this run, or resumed)

    def __str__(self) -> str:
        statuses = ", ".join(f"{self.statuses.get(s, 0)} {s}" for s in STATUSES)
        jobs = f" ({self.jobs} batch job{'s' * (self.jobs != 1)})" if self.jobs else ""
        return (
            f"{self.rows} rows ({statuses}) in {self.seconds:.1f}s: {self.cached} cached, "
            f"{self.fetched} fetched{jobs}, {self.failed} failed; {self.requests} requests sent, "
            f"{self.rate_limited} answered 429, {self.retries} retries; {self.credits:g} credits"
        )


@dataclass(frozen=True)
class Lookup:
    """The result of an enrichment, one entry per input value, in input order."""

    handles: list[str | None]  # the normalised handle of each row (None: invalid)
    status: list[str]  # ok | not_found | invalid | error
    error: list[str | None]  # the reason, for every status but ok
    fields: pd.DataFrame  # the flattened record of each row (RangeIndex, NaN where none;
    # no columns when the records went to ``on_record``)
    summary: JobSummary


def _normalise(values: Sequence[Any], fold_case: bool = True) -> tuple[list[str | None], list[str]]:
    handles = [normalise_handle(v, fold_case=fold_case) for v in values]
    return handles, list(dict.fromkeys(h for h in handles if h is not None))


def estimate_values(
    values: Iterable[Any], *, client: Client, fold_case: bool = True, method: Method = "auto"
) -> Estimate:
    """How many rows, valid and distinct handles, cached answers and billable items; how they
    would be fetched, and how long that would take at the Client's pace."""
    check_method(method)
    values = list(values)
    handles, distinct = _normalise(values, fold_case)
    missing = [h for h in distinct if not client.is_cached(PROFILE_PATH, {"handle": h})]
    stored = _stored_jobs_holding(client, missing)
    in_stored = set().union(*(job.inputs for job in stored)) if stored else set()
    return planned(
        Estimate(
            rows=len(values),
            valid=sum(h is not None for h in handles),
            unique=len(distinct),
            cached=len(distinct) - len(missing),
            to_fetch=len(missing),
            stored_jobs=len(stored),
            stored_items=sum(h in in_stored for h in missing),
        ),
        client,
        method,
    )


def planned(est: Estimate, client: Client, method: Method = "auto") -> Estimate:
    """``est`` with the method, jobs, polls and seconds for its ``to_fetch`` at the Client's
    pace as it stands (call again after ``client.learn_pace()`` to time it)."""
    rest = est.to_fetch - est.stored_items  # what no stored job holds
    batch = use_batch(method, rest, client.batch_supported)
    jobs = -(-rest // MAX_JOB_ITEMS) if batch else 0
    polls = -(-rest // ASSUMED_PAGE) + jobs if batch else 0
    if est.stored_jobs:  # collected whatever the method
        polls += -(-est.stored_items // ASSUMED_PAGE) + est.stored_jobs
    by_batch = batch or (est.stored_jobs and rest == 0)
    return dataclasses.replace(
        est,
        method="none" if est.to_fetch == 0 else "batch" if by_batch else "single",
        jobs=jobs,
        polls=polls,
        seconds=_expected_seconds(client, rest if not batch else 0, jobs, polls),
    )


def _expected_seconds(client: Client, to_fetch: int, jobs: int, polls: int) -> float | None:
    """How long fetching takes at the Client's pace: a slot per single call, or per submit and
    poll plus one poll interval for batch; None when the pace is unknown or there is none."""
    per_minute = (
        client.rate_limit_per_minute if client.pace_known else client.settings.rate_limit_per_minute
    )
    if to_fetch == 0 and polls == 0:
        return 0.0
    if not per_minute:
        return None
    seconds = to_fetch * 60.0 / per_minute  # single calls
    if polls:
        seconds += (jobs + polls) * 60.0 / per_minute + client.settings.batch_poll_interval
    return seconds


def _cached_outcome(client: Client, handle: str) -> _Outcome | None:
    """The stored answer for ``handle`` (no network), or None when it must be fetched."""
    try:
        env = client.cached(PROFILE_PATH, {"handle": handle})
    except NotFoundError as exc:
        return _Outcome(NOT_FOUND, error=exc.message, exc=exc)
    except ServiceError:
        return None  # an unreadable stored answer is fetched anew
    if env is not None and isinstance(env.data, dict):
        return _Outcome(OK, env.data)
    return None


#: Takes each record found, ``(handle, record)``: see ``lookup_values(on_record=...)``.
OnRecord = Callable[[str, dict[str, Any]], None]


def _handed(on_record: OnRecord | None, handle: str, outcome: _Outcome) -> _Outcome:
    """``outcome``, its record handed to ``on_record`` and not kept, when there are both."""
    if on_record is None or outcome.record is None:
        return outcome
    on_record(handle, outcome.record)
    return dataclasses.replace(outcome, record=None)


def _fetch_one(
    client: Client,
    handle: str,
    refresh: bool,
    stop: threading.Event,
    missed_at: float | None = None,
) -> tuple[_Outcome, bool] | None:
    """One handle's answer in a pool thread: (outcome, from_cache); None when the job stopped
    first (nothing sent).

    The call looks the cache up once, right before it waits for its slot and sends: an answer
    already stored (by an earlier run, or by another process meanwhile) is read, not bought
    again. ``stop`` is the Client's cancel event: a thread still waiting for its slot or a
    back-off when the job stops (Ctrl-C, an error to raise, a rejected key) sends nothing.
    """
    # Read ahead a moment ago and missed: claim at once. Within FRESH_MISS_SECONDS an answer
    # another process stored since then still shows in its claim (RECHECK), so nothing is
    # bought twice; an older miss is looked up again.
    known_miss = missed_at is not None and time.monotonic() - missed_at < FRESH_MISS_SECONDS
    try:
        env = client.profile_answer(handle, refresh=refresh, cancel=stop, known_miss=known_miss)
        return _Outcome(OK, env.data), env.from_cache
    except Cancelled:
        return None
    except NotFoundError as exc:
        # A not-found read from the cache was paid for earlier: it counts as cached.
        return _Outcome(NOT_FOUND, error=exc.message, exc=exc), exc.from_cache
    except _FATAL:
        stop.set()  # every further call would fail the same way
        raise
    except ServiceError as exc:
        return _Outcome(ERROR, error=str(exc), exc=exc), False


class _Job:
    """One enrichment run: the cache pass, the pool, the counts and the progress bar.

    The main thread hands the handles to the pool; each call reads the cache (free, no pacing)
    or fetches. At most ``4 x max_workers`` calls wait in the pool's queue, which keeps
    harvesting cheap and memory flat for long lists. Counts are touched by the main thread only.
    """

    def __init__(
        self,
        client: Client,
        *,
        refresh: bool,
        errors: Errors,
        bar: Progress,
        before: ClientStats,
        on_record: OnRecord | None = None,
    ) -> None:
        self.client = client
        self.on_record = on_record
        self.refresh = refresh
        self.errors = errors
        self.bar = bar
        self.outcomes: dict[str, _Outcome] = {}
        self.counts = {"cached": 0, "fetched": 0, "failed": 0}
        self.batch_billed = 0  # items of the batch jobs this run collected: billed as resolved
        self.batch_recorded = 0  # handles recorded from those jobs so far
        self.jobs = ""  # "done/total" batch jobs, shown on the bar while there are any
        self._waiting = 0  # calls waiting for another process's purchase, as last shown
        self._before = before
        self._outage: list[ServiceError] = []  # the latest failures in a row, if outage-like
        self._breaker_after = max(3, client.max_workers)

    def credits(self, *, shown: bool = False) -> float:
        """Credits this run paid: what the answers said they consumed, plus one per item of
        the batch jobs it collected (each billed when it resolved) that their answers did not
        report already, so an item is never counted twice (issue 21).

        ``shown``: the bar's figure, which never runs ahead of the handles recorded: a
        single call's credits arrive with its answer, a moment before it is recorded, and a
        batch page's before its handles are; each costs at most one credit here.
        """
        now = self.client.stats
        consumed = now.credits_consumed - self._before.credits_consumed
        by_batch = now.batch_credits - self._before.batch_credits
        singles, items = consumed - by_batch, max(float(self.batch_billed), by_batch)
        if shown:
            singles = min(singles, self.counts["fetched"] - self.batch_recorded)
            items = min(items, self.batch_recorded)
        return singles + items

    def record(self, handle: str, outcome: _Outcome, kind: str) -> None:
        self.outcomes[handle] = _handed(self.on_record, handle, outcome)
        self.counts[kind] += 1
        self._show(1)
        if self.errors == "raise" and outcome.status != OK:
            raise _row_error(handle, outcome)
        if kind != "cached":
            self._watch_outage(outcome)

    def _show(self, n: int) -> None:
        """Advance the bar by ``n`` handles and show the counts, most telling first (a narrow
        terminal shows as many as fit)."""
        counts: dict[str, Any] = {
            "fetched": self.counts["fetched"],
            "credits": f"{self.credits(shown=True):g}",
        }
        self._waiting = self.client.waiting
        if self._waiting:
            counts["waiting"] = f"{self._waiting} handles another process is buying"
        if self.jobs:
            counts["jobs"] = self.jobs
        counts.update(cached=self.counts["cached"], failed=self.counts["failed"])
        self.bar.update(n, **counts)

    def tick(self) -> None:
        """Between answers (every half second while none comes): redraw while calls wait for
        another process, and once when they stop, so the bar says why it does not move."""
        if self.client.waiting or self._waiting:
            self._show(0)

    def _watch_outage(self, outcome: _Outcome) -> None:
        """The breaker: so many fetches in a row that failed like an outage end the job."""
        if not isinstance(outcome.exc, _OUTAGE) or outcome.status != ERROR:
            self._outage.clear()
            return
        self._outage.append(outcome.exc)
        if len(self._outage) < self._breaker_after:
            return
        last = self._outage[-1]
        stopped = type(last)(
            f"Stopped: {len(self._outage)} handles in a row failed after every retry, the "
            f"last with: {last}. The service at {self.client.base_url} looks down or "
            f"unreachable; the {self.counts['fetched']} answers fetched are cached, and a "
            "re-run resumes from there",
            status_code=last.status_code,
            url=last.url,
        )
        raise stopped

    def run_batches(self, run: BatchRun, method: str) -> list[str]:
        """Record every result of ``run``'s jobs; return the handles left for single calls.

        With ``method="auto"``, a service found to have no batch jobs leaves every handle not
        yet answered to single calls; with ``"batch"`` that is a BatchUnavailableError.
        """
        try:
            for handle, answer in run:
                self.batch_billed = run.billed
                self.batch_recorded += 1
                self.jobs = f"{run.jobs_done}/{run.jobs_total}"
                if isinstance(answer, Envelope):
                    self.record(handle, _Outcome(OK, answer.data), "fetched")
                else:
                    self.record(
                        handle, _Outcome(NOT_FOUND, error=answer.message, exc=answer), "fetched"
                    )
        except BatchUnavailableError:
            if method == "batch":
                raise
            return [h for h in run.handles if h not in self.outcomes]
        self.batch_billed = run.billed
        self.jobs = f"{run.jobs_done}/{run.jobs_total}"
        self._show(0)  # the jobs' final count
        return run.fallback

    def run(self, handles: Iterable[str], missed_at: float | None = None) -> None:
        """Fetch ``handles`` in the pool; ``missed_at``: when the cache was read for them ahead
        of the job and held none of them (``time.monotonic()``), else None."""
        stop = threading.Event()
        workers = self.client.max_workers
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lookup")
        pending: dict[Future[tuple[_Outcome, bool] | None], str] = {}
        try:
            for handle in handles:
                future = pool.submit(_fetch_one, self.client, handle, self.refresh, stop, missed_at)
                pending[future] = handle
                self._harvest(pending, block=len(pending) >= 4 * workers)
            while pending:
                self._harvest(pending, block=True)
        except BaseException:
            # An error to raise, an authentication failure, or Ctrl-C: send nothing more, let
            # the calls in flight finish (their answers are paid for and land in the cache).
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def _harvest(
        self, pending: dict[Future[tuple[_Outcome, bool] | None], str], *, block: bool
    ) -> None:
        done, _ = wait(pending, timeout=0.5 if block else 0, return_when=FIRST_COMPLETED)
        if not done:
            self.tick()
        for future in done:
            handle = pending.pop(future)
            result = future.result()  # an AuthenticationError surfaces here
            if result is None:
                continue
            outcome, from_cache = result
            kind = "cached" if from_cache else "failed" if outcome.status == ERROR else "fetched"
            self.record(handle, outcome, kind)


def _check_budget(needed: int, cached: int, distinct: int, max_calls: int | None) -> None:
    if max_calls is not None and needed > max_calls:
        raise BudgetExceededError(
            f"This enrichment needs {needed} billable calls ({cached} of {distinct} distinct "
            f"handles are cached), more than max_calls={max_calls}. Nothing was sent.",
            needed=needed,
            allowed=max_calls,
        )


def _row_error(handle: str, outcome: _Outcome) -> ServiceError:
    """The failure as the exception it was (NotFoundError, ServerError, ...), naming the handle."""
    exc = outcome.exc or NotFoundError(outcome.error or "Not found")
    named = copy.copy(exc)
    named.message = f"{exc.message} (handle {handle!r})"
    named.args = (named.message,)
    return named


def lookup_values(
    values: Iterable[Any],
    *,
    client: Client,
    errors: Errors = "coerce",
    max_calls: int | None = None,
    refresh: bool = False,
    progress: bool | None = None,
    fold_case: bool = True,
    method: Method = "auto",
    on_record: OnRecord | None = None,
) -> Lookup:
    """Look up every value's profile, each distinct handle at most once; see the module doc.

    ``on_record``: each record found is handed to it, ``on_record(handle, record)``, once per
    distinct handle (a cached one possibly before the budget is checked), and not kept: the job
    then holds statuses and errors only, never every record at once, and the result's
    ``fields`` has no columns (:mod:`lookup_pandas.stream` keeps the records as text).
    """
    check_options(errors, max_calls)
    check_method(method)
    if method == "batch" and client.batch_supported is False:
        raise client.no_batch()
    started = time.perf_counter()
    before = client.stats
    values = list(values)
    handles, distinct = _normalise(values, fold_case)

    # Everything that can refuse the job does so before a bar is drawn or a call is paid for.
    cached: dict[str, _Outcome] = {}
    missed_at: float | None = None  # when the cache was read ahead for to_run (all misses)
    stored = _stored_jobs_holding(client, distinct)
    resume = bool(stored) and not refresh
    if refresh:
        _check_budget(len(distinct), 0, len(distinct), max_calls)  # every handle is billed
        to_run = distinct
    elif (
        max_calls is None
        and errors == "coerce"
        and not resume
        and not use_batch(method, len(distinct), client.batch_supported)
    ):
        to_run = distinct  # each call reads the cache, or fetches
    else:
        # A budget needs the count of what must be paid for before anything is sent,
        # errors="raise" should meet a cached failure before paying for anything, and batch
        # jobs (new or stored) are for what the cache does not hold.
        missed_at = time.monotonic()
        cached = {
            h: _handed(on_record, h, o)
            for h in distinct
            if (o := _cached_outcome(client, h)) is not None
        }
        to_run = [h for h in distinct if h not in cached]
        _check_budget(len(to_run), len(cached), len(distinct), max_calls)
    if cached:
        # Answers read ahead from the cache: a key never seen to work is checked (free) before
        # they are used, so a wrong or revoked key fails the run instead of passing unnoticed.
        # (On the fast path, each call's own cache hit checks it: Client._request.)
        client.check_key()
    submit = use_batch(method, len(to_run), client.batch_supported)
    run = None
    if submit or stored:
        run = BatchRun(client, to_run, submit=submit, stored=stored, resume=not refresh)

    with Progress(progress, total=len(distinct), desc="profiles", unit=" handle") as bar:
        job = _Job(
            client, refresh=refresh, errors=errors, bar=bar, before=before, on_record=on_record
        )
        for handle, outcome in cached.items():
            job.record(handle, outcome, "cached")
        singles = job.run_batches(run, method) if run else to_run
        job.run(singles, missed_at)
        if run is not None:
            run.finish()
    outcomes = job.outcomes

    status: list[str] = []
    error: list[str | None] = []
    for value, h in zip(values, handles, strict=True):
        if h is None:
            status.append(INVALID)
            error.append(invalid_error(value, fold_case))
        else:
            outcome = outcomes[h]
            status.append(outcome.status)
            error.append(outcome.error)
    after = client.stats
    summary = JobSummary(
        rows=len(values),
        statuses={s: status.count(s) for s in STATUSES},
        cached=job.counts["cached"],
        fetched=job.counts["fetched"],
        failed=job.counts["failed"],
        credits=job.credits(),
        requests=after.sent - before.sent,
        rate_limited=after.rate_limited - before.rate_limited,
        retries=after.retries - before.retries,
        seconds=time.perf_counter() - started,
        jobs=run.jobs if run else 0,
    )
    return Lookup(
        handles=handles,
        status=status,
        error=error,
        fields=(
            _spread(outcomes, handles)
            if on_record is None
            else pd.DataFrame(index=pd.RangeIndex(len(values)))
        ),
        summary=summary,
    )


def invalid_error(value: Any, fold_case: bool = True) -> str:
    """The ``lookup_error`` of a row whose value is not a handle (its status is ``invalid``).

    Example: ``invalid_error("  ")`` -> ``"invalid handle: empty"``; ``fold_case`` as the job's
    (it decides whether ``"@#NA"`` is a handle).
    """
    return f"invalid handle: {invalid_reason(value, fold_case=fold_case)}"


def _stored_jobs_holding(client: Client, handles: list[str]) -> list[StoredJob]:
    """The stored batch jobs (of earlier, interrupted runs) that hold any of ``handles``."""
    jobs = client.store.jobs()
    if not jobs:
        return []
    wanted = set(handles)
    return [job for job in jobs if wanted.intersection(job.inputs)]


def check_method(method: str) -> None:
    """``method`` is one of auto / batch / single, else a UsageError (nothing is sent)."""
    if method not in METHODS:
        raise UsageError(f"method must be one of {', '.join(map(repr, METHODS))}, not {method!r}")


def check_options(errors: str, max_calls: int | None) -> None:
    """The job's options, checked before anything is read or sent (UsageError)."""
    if errors not in ("coerce", "raise"):
        raise UsageError(f"errors must be 'coerce' or 'raise', not {errors!r}")
    if max_calls is not None and (
        isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 0
    ):
        raise UsageError(f"max_calls must be a whole number >= 0 or None, not {max_calls!r}")


def _spread(outcomes: dict[str, _Outcome], handles: list[str | None]) -> pd.DataFrame:
    """One flattened record per distinct handle, repeated onto every row holding it.

    Records are taken in input order, not in the order their answers arrived: the columns
    (fields first seen first) are then the same on every run over the same input.
    """
    found = [h for h in dict.fromkeys(handles) if h is not None and outcomes[h].status == OK]
    flat = records_to_frame([outcomes[h].record for h in found], index=found)  # type: ignore[misc]
    if len(found) < len(handles) or None in handles:
        # Rows without a record get NaN: keep integers and flags integral, not float / object.
        flat = with_nullable_dtypes(flat)
    rows = with_person_fields(flat).reindex(pd.Index(handles, dtype=object))
    return rows.reset_index(drop=True)
