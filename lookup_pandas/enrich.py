"""Profile enrichment: the engine behind ``df.lookup.enrich_profiles`` and ``lp.get_profiles``.

Example::

    result = lookup_values(["ada", " https://www.example.com/in/ada/ ", "", "unknown-x"],
                           client=client)
    result.status        # ["ok", "ok", "invalid", "not_found"]: "ada" was requested once

Flow: normalise every value -> distinct valid handles -> answers already in the cache (read
without the network; this pass is also the estimate) -> the budget check -> a thread pool of
``Client.fetch_profile`` for the rest, under the client's pacing -> records flattened once per
handle -> spread back over the rows, by position. Nothing here mutates its input.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from .client import PROFILE_PATH, Client
from .errors import AuthenticationError, BudgetExceededError, NotFoundError, ServiceError
from .frames import records_to_frame
from .handles import invalid_reason, normalise_handle
from .progress import Progress

logger = logging.getLogger(__name__)

__all__ = ["Estimate", "Lookup", "estimate_values", "lookup_values"]

Errors = Literal["coerce", "raise"]
OK, NOT_FOUND, INVALID, ERROR = "ok", "not_found", "invalid", "error"


@dataclass(frozen=True)
class Estimate:
    """What an enrichment would do, told without sending anything.

    ``to_fetch`` is the number of billable calls it would make.
    """

    rows: int
    valid: int
    unique: int
    cached: int
    to_fetch: int


@dataclass(frozen=True)
class _Outcome:
    status: str
    record: dict[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True)
class Lookup:
    """The result of an enrichment, one entry per input value, in input order."""

    handles: list[str | None]  # the normalised handle of each row (None: invalid)
    status: list[str]  # ok | not_found | invalid | error
    error: list[str | None]  # the reason, for every status but ok
    fields: pd.DataFrame  # the flattened record of each row (RangeIndex, NaN where none)
    fetched: int  # billable calls made
    cached: int  # distinct handles answered from the cache


def _normalise(values: Sequence[Any]) -> tuple[list[str | None], list[str]]:
    handles = [normalise_handle(v) for v in values]
    return handles, list(dict.fromkeys(h for h in handles if h is not None))


def estimate_values(values: Iterable[Any], *, client: Client) -> Estimate:
    """How many rows, valid and distinct handles, cached answers and billable calls."""
    values = list(values)
    handles, distinct = _normalise(values)
    cached = sum(client.is_cached(PROFILE_PATH, {"handle": h}) for h in distinct)
    return Estimate(
        rows=len(values),
        valid=sum(h is not None for h in handles),
        unique=len(distinct),
        cached=cached,
        to_fetch=len(distinct) - cached,
    )


def _from_cache(client: Client, distinct: list[str]) -> dict[str, _Outcome]:
    outcomes: dict[str, _Outcome] = {}
    for handle in distinct:
        try:
            env = client.cached(PROFILE_PATH, {"handle": handle})
        except NotFoundError as exc:
            outcomes[handle] = _Outcome(NOT_FOUND, error=exc.message)
            continue
        except ServiceError:
            continue  # an unreadable stored answer is fetched anew
        if env is not None and isinstance(env.data, dict):
            outcomes[handle] = _Outcome(OK, env.data)
    return outcomes


def _fetch_one(
    client: Client, handle: str, refresh: bool, stop: threading.Event
) -> _Outcome | None:
    if stop.is_set():
        return None  # the job is stopping: do not send
    try:
        return _Outcome(OK, client.fetch_profile(handle, refresh=refresh))
    except NotFoundError as exc:
        return _Outcome(NOT_FOUND, error=exc.message)
    except AuthenticationError:
        stop.set()  # every further call would fail the same way
        raise
    except ServiceError as exc:
        return _Outcome(ERROR, error=str(exc))


def _fetch(
    client: Client,
    handles: list[str],
    outcomes: dict[str, _Outcome],
    *,
    refresh: bool,
    errors: Errors,
    bar: Progress,
    counts: dict[str, int],
) -> None:
    """Fetch ``handles`` in a pool; fill ``outcomes``. Stops the pool on any exception."""
    if not handles:
        return
    stop = threading.Event()
    credits_before = client.stats.credits_consumed
    pool = ThreadPoolExecutor(max_workers=client.max_workers, thread_name_prefix="lookup")
    pending: dict[Future[_Outcome | None], str] = {
        pool.submit(_fetch_one, client, h, refresh, stop): h for h in handles
    }
    try:
        while pending:
            done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in done:
                handle = pending.pop(future)
                outcome = future.result()  # AuthenticationError surfaces here
                if outcome is None:
                    continue
                outcomes[handle] = outcome
                counts["fetched" if outcome.status != ERROR else "failed"] += 1
                if outcome.status == NOT_FOUND:
                    counts["not_found"] += 1
                bar.update(1, **_postfix(counts, client.stats.credits_consumed - credits_before))
                if errors == "raise" and outcome.status != OK:
                    raise _row_error(handle, outcome)
    except BaseException:
        # An error to raise, an authentication failure, or Ctrl-C: send nothing more, let the
        # calls in flight finish (their answers are paid for and land in the cache), re-raise.
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _postfix(counts: dict[str, int], credits: float) -> dict[str, Any]:
    return {"cached": counts["cached"], "fetched": counts["fetched"],
            "failed": counts["failed"], "credits": f"{credits:g}"}


def _row_error(handle: str, outcome: _Outcome) -> ServiceError:
    if outcome.status == NOT_FOUND:
        return NotFoundError(f"{outcome.error or 'Not found'}: handle {handle!r}")
    return ServiceError(f"Lookup of handle {handle!r} failed: {outcome.error}")


def lookup_values(
    values: Iterable[Any],
    *,
    client: Client,
    errors: Errors = "coerce",
    max_calls: int | None = None,
    refresh: bool = False,
    progress: bool | None = None,
) -> Lookup:
    """Look up every value's profile, each distinct handle at most once; see the module doc."""
    if errors not in ("coerce", "raise"):
        raise ValueError(f"errors must be 'coerce' or 'raise', not {errors!r}")
    if max_calls is not None and max_calls < 0:
        raise ValueError("max_calls must be 0 or more")
    values = list(values)
    handles, distinct = _normalise(values)

    outcomes = {} if refresh else _from_cache(client, distinct)
    to_fetch = [h for h in distinct if h not in outcomes]
    if max_calls is not None and len(to_fetch) > max_calls:
        raise BudgetExceededError(
            f"This enrichment needs {len(to_fetch)} billable calls "
            f"({len(outcomes)} of {len(distinct)} distinct handles are cached), "
            f"more than max_calls={max_calls}. Nothing was sent.",
            needed=len(to_fetch),
            allowed=max_calls,
        )
    if errors == "raise":
        for h in distinct:
            if h in outcomes and outcomes[h].status != OK:
                raise _row_error(h, outcomes[h])

    counts = {"cached": len(outcomes), "fetched": 0, "failed": 0, "not_found": 0}
    with Progress(progress, total=len(distinct), desc="profiles", unit=" handle") as bar:
        if outcomes:
            bar.update(len(outcomes), **_postfix(counts, 0.0))
        _fetch(client, to_fetch, outcomes, refresh=refresh, errors=errors, bar=bar,
               counts=counts)

    status: list[str] = []
    error: list[str | None] = []
    for value, h in zip(values, handles, strict=True):
        if h is None:
            status.append(INVALID)
            error.append(f"invalid handle: {invalid_reason(value)}")
        else:
            outcome = outcomes[h]
            status.append(outcome.status)
            error.append(outcome.error)
    return Lookup(
        handles=handles,
        status=status,
        error=error,
        fields=_spread(outcomes, handles),
        fetched=counts["fetched"] + counts["failed"],
        cached=counts["cached"],
    )


def _spread(outcomes: dict[str, _Outcome], handles: list[str | None]) -> pd.DataFrame:
    """One flattened record per distinct handle, repeated onto every row holding it."""
    found = [h for h, o in outcomes.items() if o.status == OK]
    flat = records_to_frame([outcomes[h].record for h in found], index=found)  # type: ignore[misc]
    if len(found) < len(handles) or None in handles:
        # Rows without a record get NaN: keep integers and flags integral, not float / object.
        flat = flat.astype({c: {"int64": "Int64", "bool": "boolean"}[str(t)]
                            for c, t in flat.dtypes.items() if str(t) in ("int64", "bool")})
    rows = flat.reindex(pd.Index(handles, dtype=object))
    return rows.reset_index(drop=True)
