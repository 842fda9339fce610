"""Unit tests for lookup_pandas.enrichment.lookup, the engine behind enrich_profiles and
get_profiles, through MockTransport (no server): each distinct handle bought once, statuses in
input order, invalid values never sent, the budget checked before anything is paid for, the
estimate, and records handed over instead of kept."""

from __future__ import annotations

from typing import Any

import pytest
import requests

import lookup_pandas as lp
from lookup_pandas.enrichment.lookup import estimate_values, lookup_values
from lookup_pandas.enrichment.plan import Options
from lookup_pandas.errors import BudgetExceededError, NotFoundError
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
from lookup_pandas.service.paths import COMPANY_PATH, PROFILE_PATH
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"
TIER = envelope({"balance": 100, "current_tier": {"name": "t", "limit_per_minute": 60000}})
RECORDS: dict[str, dict[str, Any]] = {
    "ada": {"id": "prsn_a", "handle": "ada", "headline": "Analyst", "follower_count": 7},
    "late": {"id": "prsn_l", "handle": "late", "mixed": 4},
    "odd": {"id": "prsn_o", "handle": "odd", "headline": 'says "hi",\nthen bye', "meta": {}},
    "acme": {"id": "org_1", "slug": "acme", "name": "Acme"},
}


def client_on(cache: Any = False) -> lp.Client:
    """A Client whose service knows RECORDS; any other value is a billed not-found."""

    def handler(request: requests.PreparedRequest) -> tuple[Any, ...]:
        url = request.url or ""
        if "/credits/tier/k/" in url:
            return 200, TIER
        if "/api/panel/" in url:  # no route costs, ladder or balance: each call costs 1
            return 404, envelope(None, success=False, message="Not found")
        value = requests.utils.unquote(url.rsplit("=", 1)[1])
        if value in RECORDS:
            return 200, envelope(RECORDS[value])
        return 200, envelope(None, success=False, message="Profile not found", error_code="1010")

    return lp.Client(
        api_key="lk_test_unit", base_url=BASE, cache=cache, transport=MockTransport(handler)
    )


def looked_up(client: lp.Client, path: str = PROFILE_PATH) -> list[str]:
    """The values the client sent a lookup for, in order (not the tier read of first contact)."""
    adapter = client.session.get_adapter(BASE)
    assert isinstance(adapter, MockTransport)
    urls = [r.url or "" for r in adapter.requests if path in (r.url or "")]
    return [requests.utils.unquote(u.rsplit("=", 1)[1]) for u in urls]


VALUES = ["ada", " https://www.example.com/in/ada/ ", "", "ghost", "ADA", None, "N/A", "odd"]


# -- lookup_values -------------------------------------------------------------------------------


def test_each_distinct_handle_is_bought_once_and_each_row_gets_its_status_in_input_order():
    with client_on() as client:
        result = lookup_values(
            VALUES, client=client, options=Options(progress=False, method="single"), kind=PEOPLE
        )
        assert sorted(looked_up(client)) == ["ada", "ghost", "odd"]  # the invalid never sent
    assert result.handles == ["ada", "ada", None, "ghost", "ada", None, None, "odd"]
    assert result.status == ["ok", "ok", "invalid", "not_found", "ok", "invalid", "invalid", "ok"]
    assert result.error[:4] == [None, None, "invalid handle: empty", "Profile not found"]
    assert result.fields["id"].tolist()[:2] == ["prsn_a", "prsn_a"]
    found = [status == "ok" for status in result.status]
    assert result.fields["id"].notna().tolist() == found
    summary = result.summary
    assert (summary.rows, summary.fetched, summary.cached, summary.failed) == (8, 3, 0, 0)
    assert {s: n for s, n in summary.statuses.items() if n} == {
        "ok": 4,
        "not_found": 1,
        "invalid": 3,
    }


def test_raise_mode_raises_the_not_found_naming_its_handle():
    with client_on() as client, pytest.raises(NotFoundError, match=r"\(handle 'ghost'\)"):
        lookup_values(
            ["ada", "ghost"],
            client=client,
            options=Options(progress=False, errors="raise"),
            kind=PEOPLE,
        )


def test_a_budget_the_job_cannot_keep_refuses_it_before_anything_is_bought():
    with client_on() as client:
        with pytest.raises(BudgetExceededError):
            lookup_values(
                ["ada", "odd"],
                client=client,
                options=Options(progress=False, max_calls=1),
                kind=PEOPLE,
            )
        assert looked_up(client) == []


