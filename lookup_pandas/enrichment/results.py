"""What an enrichment gives back: each handle's outcome, the job's summary, the estimate.

Shapes only. Nothing here reads the cache or sends anything.

>>> Outcome(OK, {"id": "prsn_1", "handle": "ada"}).record["handle"]
'ada'
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from ..display.facts import (
    RefreshCounts,
    RefreshEstimate,
    about,
    credits_text,
    duration,
    number,
    refresh_estimate_text,
    refresh_text,
    table,
)
from ..errors import NotFoundError, ServiceError

__all__ = [
    "ERROR",
    "FORBIDDEN",
    "REFUSED",
    "UNSUPPORTED",
    "INVALID",
    "NOT_FOUND",
    "NOT_CACHED",
    "OK",
    "RARE_STATUSES",
    "STATUSES",
    "Errors",
    "Estimate",
    "JobSummary",
    "LookupResult",
    "Method",
    "OnRecord",
    "Outcome",
    "batch_calls",
    "fetching",
    "handed",
    "row_error",
    "spending",
]

Errors = Literal["coerce", "raise"]
Method = Literal["auto", "batch", "single"]
#: ``True`` buys every answer anew; ``"changed"`` only those the job-change feed says moved.
Refresh = bool | Literal["changed"]
OK, NOT_FOUND, INVALID, ERROR = "ok", "not_found", "invalid", "error"
#: A 403 for this one record (opted out, premium-gated): not billed, not cached, the job goes on.
FORBIDDEN = "forbidden"
#: A 422 for this one value: the service does not take it (``reverse_emails`` of a public
#: provider's, a role account's, a disposable or relay address). Free, not an error, and cached
#: as an answer (asked again, it is the same).
UNSUPPORTED = "unsupported"
#: Offline, and the cache does not hold this value's answer: nothing was sent.
NOT_CACHED = "not_cached"
STATUSES = (OK, NOT_FOUND, FORBIDDEN, UNSUPPORTED, NOT_CACHED, INVALID, ERROR)
#: Statuses a summary names only when some row has them.
RARE_STATUSES = (FORBIDDEN, UNSUPPORTED, NOT_CACHED)
#: The answers the service refused for this value alone, billing nothing: the job goes on.
REFUSED = (FORBIDDEN, UNSUPPORTED)

#: Takes each record found, ``(handle, record)``: see ``lookup_values(on_record=...)``.
OnRecord = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class Estimate:
    """What an enrichment would do, told without sending anything.

    >>> est = Estimate(rows=3, valid=2, unique=2, cached=1, to_fetch=1, method="single")
    >>> est.to_fetch, est.seconds is None
    (1, True)

    - ``to_fetch``: the billable items it would pay for (single calls or batch items).
    - ``method``: ``"batch"``, ``"single"`` or ``"none"`` (nothing to fetch). With
      ``method="auto"`` and batch support not known yet, see docs/decisions.md.
    - ``jobs`` and ``polls``: new batch jobs, and polls (ASSUMED_PAGE results each, plus one
      per job) of the new and the stored ones.
    - ``seconds``: the expected duration at the Client's pace. A single call takes a slot (at
      a lower tier's pace once the credits drop the key to it). A batch job takes as long as
      its items take to resolve, polled every ``batch_poll_interval``, at the speed this
      service's jobs were last seen to resolve (else an assumed 20 items a second:
      :mod:`lookup_pandas.enrichment.timing`), and a slot per submit and poll. Before the pace
      is learned (``client.credits_tier()``, unbilled), it is the pace the run would fall back
      to. None only for single calls on an unmetered key. ``resolve_rate`` is the batch speed
      it is timed at (None: not timed as batch jobs), ``resolve_rate_seen`` whether it was seen
      on this service's jobs (else assumed).
    - ``credits``, ``balance`` and ``tier_change``: what it would spend (single calls at the
      route's cost, batch items at 1 each, the Email API's at the route's), the balance now
      (None: unknown), and where that leaves the key on the tier ladder
      (:mod:`lookup_pandas.service.credits`), e.g.
      ``"Developer (70/min) -> Hobby (30/min) after 51 credits"``.
    - ``stored_jobs`` and ``stored_items``: batch jobs of an earlier, interrupted run that hold
      some of ``to_fetch``; they are collected, not submitted again.
    - ``refresh`` (``refresh="changed"`` only): the answers it would check, at how many
      organisations, in about how many feed calls, those it cannot check (kept until they
      expire, or expired and bought), and the most and the least it can cost. ``to_fetch``
      and ``credits`` are then the most.

    ``str(est)`` is one line, a notebook shows a table.
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
    resolve_rate: float | None = None
    resolve_rate_seen: bool = False
    stored_jobs: int = 0
    stored_items: int = 0
    credits: float = 0.0
    balance: float | None = None
    tier_change: str | None = None
    refresh: RefreshEstimate | None = None

    def __str__(self) -> str:
        """One line: what it would fetch, how, about how long, what it would spend; no unknowns.

        >>> print(Estimate(rows=5, valid=5, unique=4, cached=4, to_fetch=0))
        Estimate: 5 rows, 4 distinct, 4 cached, nothing to fetch
        >>> print(Estimate(rows=5, valid=5, unique=4, cached=0, to_fetch=4, method="single",
        ...       credits=4.0, tier_change="Developer (70/min) -> Hobby (30/min) after 3 credits"))
        Estimate: 5 rows, 4 distinct, 0 cached, 4 to fetch by single; 4 credits;
        tier Developer (70/min) -> Hobby (30/min) after 3 credits
        """
        line = f"Estimate: {self.rows} rows, {self.unique} distinct, {self.cached} cached, "
        if self.to_fetch == 0:
            return line + "nothing to fetch"
        line += fetching(self)
        if self.seconds is not None:
            line += f", {about(self.seconds)}"
        return line + spending(self)

    def _repr_html_(self) -> str:
        """The facts of its line as a table captioned "Estimate", in a notebook; no unknowns.

        >>> import re
        >>> est = Estimate(rows=5, valid=5, unique=4, cached=4, to_fetch=0)
        >>> re.findall("<th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td>", est._repr_html_())
        [('Rows', '5'), ('Distinct', '4'), ('Cached', '4'), ('To fetch', 'nothing')]
        """
        facts = [("Rows", str(self.rows)), ("Distinct", str(self.unique))]
        facts.append(("Cached", str(self.cached)))
        if self.to_fetch == 0:
            return table("Estimate", [*facts, ("To fetch", "nothing")])
        facts.append(("To fetch", f"{self.to_fetch} by {self.method}"))
        batch = batch_calls(self)
        facts += [("Batch calls", batch)] if batch else []
        facts += [("About", duration(self.seconds))] if self.seconds is not None else []
        facts.append(("Credits", number(self.credits)))
        facts += [("Balance", number(self.balance))] if self.balance is not None else []
        facts += [("Tier", self.tier_change)] if self.tier_change else []
        if self.refresh is not None:
            facts.append(("Refresh", refresh_estimate_text(self.refresh)))
        return table("Estimate", facts)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """In a terminal IPython, the one line of ``str(est)``."""
        p.text(str(self))


def fetching(est: Estimate) -> str:
    """What is to buy, how, and its batch calls ("up to" with ``refresh="changed"``: the most).

    >>> print(fetching(Estimate(rows=130, valid=130, unique=130, cached=0, to_fetch=130,
    ...                         method="batch", jobs=1, polls=3)))
    130 to fetch by batch (1 job, ~3 polls)
    """
    batch = batch_calls(est)
    most = "up to " if est.refresh is not None else ""
    return f"{most}{est.to_fetch} to fetch by {est.method}" + (f" ({batch})" if batch else "")


def spending(est: Estimate) -> str:
    """An estimate line's tail: the credits, the balance when known, a tier change, a refresh.

    >>> spending(Estimate(rows=1, valid=1, unique=1, cached=0, to_fetch=1, credits=1.0,
    ...                   balance=99.0))
    '; 1 credit, balance 99'
    """
    text = f"; {credits_text(est.credits)}"
    if est.balance is not None:
        text += f", balance {number(est.balance)}"
    if est.tier_change:
        text += f"; tier {est.tier_change}"
    if est.refresh is not None:
        text += f"; refresh {refresh_estimate_text(est.refresh)}"
    return text


def batch_calls(est: Estimate) -> str:
    """The batch calls of an estimate, or ``""`` when there are none.

    >>> batch_calls(Estimate(rows=300, valid=300, unique=300, cached=0, to_fetch=300,
    ...                      jobs=1, polls=3, stored_jobs=1, stored_items=152))
    'collecting 1 stored job of 152, 1 new job, ~3 polls'
    >>> batch_calls(Estimate(rows=200, valid=200, unique=200, cached=0, to_fetch=200,
    ...                      jobs=1, polls=15, resolve_rate=9.8, resolve_rate_seen=True))
    '1 job, ~15 polls, at ~9.8 items/s seen'
    """
    parts = []
    if est.stored_jobs:
        stored = f"{est.stored_jobs} stored job{'s' * (est.stored_jobs != 1)}"
        parts.append(f"collecting {stored} of {est.stored_items}")
    if est.jobs:
        parts.append(f"{est.jobs} {'new ' * bool(est.stored_jobs)}job{'s' * (est.jobs != 1)}")
    if est.polls:
        parts.append(f"~{est.polls} poll{'s' * (est.polls != 1)}")
    if est.resolve_rate is not None and est.jobs:
        how = "seen" if est.resolve_rate_seen else "assumed"
        rate = f"{est.resolve_rate:,.0f}" if est.resolve_rate >= 10 else f"{est.resolve_rate:.2g}"
        parts.append(f"at ~{rate} items/s {how}")
    return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One distinct handle's answer: its status, its record (ok) or the reason (else).

    ``exc`` is what ``errors="raise"`` raises.

    >>> Outcome(NOT_FOUND, error="Not found").record is None
    True
    """

    status: str
    record: dict[str, Any] | None = None
    error: str | None = None
    exc: ServiceError | None = None


@dataclass(frozen=True)
class JobSummary:
    """What one enrichment did: the counts its progress bar showed, and the traffic.

    ``cached``, ``fetched`` and ``failed`` count distinct handles. ``jobs`` (also
    ``batch_jobs``) counts the batch jobs polled, submitted by this run or resumed.
    ``credits`` is what the service billed during this run. ``refused`` counts the distinct
    values answered 403 for that one record (opted out, premium-gated): never billed.
    ``requests`` counts what was sent, retries and the tier read included.

    An enrichment keeps its summary on the frame it returns: ``enriched.lookup.summary``
    (made from ``enriched.attrs["lookup_summary"]``, plain values). An exception that stops a
    run part-way carries the summary of what it did up to there: ``exc.summary``.

    >>> summary = JobSummary(rows=3, statuses={"ok": 2, "invalid": 1}, cached=1, fetched=1,
    ...                      failed=0, credits=1.0, requests=2, rate_limited=0, retries=0,
    ...                      seconds=0.1)
    >>> print(summary)  # doctest: +ELLIPSIS
    3 rows (2 ok, 0 not_found, 1 invalid, 0 error) in 0.1s: 1 cached, 1 fetched, 0 failed...
    """

    rows: int
    statuses: dict[str, int]  # ok / not_found / invalid / error -> rows
    cached: int
    fetched: int
    failed: int
    credits: float
    requests: int
    rate_limited: int  # answers 429
    retries: int
    seconds: float
    jobs: int = 0
    refused: int = 0  # shown only when there are any
    #: With ``refresh="changed"``: what the feed checked (``cached`` counts the kept answers).
    refresh: RefreshCounts | None = None

    @property
    def batch_jobs(self) -> int:
        """The batch jobs polled: the same as ``jobs``."""
        return self.jobs

    def _shown_statuses(self) -> list[str]:
        """Every status, but the RARE_STATUSES (``forbidden``, ...) only when there are any."""
        return [s for s in STATUSES if s not in RARE_STATUSES or self.statuses.get(s)]

    def __str__(self) -> str:
        statuses = ", ".join(f"{self.statuses.get(s, 0)} {s}" for s in self._shown_statuses())
        n = self.jobs
        jobs = f" ({n} batch job{'s' * (n != 1)})" if n else ""
        refused = f", {self.refused} refused" if self.refused else ""
        refresh = f"; refresh {refresh_text(self.refresh)}" if self.refresh is not None else ""
        return (
            f"{self.rows} rows ({statuses}) in {self.seconds:.1f}s: {self.cached} cached, "
            f"{self.fetched} fetched{jobs}{refused}, {self.failed} failed; "
            f"{self.requests} requests sent, "
            f"{self.rate_limited} answered 429, {self.retries} retries; {self.credits:g} credits"
            f"{refresh}"
        )

    def _repr_html_(self) -> str:
        """The summary as a table captioned "Enrichment summary", in a notebook.

        >>> import re
        >>> summary = JobSummary(rows=3, statuses={"ok": 2, "not_found": 1}, cached=1, fetched=2,
        ...                      failed=0, credits=2.0, requests=2, rate_limited=0, retries=0,
        ...                      seconds=1.25)
        >>> re.findall("<th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td>", summary._repr_html_())[:3]
        [('Rows', '3'), ('ok', '2'), ('not_found', '1')]
        """
        n = self.jobs
        fetched = str(self.fetched) + (f" ({n} batch job{'s' * (n != 1)})" if n else "")
        facts = [("Rows", str(self.rows))]
        facts += [(status, str(self.statuses.get(status, 0))) for status in self._shown_statuses()]
        facts += [
            ("Time", f"{self.seconds:.1f} s"),
            ("Cached", str(self.cached)),
            ("Fetched", fetched),
            *([("Refused", str(self.refused))] if self.refused else []),
            ("Failed", str(self.failed)),
            ("Requests sent", str(self.requests)),
            ("Answered 429", str(self.rate_limited)),
            ("Retries", str(self.retries)),
            ("Credits", f"{self.credits:g}"),
        ]
        if self.refresh is not None:
            facts.append(("Refresh", refresh_text(self.refresh)))
        return table("Enrichment summary", facts)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """In a terminal IPython, the one line of ``str(summary)``."""
        p.text(str(self))


@dataclass(frozen=True)
class LookupResult:
    """The result of an enrichment, one entry per input value, in input order.

    Example: ``result.status`` is ``["ok", "invalid"]`` and ``result.fields`` has a row per value.
    """

    handles: list[str | None]  # the normalised handle of each row (None: invalid)
    status: list[str]  # ok | not_found | forbidden | not_cached | invalid | error
    error: list[str | None]  # the reason, for every status but ok
    fields: pd.DataFrame  # the flattened record of each row (RangeIndex, NaN where none).
    # No columns when the records went to ``on_record``.
    summary: JobSummary
    #: With ``provenance=True``: lookup_source, lookup_fetched_at, lookup_expired (RangeIndex).
    provenance: pd.DataFrame | None = None


def handed(on_record: OnRecord | None, handle: str, outcome: Outcome) -> Outcome:
    """``outcome``, its record handed to ``on_record`` and not kept, when there are both.

    >>> kept = []
    >>> handed(lambda h, r: kept.append(h), "ada", Outcome(OK, {"id": "prsn_1"})).record, kept
    (None, ['ada'])
    """
    if on_record is None or outcome.record is None:
        return outcome
    on_record(handle, outcome.record)
    return dataclasses.replace(outcome, record=None)


def row_error(handle: str, outcome: Outcome, noun: str = "handle") -> ServiceError:
    """The failure as the exception it was (NotFoundError, ServerError, ...), naming the handle.

    >>> row_error("ada", Outcome(NOT_FOUND, error="Not found"))
    NotFoundError("Not found (handle 'ada')")
    """
    exc = outcome.exc or NotFoundError(outcome.error or "Not found")
    named = copy.copy(exc)
    named.message = f"{exc.message} ({noun} {handle!r})"
    named.args = (named.message,)
    return named
