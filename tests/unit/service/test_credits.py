"""Unit tests for lookup_pandas.service.credits, pure: route costs, the tier ladder, where a
balance sits and how a job moves on it, and the time a job takes as the tier drops."""

from __future__ import annotations

from typing import Any

import pytest

from lookup_pandas.errors import ResponseError
from lookup_pandas.service.credits import (
    BALANCE_PATH,
    ROUTE_COSTS_PATH,
    TIERS_PATH,
    RouteCosts,
    Tier,
    parse_ladder,
    tier_change,
    tier_for,
)
from lookup_pandas.service.endpoints import is_panel
from lookup_pandas.service.paths import PROFILE_PATH

PRODUCTION = [
    ("Testing", 0, 99, 7),
    ("Hobby", 100, 9_999, 30),
    ("Developer", 10_000, 29_999, 70),
    ("Startup", 30_000, 59_999, 90),
    ("Growth", 60_000, 99_999, 150),
    ("Scale", 100_000, 299_999, 250),
    ("Business", 300_000, 599_999, 350),
    ("Ultra", 600_000, 999_999, 450),
    ("Strategic Partner", 1_000_000, None, 550),
]


def _payload(rungs: list[tuple[str, float, float | None, float]]) -> dict[str, Any]:
    return {
        "results": [
            {"id": i, "name": n, "min_credits": lo, "max_credits": hi, "limit_per_minute": rate}
            for i, (n, lo, hi, rate) in enumerate(reversed(rungs))  # any order: sorted on read
        ]
    }


LADDER = parse_ladder(_payload(PRODUCTION))


# -- route costs --------------------------------------------------------------------------------


def test_a_listed_route_costs_its_cost_and_any_other_one():
    costs = RouteCosts.from_payload(
        {
            "count": 3,
            "routes": [
                {"route": "/api/data/v1/companies/company/", "credits_cost": 2},
                {"route": "/api/data/v1/people/batch/enrich", "credits_cost": 0},
                {"route": "organization/enrich", "credits_cost": 3},
            ],
        }
    )
    assert costs.cost_of("/api/data/v1/companies/company") == 2.0  # slashes do not matter
    assert costs.cost_of("/api/data/v1/companies/company?slug=acme") == 2.0
    assert costs.cost_of("/api/data/v1/people/batch/enrich/") == 0.0  # free is 0, not 1
    assert costs.cost_of("/prefix/api/v2/organization/enrich") == 3.0  # a short listed path
    assert costs.cost_of(PROFILE_PATH) == 1.0  # not listed: 1
    assert costs.cost_of("/api/data/v1/xorganization/enrich") == 1.0  # whole segments only
    assert RouteCosts().cost_of(PROFILE_PATH) == 1.0


def test_malformed_costs_items_are_skipped_and_a_missing_list_refused():
    costs = RouteCosts.from_payload(
        {
            "routes": [
                {"route": "/a/", "credits_cost": -1},  # no negative cost
                {"route": "/b/", "credits_cost": True},  # not a number
                {"route": 7, "credits_cost": 2},
                "junk",
                {"route": "/c/", "credits_cost": 0.5},
            ]
        }
    )
    assert costs.costs == {"c": 0.5}
    with pytest.raises(ResponseError):
        RouteCosts.from_payload({"data": []})
    with pytest.raises(ResponseError):
        RouteCosts.from_payload(None)


# -- the ladder -----------------------------------------------------------------------------------


def test_the_ladder_is_read_lowest_first_with_no_top_on_the_last():
    assert [t.name for t in LADDER][:3] == ["Testing", "Hobby", "Developer"]
    assert LADDER[-1].max_credits is None and LADDER[0].limit_per_minute == 7.0
    assert str(LADDER[2]) == "Developer (70/min)"
    with pytest.raises(ResponseError, match="malformed"):
        parse_ladder({"results": [{"name": "x", "min_credits": "lots"}]})
    with pytest.raises(ResponseError):
        parse_ladder({"tiers": []})