def test_a_second_run_on_the_same_cache_buys_nothing(tmp_path):
    with client_on(cache=tmp_path / "c.sqlite") as client:
        first = lookup_values(
            ["ada", "ghost"], client=client, options=Options(progress=False), kind=PEOPLE
        )
        second = lookup_values(
            ["ghost", "ada"],
            client=client,
            options=Options(progress=False, max_calls=0),
            kind=PEOPLE,
        )
        assert sorted(looked_up(client)) == ["ada", "ghost"]
    assert second.status == ["not_found", "ok"] and second.summary.cached == 2
    assert first.summary.fetched == 2 and second.summary.fetched == 0


def test_companies_are_looked_up_by_slug_whatever_form_they_are_given_in():
    with client_on() as client:
        result = lookup_values(
            ["acme", "https://www.linkedin.com/company/acme/", "ACME"],
            client=client,
            kind=COMPANIES,
            options=Options(progress=False),
        )
        assert looked_up(client, COMPANY_PATH) == ["acme"]
    assert result.status == ["ok", "ok", "ok"]
    assert result.fields["name"].tolist() == ["Acme"] * 3


def test_provenance_says_each_row_was_bought_by_a_single_call_now():
    with client_on() as client:
        result = lookup_values(
            ["ada", ""],
            client=client,
            options=Options(progress=False, provenance=True),
            kind=PEOPLE,
        )
    assert result.provenance is not None
    assert result.provenance["lookup_source"].tolist()[0] == "single"
    assert result.provenance["lookup_source"].isna().tolist() == [False, True]


# -- estimate_values -----------------------------------------------------------------------------


def test_the_estimate_counts_rows_handles_and_what_is_to_fetch_and_buys_nothing(tmp_path):
    with client_on(cache=tmp_path / "c.sqlite") as client:
        lookup_values(["ada"], client=client, options=Options(progress=False), kind=PEOPLE)
        est = estimate_values(VALUES, client=client, method="single", kind=PEOPLE)
        assert looked_up(client) == ["ada"]  # only the run's own call
    assert (est.rows, est.valid, est.unique, est.cached, est.to_fetch) == (8, 5, 3, 1, 2)
    assert est.method == "single" and est.credits == 2.0


def test_a_fully_cached_input_is_estimated_without_sending_anything(tmp_path):
    with client_on(cache=tmp_path / "c.sqlite") as client:
        lookup_values(["ada", "odd"], client=client, options=Options(progress=False), kind=PEOPLE)
        adapter = client.session.get_adapter(BASE)
        before = len(adapter.requests)
        est = estimate_values(["odd", "ada", "ADA"], client=client, kind=PEOPLE)
        assert len(adapter.requests) == before
    assert (est.unique, est.cached, est.to_fetch, est.method) == (2, 2, 0, "none")


# -- records handed over, not kept (what the chunked CSV does) -----------------------------------


def test_the_job_hands_each_record_over_once_and_keeps_none():
    records = RECORDS
    handed: list[tuple[str, dict[str, Any]]] = []
    values = ["ada", "unknown-x", "", "late", "ADA", "odd"]
    with client_on() as client:
        kept = lookup_values(
            values, client=client, options=Options(progress=False, method="single"), kind=PEOPLE
        )
        result = lookup_values(
            values,
            client=client,
            on_record=lambda h, r: handed.append((h, r)),
            options=Options(progress=False, method="single"),
            kind=PEOPLE,
        )
    assert sorted(handed) == sorted((h, records[h]) for h in ("ada", "late", "odd"))
    assert (result.handles, result.status, result.error) == (kept.handles, kept.status, kept.error)
    assert result.fields.shape == (6, 0)
    assert kept.fields.shape[1] > 0


def test_cached_records_are_handed_over_as_the_cache_is_read_not_kept_for_the_job(tmp_path):
    handed: list[str] = []
    with client_on(cache=tmp_path / "c.sqlite") as client:
        lookup_values(
            ["ada", "odd"],
            client=client,
            options=Options(progress=False, method="single"),
            kind=PEOPLE,
        )
        # a budget: the cache is read first (and the records handed over as it is), then the
        # one handle not cached is refused
        with pytest.raises(lp.BudgetExceededError):
            lookup_values(
                ["ada", "odd", "late"],
                client=client,
                on_record=lambda h, r: handed.append(h),
                options=Options(progress=False, max_calls=0),
                kind=PEOPLE,
            )
        assert handed == ["ada", "odd"]
        handed.clear()
        result = lookup_values(
            ["odd", "ada"],
            client=client,
            on_record=lambda h, r: handed.append(h),
            options=Options(progress=False, max_calls=0),
            kind=PEOPLE,
        )
    assert handed == ["odd", "ada"] and result.summary.cached == 2
