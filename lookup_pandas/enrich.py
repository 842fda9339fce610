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

import copy
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
from .pacing import Cancelled, cancel_when
from .progress import Progress

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
    exc: ServiceError | None = None  # what to raise with errors="raise"


@dataclass(frozen=True)
class Lookup:
    """The result of an enrichment, one entry per input value, in input order."""

    handles: list[str | None]  # the normalised handle of each row (None: invalid)
    status: list[str]  # ok | not_found | invalid | error
    error: list[str | None]  # the reason, for every status but ok
    fields: pd.DataFrame  # the flattened record of each row (RangeIndex, NaN where none)


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


def _fetch_one(
    client: Client, handle: str, refresh: bool, stop: threading.Event
) -> _Outcome | None:
    """Fetch one handle in a pool thread; None when the job stopped first (nothing sent).

    Inside ``cancel_when(stop)``, a thread still waiting for its pacer slot or a back-off
    when the job stops (Ctrl-C, an error to raise, a rejected key) leaves without sending.
    """
    try:
        with cancel_when(stop):
            return _Outcome(OK, client.fetch_profile(handle, refresh=refresh))
    except Cancelled:
        return None
    except NotFoundError as exc:
        return _Outcome(NOT_FOUND, error=exc.message, exc=exc)
    except AuthenticationError:
        stop.set()  # every further call would fail the same way
        raise
    except ServiceError as exc:
        return _Outcome(ERROR, error=str(exc), exc=exc)


class _Job:
    """One enrichment run: the cache pass, the pool, the counts and the progress bar.

    The main thread walks the handles: a cached answer is recorded at once (no network, no
    pacing); a miss is handed to the pool straight away, so reading the cache overlaps with
    fetching. At most ``4 x max_workers`` calls wait in the pool's queue, which keeps
    harvesting cheap and memory flat for long lists. Counts are touched by the main thread only.
    """

    def __init__(self, client: Client, *, refresh: bool, errors: Errors, bar: Progress) -> None:
        self.client = client
        self.refresh = refresh
        self.errors = errors
        self.bar = bar
        self.outcomes: dict[str, _Outcome] = {}
        self.counts = {"cached": 0, "fetched": 0, "failed": 0}
        self._credits_before = client.stats.credits_consumed

    def record(self, handle: str, outcome: _Outcome, kind: str) -> None:
        self.outcomes[handle] = outcome
        self.counts[kind] += 1
        credits = self.client.stats.credits_consumed - self._credits_before
        self.bar.update(1, cached=self.counts["cached"], fetched=self.counts["fetched"],
                        failed=self.counts["failed"], credits=f"{credits:g}")
        if self.errors == "raise" and outcome.status != OK:
            raise _row_error(handle, outcome)

    def run(self, handles: Iterable[str], *, check_cache: bool) -> None:
        stop = threading.Event()
        workers = self.client.max_workers
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="lookup")
        pending: dict[Future[_Outcome | None], str] = {}
        try:
            for handle in handles:
                if check_cache:
                    outcome = _cached_outcome(self.client, handle)
                    if outcome is not None:
                        self.record(handle, outcome, "cached")
                        continue
                future = pool.submit(_fetch_one, self.client, handle, self.refresh, stop)
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

    def _harvest(self, pending: dict[Future[_Outcome | None], str], *, block: bool) -> None:
        done, _ = wait(pending, timeout=0.5 if block else 0, return_when=FIRST_COMPLETED)
        for future in done:
            handle = pending.pop(future)
            outcome = future.result()  # an AuthenticationError surfaces here
            if outcome is not None:
                self.record(handle, outcome, "failed" if outcome.status == ERROR else "fetched")


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
) -> Lookup:
    """Look up every value's profile, each distinct handle at most once; see the module doc."""
    if errors not in ("coerce", "raise"):
        raise ValueError(f"errors must be 'coerce' or 'raise', not {errors!r}")
    if max_calls is not None and max_calls < 0:
        raise ValueError("max_calls must be 0 or more")
    values = list(values)
    handles, distinct = _normalise(values)

    with Progress(progress, total=len(distinct), desc="profiles", unit=" handle") as bar:
        job = _Job(client, refresh=refresh, errors=errors, bar=bar)
        if refresh:
            _check_budget(len(distinct), 0, len(distinct), max_calls)  # every handle is billed
            job.run(distinct, check_cache=False)
        elif max_calls is None and errors == "coerce":
            job.run(distinct, check_cache=True)
        else:
            # A budget needs the count of what must be paid for before anything is sent, and
            # errors="raise" should meet a cached failure before paying for anything.
            cached = {h: o for h in distinct if (o := _cached_outcome(client, h)) is not None}
            to_fetch = [h for h in distinct if h not in cached]
            _check_budget(len(to_fetch), len(cached), len(distinct), max_calls)
            for handle, outcome in cached.items():
                job.record(handle, outcome, "cached")
            job.run(to_fetch, check_cache=False)
    outcomes = job.outcomes

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
