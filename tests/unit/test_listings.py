"""The listing functions' checks and query values, before anything is sent (no server)."""

from __future__ import annotations

import pytest

import lookup_pandas as lp
from lookup_pandas import api, listings
from lookup_pandas.errors import UsageError
from lookup_pandas.listings import query_value


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


def test_api_still_exports_the_listings():
    for name in ("company_employees", "search_people", "credits_tier", "query_value"):
        assert getattr(api, name) is getattr(listings, name)
        assert name in api.__all__
