"""The account routes through the SDK (``X-AUTHAPI-Key``, trailing slashes: the SDK's own), as
production's ``account-api.md`` describes them: the balance, the tier and its neighbours on the
ladder, the Enterprise balance (an Enterprise key only), the public ladder and route costs.
"""

from __future__ import annotations

import pytest
import renidly

from lookup_pandas.testing import FakeService

from ..conftest import QUIET_BURST

#: account-api.md, "Current ladder (verified)": name, credits range, calls a minute, credits a $.
LADDER = [
    ("Testing", 0, 99, 7, 100),
    ("Hobby", 100, 9_999, 30, 120),
    ("Developer", 10_000, 29_999, 70, 185),
    ("Startup", 30_000, 59_999, 90, 210),
    ("Growth", 60_000, 99_999, 150, 270),
    ("Scale", 100_000, 299_999, 250, 345),
    ("Business", 300_000, 599_999, 350, 355),
    ("Ultra", 600_000, 999_999, 450, 375),
    ("Strategic Partner", 1_000_000, None, 550, 400),
]


def rung(name: str) -> dict:
    """A ladder tier as ``current_tier`` / ``previous_tier`` show it."""
    _, low, high, limit, _ = next(t for t in LADDER if t[0] == name)
    return {"name": name, "min_credits": low, "max_credits": high, "limit_per_minute": limit}


def test_balance(sdk, fake_service):
    before = sdk.account.balance()
    assert before.model_dump() == {"balance": fake_service.balance}
    sdk.data.people.retrieve(handle="ada")
    assert sdk.account.balance().balance == before.balance - 1


def test_tier_shape(sdk, fake_service):
    tier = sdk.account.tier().model_dump()
    assert set(tier) >= {"balance", "credits_per_dollar", "current_tier", "next_tier",
                         "previous_tier"}  # fmt: skip
    assert set(tier["current_tier"]) >= {"name", "min_credits", "max_credits", "limit_per_minute"}
    assert tier["current_tier"]["limit_per_minute"] == fake_service.state.limit_per_minute()
    assert tier["next_tier"] is None or "credits_needed" in tier["next_tier"]
    assert tier["balance"] == fake_service.balance


def test_tier_on_productions_ladder(sdk_for):
    with FakeService(tier_follows_balance=True, balance=250_000, rate_burst=QUIET_BURST) as svc:
        tier = sdk_for(svc).account.tier()
    assert tier.model_dump() == {
        "balance": 250_000,
        "credits_per_dollar": 345,
        "current_tier": rung("Scale"),
        "next_tier": {**rung("Business"), "credits_needed": 50_000},
        "previous_tier": rung("Growth"),
    }


def test_enterprise_balance_and_tier(sdk_for):
    with FakeService(enterprise_limit_per_minute=500, rate_burst=QUIET_BURST) as svc:
        account = sdk_for(svc).account
        balance = account.enterprise_balance()
        tier = account.tier().model_dump()
        assert balance.balance == svc.balance
    # the SDK's reading (its rate limiter's): a fixed top-level limit and no current tier
    assert tier["limit_per_minute"] == 500 and tier.get("current_tier") is None


def test_enterprise_balance_with_a_personal_key(sdk):
    with pytest.raises(renidly.AuthenticationError) as caught:
        sdk.account.enterprise_balance()
    assert caught.value.status_code == 403 and "Invalid API key" in caught.value.message


def test_tiers_are_productions_ladder(sdk):
    tiers = sdk.account.tiers()
    assert not tiers.has_more
    shown = [(t.name, t.min_credits, t.max_credits, t.limit_per_minute, t.credits_per_dollar)
             for t in tiers]  # fmt: skip
    assert shown == LADDER
    assert all(set(t.model_dump()) == {"id", *rung(t.name), "credits_per_dollar"} for t in tiers)


def test_route_costs(sdk, fake_service):
    costs = sdk.account.route_costs()
    assert all(set(c.model_dump()) == {"route", "title", "description", "credits_cost"}
               for c in costs)  # fmt: skip
    shown = {c.route: c.credits_cost for c in costs}
    assert all(type(cost) is int and cost != 1 for cost in shown.values())  # only those not 1
    assert shown == {"/" + route: cost for route, cost in fake_service.knobs.route_costs.items()}
