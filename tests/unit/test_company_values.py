"""Company values and people's ids: what is sent for what an account list holds (pure)."""

from __future__ import annotations

import math

import pytest

from lookup_pandas.company_values import checked_company, company_invalid_reason, normalise_company
from lookup_pandas.errors import UsageError
from lookup_pandas.handles import normalise_handle


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        ("acme", "acme"),
        ("  Acme ", "acme"),
        ("ACME", "acme"),
        ("https://www.linkedin.com/company/acme/", "acme"),
        ("https://www.linkedin.com/company/Acme/?trk=x#about", "acme"),
        ("linkedin.com/company/acme", "acme"),
        ("www.linkedin.com/company/acme-corp/about/", "acme-corp"),
        ("hp", "hp"),
        ("org_9F3aZ", "org_9F3aZ"),  # an id: never folded
        (" org_9F3aZ ", "org_9F3aZ"),
    ],
)
def test_company_values_normalise(value, sent):
    assert normalise_company(value) == sent
    assert normalise_company(sent) == sent  # normalising twice changes nothing


def test_fold_case_false_keeps_a_slug_as_written():
    assert normalise_company("Acme", fold_case=False) == "Acme"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (None, "missing"),
        (math.nan, "missing"),
        ("N/A", "missing"),
        ("https://acme.com", "a URL without /company/<slug>"),
        ("https://www.linkedin.com/in/ada/", "a URL without /company/<slug>"),
        ("x", "too short (min 2 characters)"),
        ("sales@acme.com", "an e-mail address"),
    ],
)
def test_values_that_are_no_company_are_refused_with_a_reason(value, reason):
    assert normalise_company(value) is None
    assert company_invalid_reason(value) == reason


def test_checked_company_names_the_value_and_sends_nothing():
    with pytest.raises(UsageError, match="is not a company slug, id or page URL: empty"):
        checked_company("  ")


@pytest.mark.parametrize("value", ["prsn_AbC123", " prsn_AbC123 ", "prsn_abc"])
def test_person_ids_keep_their_case(value):
    assert normalise_handle(value) == value.strip()


def test_handles_still_fold_case_and_profile_urls_still_work():
    assert normalise_handle("https://www.example.com/in/Ada/") == "ada"
    assert normalise_handle("Prsn-Ada") == "prsn-ada"  # not an id: a handle
