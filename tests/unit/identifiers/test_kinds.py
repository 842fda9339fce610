"""Unit tests for lookup_pandas.identifiers.kinds: the kinds the engine buys (pure)."""

from __future__ import annotations

import pytest

from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
from lookup_pandas.service.endpoints import COMPANY_PATH, PROFILE_PATH


def test_each_kind_sends_ids_as_id_and_anything_else_as_its_key():
    assert PEOPLE.endpoint.path == PROFILE_PATH
    assert PEOPLE.params("prsn_1a2b") == {"id": "prsn_1a2b"}
    assert PEOPLE.params("ada") == {"handle": "ada"}
    assert COMPANIES.endpoint.path == COMPANY_PATH
    assert COMPANIES.params("org_9F") == {"id": "org_9F"}
    assert COMPANIES.params("acme") == {"slug": "acme"}
    assert COMPANIES.endpoint.not_found == "1020"
    assert COMPANIES.endpoint.results == "companies"


def test_invalid_errors_name_the_kind():
    assert PEOPLE.invalid_error("") == "invalid handle: empty"
    assert COMPANIES.invalid_error("") == "invalid company: empty"


def test_messages_name_the_values_of_each_kind():
    assert (PEOPLE.noun, PEOPLE.nouns) == ("handle", "handles")
    assert (COMPANIES.noun, COMPANIES.nouns) == ("company", "companies")


def test_a_records_names_are_its_id_and_its_handle_or_slug_as_looked_up():
    assert PEOPLE.names({"id": "prsn_AbC", "handle": "Ada-Lovelace"}) == (
        "prsn_AbC",
        "ada-lovelace",
    )
    assert COMPANIES.names({"id": "org_1", "slug": "ACME", "name": "Acme"}) == ("org_1", "acme")
    assert PEOPLE.names({"id": None, "handle": "", "first_name": "Ada"}) == ()
    assert PEOPLE.is_id("prsn_1") and not PEOPLE.is_id("ada") and COMPANIES.is_id("org_1")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("   ", "empty"),
        (None, "missing"),
        ("N/A", "missing"),
        ("na", "too short (min 3 characters)"),
        ("a b", "contains whitespace or control characters"),
    ],
)
def test_an_invalid_value_says_why(value, reason):
    assert PEOPLE.invalid_error(value) == f"invalid handle: {reason}"


def test_the_jobs_case_folding_decides_what_a_value_normalises_to():
    # unfolded, "#NA" is a spelling of a missing value; folded to "#na" it is not, and its "#"
    # is what is wrong
    assert PEOPLE.invalid_error("@#NA") == (
        "invalid handle: contains '#' (letters, digits, '-', '_', '.' only)"
    )
    assert PEOPLE.invalid_error("@#NA", fold_case=False) == (
        "invalid handle: normalises to a missing-value string"
    )
