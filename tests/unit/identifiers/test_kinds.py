"""Unit tests for lookup_pandas.identifiers.kinds: the kinds the engine buys (pure)."""

from __future__ import annotations

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
