"""The DataFrame functions against the emulator: get_profiles, company_employees, search_people,
credits_tier, and the default client behind client=None."""

from __future__ import annotations

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas import NotFoundError
from lookup_pandas.testing import data

from ..enrich_helpers import FailHandles, person_id
from ..helpers import EMPLOYEES, PROFILE, SEARCH, TIER, make_client


def params_of(svc, path):
    return [dict(r.params) for r in svc.requests if r.path == path]


# -- get_profiles ----------------------------------------------------------------------------------


def test_get_profiles_one_row_per_input_in_order(fake_service, fake_client):
    values = [
        "ada-gp",
        "https://www.example.com/in/grace-gp/?utm_source=x",
        "",
        None,
        "unknown-gp",
        " ada-gp/ ",
    ]
    frame = lp.get_profiles(values, client=fake_client, progress=False)

    assert len(frame) == len(values)
    assert frame.index.equals(pd.RangeIndex(len(values)))
    assert list(frame.columns[:2]) == ["id", "handle"]
    assert list(frame.columns[-2:]) == ["lookup_status", "lookup_error"]
    assert frame["lookup_status"].tolist() == ["ok", "ok", "invalid", "invalid", "not_found", "ok"]
    handles = frame["handle"].tolist()
    assert handles[0] == "ada-gp" and handles[1] == "grace-gp" and handles[5] == "ada-gp"
    assert handles[4] == "unknown-gp"
    assert pd.isna(handles[2]) and pd.isna(handles[3])
    assert str(frame["handle"].dtype) == "str"
    assert frame["id"].iloc[0] == person_id("ada-gp") == frame["id"].iloc[5]
    assert frame["id"].iloc[1] == person_id("grace-gp")
    assert frame["lookup_error"].isna().tolist() == [True, True, False, False, False, True]
    assert frame["lookup_error"].iloc[2] == "invalid handle: empty"
    assert frame["lookup_error"].iloc[3] == "invalid handle: missing"
    # Each distinct handle requested once; blanks never sent.
    assert fake_service.count(PROFILE) == 3
    assert fake_service.count(PROFILE, handle="ada-gp") == 1


def test_get_profiles_series_keeps_its_index(fake_service, fake_client):
    series = pd.Series(["b-gps", "", "a-gps", "b-gps"], index=["w", "x", "y", "w"], name="leads")
    before = series.copy(deep=True)
    frame = lp.get_profiles(series, client=fake_client, progress=False)
    assert frame.index.tolist() == ["w", "x", "y", "w"]
    assert frame["handle"].iloc[[0, 2, 3]].tolist() == ["b-gps", "a-gps", "b-gps"]
    assert frame["lookup_status"].tolist() == ["ok", "invalid", "ok", "ok"]
    pd.testing.assert_series_equal(series, before)
    assert fake_service.count(PROFILE) == 2


def test_get_profiles_flattens_and_keeps_lists(fake_service, fake_client):
    frame = lp.get_profiles(["ada-lists", "unknown-lists"], client=fake_client, progress=False)
    rec = data.person("ada-lists")
    assert frame["geo.city"].iloc[0] == rec["geo"]["city"]
    assert frame["follower_count"].iloc[0] == rec["follower_count"]
    assert str(frame["follower_count"].dtype) == "Int64"  # the not-found row has a gap
    assert frame["skills"].dtype == object
    assert frame["skills"].iloc[0] == rec["skills"]
    assert isinstance(frame["positions"].iloc[0], list)
    assert frame["positions"].iloc[0][0]["organization"] == rec["positions"][0]["organization"]


def test_get_profiles_error_rows(fake_service, tmp_path):
    fake_service.override(PROFILE, FailHandles({"broken-gp"}))
    with make_client(fake_service, cache=tmp_path / "c.sqlite", max_retries=0) as client:
        frame = lp.get_profiles(["broken-gp", "ok-gp"], client=client, progress=False)
        assert frame["lookup_status"].tolist() == ["error", "ok"]
        assert isinstance(frame["lookup_error"].iloc[0], str)
        with pytest.raises(NotFoundError):
            lp.get_profiles(
                ["ok-gp", "unknown-gp-raise"], client=client, errors="raise", progress=False
            )


def test_get_profiles_of_nothing(fake_service, fake_client):
    frame = lp.get_profiles([], client=fake_client, progress=False)
    assert len(frame) == 0
    assert list(frame.columns[:2]) == ["id", "handle"]
    assert "lookup_status" in frame.columns
    assert fake_service.count() == 0


