"""The listing functions' checks and query values, before anything is sent (no server)."""

from __future__ import annotations

import pytest

import lookup_pandas as lp
from lookup_pandas.api import listings
from lookup_pandas.api.listings import company_query, query_value
from lookup_pandas.errors import UsageError
from lookup_pandas.service.listings import EMPLOYEES, JOB_CHANGES, SEARCH


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        (True, "true"),
        (False, "false"),
        (["acme", "globex"], "acme,globex"),
        (("sql",), "sql"),
        ({"b", "a"}, "a,b"),
        ([True, 2], "true,2"),
        (2020, 2020),
        ("DE", "DE"),
    ],
)
def test_query_value(value, sent):
    assert query_value(value) == sent


@pytest.mark.parametrize("function", [lp.company_employees, lp.search_people])
def test_a_frame_that_is_neither_pandas_nor_polars_is_refused(function):
    with pytest.raises(UsageError, match="frame must be one of 'pandas', 'polars'"):
        function("acme", frame="arrow")  # type: ignore[call-overload]


def test_a_misspelt_filter_is_refused_before_a_client_is_built(monkeypatch):
    monkeypatch.setattr(listings, "resolve_client", pytest.fail)
    with pytest.raises(UsageError, match="geo_country_code"):
        lp.company_employees("acme", geo_contry_code="DE")


class _NoClient:
    """A client that must not be used: a slug or URL needs no lookup."""

    def __getattr__(self, name: str) -> None:
        pytest.fail(f"client.{name} used for a value that needs no lookup")


@pytest.mark.parametrize(
    ("listing", "params", "sent"),
    [
        (EMPLOYEES, {"slug": " https://www.linkedin.com/company/Acme/?trk=x "}, {"slug": "acme"}),
        (EMPLOYEES, {"slug": "ACME", "title": "cto"}, {"slug": "acme", "title": "cto"}),
        (SEARCH, {"organization_slugs": "ACME, hooli,acme"}, {"organization_slugs": "acme,hooli"}),
        (SEARCH, {"organization_slugs": None}, {"organization_slugs": None}),
        (
            JOB_CHANGES,
            {"organization_ids": ["org_A1", " org_B2 "]},
            {"organization_ids": "org_A1,org_B2"},
        ),
        (JOB_CHANGES, {"days_ago": 30}, {"days_ago": 30}),
    ],
)
def test_company_query_sends_each_company_as_its_endpoint_takes_it(listing, params, sent):
    assert company_query(listing, params, _NoClient()) == sent  # type: ignore[arg-type]


def test_company_query_leaves_the_callers_params_alone():
    params = {"slug": "ACME"}
    company_query(EMPLOYEES, params, _NoClient())  # type: ignore[arg-type]
    assert params == {"slug": "ACME"}


def test_a_company_that_is_none_is_refused_before_a_client_is_built(monkeypatch):
    monkeypatch.setattr(listings, "resolve_client", pytest.fail)
    with pytest.raises(UsageError, match="a URL without /company/<slug>. Nothing was sent."):
        lp.company_employees("https://acme.com")
