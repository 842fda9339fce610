"""Reading the credits facts through a Client (lookup_pandas.client.credits): a service
without the credits routes, or with a malformed one; each Client keeping its own facts on its
parts (ClientParts.public_facts), no module keeping them. MockTransport, no server."""

from __future__ import annotations

import weakref
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.api import account
from lookup_pandas.api import functions as api
from lookup_pandas.client import credits as credit_facts
from lookup_pandas.client.parts import PublicFacts
from lookup_pandas.enrichment.lookup import estimate_values
from lookup_pandas.errors import ConfigurationError, InsufficientCreditsError, ResponseError
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.service.credits import ROUTE_COSTS_PATH, TIERS_PATH, RouteCosts
from lookup_pandas.service.paths import PROFILE_PATH
from lookup_pandas.testing import MockTransport, envelope

# -- a service without the credits routes ---------------------------------------------------------


def _client(handler: Any) -> lp.Client:
    return lp.Client(
        api_key="lk_test_unit",
        base_url="http://service.test",
        cache=False,
        transport=MockTransport(handler),
    )


def _old_service(request: Any) -> tuple[int, dict[str, Any]]:
    url = request.url or ""
    if "/credits/tier/k/" in url:
        return 200, envelope({"balance": 5, "current_tier": {"limit_per_minute": 6000}})
    if "/api/panel/" in url:
        return 404, envelope(None, success=False, message="Not found")
    return 200, envelope({"id": "prsn_1", "handle": "ada"})


def test_without_the_routes_costs_are_1_and_ladder_and_balance_unknown():
    transport = MockTransport(_old_service)
    client = lp.Client(
        api_key="lk_test_unit", base_url="http://service.test", cache=False, transport=transport
    )
    with client:
        est = estimate_values(["ada", "grace"], client=client, kind=PEOPLE)
        assert (est.credits, est.balance, est.tier_change) == (2.0, None, None)
        assert credit_facts.route_costs(client) == RouteCosts()
        assert credit_facts.ladder(client) == ()
        assert account.tiers(client=client).empty and list(
            account.tiers(client=client).columns
        ) == [
            "name",
            "min_credits",
            "max_credits",
            "limit_per_minute",
            "credits_per_dollar",
        ]
        assert account.route_costs(client=client).empty
        with pytest.raises(ConfigurationError, match="balance"):
            account.balance(client=client)
        sent = [r.url for r in transport.requests]
        assert sum(ROUTE_COSTS_PATH in (u or "") for u in sent) == 1  # kept: read once
        assert sum(TIERS_PATH in (u or "") for u in sent) == 1


def test_a_job_without_the_routes_goes_on():
    def handler(request: Any) -> tuple[int, dict[str, Any]]:
        url = request.url or ""
        if "/credits/tier/k/" in url:  # no balance in the tier either: unknown
            return 200, envelope({"current_tier": {"limit_per_minute": 6000}})
        return _old_service(request)

    with _client(handler) as client:
        out = api.enrich_profiles(
            pd.DataFrame({"handle": ["ada"]}), client=client, progress=False, max_credits=1
        )
    assert out["lookup_status"].tolist() == ["ok"]


def test_the_tier_balance_refuses_a_job_before_its_first_billable_call():
    transport = MockTransport(_old_service)  # the tier says 5 credits; no balance route
    client = lp.Client(
        api_key="lk_test_unit", base_url="http://service.test", cache=False, transport=transport
    )
    with client, pytest.raises(InsufficientCreditsError, match="balance is 5"):
        api.get_profiles([f"person-{i}" for i in range(6)], client=client, progress=False)
    assert not any(PROFILE_PATH in (r.url or "") for r in transport.requests)


def test_a_malformed_credits_answer_is_warned_about_and_the_job_goes_on(caplog):
    def handler(request: Any) -> tuple[int, dict[str, Any]]:
        url = request.url or ""
        if "/api/panel/" in url:  # every panel route answers the tier: no routes, no results
            return 200, envelope({"current_tier": {"limit_per_minute": 6000}})
        return _old_service(request)

    with _client(handler) as client:
        est = estimate_values(["ada"], client=client, kind=PEOPLE)
        out = api.get_profiles(["ada"], client=client, progress=False)
        with pytest.raises(ResponseError):
            account.route_costs(client=client)  # asked for: raised
    assert (est.credits, est.balance, est.tier_change) == (1.0, None, None)
    assert out["lookup_status"].tolist() == ["ok"]
    assert "Could not read a credits fact" in caplog.text


# -- each Client keeps its own facts ----------------------------------------------------------

COSTS = {"routes": [{"route": "/api/data/v1/people/profile", "credits_cost": 2}]}


def _costs_service(request: Any) -> tuple[int, dict[str, Any]]:
    url = request.url or ""
    if ROUTE_COSTS_PATH in url:
        return 200, envelope(COSTS)
    if "/credits/tier/k/" in url:
        return 200, envelope({"balance": 5, "current_tier": {"limit_per_minute": 6000}})
    return 404, envelope(None, success=False, message="Not found")


def _client_on(transport: MockTransport) -> lp.Client:
    return lp.Client(
        api_key="lk_test_unit", base_url="http://service.test", cache=False, transport=transport
    )


def test_each_client_reads_its_public_credit_facts_once_and_keeps_them_on_its_parts():
    transport = MockTransport(_costs_service)
    with _client_on(transport) as first, _client_on(transport) as second:
        assert credit_facts.kept_costs(first) is None  # nothing read yet, nothing sent
        assert credit_facts.route_costs(first) == RouteCosts({"api/data/v1/people/profile": 2})
        assert credit_facts.route_costs(first).cost_of("/api/data/v1/people/profile") == 2.0
        assert first.parts.public_facts.has(ROUTE_COSTS_PATH)
        assert credit_facts.kept_costs(second) is None  # the other Client read nothing
        assert not second.parts.public_facts.has(ROUTE_COSTS_PATH)
        credit_facts.route_costs(second)
    reads = [r.url for r in transport.requests if ROUTE_COSTS_PATH in (r.url or "")]
    assert len(reads) == 2  # once per Client


def test_no_module_keeps_a_client_state():
    assert not any(isinstance(v, weakref.WeakKeyDictionary) for v in vars(credit_facts).values())


def test_public_facts_keep_the_first_answer_and_tell_what_was_read():
    facts = PublicFacts()
    assert not facts.has(TIERS_PATH)
    assert facts.keep(TIERS_PATH, None) is None  # the service has no ladder
    assert facts.keep(TIERS_PATH, {"results": []}) is None  # a second read does not replace it
    assert facts.has(TIERS_PATH) and facts.get(TIERS_PATH) is None
