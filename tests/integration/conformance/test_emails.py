"""The SDK's ``emails`` methods on the emulator, as they would run against production: verify,
find, find_by_url, reverse (found, partial, and a 422 raised as the SDK's error for it),
prospects walked with ``auto_paging_iter()``, and both batch jobs collected with ``wait()``.
Each billed answer's credit metadata is its route's cost as ``account.route_costs()`` lists it
(a route not listed costs 1), and the balance it reports is the emulator's.
"""

from __future__ import annotations

import pytest
import renidly

from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.testing import mailboxes

PATH = {name: e.path for name, e in ENDPOINTS.items()}
POLL = {"poll_interval": 0.01, "timeout": 30}
ALAN = {"first_name": "Alan", "last_name": "Turing", "domain": "globex.example"}


@pytest.fixture
def costs(sdk) -> dict[str, float]:
    return {c.route: c.credits_cost for c in sdk.account.route_costs()}


def assert_billed(answer, cost: float, fake_service) -> None:
    assert answer.meta.credit_consumed == cost
    assert answer.meta.remaining_balance == fake_service.balance


def test_verify_find_and_find_by_url_bill_their_listed_costs(sdk, fake_service, costs):
    verdict = sdk.emails.verify("alan.turing@globex.example")
    assert (verdict.deliverable, verdict.reason, verdict.catch_all) == (True, "mailbox_accepts",
                                                                       False)  # fmt: skip
    assert verdict.mx_hosts and costs[PATH["email_verify"]] == 2
    assert_billed(verdict, costs[PATH["email_verify"]], fake_service)

    found = sdk.emails.find(**ALAN)
    assert (found.email, found.found, found.confidence) == ("alan.turing@globex.example", True,
                                                            "high")  # fmt: skip
    assert_billed(found, costs[PATH["email_find"]], fake_service)

    by_url = sdk.emails.find_by_url("https://www.linkedin.com/in/ada/")
    assert (by_url.first_name, by_url.domain, by_url.company) == ("Guido", "acme.example", "Acme")
    assert by_url.email == "gperlman@acme.example" and by_url.found is True
    assert_billed(by_url, costs[PATH["email_find_profile"]], fake_service)
    assert fake_service.stats()["credits"] == 2 + 3 + 5


def test_reverse_found_partial_and_refused(sdk, fake_service, costs):
    full = costs[PATH["email_reverse"]]
    found = sdk.emails.reverse("alan.turing@globex.example")
    assert found.found is True and found.person.full_name == "Alan Turing"
    assert found.current_company.slug == "globex"
    assert_billed(found, full, fake_service)

    nothing = sdk.emails.reverse("jane.doe@nowhere-known.com")
    assert (nothing.found, nothing.person, nothing.current_company) == (False, None, None)
    assert_billed(nothing, 3, fake_service)

    spent = fake_service.stats()["credits"]
    with pytest.raises(renidly.InvalidRequestError) as refused:
        sdk.emails.reverse("jane@gmail.com")
    assert refused.value.status_code == 422
    assert refused.value.field_errors == {"email": "public_provider"}
    assert fake_service.stats()["credits"] == spent == full + 3


def test_prospects_walk_every_page_billed_per_address(sdk, fake_service):
    walked = list(sdk.emails.prospects("acme.example", kind="full").auto_paging_iter())
    expected = mailboxes.prospects("acme.example", verified_only=False)
    assert [p.model_dump() for p in walked] == expected and len(expected) > 20
    assert fake_service.stats()["credits"] == len(expected)  # 1 an address

    first = sdk.emails.prospects("acme.example", kind="verified_only")
    assert len(first) == 20 and first.has_more is True
    assert first.meta.credit_consumed == 2 * 20


def test_verify_batch_wait(sdk, fake_service):
    fake_service.configure(batch_resolve_rate=0)
    emails = ["alan.turing@globex.example", "x@mailinator.com"]
    result = sdk.emails.verify_batch(emails).wait(**POLL)
    assert (result.status, result.total, result.errors) == ("completed", 2, 0)
    rows = {r.matched_input: (r.deliverable, r.reason) for r in result.results}
    assert [r.email for r in result.results] == emails  # as the SDK's docstring reads rows
    assert rows == {emails[0]: (True, "mailbox_accepts"), emails[1]: (False, "disposable")}
    assert fake_service.stats()["credits"] == 2 * 2


def test_find_batch_wait(sdk, fake_service):
    fake_service.configure(batch_resolve_rate=0)
    unfindable = {"first_name": "Ada", "last_name": "Lovelace", "domain": "acme.example"}
    result = sdk.emails.find_batch([ALAN, unfindable]).wait(**POLL)
    assert (result.status, result.total, result.errors) == ("completed", 2, 0)
    assert [(r.query.model_dump(), r.found, r.email) for r in result.results] == [
        (ALAN, True, "alan.turing@globex.example"),
        (unfindable, False, ""),
    ]
    assert fake_service.stats()["credits"] == 2 * 3
