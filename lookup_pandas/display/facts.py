"""How an Estimate and a JobSummary show themselves: one line of text, or a small HTML table.

>>> est = EstimateFacts(rows=250, valid=250, unique=190, cached=60, to_fetch=130, method="batch",
...                     jobs=1, polls=3, seconds=6.0, credits=130.0, balance=10_050.0)
>>> print(estimate_line(est))
Estimate: 250 rows, 190 distinct, 60 cached, 130 to fetch by batch (1 job, ~3 polls), about 6 s;
130 credits, balance 10,050
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "EstimateFacts",
    "RefreshCounts",
    "RefreshEstimate",
    "SummaryFacts",
    "about",
    "batch_calls",
    "credits_text",
    "duration",
    "estimate_html",
    "estimate_line",
    "fetching",
    "number",
    "refresh_estimate_text",
    "refresh_text",
    "spending",
    "summary_html",
]


@dataclass(frozen=True)
class RefreshEstimate:
    """What a ``refresh="changed"`` would check, and the most and the least it can cost.

    >>> print(refresh_estimate_text(RefreshEstimate(400, 40, 2, 4, most=406.0, least=6.0,
    ...                                              held=3)))  # doctest: +NORMALIZE_WHITESPACE
    checks 400 answers at 40 organisations in ~2 feed calls, 3 not checkable kept until they
    expire, 4 not checkable and expired: 6 to 406 credits
    """

    #: Cached answers checked through the job-change feed.
    checked: int
    #: Organisations of their current positions, and the feed calls they take to start with.
    organizations: int
    feed_calls: int
    #: Answers the feed cannot check (a not-found, no current organisation, or older than 365
    #: days) and expired: bought anew.
    uncheckable: int
    #: The most: every checked answer bought anew, a page per feed call, the expired and the
    #: uncached bought. The least: no mover, the expired bought, the uncached refused.
    most: float
    least: float
    #: Answers the feed cannot check, not expired: kept as they are until ``expire_after``.
    held: int = 0


@dataclass(frozen=True)
class RefreshCounts:
    """What a ``refresh="changed"`` did: checked, unchanged, moved, bought anew, feed pages.

    >>> print(refresh_text(RefreshCounts(checked=400, unchanged=380, moved=20, feed_pages=9,
    ...                                  feed_credits=9.0)))
    checked 400 (380 unchanged, 20 moved: bought anew), 9 feed pages (9 credits)
    """

    checked: int = 0
    unchanged: int = 0
    moved: int = 0
    #: Checked, but bought anew because their feed was busier than they are worth.
    busy: int = 0
    #: Not checkable (a not-found, no current organisation, or older than 365 days) and
    #: expired: bought anew.
    uncheckable: int = 0
    #: Not checkable, not expired: kept as they are until ``expire_after``, not checked.
    held: int = 0
    feed_pages: int = 0
    feed_credits: float = 0.0


def refresh_estimate_text(est: RefreshEstimate) -> str:
    """One clause: what a refresh checks, and the credits it can cost. See the class."""
    text = (
        f"checks {est.checked} answers at {est.organizations} organisations in "
        f"~{est.feed_calls} feed call{'s' * (est.feed_calls != 1)}"
    )
    if est.held:
        text += f", {est.held} not checkable kept until they expire"
    if est.uncheckable:
        text += f", {est.uncheckable} not checkable and expired"
    return text + f": {number(est.least)} to {number(est.most)} credits"


def refresh_text(counts: RefreshCounts) -> str:
    """One clause: what a refresh did. See :class:`RefreshCounts`."""
    bought = [f"{counts.moved} moved"]
    if counts.busy:
        bought.append(f"{counts.busy} at a busy feed")
    text = (
        f"checked {counts.checked} ({counts.unchanged} unchanged, {', '.join(bought)}: bought anew)"
    )
    if counts.held:
        text += f", {counts.held} not checkable: kept until they expire"
    if counts.uncheckable:
        text += f", {counts.uncheckable} not checkable and expired: bought anew"
    pages = counts.feed_pages
    return text + f", {pages} feed page{'s' * (pages != 1)} ({credits_text(counts.feed_credits)})"


@dataclass(frozen=True)
class EstimateFacts:
    """The figures of an estimate, as its line and its table show them.

    :class:`~lookup_pandas.Estimate` is these facts, filled by the enrichment, and its reprs.

    >>> EstimateFacts(rows=5, valid=5, unique=4, cached=4, to_fetch=0).method
    'none'
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
    #: Items a second the batch jobs are timed at (None: not timed as batch jobs), and whether
    #: that speed was seen on this service (else it is assumed).
    resolve_rate: float | None = None
    resolve_rate_seen: bool = False
    #: Batch jobs of an earlier, interrupted run that hold some of ``to_fetch``. They are
    #: collected, not submitted again. ``stored_items`` of ``to_fetch`` are in them.
    stored_jobs: int = 0
    stored_items: int = 0
    #: Credits the job would spend: single calls at the profile route's cost, batch items at
    #: 1 each (0 when nothing is to fetch).
    credits: float = 0.0
    #: The balance now (read when anything is to fetch); None: unknown.
    balance: float | None = None
    #: None, or the tier the job would end on, after how many credits, and its limit:
    #: ``"Developer (70/min) -> Hobby (30/min) after 51 credits"``.
    tier_change: str | None = None
    #: With ``refresh="changed"``: what the feed would check (``to_fetch`` is then the most).
    refresh: RefreshEstimate | None = None


