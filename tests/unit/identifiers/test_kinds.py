"""Unit tests for lookup_pandas.identifiers.kinds: the kinds the engine buys (pure)."""

from __future__ import annotations

import pytest

from lookup_pandas.identifiers.kinds import (
    BY_PATH,
    COMPANIES,
    FIND,
    FIND_BY_PROFILE,
    PEOPLE,
    REVERSE,
    VERIFY,
)
from lookup_pandas.service.paths import (
    COMPANY_PATH,
    EMAIL_FIND_PATH,
    EMAIL_FIND_PROFILE_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
    PROFILE_PATH,
)


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


def test_each_email_lookup_is_a_kind_sent_as_the_service_takes_it():
    assert FIND.params(FIND.normalise((" Jane ", "DOE", "https://www.acme.com/x"))) == {
        "first_name": "jane",
        "last_name": "doe",
        "domain": "acme.com",
    }
    assert VERIFY.params(VERIFY.normalise(" Jane@ACME.com")) == {"email": "Jane@acme.com"}
    assert REVERSE.params("jane@acme.com") == {"email": "jane@acme.com"}
    assert FIND_BY_PROFILE.params(FIND_BY_PROFILE.normalise("linkedin.com/in/Jane")) == {
        "url": "jane"
    }
    paths = {EMAIL_FIND_PATH, EMAIL_FIND_PROFILE_PATH, EMAIL_REVERSE_PATH, EMAIL_VERIFY_PATH}
    assert {k.endpoint.path for k in (FIND, FIND_BY_PROFILE, REVERSE, VERIFY)} == paths
    assert paths <= set(BY_PATH)


def test_each_kind_keeps_its_stored_batch_jobs_apart_from_every_other_kind_s():
    kinds = (PEOPLE, COMPANIES, FIND, FIND_BY_PROFILE, REVERSE, VERIFY)
    assert len({k.tag for k in kinds}) == len(kinds)
    assert all(k.tag.endswith(":") for k in kinds if k is not PEOPLE)


def test_an_email_answer_s_email_field_is_named_address_in_the_columns():
    answer = {"email": "jane@acme.com", "found": True}
    for kind in (FIND, FIND_BY_PROFILE, VERIFY, REVERSE):
        assert kind.record(answer) == {"address": "jane@acme.com", "found": True}
        assert "address" in kind.fields
    assert PEOPLE.record(answer) is answer


def test_email_refusals_and_messages_name_what_was_expected():
    assert FIND.invalid_error(("Jane", "", "acme.com")) == "invalid query: last name: empty"
    assert VERIFY.invalid_error("jane") == "invalid address: no @"
    assert (VERIFY.nouns, FIND.nouns, FIND_BY_PROFILE.nouns) == ("addresses", "queries", "profiles")
