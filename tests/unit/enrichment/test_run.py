"""Unit tests for lookup_pandas.enrichment.run: the run's counts, and runs carried out
through MockTransport (no server)."""

from __future__ import annotations

import dataclasses

from lookup_pandas.enrichment.results import ERROR, FORBIDDEN, NOT_FOUND, OK, JobSummary, Outcome
from lookup_pandas.enrichment.run import fetched_as


def test_refused_answers_are_counted_apart_from_fetched_ones():
    assert [fetched_as(Outcome(s)) for s in (OK, NOT_FOUND, FORBIDDEN, ERROR)] == [
        "fetched",
        "fetched",
        "refused",
        "failed",
    ]
    summary = JobSummary(
        rows=3, statuses={"ok": 2, "forbidden": 1}, cached=0, fetched=2, failed=0, credits=2,
        requests=3, rate_limited=0, retries=0, seconds=0.1, refused=1,
    )  # fmt: skip
    assert "2 fetched, 1 refused, 0 failed" in str(summary)
    assert "refused" not in str(dataclasses.replace(summary, refused=0))