@dataclass(frozen=True)
class SummaryFacts:
    """The counts of one enrichment, as its summary table shows them.

    :class:`~lookup_pandas.JobSummary` is these facts, filled by the enrichment, and its reprs.
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
    #: Distinct values the service refused for that one record (403: opted out,
    #: premium-gated). Answered, not billed, not cached. Shown only when there are any.
    refused: int = 0
    #: With ``refresh="changed"``: what the feed checked (``cached`` counts the kept answers).
    refresh: RefreshCounts | None = None


def estimate_line(est: EstimateFacts) -> str:
    """One line: what the enrichment would fetch, how, about how long, and what it would spend.

    What is not known (None) is left out.

    >>> print(estimate_line(EstimateFacts(rows=5, valid=5, unique=4, cached=4, to_fetch=0)))
    Estimate: 5 rows, 4 distinct, 4 cached, nothing to fetch
    >>> est = EstimateFacts(rows=5, valid=5, unique=4, cached=0, to_fetch=4, method="single",
    ...                     credits=4.0,
    ...                     tier_change="Developer (70/min) -> Hobby (30/min) after 3 credits")
    >>> print(estimate_line(est))
    Estimate: 5 rows, 4 distinct, 0 cached, 4 to fetch by single; 4 credits;
    tier Developer (70/min) -> Hobby (30/min) after 3 credits
    """
    line = f"Estimate: {est.rows} rows, {est.unique} distinct, {est.cached} cached, "
    if est.to_fetch == 0:
        return line + "nothing to fetch"
    line += fetching(est)
    if est.seconds is not None:
        line += f", {about(est.seconds)}"
    return line + spending(est)


def spending(est: EstimateFacts) -> str:
    """An estimate line's tail: the credits, the balance when known, a tier change, a refresh.

    >>> spending(EstimateFacts(rows=1, valid=1, unique=1, cached=0, to_fetch=1, credits=1.0,
    ...                        balance=99.0))
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


def estimate_html(est: EstimateFacts) -> str:
    """The facts of :func:`estimate_line` as a two-column HTML table captioned "Estimate".

    Unknown facts have no row.

    >>> est = EstimateFacts(rows=5, valid=5, unique=4, cached=4, to_fetch=0)
    >>> estimate_html(est)
    '<table class="lookup-pandas-display"><caption>Estimate</caption><tbody><tr><th ...'
    >>> import re
    >>> re.findall("<th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td>", estimate_html(est))
    [('Rows', '5'), ('Distinct', '4'), ('Cached', '4'), ('To fetch', 'nothing')]
    """
    facts: list[tuple[str, str]] = [
        ("Rows", str(est.rows)),
        ("Distinct", str(est.unique)),
        ("Cached", str(est.cached)),
    ]
    if est.to_fetch == 0:
        facts.append(("To fetch", "nothing"))
        return _table("Estimate", facts)
    facts.append(("To fetch", f"{est.to_fetch} by {est.method}"))
    batch = batch_calls(est)
    if batch:
        facts.append(("Batch calls", batch))
    if est.seconds is not None:
        facts.append(("About", duration(est.seconds)))
    facts.append(("Credits", number(est.credits)))
    if est.balance is not None:
        facts.append(("Balance", number(est.balance)))
    if est.tier_change:
        facts.append(("Tier", est.tier_change))
    if est.refresh is not None:
        facts.append(("Refresh", refresh_estimate_text(est.refresh)))
    return _table("Estimate", facts)


