"""Profile enrichment: the engine behind ``df.lookup.enrich_profiles`` and ``lp.get_profiles``.

Example::

    result = lookup_values(["ada", " https://www.example.com/in/ada/ ", "", "unknown-x"],
                           client=client)
    result.status        # ["ok", "ok", "invalid", "not_found"]: "ada" was requested once

Flow: normalise every value -> distinct valid handles -> :func:`lookup_pandas.plan.plan` (what
is cached, what to buy, batch or single, the budget; pure) -> :func:`lookup_pandas.engine.run`
(batch jobs and/or a pool of ``Client.profile_answer``) -> records flattened once per handle ->
spread back over the rows, by position. Nothing here mutates its input.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from .client import PROFILE_PATH, Client
from .engine import FRESH_MISS_SECONDS as FRESH_MISS_SECONDS
from .engine import cached_outcome, run
from .frames import RecordColumns, with_nullable_dtypes, with_person_fields
from .handles import normalise_handle
from .outcomes import ERROR as ERROR
from .outcomes import (
    INVALID,
    STATUSES,
    Errors,
    Estimate,
    Lookup,
    Method,
    OnRecord,
    handed,
    invalid_error,
)
from .outcomes import NOT_FOUND as NOT_FOUND
from .outcomes import OK as OK
from .outcomes import Outcome as _Outcome  # noqa: F401  (tests reach for it here)
from .plan import ASSUMED_PAGE as ASSUMED_PAGE
from .plan import Options, check_method, check_options, plan, planned
from .plan import stored_batch_jobs_holding as _holding

# The outcome names (OK, Estimate, ...) live in outcomes and the plan's in plan; they stay
# importable from here, where they used to be.
__all__ = ["estimate_values", "lookup_values"]

_handed = handed  # tests reach for it here (its home is outcomes)


def _normalise(values: Sequence[Any], fold_case: bool = True) -> tuple[list[str | None], list[str]]:
    handles = [normalise_handle(v, fold_case=fold_case) for v in values]
    return handles, list(dict.fromkeys(h for h in handles if h is not None))


def estimate_values(
    values: Iterable[Any], *, client: Client, fold_case: bool = True, method: Method = "auto"
) -> Estimate:
    """How many rows, valid and distinct handles, cached answers and billable items; how they
    would be fetched, and how long that would take at the Client's pace.

    Example: ``estimate_values(["ada", "ada", ""], client=client).unique`` -> ``1``.
    """
    check_method(method)
    values = list(values)
    handles, distinct = _normalise(values, fold_case)
    missing = [h for h in distinct if not client.is_cached(PROFILE_PATH, {"handle": h})]
    stored = _holding(client.store.jobs(), missing)
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

    Example: ``lookup_values(["ada", ""], client=client).status`` -> ``["ok", "invalid"]``.

    ``on_record``: each record found is handed to it, ``on_record(handle, record)``, once per
    distinct handle (a cached one possibly before the budget is checked), and not kept: the job
    then holds statuses and errors only, never every record at once, and the result's
    ``fields`` has no columns (:mod:`lookup_pandas.stream` keeps the records as text).
    """
    check_options(errors, max_calls)
    check_method(method)
    if method == "batch" and client.batch_supported is False:
        raise client.no_batch()
    started, before = time.perf_counter(), client.stats
    values = list(values)
    handles, distinct = _normalise(values, fold_case)
    options = Options(refresh=refresh, max_calls=max_calls, errors=errors, method=method)
    # Without on_record, each record is taken column by column as it comes (its dict let go).
    kept = RecordColumns() if on_record is None else None
    rank = {h: i for i, h in enumerate(distinct)} if kept is not None else {}
    sink = on_record if kept is None else lambda h, record: kept.add(h, record, rank[h])

    # Everything that can refuse the job does so before a bar is drawn or a call is paid for.
    missed_at = time.monotonic()  # the cache, if read ahead, held none of plan.to_fetch
    the_plan = plan(
        distinct,
        cached=lambda h: (o := cached_outcome(client, h)) and handed(sink, h, o),
        stored=client.store.jobs(),
        options=options,
        batch_supported=client.batch_supported,
    )
    if the_plan.check_key:
        # Answers read ahead from the cache: a key never seen to work is checked (free) before
        # they are used (on the fast path, each call's own cache hit checks it).
        client.check_key()
    state = run(
        the_plan,
        client,
        options=options,
        progress=progress,
        before=before,
        on_record=sink,
        missed_at=missed_at if the_plan.read_ahead else None,
    )
    status = [INVALID if h is None else state.outcomes[h].status for h in handles]
    error = [
        invalid_error(v, fold_case) if h is None else state.outcomes[h].error
        for v, h in zip(values, handles, strict=True)
    ]
    statuses = {s: status.count(s) for s in STATUSES}
    summary = state.summary(len(values), statuses, seconds=time.perf_counter() - started)
    fields = (
        pd.DataFrame(index=pd.RangeIndex(len(values))) if kept is None else _spread(kept, handles)
    )
    return Lookup(handles=handles, status=status, error=error, fields=fields, summary=summary)


def _spread(kept: RecordColumns, handles: list[str | None]) -> pd.DataFrame:
    """One flattened record per distinct handle, repeated onto every row holding it.

    The columns are those of the records in input order, not in the order their answers
    arrived (fields first seen first): the same on every run over the same input.
    """
    found = len(kept)
    flat = kept.frame()
    if found < len(handles) or None in handles:
        # Rows without a record get NaN: keep integers and flags integral, not float / object.
        flat = with_nullable_dtypes(flat)
    rows = with_person_fields(flat).reindex(pd.Index(handles, dtype=object))
    return rows.reset_index(drop=True)
