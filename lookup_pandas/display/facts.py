"""The pieces an Estimate and a JobSummary show themselves with: numbers, durations, a table,
and what a ``refresh="changed"`` would do and did.

>>> credits_text(130), about(6), table("Estimate", [("Rows", "250")])[:44]
('130 credits', 'about 6 s', '<table class="lookup-pandas-display"><captio')
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "RefreshCounts",
    "RefreshEstimate",
    "about",
    "credits_text",
    "duration",
    "number",
    "refresh_estimate_text",
    "refresh_text",
    "table",
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


def table(caption: str, facts: Iterable[tuple[str, str]]) -> str:
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
