"""Enrichment by value: the engine behind ``enrich_*`` and ``get_*``, and its estimate.

>>> import lookup_pandas as lp
>>> from lookup_pandas.identifiers.kinds import PEOPLE
>>> from lookup_pandas.testing import MockTransport, people_service
>>> transport = MockTransport(people_service({"id": "prsn_1", "handle": "ada"}, balance=100))
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
...                    transport=transport)
>>> values = ["ada", " https://www.example.com/in/ada/ ", "", "unknown-x"]
>>> result = lookup_values(values, client=client, kind=PEOPLE, options=Options(progress=False))
>>> result.status, result.summary.fetched  # "ada" was asked for once
(['ok', 'ok', 'invalid', 'not_found'], 2)
>>> estimate_values(["ada", "ada", ""], client=client, kind=PEOPLE).to_fetch  # what a job would buy
1

The flow: each distinct value normalised once (:mod:`lookup_pandas.identifiers.distinct`),
then :func:`~lookup_pandas.enrichment.plan.plan`, then :func:`check_job_credits`, then
:func:`~lookup_pandas.enrichment.run.run`. Statuses, errors and records are made per distinct
value, then taken onto the rows by position. Nothing here mutates its input.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from pandas.api.extensions import take

from ..client import credits as credit_facts
from ..client.client import Client
from ..client.credits import unless_failing
from ..errors import ConfigurationError
from ..frames.records import RecordColumns, with_fields, with_nullable_dtypes
from ..http.stats import ClientStats
from ..identifiers.distinct import HandleMap, Mapped
from ..identifiers.kinds import Kind
from ..service.credits import RouteCosts
from .batch_plan import jobs_tagged
from .estimate import planned, read_credit_facts
from .plan import (
    Options,
    Plan,
    batch_told,
    check_balance,
    check_credits,
    check_method,
    check_refresh,
    job_credits,
    plan,
    stored_batch_jobs_holding,
)
from .provenance import provenance_frame
from .refresh_run import RefreshPlan, after_run, check_changes, estimate_changes, keep_checked
from .results import (
    INVALID,
    NOT_CACHED,
    STATUSES,
    UNSUPPORTED,
    Estimate,
    JobSummary,
    LookupResult,
    Method,
    OnRecord,
    Refresh,
    handed,
)
from .run import EnrichmentRun
from .single import cached_outcomes

if TYPE_CHECKING:
    from .background import Watch

__all__ = [
    "check_job_credits",
    "estimate_values",
    "lookup_values",
]


def estimate_values(
    values: Iterable[Any],
    *,
    client: Client,
    fold_case: bool = True,
    method: Method = "auto",
    credits: bool = True,
    kind: Kind,
    refresh: Refresh = False,
) -> Estimate:
    """What a job over ``values`` would fetch, how, how long it would take, and what it would cost.

    Nothing billable is sent, and a fully cached input sends nothing. When anything is to fetch
    (and ``credits``), free panel calls read the balance, the route costs and the tier ladder
    (:mod:`lookup_pandas.client.credits`). ``kind`` is whose lookups (``PEOPLE``, ``COMPANIES``).
    ``refresh=True`` counts every value as to fetch; ``refresh="changed"`` reads the cache and
    the store (no feed page) for what a refresh would check (``Estimate.refresh``), and counts
    the most as to fetch. See the module's example.
    """
    check_method(method)
    check_refresh(refresh, kind)
    mapped = HandleMap(fold_case=fold_case, kind=kind).map(values)
    rows, valid, distinct = len(mapped.codes), mapped.valid_rows(), mapped.distinct()
    path = kind.endpoint.path
    missing = [
        h for h in distinct if refresh or not client.parts.cache.is_cached(path, kind.params(h))
    ]
    in_cache = len(distinct) - len(missing)
    if client.settings.offline:  # nothing is fetched offline: the rest will be not_cached
        return Estimate(rows=rows, valid=valid, unique=len(distinct), cached=in_cache, to_fetch=0)
    checks = estimate_changes(distinct, client, kind) if refresh == "changed" else None
    stored = stored_batch_jobs_holding(jobs_tagged(client.parts.store.jobs(), kind.tag), missing)
    in_stored = set().union(*(job.inputs for job in stored)) if stored else set()
    balance = read_credit_facts(client) if credits and missing else None
    # A refresh counts the answers it holds as cached, and the most it could buy as to fetch
    # (not those it keeps as they are until they expire).
    if checks:
        in_cache = checks.checked + checks.uncheckable + checks.held
    return planned(
        Estimate(
            rows=rows,
            valid=valid,
            unique=len(distinct),
            cached=in_cache,
            to_fetch=len(missing) - (checks.held if checks else 0),
            stored_jobs=len(stored),
            stored_items=sum(h in in_stored for h in missing),
            balance=balance,
        ),
        client,
        method,
        kind,
        checks,
    )


def lookup_values(
    values: Iterable[Any],
    *,
    client: Client,
    kind: Kind,
    options: Options | None = None,
    on_record: OnRecord | None = None,
    watch: Watch | None = None,
) -> LookupResult:
    """Look up every value's record, each distinct value at most once: see the module's example.

    Args:
        options: what the job is asked (budgets, ``errors``, ``method``, ``refresh``,
            ``fold_case``, ``progress``, ``provenance``). Default ``Options()``.
        kind: whose lookups (:data:`~lookup_pandas.identifiers.kinds.COMPANIES`: slugs and
            ``org_`` ids).
        on_record: takes each record found, ``on_record(handle, record)``, once per distinct
            handle, a cached one possibly before the budget is checked. The records are then
            not kept, and the result's ``fields`` has no columns (what
            :mod:`lookup_pandas.csv_chunks` does).
    """
    options = Options() if options is None else options
    options.check(kind)
    if options.method == "batch" and client.parts.batch.supported_for(kind) is False:
        raise client.parts.batch.no_batch(kind, None)
    started = time.perf_counter()
    tally = ClientStats()  # the run's own traffic, passed to each call: not another run's
    mapped = HandleMap(fold_case=options.fold_case, kind=kind).map(values)
    distinct = mapped.distinct()
    # Without on_record, each record is taken column by column as it comes (its dict let go).
    kept = RecordColumns() if on_record is None else None
    rank = {h: i for i, h in enumerate(distinct)} if kept is not None else {}
    sink = _sink(kind, kept, rank, on_record)

    with ThreadPoolExecutor(client.max_workers, "lookup") as pool:  # docs/architecture.md
        # Everything that can refuse the job does so before a bar is drawn or a call is paid for.
        changes = check_changes(distinct, client, kind, options, tally, pool)
        keys = changes.keys if changes else client.parts.cache.keys(distinct, kind)  # once a run
        the_plan = _plan(keys, distinct, client, options, kind, sink, changes, tally)
        if the_plan.check_key:  # answers read ahead: a key never seen to work is checked first
            client.parts.contact.check_key(tally)
        check_job_credits(client, the_plan, options, kind, tally)
        kept_checked = None if changes is None else pool.submit(keep_checked, client, changes, kind)
        state = EnrichmentRun(
            client,
            the_plan,
            options,
            pool=pool,
            tally=tally,
            kind=kind,
            keys=keys,
            on_record=sink,
            watch=watch,
        )
        try:
            state.run()
        except BaseException as exc:  # it leaves the engine with what the run did up to there
            _tell_kept(client, exc)
            if not hasattr(exc, "summary"):
                seconds = time.perf_counter() - started
                exc.summary = _partial_summary(mapped, state, seconds=seconds)  # type: ignore[attr-defined]
            raise
    # The pool's end waited for the keep-checked work, failed run or not; its error is the run's.
    if kept_checked is not None:
        kept_checked.result()
    result = _result(mapped, state, kept, kind, seconds=time.perf_counter() - started)
    if changes is not None:
        after_run(client, changes, state.outcomes)
        summary = dataclasses.replace(result.summary, refresh=changes.counts)
        result = dataclasses.replace(result, summary=summary)
    if state.sources is None:
        return result
    return _with_provenance(result, state, client, kind, changes)


def _tell_kept(client: Client, exc: BaseException) -> None:
    """A store failed: its hint says where the answers it could not write are kept, counted
    once the calls in flight landed."""
    journal = client.parts.wire.journal
    if isinstance(exc, ConfigurationError) and journal is not None and journal.waiting:
        exc.hint = journal.told()


def _sink(
    kind: Kind, kept: RecordColumns | None, rank: dict[str, int], on_record: OnRecord | None
) -> OnRecord | None:
    """Where each record found goes, its fields named as the kind's columns name them: into
    ``kept`` column by column (at its value's ``rank``), else to ``on_record``."""
    if kept is not None:
        return lambda h, record: kept.add(h, kind.record(record), rank[h])
    if on_record is None or not kind.renamed:
        return on_record
    return lambda h, record: on_record(h, kind.record(record))


def _with_provenance(
    result: LookupResult,
    state: EnrichmentRun,
    client: Client,
    kind: Kind,
    changes: RefreshPlan | None = None,
) -> LookupResult:
    """``result`` with each row's source and time (``provenance=True``).

    After ``refresh="changed"``, the kept answers' source is ``checked``, with the time the
    feed confirmed them (``lookup_checked_at``).
    """
    assert state.sources is not None
    path = kind.endpoint.path
    sources, checked = dict(state.sources), None
    if changes is not None:
        when = changes.checked_at
        checked = {v: when for v in changes.kept}
        sources.update({v: ("checked", None) for v in changes.kept if v in sources})
    where = provenance_frame(
        result.handles,
        result.status,
        sources,
        lambda h: client.parts.cache.stored_at(path, kind.params(h)),
        checked=checked,
    )
    return dataclasses.replace(result, provenance=where)


def _plan(
    keys: dict[str, str],
    distinct: list[str],
    client: Client,
    options: Options,
    kind: Kind,
    sink: OnRecord | None,
    changes: RefreshPlan | None,
    tally: ClientStats,
) -> Plan:
    """The job's plan (:func:`~lookup_pandas.enrichment.plan.plan`) from what the cache holds.

    The cache is read ahead by ``keys`` in one batched read; after ``refresh="changed"`` read
    the feed (``changes``), its kept answers stand for it. Offline, nothing is sent or paid.
    """
    if changes is not None:
        cached = changes.cached
    elif options.refresh:  # bought anew (offline, refused by the plan)
        cached = {}
    else:
        cached = cached_outcomes(client, keys, kind, tally)
    offline = client.settings.offline
    return plan(
        distinct,
        cached={h: handed(sink, h, o) for h, o in cached.items()},
        stored=[] if offline else jobs_tagged(client.parts.store.jobs(), kind.tag),
        options=options,
        batch_supported=client.parts.batch.supported_for(kind),
        nouns=kind.nouns,
        offline=offline,
        fresh_after=None if changes is None else changes.fresh_after,
        checked=None if changes is None else changes.counts,
    )


def _result(
    mapped: Mapped, state: EnrichmentRun, kept: RecordColumns | None, kind: Kind, *, seconds: float
) -> LookupResult:
    """The job's LookupResult: each row's status, error and record, and the summary."""
    outcomes = [None if h is None else state.outcomes[h] for h in mapped.handles.tolist()]
    statuses = [INVALID if o is None else o.status for o in outcomes]
    errors = [e if o is None else o.error for o, e in zip(outcomes, mapped.errors, strict=True)]
    status = mapped.spread(statuses)
    counts = _status_counts(mapped, statuses)
    rows = len(mapped.codes)
    summary = state.summary(rows, counts, seconds=seconds)
    empty = pd.DataFrame(index=pd.RangeIndex(rows))
    fields = empty if kept is None else _spread(kept, mapped, kind)
    return LookupResult(
        handles=mapped.rows(),
        status=status,
        error=mapped.spread(errors),
        fields=fields,
        summary=summary,
    )


def _partial_summary(mapped: Mapped, state: EnrichmentRun, *, seconds: float) -> JobSummary:
    """The JobSummary of a run stopped part-way: the rows decided by then, and the traffic.

    A row is decided when it is invalid or its value was answered.
    """
    statuses = [
        INVALID if h is None else o.status if (o := state.outcomes.get(h)) else None
        for h in mapped.handles.tolist()
    ]
    counts = _status_counts(mapped, statuses)
    return state.summary(sum(counts.values()), counts, seconds=seconds)


def _status_counts(mapped: Mapped, statuses: Sequence[str | None]) -> dict[str, int]:
    """Rows per status, from each distinct value's status (None is not counted).

    ``not_cached`` (offline) and ``unsupported`` (a reversal the service does not take) are
    there only when some row has them.
    """
    per_value = np.bincount(mapped.codes, minlength=len(statuses)).tolist()
    seen = Counter[str]()
    for status, n in zip(statuses, per_value, strict=True):
        if status is not None:
            seen[status] += n
    return {s: seen[s] for s in STATUSES if s not in (NOT_CACHED, UNSUPPORTED) or seen[s]}


def check_job_credits(
    client: Client, the_plan: Plan, options: Options, kind: Kind, tally: ClientStats | None = None
) -> None:
    """Check the job's credits before the first billable call (its reads counted in ``tally``).

    Raises BudgetExceededError over ``max_credits``, and InsufficientCreditsError when the
    balance (when known) cannot pay what is to fetch. How it reads as little as it can: see
    "Checking a job's credits" in docs/decisions.md.
    """
    to_fetch = the_plan.to_fetch
    if not to_fetch:
        return
    costs = unless_failing(lambda c: credit_facts.route_costs(c, tally), client, RouteCosts())
    # Batch items at their cost where the service is known to have batch jobs (or
    # method="batch", which never falls back); else at the single calls' price, which "auto"
    # falls back to (the estimate's rule: estimate.planned). So a refusal's figure is the
    # estimate's.
    told = batch_told(client.parts.batch.supported_for(kind), costs, kind)
    by_batch = the_plan.batch and (told is True or options.method == "batch")
    credits = job_credits(len(to_fetch), batch=by_batch, costs=costs, kind=kind)
    check_credits(credits, len(to_fetch), options.max_credits)
    balance = unless_failing(
        lambda c: credit_facts.balance_for_job(c, credits, tally), client, None
    )
    check_balance(credits, len(to_fetch), balance)


def _spread(kept: RecordColumns, mapped: Mapped, kind: Kind) -> pd.DataFrame:
    """One flattened record per distinct handle, taken onto every row holding it by position.

    The columns come in input order (fields first seen first), not in the order the answers
    arrived. So they are the same on every run over the same input.
    """
    found = len(kept)
    flat = kept.frame()
    if found < len(mapped.codes) or not mapped.valid.all():
        # Rows without a record get NaN: keep integers and flags integral, not float / object.
        flat = with_nullable_dtypes(flat)
    fields = with_fields(flat, kind.fields)
    # Each row's position in ``fields`` (-1: no record), so the rows are taken in one pass,
    # with no frame per distinct value in between (the memory benchmark's peak).
    where = fields.index.get_indexer(pd.Index(mapped.handles, dtype=object))[mapped.codes]
    columns = {name: take(fields[name].array, where, allow_fill=True) for name in fields.columns}
    return pd.DataFrame(columns, index=pd.RangeIndex(len(where)), copy=False)
