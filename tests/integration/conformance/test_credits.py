"""Credit metadata as the SDK reads it (``meta.credit_consumed`` / ``meta.remaining_balance``,
from ``X-Credits-Consumed`` / ``X-Credits-Balance``): numbers on a billed Data API answer, the
route's cost (``account.route_costs()``; a route not listed costs 1); ``None`` on the account
routes and on errors, where production charges nothing and sends no credit headers.
"""

from __future__ import annotations

import pytest

from lookup_pandas.service.endpoints import ENDPOINTS

PATH = {name: e.path for name, e in ENDPOINTS.items()}


def test_a_billed_answer_says_what_it_cost_and_what_is_left(sdk, fake_service):
    costs = {c.route: c.credits_cost for c in sdk.account.route_costs()}
    left = sdk.account.balance().balance
    answers = {
        PATH["profile"]: sdk.data.people.retrieve(handle="ada"),
        PATH["company"]: sdk.data.companies.retrieve(slug="acme"),
        PATH["people_search"]: sdk.data.people.search(title="cto"),
        PATH["companies_search"]: sdk.data.companies.search(name="labs"),
        PATH["employees"]: sdk.data.companies.employees("acme"),
        PATH["institution"]: sdk.data.institutions.retrieve("mit"),
        PATH["institutions_search"]: sdk.data.institutions.search("univ"),
        PATH["alumni"]: sdk.data.institutions.alumni("mit"),
        PATH["job_changes"]: sdk.data.job_changes.search(days_ago=30),
    }
    for path, answer in answers.items():
        cost = costs.get(path, 1)
        assert answer.meta.credit_consumed == cost, path
        left -= cost
        assert answer.meta.remaining_balance == left, path
    assert costs[PATH["company"]] == 2  # one route that is not 1 among them
    assert fake_service.balance == left


def test_a_billed_not_found_says_what_it_cost(fake_service, sdk_for):
    envelope = sdk_for(fake_service, unwrap_data_obj=False)  # the envelope and its meta, not None
    missed = envelope.data.people.retrieve(handle="unknown-zed")
    assert (missed.success, missed.error_code) == (False, "1010")
    assert missed.meta.credit_consumed == 1
    assert missed.meta.remaining_balance == fake_service.balance


ACCOUNT = {
    "balance": lambda r: r.account.balance(),
    "tier": lambda r: r.account.tier(),
    "tiers": lambda r: r.account.tiers(),
    "route_costs": lambda r: r.account.route_costs(),
}


@pytest.mark.parametrize("method", ACCOUNT)
def test_the_account_routes_send_no_credit_headers(sdk, method):
    meta = ACCOUNT[method](sdk).meta
    assert meta.status_code == 200
    assert (meta.credit_consumed, meta.remaining_balance) == (None, None)


def profile(handle: str):
    return lambda r: r.data.people.retrieve(handle=handle)


ERRORS = {  # (knobs, key, call); key None: the emulator's, "": none
    "400 bad filter": ({}, None, lambda r: r.data.institutions.search("ab")),
    "401 no key": ({}, "", profile("ada")),
    "403 invalid key": ({}, "lk_test_" + "0" * 32, profile("ada")),
    "403 opted out": ({"opted_out": {"grace"}}, None, profile("grace")),
    "402 no credits": ({"balance": 0}, None, profile("ada")),
    "404 unknown job": (
        {},
        None,
        lambda r: r.raw_request("GET", "/people/batch/enrich", params={"job_id": "job_x"}),
    ),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_send_no_credit_headers(fake_service, sdk_for, case):
    knobs, key, call = ERRORS[case]
    fake_service.configure(**knobs)
    answer = call(sdk_for(fake_service, key, unwrap_data_obj=False))  # the envelope, not raised
    assert answer.success is False and answer.meta.status_code == int(case[:3])
    assert (answer.meta.credit_consumed, answer.meta.remaining_balance) == (None, None)
