"""The credits facts read through a Client: each Client keeps its own on its parts
(ClientParts.public_facts), no module keeps them (MockTransport, no server)."""

from __future__ import annotations

import weakref
from typing import Any

import lookup_pandas as lp
from lookup_pandas.client import credits as credit_facts
from lookup_pandas.client.credits import PublicFacts
from lookup_pandas.service.credits import ROUTE_COSTS_PATH, TIERS_PATH, RouteCosts
from lookup_pandas.testing import MockTransport, envelope

COSTS = {"routes": [{"route": "/api/data/v1/people/profile", "credits_cost": 2}]}


def _service(request: Any) -> tuple[int, dict[str, Any]]:
    url = request.url or ""
    if ROUTE_COSTS_PATH in url:
        return 200, envelope(COSTS)
    if "/credits/tier/k/" in url:
        return 200, envelope({"balance": 5, "current_tier": {"limit_per_minute": 6000}})
    return 404, envelope(None, success=False, message="Not found")


def _client(transport: MockTransport) -> lp.Client:
    return lp.Client(
        api_key="lk_test_unit", base_url="http://service.test", cache=False, transport=transport
    )


def test_each_client_reads_its_public_credit_facts_once_and_keeps_them_on_its_parts():
    transport = MockTransport(_service)
    with _client(transport) as first, _client(transport) as second:
        assert credit_facts.kept_costs(first) is None  # nothing read yet, nothing sent
        assert credit_facts.route_costs(first) == RouteCosts({"api/data/v1/people/profile": 2})
        assert credit_facts.route_costs(first).cost_of("/api/data/v1/people/profile") == 2.0
        assert first._parts.public_facts.has(ROUTE_COSTS_PATH)
        assert credit_facts.kept_costs(second) is None  # the other Client read nothing
        assert not second._parts.public_facts.has(ROUTE_COSTS_PATH)
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
