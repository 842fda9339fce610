"""Unit tests for lookup_pandas.service.endpoints: the one table of paths, which surface each is on,
and the data each answers with (``Listing`` declarations are checked in
tests/unit/identifiers/test_queries.py)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest

from lookup_pandas.errors import ResponseError
from lookup_pandas.service import endpoints
from lookup_pandas.service.endpoints import ENDPOINTS, checked_data, expected_data, is_panel
from lookup_pandas.service.envelope import Envelope
from lookup_pandas.service.listings import EMPLOYEES, SEARCH
from lookup_pandas.service.paths import (
    BATCH_PATH,
    EMPLOYEES_PATH,
    HEALTH_PATH,
    PANEL_PREFIX,
    PROFILE_PATH,
    SEARCH_PATH,
    TIER_PATH,
)

DATA_PATHS = [PROFILE_PATH, EMPLOYEES_PATH, SEARCH_PATH, HEALTH_PATH, BATCH_PATH]


def envelope(data: Any, request_id: str | None = "req_1", status_code: int = 200) -> Envelope:
    return Envelope(
        data=data,
        message="ok",
        pagination=None,
        request_id=request_id,
        body={"success": True, "data": data},
        status_code=status_code,
    )


# -- the table -------------------------------------------------------------------------------------


def test_every_exported_name_is_defined():
    assert all(hasattr(endpoints, name) for name in endpoints.__all__)


def test_the_data_api_and_the_panel_are_two_surfaces():
    assert all(path.startswith("/api/data/v1/") for path in DATA_PATHS)
    assert TIER_PATH.startswith(PANEL_PREFIX)
    assert len(set(DATA_PATHS + [TIER_PATH])) == len(DATA_PATHS) + 1


def test_each_listing_is_filed_under_its_own_path():
    assert all(e.listing.path == e.path for e in ENDPOINTS.values() if e.listing)
    assert ENDPOINTS["people_search"].listing is SEARCH and SEARCH.path == SEARCH_PATH
    assert ENDPOINTS["employees"].listing is EMPLOYEES and EMPLOYEES.path == EMPLOYEES_PATH
    assert (SEARCH.required, EMPLOYEES.required) == ("", "slug")


# -- is_panel ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "panel"),
    [
        (TIER_PATH, True),
        ("/gateway" + TIER_PATH, True),  # a base URL with a path of its own in front
        *[(path, False) for path in DATA_PATHS],
        ("/gateway" + PROFILE_PATH, False),
        ("/api/panelist/x", False),
    ],
)
def test_is_panel_wherever_the_base_url_puts_it(path, panel):
    assert is_panel(path) is panel


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8080/api/panel/credits/tier/k/", True),
        ("http://127.0.0.1:8080/api/panel/", True),
        ("http://127.0.0.1:8080/api/data/v1/people/profile", False),
        ("http://127.0.0.1:8080/api/data/v1/people/search?q=/api/panel/", False),
        ("", False),
    ],
)
def test_is_panel_of_a_whole_url_path(url, expected):
    assert is_panel(urlsplit(url).path) is expected


# -- expected_data -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (PROFILE_PATH, dict),
        (EMPLOYEES_PATH, list),
        (SEARCH_PATH, list),
        (TIER_PATH, dict),
        (BATCH_PATH, dict),
        (HEALTH_PATH, None),  # answers, but its data is nobody's business
        ("/api/data/v1/people/unknown", None),
        ("", None),
    ],
)
def test_expected_data_by_endpoint(path, kind):
    assert expected_data(path) is kind


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (TIER_PATH.rstrip("/"), dict),
        (PROFILE_PATH + "/", dict),
        ("/gateway" + SEARCH_PATH, list),  # a base URL with a path of its own in front
    ],
)
def test_expected_data_ignores_a_trailing_slash_and_a_prefix(path, kind):
    assert expected_data(path) is kind


# -- checked_data --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "data"),
    [
        (PROFILE_PATH, {"id": "prsn_1"}),
        (SEARCH_PATH, [{"id": "prsn_1"}]),
        (EMPLOYEES_PATH, []),
        (HEALTH_PATH, "anything"),  # a kind nobody declared: handed over as it is
        ("/api/data/v1/else", None),
    ],
)
def test_data_of_the_declared_kind_is_handed_over_as_it_is(path, data):
    env = envelope(data)
    assert checked_data(env, path) is data


@pytest.mark.parametrize(
    ("path", "data", "says"),
    [
        (PROFILE_PATH, [{"id": "prsn_1"}], "is list, not an object"),
        (SEARCH_PATH, {"items": []}, "is dict, not a list"),
        (EMPLOYEES_PATH, None, "is NoneType, not a list"),
        (TIER_PATH, "tier 1", "is str, not an object"),
    ],
)
def test_data_of_another_kind_is_a_response_error_naming_both(path, data, says):
    with pytest.raises(ResponseError) as caught:
        checked_data(envelope(data, request_id="req_9", status_code=200), path)
    error = caught.value
    assert error.message == f"The answer's data for {path} {says}."
    assert "req_9" in str(error)
    assert (error.request_id, error.status_code, error.url) == ("req_9", 200, path)


def test_a_kind_given_wins_over_the_path_and_names_itself_when_not_dict_or_list():
    env = envelope({"id": "prsn_1"})
    assert checked_data(env, "/somewhere", dict) is env.data
    with pytest.raises(ResponseError, match="is dict, not a list"):
        checked_data(env, PROFILE_PATH, list)
    with pytest.raises(ResponseError, match="is dict, not str"):
        checked_data(env, PROFILE_PATH, str)


@pytest.mark.parametrize(
    ("name", "value", "sent"),
    [
        ("profile", "prsn_1a2b", ("id", "prsn_1a2b")),
        ("profile", "ada-lovelace", ("handle", "ada-lovelace")),
        ("company", "org_9z", ("id", "org_9z")),
        ("company", "acme", ("slug", "acme")),
        ("institution", "mit", ("normalized_name", "mit")),
        ("skill", "skl_42", ("id", "skl_42")),
    ],
)
def test_each_value_is_sent_as_its_parameter(name, value, sent):
    assert ENDPOINTS[name].param_for(value) == sent


def test_a_skill_is_looked_up_by_id_only():
    with pytest.raises(ValueError, match="only ids"):
        ENDPOINTS["skill"].param_for("python")


def test_the_table_covers_production_s_data_api():
    """renidly/renidly-skills data-api.md: 16 routes (the batch POST/GET pairs count once)."""
    paths = {e.path.removeprefix("/api/data/v1") for e in ENDPOINTS.values()}
    assert {p for p in paths if not p.startswith("/api/emails/v1")} == {
        "/health", "/people/profile", "/people/search", "/people/batch/enrich",
        "/companies/company", "/companies/search", "/companies/employees",
        "/companies/batch/enrich", "/institutions/institution", "/institutions/search",
        "/institutions/alumni", "/skills/skill", "/skills/search", "/job-changes/search",
    }  # fmt: skip
    lookups = {e.name: e.not_found for e in ENDPOINTS.values() if e.not_found}
    assert lookups == {"profile": "1010", "company": "1020", "skill": "1030", "institution": "1040"}


def test_the_table_covers_production_s_email_api():
    """renidly/renidly-skills email-api.md: 10 routes (the batch POST/GET pairs count once)."""
    paths = {e.path for e in ENDPOINTS.values() if e.path.startswith("/api/emails/v1")}
    assert {p.removeprefix("/api/emails/v1") for p in paths} == {
        "/health", "/verify", "/find", "/find/linkedin", "/reverse", "/prospects",
        "/verify/batch", "/find/batch",
    }  # fmt: skip
    assert ENDPOINTS["email_find"].query("jane\tdoe\tacme.com") == {
        "first_name": "jane", "last_name": "doe", "domain": "acme.com",
    }  # fmt: skip


def test_each_lookup_s_batch_submit_body_is_its_api_s():
    from lookup_pandas.service.paths import FIND_BATCH_PATH, VERIFY_BATCH_PATH

    verify, find = ENDPOINTS["email_verify"], ENDPOINTS["email_find"]
    assert (verify.batch, verify.results, find.batch, find.results) == (
        VERIFY_BATCH_PATH, "results", FIND_BATCH_PATH, "results",
    )  # fmt: skip
    assert verify.batch_body(["Jane@acme.com"]) == {"emails": ["Jane@acme.com"]}
    assert find.batch_body(["jane\tdoe\tacme.com"]) == {
        "queries": [{"first_name": "jane", "last_name": "doe", "domain": "acme.com"}]
    }
    assert ENDPOINTS["company"].batch_body(["acme", "org_1"]) == {
        "ids": ["org_1"], "handles": ["acme"], "enrich_live": False,
    }  # fmt: skip
    priced = {e.name for e in ENDPOINTS.values() if e.batch_priced}
    assert priced == {"email_verify", "email_find"}  # the Data API's items cost 1
    assert ENDPOINTS["email_reverse"].batch is ENDPOINTS["email_find_profile"].batch is None


def test_every_batch_route_is_a_batch_path_wherever_the_base_url_puts_it():
    from lookup_pandas.service.endpoints import is_batch
    from lookup_pandas.service.paths import (
        BATCH_PATH,
        COMPANY_BATCH_PATH,
        COMPANY_PATH,
        PROFILE_PATH,
    )

    for path in (BATCH_PATH, COMPANY_BATCH_PATH):
        assert is_batch(path) and is_batch("/gateway" + path + "/")
        assert is_batch(path + "/job_1")  # a job's own path, as some services poll it
    assert not is_batch(PROFILE_PATH) and not is_batch(COMPANY_PATH)
