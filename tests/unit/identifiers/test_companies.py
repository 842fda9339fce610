"""Company values and people's ids: what is sent for what an account list holds (pure)."""

from __future__ import annotations

import math

import pytest

from lookup_pandas.errors import UsageError
from lookup_pandas.identifiers.companies import (
    checked_companies,
    checked_company,
    company_invalid_reason,
    is_company_id,
    names_one_company,
    normalise_company,
)
from lookup_pandas.identifiers.handles import looks_like_url, normalise_handle


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


@pytest.mark.parametrize(
    ("value", "sent"),
    [
        ("ACME", ["acme"]),
        ("ACME, linkedin.com/company/globex", ["acme", "globex"]),
        ("acme,,Acme, ", ["acme"]),  # blank pieces skipped, duplicates dropped
        (["Acme", "https://www.linkedin.com/company/acme/", "org_X1"], ["acme", "org_X1"]),
        (("hooli",), ["hooli"]),
        ({"globex", "ACME"}, ["acme", "globex"]),  # a set: a stable order
    ],
)
def test_checked_companies(value, sent):
    assert checked_companies(value) == sent


def test_checked_companies_one_value_is_not_split():
    assert checked_companies(" Acme ", many=False) == ["acme"]
    with pytest.raises(UsageError, match="'acme,globex' is not a company"):
        checked_companies("acme,globex", many=False)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("acme, x", "'x' is not a company slug, id or page URL: too short"),
        (["acme", "https://acme.com"], "a URL without /company/<slug>"),
        (["acme", None], "None is not a company slug, id or page URL: missing"),
        ("", "'' names no company"),
        (" , ", "names no company"),
        ([], r"\[\] names no company"),
    ],
)
def test_checked_companies_refuses_any_that_is_no_company(value, message):
    with pytest.raises(UsageError, match=message):
        checked_companies(value)


@pytest.mark.parametrize(
    ("value", "is_id"), [("org_9F3a", True), ("acme", False), ("org-x", False)]
)
def test_is_company_id(value, is_id):
    assert is_company_id(value) is is_id


@pytest.mark.parametrize(
    ("text", "one"),
    [
        ("https://www.linkedin.com/company/acme/", True),
        ("linkedin.com/company/acme", True),
        (" org_9F3a ", True),
        ("https://acme.com", True),  # written as a URL: read as one (and refused as no company)
        ("www.acme.com", True),
        ("acme", False),
        ("acme labs", False),
        ("Org Tools", False),
    ],
)
def test_names_one_company(text, one):
    assert names_one_company(text) is one


def test_looks_like_url_reads_the_segment():
    assert looks_like_url("example.com/in/ada") and not looks_like_url(
        "example.com/in/ada", "company"
    )
    assert looks_like_url("HTTP://x") and not looks_like_url("ada")
