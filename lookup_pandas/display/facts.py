"""How an Estimate and a JobSummary show themselves: one line of text, or a small HTML table.

>>> from types import SimpleNamespace
>>> est = SimpleNamespace(rows=250, unique=190, cached=60, to_fetch=130, method="batch", jobs=1,
...                       polls=3, seconds=6.0, stored_jobs=0, stored_items=0, credits=130.0,
...                       balance=10_050.0, tier_change=None)
>>> print(estimate_line(est))
Estimate: 250 rows, 190 distinct, 60 cached, 130 to fetch by batch (1 job, ~3 polls), about 6 s;
130 credits, balance 10,050
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

__all__ = [
    "EstimateFacts",
    "SummaryFacts",
    "about",
    "batch_calls",
    "credits_text",
    "duration",
    "estimate_html",
    "estimate_line",
    "fetching",
    "number",
    "summary_html",
]


class EstimateFacts(Protocol):
    """What an estimate line or table reads: the fields of :class:`~lookup_pandas.Estimate`."""

    @property
    def rows(self) -> int: ...
    @property
    def unique(self) -> int: ...
    @property
    def cached(self) -> int: ...
    @property
    def to_fetch(self) -> int: ...
    @property
    def method(self) -> str: ...
    @property
    def jobs(self) -> int: ...
    @property
    def polls(self) -> int: ...
    @property
    def seconds(self) -> float | None: ...
    @property
    def stored_jobs(self) -> int: ...
    @property
    def stored_items(self) -> int: ...
    @property
    def credits(self) -> float: ...
    @property
    def balance(self) -> float | None: ...
    @property
    def tier_change(self) -> str | None: ...


class SummaryFacts(Protocol):
    """What a summary table reads: the fields of :class:`~lookup_pandas.JobSummary`."""

    @property
    def rows(self) -> int: ...
    @property
    def statuses(self) -> Mapping[str, int]: ...
    @property
    def cached(self) -> int: ...
    @property
    def fetched(self) -> int: ...
    @property
    def refused(self) -> int: ...
    @property
    def failed(self) -> int: ...
    @property
    def credits(self) -> float: ...
    @property
    def requests(self) -> int: ...
    @property
    def rate_limited(self) -> int: ...
    @property
    def retries(self) -> int: ...
    @property
    def seconds(self) -> float: ...
    @property
    def jobs(self) -> int: ...


def estimate_line(est: EstimateFacts) -> str:
    """One line: what the enrichment would fetch, how, about how long, and what it would spend.

    What is not known (None) is left out.

    >>> from types import SimpleNamespace
    >>> print(estimate_line(SimpleNamespace(rows=5, unique=4, cached=4, to_fetch=0)))
    Estimate: 5 rows, 4 distinct, 4 cached, nothing to fetch
    >>> est = SimpleNamespace(rows=5, unique=4, cached=0, to_fetch=4, method="single", jobs=0,
    ...                       polls=0, stored_jobs=0, seconds=None, credits=4.0, balance=None,
    ...                       tier_change="Developer (70/min) -> Hobby (30/min) after 3 credits")
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
    line += f"; {credits_text(est.credits)}"
    if est.balance is not None:
        line += f", balance {number(est.balance)}"
    if est.tier_change:
        line += f"; tier {est.tier_change}"
    return line


def estimate_html(est: EstimateFacts) -> str:
    """The facts of :func:`estimate_line` as a two-column HTML table captioned "Estimate".

    Unknown facts have no row.

    >>> from types import SimpleNamespace
    >>> est = SimpleNamespace(rows=5, unique=4, cached=4, to_fetch=0)
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
    return _table("Estimate", facts)


def summary_html(summary: SummaryFacts, statuses: Sequence[str] | None = None) -> str:
    """What one enrichment did, as a two-column HTML table captioned "Enrichment summary".

    Args:
        statuses: the statuses shown, in order. None shows the keys of ``summary.statuses``.

    >>> from types import SimpleNamespace
    >>> import re
    >>> summary = SimpleNamespace(rows=3, statuses={"ok": 2, "not_found": 1}, cached=1, fetched=2,
    ...                           refused=0, failed=0, credits=2.0, requests=2, rate_limited=0,
    ...                           retries=0, seconds=1.25, jobs=0)
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

    >>> from types import SimpleNamespace
    >>> print(fetching(SimpleNamespace(to_fetch=130, method="batch", stored_jobs=0, jobs=1,
    ...                                polls=3)))
    130 to fetch by batch (1 job, ~3 polls)
    """
    batch = batch_calls(est)
    return f"{est.to_fetch} to fetch by {est.method}" + (f" ({batch})" if batch else "")


def batch_calls(est: EstimateFacts) -> str:
    """The batch calls of an estimate, or ``""`` when there are none.

    >>> from types import SimpleNamespace
    >>> batch_calls(SimpleNamespace(stored_jobs=1, stored_items=152, jobs=1, polls=3))
    'collecting 1 stored job of 152, 1 new job, ~3 polls'
    """
    parts = []
    if est.stored_jobs:
        stored = f"{est.stored_jobs} stored job{'s' * (est.stored_jobs != 1)}"
        parts.append(f"collecting {stored} of {est.stored_items}")
    if est.jobs:
        parts.append(f"{est.jobs} {'new ' * bool(est.stored_jobs)}job{'s' * (est.jobs != 1)}")
    if est.polls:
        parts.append(f"~{est.polls} poll{'s' * (est.polls != 1)}")
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