def summary_html(summary: SummaryFacts, statuses: Sequence[str] | None = None) -> str:
    """What one enrichment did, as a two-column HTML table captioned "Enrichment summary".

    Args:
        statuses: the statuses shown, in order. None shows the keys of ``summary.statuses``.

    >>> import re
    >>> summary = SummaryFacts(rows=3, statuses={"ok": 2, "not_found": 1}, cached=1, fetched=2,
    ...                        failed=0, credits=2.0, requests=2, rate_limited=0, retries=0,
    ...                        seconds=1.25)
    >>> re.findall("<th[^>]*>([^<]*)</th><td[^>]*>([^<]*)</td>", summary_html(summary))[:4]
    [('Rows', '3'), ('ok', '2'), ('not_found', '1'), ('Time', '1.2 s')]
    """
    shown = list(summary.statuses) if statuses is None else statuses
    n = summary.jobs
    fetched = str(summary.fetched) + (f" ({n} batch job{'s' * (n != 1)})" if n else "")
    facts = [("Rows", str(summary.rows))]
    facts += [(status, str(summary.statuses.get(status, 0))) for status in shown]
    facts += [
        ("Time", f"{summary.seconds:.1f} s"),
        ("Cached", str(summary.cached)),
        ("Fetched", fetched),
        *([("Refused", str(summary.refused))] if summary.refused else []),
        ("Failed", str(summary.failed)),
        ("Requests sent", str(summary.requests)),
        ("Answered 429", str(summary.rate_limited)),
        ("Retries", str(summary.retries)),
        ("Credits", f"{summary.credits:g}"),
    ]
    if summary.refresh is not None:
        facts.append(("Refresh", refresh_text(summary.refresh)))
    return _table("Enrichment summary", facts)


def _table(caption: str, facts: Iterable[tuple[str, str]]) -> str:
    """A two-column table (what, value), every text escaped, and without colours."""
    rows = "".join(
        f'<tr><th style="text-align: left">{html.escape(what)}</th>'
        f'<td style="text-align: left">{html.escape(value)}</td></tr>'
        for what, value in facts
    )
    return (
        f'<table class="lookup-pandas-display"><caption>{html.escape(caption)}</caption>'
        f"<tbody>{rows}</tbody></table>"
    )


def fetching(est: EstimateFacts) -> str:
    """What is to buy, how, and its batch calls.

    >>> print(fetching(EstimateFacts(rows=130, valid=130, unique=130, cached=0, to_fetch=130,
    ...                              method="batch", jobs=1, polls=3)))
    130 to fetch by batch (1 job, ~3 polls)

    With ``refresh="changed"``, ``to_fetch`` is the most the refresh can buy: "up to".
    """
    batch = batch_calls(est)
    most = "up to " if est.refresh is not None else ""
    return f"{most}{est.to_fetch} to fetch by {est.method}" + (f" ({batch})" if batch else "")


def batch_calls(est: EstimateFacts) -> str:
    """The batch calls of an estimate, or ``""`` when there are none.

    >>> batch_calls(EstimateFacts(rows=300, valid=300, unique=300, cached=0, to_fetch=300,
    ...                           jobs=1, polls=3, stored_jobs=1, stored_items=152))
    'collecting 1 stored job of 152, 1 new job, ~3 polls'
    >>> batch_calls(EstimateFacts(rows=200, valid=200, unique=200, cached=0, to_fetch=200,
    ...                           jobs=1, polls=15, resolve_rate=9.8, resolve_rate_seen=True))
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


def credits_text(value: float) -> str:
    """A number of credits, in words.

    >>> credits_text(1), credits_text(2.5)
    ('1 credit', '2.50 credits')
    """
    return f"{number(value)} credit{'s' * (value != 1)}"


def number(value: float) -> str:
    """A number with thousands separated, and decimals only when there are any.

    >>> number(10_050), number(0.25), number(3.0)
    ('10,050', '0.25', '3')
    """
    return f"{value:,.0f}" if value == int(value) else f"{value:,.2f}"


def about(seconds: float) -> str:
    """How long, as an estimate says it.

    >>> about(0.4), about(6), about(240)
    ('under a second', 'about 6 s', 'about 4 min')
    """
    return duration(seconds) if seconds < 1 else f"about {duration(seconds)}"


def duration(seconds: float) -> str:
    """How long, in the unit that reads best.

    >>> duration(0.4), duration(6), duration(240), duration(5400)
    ('under a second', '6 s', '4 min', '1.5 h')
    """
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