# -- company_employees ---------------------------------------------------------------------------


def test_company_employees_walks_every_page(fake_service, fake_client):
    frame = lp.company_employees("acme", client=fake_client, progress=False)
    assert len(frame) == data.COMPANIES["acme"] == 137
    assert list(frame.columns[:2]) == ["id", "handle"]
    assert frame["id"].is_unique
    assert frame["handle"].tolist() == [r["handle"] for r in data.employees("acme")]
    assert all(
        p[0]["organization"]["slug"] == "acme" and p[0]["is_current"]
        for p in frame["positions"]
        if isinstance(p, list)
    )
    assert str(frame["follower_count"].dtype) in ("int64", "Int64")
    requests = params_of(fake_service, EMPLOYEES)
    assert len(requests) == 3
    assert all(p["limit"] == "50" and p["slug"] == "acme" for p in requests)
    assert [p.get("page", "1") for p in requests] == ["1", "2", "3"]


def test_company_employees_max_records(fake_service, fake_client):
    frame = lp.company_employees("acme", max_records=60, client=fake_client, progress=False)
    assert len(frame) == 60
    assert frame["handle"].tolist() == [r["handle"] for r in data.employees("acme")[:60]]
    assert fake_service.count(EMPLOYEES) == 2


def test_company_employees_limit_is_passed_through(fake_service, fake_client):
    frame = lp.company_employees("umbrella", limit=3, client=fake_client, progress=False)
    assert len(frame) == 7
    requests = params_of(fake_service, EMPLOYEES)
    assert len(requests) == 3 and all(p["limit"] == "3" for p in requests)


def test_company_employees_filters_are_query_params(fake_service, fake_client):
    # Only production's names: a misspelt one is refused (listings/test_filter_checks.py)
    lp.company_employees(
        "acme",
        max_records=10,
        client=fake_client,
        progress=False,
        start_year=2020,
        sort="newest",
    )
    requests = params_of(fake_service, EMPLOYEES)
    assert len(requests) == 1
    assert requests[0]["start_year"] == "2020"
    assert requests[0]["sort"] == "newest"
    assert requests[0]["slug"] == "acme"


def test_company_without_employees_is_an_empty_frame(fake_service, fake_client):
    frame = lp.company_employees("initech", client=fake_client, progress=False)
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == 0
    assert list(frame.columns) == ["id", "handle"]
    assert fake_service.count(EMPLOYEES) == 1


def test_unknown_company_raises_not_found(fake_service, fake_client):
    with pytest.raises(NotFoundError):
        lp.company_employees("unknown-co", client=fake_client, progress=False)
    assert fake_service.count(EMPLOYEES) == 1


def test_company_employees_by_cursor(fake_service, fake_client):
    fake_service.configure(employees_style="cursor")
    frame = lp.company_employees("acme", client=fake_client, progress=False)
    assert frame["handle"].tolist() == [r["handle"] for r in data.employees("acme")]
    requests = params_of(fake_service, EMPLOYEES)
    assert len(requests) == 3
    assert "cursor" not in requests[0] and all("cursor" in p for p in requests[1:])


# -- search_people -------------------------------------------------------------------------------


def test_search_people_walks_cursor_pages(fake_service, fake_client):
    frame = lp.search_people("engineer", max_records=120, client=fake_client, progress=False)
    assert len(frame) == 120
    assert list(frame.columns[:2]) == ["id", "handle"]
    assert frame["id"].is_unique
    assert all(
        any("engineer" in p["title"].lower() for p in positions) for positions in frame["positions"]
    )
    assert frame["handle"].tolist() == [r["handle"] for r in data.search(title="engineer")[:120]]
    requests = params_of(fake_service, SEARCH)
    assert len(requests) == 3
    assert all(p["limit"] == "50" and p["title"] == "engineer" for p in requests)
    assert "cursor" not in requests[0]
    cursors = [p["cursor"] for p in requests[1:]]
    assert all(cursors) and len(set(cursors)) == 2


def test_search_people_filters_are_passed_through(fake_service, fake_client):
    frame = lp.search_people(
        "engineer",
        geo_country_code="DE",
        current_only=True,
        skills="python,sql",
        skills_match="any",
        client=fake_client,
        progress=False,
    )
    expected = data.search(
        title="engineer",
        geo_country_code="DE",
        current_only=True,
        skills="python,sql",
        skills_match="any",
    )
    assert frame["handle"].tolist() == [r["handle"] for r in expected] != []
    assert (frame["geo.country_code"] == "DE").all()
    for p in params_of(fake_service, SEARCH):
        assert p["geo_country_code"] == "DE" and p["skills"] == "python,sql"
        assert p["current_only"] == "true" and p["skills_match"] == "any"  # not "True"


