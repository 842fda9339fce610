"""The Email API's values read as a CRM exports them (issue 41, item 2): one rule per kind of
value, garbage refused with its reason and never sent."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from lookup_pandas.identifiers.emails import address, domain, name, profile, query


@pytest.mark.parametrize(
    "given",
    [
        "acme.com",
        " ACME.com ",
        "www.acme.com",
        "acme.com.",
        "https://www.acme.com/about",
        "http://acme.com:8080/contact?x=1#team",
        "acme.com/jobs",
        "//www.acme.com",
        "jane@acme.com",
        "Jane.Doe@WWW.Acme.com",
    ],
)
def test_a_host_a_website_and_an_address_are_one_domain(given):
    assert domain(given) == ("acme.com", None)


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("", "empty"),
        ("   ", "empty"),
        (None, "empty"),
        (math.nan, "empty"),
        (pd.NA, "empty"),
        (42, "not text"),
        ("localhost", "a domain without a dot"),
        ("www.", "a domain without a dot"),
        ("https://", "empty"),
        ("acme .com", "not a host name"),
        ("-acme.com", "not a host name"),
        ("acme-.com", "not a host name"),
        ("ac_me.com", "not a host name"),
        ("acme..com", "not a host name"),
        ("a" * 64 + ".com", "not a host name"),
    ],
)
def test_what_cannot_be_a_domain_is_refused_with_its_reason(given, reason):
    assert domain(given) == (None, reason)


def test_a_domain_keeps_its_subdomains_and_unicode_labels():
    assert domain("mail.eu.acme.co.uk") == ("mail.eu.acme.co.uk", None)
    # an international domain is sent as DNS takes it, so both spellings are one
    assert domain("Müller.DE") == domain("xn--mller-kva.de") == ("xn--mller-kva.de", None)
    assert address("jörg@Müller.de") == ("jörg@xn--mller-kva.de", None)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (" jane@acme.com ", "jane@acme.com"),
        ("Jane.Doe@ACME.COM", "Jane.Doe@acme.com"),  # the mailbox's own case is kept
        ("jane+crm@sub.acme.io", "jane+crm@sub.acme.io"),
    ],
)
def test_an_address_is_trimmed_and_its_domain_lower_cased(given, expected):
    assert address(given) == (expected, None)


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("", "empty"),
        (None, "empty"),
        (3.5, "not text"),
        ("jane.acme.com", "no @"),
        ("jane@", "no domain after the @"),
        ("@acme.com", "nothing before the @"),
        ("a@b@acme.com", "more than one @"),
        ("jane doe@acme.com", "a space in the address"),
        ("jane@localhost", "a domain without a dot"),
        ("jane@acme..com", "not a host name"),
    ],
)
def test_what_cannot_be_an_address_is_refused_with_its_reason(given, reason):
    assert address(given) == (None, reason)


def test_names_are_trimmed_and_compared_case_blind():
    assert name("  Jane   Marie ") == name("JANE MARIE") == ("jane marie", None)
    assert name(" Jane ", fold_case=False) == ("Jane", None)
    assert name("") == name(None) == (None, "empty")
    assert name(7) == (None, "not text")


def test_a_find_s_three_columns_are_one_value_each_part_by_its_rule():
    spellings = [
        ("Jane", "Doe", "acme.com"),
        (" JANE ", "doe", "https://www.acme.com/about"),
        ("jane", "DOE", "jane.doe@Acme.com"),
    ]
    assert {query(s) for s in spellings} == {("jane\tdoe\tacme.com", None)}


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ((None, "Doe", "acme.com"), "first name: empty"),
        (("Jane", " ", "acme.com"), "last name: empty"),
        (("Jane", "Doe", "localhost"), "domain: a domain without a dot"),
        (("Jane", "Doe"), "not a first name, last name and domain"),
        ("jane@acme.com", "not a first name, last name and domain"),
    ],
)
def test_a_find_with_a_part_missing_or_garbage_is_refused_naming_the_part(given, reason):
    assert query(given) == (None, reason)


def test_no_part_of_a_find_can_hold_the_separator_its_value_is_split_by():
    sent, _ = query(("Mary\tAnn", "Doe", "acme.com"))
    assert sent is not None and sent.split("\t") == ["mary ann", "doe", "acme.com"]


def test_a_profile_url_and_its_handle_are_one_find_and_an_id_is_no_profile():
    assert profile("https://www.linkedin.com/in/Jane-Doe/") == profile("@jane-doe")
    assert profile("jane-doe") == ("jane-doe", None)
    assert profile("prsn_1a2b") == (None, "a person id, not a profile URL or handle")
    assert profile("") == (None, "empty")
