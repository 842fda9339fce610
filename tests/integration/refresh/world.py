"""What the refresh tests share: lead lists over real companies, moves, and the emulator's counts.

Example::

    leads = spread_leads(companies=40, each=10)   # 400 current employees of 40 companies
    before = Tally.of(svc)
    ...                                           # a refresh
    spent = Tally.of(svc) - before                # what the emulator saw and billed meanwhile
    spent.billed == Counter(movers), spent.pages, spent.credits

Every lead is a ``<slug>-employee-NNNNN`` of the emulator's population, whose record's current
position (``positions[0].organization``) is at ``slug``; sparse people (no positions) are left
out unless a test asks for them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pandas as pd
import pytest
import requests_cache.models.response as cached_response
import requests_cache.policy.expiration as expiration

import lookup_pandas as lp
from lookup_pandas.enrichment.provenance import CHECKED_AT_COLUMN, PROVENANCE_COLUMNS
from lookup_pandas.enrichment.results import JobSummary
from lookup_pandas.service.paths import JOB_CHANGES_PATH
from lookup_pandas.testing import FakeService, data
from lookup_pandas.testing.company_records import company_population

__all__ = [
    "CHANGED",
    "Tally",
    "employees",
    "enrich",
    "later",
    "move_every",
    "slug_of",
    "spread_leads",
    "summary_of",
    "without_provenance",
]

#: The refresh under test.
CHANGED = "changed"


def slug_of(handle: str) -> str:
    """The company a ``<slug>-employee-NNNNN`` lead works at."""
    return handle.rsplit("-employee-", 1)[0]


def employees(slug: str, n: int, *, sparse: bool = False) -> list[str]:
    """The first ``n`` current employees of ``slug`` whose record is sparse (``sparse``) or not.

    >>> employees("acme", 2, sparse=True)
    ['acme-employee-00009', 'acme-employee-00010']
    """
    found = [
        h
        for i in range(data.head_count(slug))
        if data.is_sparse_person(h := f"{slug}-employee-{i:05d}") == sparse
    ]
    assert len(found) >= n, (slug, n, len(found))
    return found[:n]


def spread_leads(companies: int, each: int) -> list[str]:
    """``each`` employees (full records) of each of ``companies`` companies of the emulator's
    company population, company after company (none of the eight that random people work at,
    so no lead's old positions name another lead's company)."""
    slugs = [
        c["slug"]
        for c in company_population()
        if c["slug"] not in data.ORGANIZATIONS and data.head_count(c["slug"]) >= 2 * each
    ]
    assert len(slugs) >= companies, len(slugs)
    return [h for slug in slugs[:companies] for h in employees(slug, each)]


def move_every(
    svc: FakeService, leads: list[str], step: int, *, to: str = "globex"
) -> dict[str, dict[str, Any]]:
    """Move every ``step``-th lead to ``to`` under a title of its own; each mover's new record."""
    return {
        h: svc.move(h, to=to, title=f"Head of Refresh {i}") for i, h in enumerate(leads[::step])
    }


def later(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Move the cache's clock ``seconds`` on: an answer stored with a shorter ``expire_after``
    then reads as expired, and one stored from now on expires ``expire_after`` after the moved
    clock. The emulator's feed and the store keep the real clock."""
    real = cached_response.utcnow
    moved = lambda: real() + timedelta(seconds=seconds)  # noqa: E731
    monkeypatch.setattr(cached_response, "utcnow", moved)
    monkeypatch.setattr(expiration, "utcnow", moved)


def enrich(leads: Iterable[str], client: lp.Client, **options: Any) -> pd.DataFrame:
    """``enrich_profiles`` over a frame of ``leads``, without a bar."""
    frame = pd.DataFrame({"handle": list(leads)})
    return frame.lookup.enrich_profiles("handle", client=client, progress=False, **options)


def summary_of(frame: pd.DataFrame) -> JobSummary:
    """The JobSummary an enriched frame carries."""
    summary = frame.lookup.summary
    assert isinstance(summary, JobSummary)
    return summary


def without_provenance(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without the provenance columns, rows numbered afresh."""
    gone = [c for c in (*PROVENANCE_COLUMNS, CHECKED_AT_COLUMN) if c in frame.columns]
    return frame.drop(columns=gone).reset_index(drop=True)


@dataclass(frozen=True)
class Tally:
    """What the emulator has seen and billed: credits per person, feed pages, credits, requests.

    Two tallies subtract: ``Tally.of(svc) - before`` is what happened in between.
    """

    billed: Counter[str]
    pages: int
    credits: float
    requests: int

    @classmethod
    def of(cls, svc: FakeService) -> Tally:
        stats = svc.stats()
        return cls(svc.billed_handles(), svc.count(JOB_CHANGES_PATH), stats["credits"],
                   stats["requests"])  # fmt: skip

    @property
    def nothing_billed(self) -> bool:
        """No person bought, no feed page read, no credit spent (free calls may have gone)."""
        return not self.billed and self.pages == 0 and self.credits == 0

    def __sub__(self, before: Tally) -> Tally:
        return Tally(
            self.billed - before.billed,
            self.pages - before.pages,
            self.credits - before.credits,
            self.requests - before.requests,
        )