def test_company_employees_filters_are_passed_through(fake_service, fake_client):
    frame = lp.company_employees(
        "acme",
        current_only=False,
        sort="recently_left",
        title="engineer",
        client=fake_client,
        progress=False,
    )
    expected = data.employees("acme", current_only=False, sort="recently_left", title="engineer")
    assert frame["handle"].tolist() == [r["handle"] for r in expected] != []
    assert any(h.startswith("acme-former-") for h in frame["handle"])


def test_search_people_with_no_match_is_an_empty_frame(fake_service, fake_client):
    frame = lp.search_people("astronaut", client=fake_client, progress=False)
    assert len(frame) == 0
    assert list(frame.columns) == ["id", "handle"]
    assert fake_service.count(SEARCH) == 1


def test_list_results_are_cached(fake_service, fake_client):
    first = lp.search_people("designer", max_records=60, client=fake_client, progress=False)
    sent = fake_service.count(SEARCH)
    second = lp.search_people("designer", max_records=60, client=fake_client, progress=False)
    pd.testing.assert_frame_equal(first, second)
    assert fake_service.count(SEARCH) == sent == 2


# -- credits_tier ----------------------------------------------------------------------------------


def test_credits_tier_one_row_never_cached(fake_service, fake_client):
    fake_client.profile("ada-tier")  # the client has learnt its pace: one tier request
    assert fake_service.count(TIER) == 1
    first = lp.credits_tier(client=fake_client)
    second = lp.credits_tier(client=fake_client)
    assert fake_service.count(TIER) == 3  # two calls, two requests: never from the cache
    for frame in (first, second):
        assert len(frame) == 1
        assert "balance" in frame.columns
        assert "current_tier.limit_per_minute" in frame.columns
        assert frame["current_tier.limit_per_minute"].item() == (
            fake_service.knobs.rate_limit_per_minute
        )
    # The balance is the live one (the profile above was billed), not a stored answer.
    assert first["balance"].item() == second["balance"].item() == fake_service.balance


def test_credits_tier_on_a_fresh_client_is_one_request(fake_service, fake_client):
    frame = lp.credits_tier(client=fake_client)
    assert fake_service.count(TIER) == 1  # the pace discovery's answer is the one returned
    assert frame["balance"].item() == fake_service.balance


# -- client=None -----------------------------------------------------------------------------------


@pytest.fixture
def default_on_emulator(fake_service, tmp_path, isolated_default_client):
    return lp.configure(
        api_key=fake_service.api_key,
        base_url=fake_service.base_url,
        cache=tmp_path / "default.sqlite",
        backoff_base=0.01,
        backoff_max=0.2,
        retry_after_max=2.0,
    )


def test_client_none_uses_the_default_client(fake_service, default_on_emulator):
    assert lp.default_client() is default_on_emulator
    profiles = lp.get_profiles(["ada-default"], progress=False)
    assert profiles["id"].item() == person_id("ada-default")
    employees = lp.company_employees("umbrella", progress=False)
    assert len(employees) == 7
    people = lp.search_people("cto", max_records=5, progress=False)
    assert len(people) == 5
    tier = lp.credits_tier()
    assert "balance" in tier.columns
    frame = pd.DataFrame({"handle": ["ada-default", "grace-default"]})
    enriched = frame.lookup.enrich_profiles(progress=False)
    assert enriched["lookup_status"].tolist() == ["ok", "ok"]
    assert frame.lookup.estimate_profiles().cached == 2
    assert fake_service.count(PROFILE) == 2  # ada-default came from the default's cache
    assert default_on_emulator.stats.cache_hits >= 1


def test_python_booleans_and_lists_become_the_services_query_values(fake_service, fake_client):
    frame = lp.search_people(
        "engineer",
        organization_slugs=["acme", "globex"],
        current_only=True,
        max_records=30,
        client=fake_client,
        progress=False,
    )
    sent = params_of(fake_service, SEARCH)[0]
    assert sent["organization_slugs"] == "acme,globex" and sent["current_only"] == "true"
    expected = data.search(title="engineer", organization_slugs="acme,globex", current_only=True)
    assert frame["handle"].tolist() == [r["handle"] for r in expected[:30]] != []
