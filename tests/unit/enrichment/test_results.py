"""Unit tests for lookup_pandas.enrichment.results: the summary's line, a record handed over and
not kept, a failure raised naming its handle, an invalid value's reason (pure)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from lookup_pandas.enrichment.results import (
    FORBIDDEN,
    NOT_CACHED,
    NOT_FOUND,
    RARE_STATUSES,
    STATUSES,
    UNSUPPORTED,
    Estimate,
    JobSummary,
    Outcome,
    handed,
    row_error,
)
from lookup_pandas.errors import NotFoundError, ServerError

SUMMARY = JobSummary(
    rows=3,
    statuses={"ok": 2, "invalid": 1},
    cached=1,
    fetched=1,
    failed=0,
    credits=1.0,
    requests=2,
    rate_limited=0,
    retries=0,
    seconds=0.25,
)


# -- the summary ---------------------------------------------------------------------------------


def test_the_summary_line_names_every_common_status_and_the_traffic():
    assert str(SUMMARY) == (
        "3 rows (2 ok, 0 not_found, 1 invalid, 0 error) in 0.2s: 1 cached, 1 fetched, "
        "0 failed; 2 requests sent, 0 answered 429, 0 retries; 1 credits"
    )


@pytest.mark.parametrize("rare", RARE_STATUSES)
def test_a_rare_status_is_named_only_when_some_row_has_it(rare):
    assert rare not in str(SUMMARY)
    told = dataclasses.replace(SUMMARY, statuses={**SUMMARY.statuses, rare: 1})
    assert f"1 {rare}" in str(told)
    assert rare in (FORBIDDEN, UNSUPPORTED, NOT_CACHED) and rare in STATUSES


def test_batch_jobs_are_counted_in_the_line_singular_or_plural():
    one, two = (dataclasses.replace(SUMMARY, jobs=n) for n in (1, 2))
    assert "1 fetched (1 batch job), 0 failed" in str(one)
    assert "1 fetched (2 batch jobs), 0 failed" in str(two)
    assert (two.batch_jobs, SUMMARY.batch_jobs) == (2, 0)


def test_fractional_credits_are_shown_as_they_are():
    assert str(dataclasses.replace(SUMMARY, credits=2.5)).endswith("; 2.5 credits")


def test_an_estimate_prints_its_line_and_keeps_the_dataclass_repr():
    est = Estimate(rows=3, valid=2, unique=2, cached=1, to_fetch=1, method="single")
    assert str(est) == ("Estimate: 3 rows, 2 distinct, 1 cached, 1 to fetch by single; 0 credits")
    assert repr(est).startswith("Estimate(rows=3, valid=2, unique=2, cached=1, to_fetch=1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        est.rows = 4  # type: ignore[misc]


# -- a record handed over ------------------------------------------------------------------------


def test_an_outcome_handed_over_keeps_no_record():
    record = {"id": "p", "handle": "a"}
    taken: list[tuple[str, Any]] = []
    outcome = handed(lambda h, r: taken.append((h, r)), "a", Outcome("ok", record))
    assert outcome == Outcome("ok") and taken == [("a", record)]
    kept = Outcome("ok", record)
    assert handed(None, "a", kept) is kept


def test_an_outcome_without_a_record_is_handed_over_as_it_is():
    gone = Outcome(NOT_FOUND, error="Not found")
    taken: list[object] = []
    assert handed(lambda h, r: taken.append(r), "ghost", gone) is gone and taken == []


# -- failures as the exception they were ---------------------------------------------------------


def test_a_failure_is_raised_as_its_own_class_naming_the_handle_and_the_original_is_left_alone():
    original = ServerError("Internal error", status_code=500)
    named = row_error("ada", Outcome("error", error="Internal error", exc=original))
    assert type(named) is ServerError and named.status_code == 500
    assert named.message == "Internal error (handle 'ada')" and named.args == (named.message,)
    assert original.message == "Internal error"  # shared by every row of that handle: untouched


def test_a_not_found_without_its_exception_becomes_one_naming_the_value_by_its_noun():
    named = row_error("acme", Outcome(NOT_FOUND, error="Company not found"), noun="company")
    assert isinstance(named, NotFoundError)
    assert named.message == "Company not found (company 'acme')"
    assert row_error("x", Outcome(NOT_FOUND)).message == "Not found (handle 'x')"