@pytest.mark.parametrize(
    ("balance", "name"),
    [
        (0, "Testing"),
        (99, "Testing"),
        (99.5, "Testing"),
        (100, "Hobby"),
        (9_999, "Hobby"),
        (10_000, "Developer"),
        (1_000_000, "Strategic Partner"),
        (10**9, "Strategic Partner"),
        (-5, "Testing"),  # below every tier: the lowest
    ],
)
def test_tier_for(balance, name):
    tier = tier_for(balance, LADDER)
    assert tier is not None and tier.name == name


def test_no_ladder_no_tier():
    assert tier_for(100, ()) is None
    assert tier_change((), 10_050, 100) is None


def test_tier_change_names_the_end_tier_when_and_its_limit():
    # 10,050 - 10,000 + 1: the 51st credit drops the key below Developer's floor
    assert tier_change(LADDER, 10_050, 100) == (
        "Developer (70/min) -> Hobby (30/min) after 51 credits"
    )
    assert tier_change(LADDER, 10_050, 50) is None  # ends on 10,000: still Developer
    assert tier_change(LADDER, 10_050, 51) is not None  # 9,999: Hobby
    assert tier_change(LADDER, 10_050, 0) is None
    assert tier_change(LADDER, 5_000, 4_000) is None  # within Hobby
    # more than one tier down: named by where it ends, counted from the first boundary
    assert tier_change(LADDER, 30_500, 25_000) == (
        "Startup (90/min) -> Hobby (30/min) after 501 credits"
    )
    assert tier_change(LADDER, 1_500_000, 1_000_000) == (
        "Strategic Partner (550/min) -> Business (350/min) after 500,001 credits"
    )


def test_the_issue_ladder_slow_and_fast():
    ladder = parse_ladder(_payload([("Slow", 0, 99, 120), ("Fast", 100, None, 1200)]))
    assert tier_change(ladder, 130, 100) == "Fast (1200/min) -> Slow (120/min) after 31 credits"
    assert tier_change(ladder, 130, 30) is None


def test_a_tier_prints_a_fractional_limit():
    assert str(Tier("Custom", 0, None, 7.5)) == "Custom (7.5/min)"


def test_the_credits_routes_are_panel_routes():
    # never cached, never paced
    assert all(is_panel(p) for p in (ROUTE_COSTS_PATH, TIERS_PATH, BALANCE_PATH))


def test_one_credit_is_singular():
    assert tier_change(LADDER, 10_000, 1) == "Developer (70/min) -> Hobby (30/min) after 1 credit"


# -- issue 30: times that follow the tier, batch routes in the costs ------------------------------


def test_paced_seconds_follows_the_tier_down():
    from lookup_pandas.service.credits import Tier, paced_seconds

    ladder = (Tier("Low", 0, 99, 120), Tier("High", 100, None, 1200))
    assert paced_seconds(60, 60.0) == 60.0  # no balance: the pace alone
    # 120 credits: 21 calls at the learned pace (1140/min), then 39 at 95% of Low's 120/min
    expected = 21 * 60 / 1140 + 39 * 60 / 114
    assert paced_seconds(60, 1140.0, balance=120, ladder=ladder) == pytest.approx(expected)
    # at 2 credits a call, 11 calls stay on High (22 credits reach 98)
    two = 11 * 60 / 1140 + 49 * 60 / 114
    assert paced_seconds(60, 1140.0, cost=2.0, balance=120, ladder=ladder) == pytest.approx(two)
    # a user's own cap holds on every tier
    assert paced_seconds(10, 60.0, balance=120, ladder=ladder) == pytest.approx(10.0)


def test_route_costs_tell_whether_the_service_lists_its_batch_routes():
    from lookup_pandas.enrichment.plan import batch_told
    from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
    from lookup_pandas.service.paths import BATCH_PATH, COMPANY_BATCH_PATH

    listed = RouteCosts({BATCH_PATH.strip("/"): 0.0})
    assert listed.lists(BATCH_PATH) and not listed.lists(COMPANY_BATCH_PATH)
    assert batch_told(None, listed, PEOPLE) is True
    assert batch_told(None, listed, COMPANIES) is False
    assert batch_told(None, None, PEOPLE) is None  # costs not read: not known
    assert batch_told(False, listed, PEOPLE) is False  # what a submit told wins
