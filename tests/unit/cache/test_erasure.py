"""Unit tests for cache.erasure: which handles an erasure is about (normalised as enrichment
does; a value that is no handle stops everything) and which answers mention them (the URL's
``handle`` or any ``"handle"`` in the body)."""

from __future__ import annotations

import json

import pytest

from lookup_pandas.cache.erasure import handles_in, kind_of, mentioned, wanted_handles
from lookup_pandas.errors import UsageError
from lookup_pandas.service.paths import PROFILE_PATH, SEARCH_PATH
from lookup_pandas.testing import envelope

BASE = "http://service.test"


# -- which handles ------------------------------------------------------------------------------


def test_wanted_handles_are_normalised_as_enrichment_does_each_once_in_order():
    values = ["Ada-Lovelace", " https://www.example.com/in/ada-lovelace/?x=1", "@Grace", "grace"]
    assert wanted_handles(values) == ("ada-lovelace", "grace")
    assert wanted_handles("https://www.example.com/in/Linus/") == ("linus",)  # one string: one
    assert wanted_handles(["Ada", "ada"], fold_case=False) == ("Ada", "ada")
    assert wanted_handles([]) == ()


def test_a_value_that_is_no_handle_stops_everything_and_is_named():
    with pytest.raises(UsageError) as caught:
        wanted_handles(["ada", "N/A", "   ", "https://www.example.com/company/acme"])
    text = str(caught.value)
    assert "'N/A' (missing)" in text and "'   ' (empty)" in text
    assert "without /in/<handle>" in text and "Nothing was erased" in text
    with pytest.raises(UsageError, match="and 1 more"):
        wanted_handles(["", " ", "NA", "null"])


# -- which answers mention them -------------------------------------------------------------------


def test_handles_in_walks_every_object_of_a_json_body():
    body = {
        "data": [{"handle": "ada", "positions": [{"organization": {"handle": "nested"}}]}],
        "profiles": {"x": {"handle": "grace"}, "y": {"handle": 7}},
        "handle": "top",
    }
    assert sorted(handles_in(body)) == ["ada", "grace", "nested", "top"]
    assert list(handles_in(None)) == [] and list(handles_in("ada")) == []


def test_mentioned_by_the_url_parameter_or_anywhere_in_the_body():
    forgotten = frozenset({"ada", "jürgen"})
    url = f"{BASE}{PROFILE_PATH}?handle=Ada"
    assert mentioned([url], b"", forgotten) == {"ada"}  # folded, as enrichment sends it
    assert mentioned([url], b"", forgotten, fold_case=False) == set()
    encoded = f"{BASE}{PROFILE_PATH}?handle=j%C3%BCrgen"
    assert mentioned([encoded], b"not json", forgotten) == {"jürgen"}
    page = json.dumps(envelope([{"handle": "linus"}, {"handle": "J\u00fcrgen"}])).encode()
    assert mentioned([f"{BASE}{SEARCH_PATH}?title=x"], page, forgotten) == {"jürgen"}
    other = json.dumps(envelope([{"handle": "linus", "summary": "knows ada"}])).encode()
    assert mentioned([f"{BASE}{SEARCH_PATH}?title=ada"], other, forgotten) == set()
    assert mentioned([], b"\xff\xfe", forgotten) == set()


def test_a_person_id_is_mentioned_by_the_url_or_any_record_holding_it():
    forgotten = frozenset({"prsn_1a2b"})
    assert mentioned([f"{BASE}{PROFILE_PATH}?id=PRSN_1A2B"], b"", forgotten) == {"prsn_1a2b"}
    record = json.dumps(envelope({"id": "prsn_1a2b", "handle": "ada"})).encode()
    by_handle = f"{BASE}{PROFILE_PATH}?handle=ada"
    assert mentioned([by_handle], record, forgotten) == {"prsn_1a2b"}
    assert mentioned([by_handle], record, frozenset({"ada"})) == {"ada"}
    # an id that is not a person's (a company's, an event's) names no one
    company = json.dumps(envelope({"id": "org_1a2b", "slug": "acme"})).encode()
    assert mentioned([f"{BASE}/v1/companies/company?id=org_1a2b"], company,
                     frozenset({"org_1a2b"})) == set()  # fmt: skip
    assert list(handles_in({"person": {"id": "prsn_9"}, "id": "jce_1"})) == ["prsn_9"]


def test_kind_of_an_answer_is_profile_or_page():
    assert kind_of(f"{BASE}/prefix{PROFILE_PATH}?handle=ada") == "profile"
    assert kind_of(f"{BASE}{SEARCH_PATH}?title=x") == "page"
