"""The emulator speaks production's errors and credits, spoken to with plain ``requests``.

Per-record 403s (opted out, premium-gated: no error_code, not billed, a batch job's errors),
402 ``1080`` when the balance cannot pay (and the 403 flavours of credits and rate limits; a
batch job stops there with status "error"), per-route costs, the public tier ladder and route
costs, the balance route, the free health route, and a tier that follows the balance down with
its limit enforced.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest
import requests

from lookup_pandas.testing import (
    BALANCE_PATH,
    BATCH,
    HEALTH,
    PROFILE,
    ROUTE_COSTS_PATH,
    TIER,
    TIERS_PATH,
    LadderTier,
    data,
)

DATA_HEADER = "X-service-apikey"
PANEL_HEADER = "X-AUTHAPI-Key"
COMPANY = "/api/data/v1/companies/company"
#: The issue's ladder: Slow (0-99 credits, 120/min) and Fast (100+, 1,200/min).
SLOW_FAST = (LadderTier("Slow", 0, 99, 120), LadderTier("Fast", 100, None, 1200))


def profile(svc, handle, key=None):
    headers = {DATA_HEADER: key or svc.api_key}
    return requests.get(
        svc.base_url + PROFILE, params={"handle": handle}, headers=headers, timeout=10
    )


def panel(svc, path, key=None):
    return requests.get(svc.base_url + path, headers={PANEL_HEADER: key or svc.api_key}, timeout=10)


def public(svc, path, method="GET"):
    return requests.request(method, svc.base_url + path, timeout=10)


def submit(svc, handles, ids=()):
    body = {"ids": list(ids), "handles": list(handles), "enrich_live": False}
    return requests.post(
        svc.base_url + BATCH, json=body, headers={DATA_HEADER: svc.api_key}, timeout=10
    )


def finished(svc, job_id) -> dict:
    """The job's last status (completed, or error: it stopped) with every page's results
    merged (bounded wait)."""
    profiles: dict = {}
    not_found: list = []
    after, deadline = 0, time.monotonic() + 10
    while time.monotonic() < deadline:
        page = requests.get(
            svc.base_url + BATCH,
            params={"job_id": job_id, "after": after},
            headers={DATA_HEADER: svc.api_key},
            timeout=10,
        ).json()["data"]
        profiles.update(page["profiles"])
        not_found += page["not_found"]
        if page["status"] != "processing" and page["next_cursor"] == after:
            return {**page, "profiles": profiles, "not_found": not_found}
        after = page["next_cursor"]
    raise AssertionError("the job did not complete within 10 s")


# -- 1. per-record 403s --------------------------------------------------------------------------


def test_the_per_record_knobs_are_off_by_default(fake_service):
    assert fake_service.knobs.opted_out == frozenset()
    assert fake_service.knobs.premium_gated == frozenset()
    assert profile(fake_service, "ada").status_code == 200


@pytest.mark.parametrize(
    ("knob", "message"),
    [
        ("opted_out", "This person has opted out of data sharing"),
        ("premium_gated", "Premium access is required for this profile"),
    ],
)
def test_a_refused_person_is_a_403_without_a_code_and_not_billed(fake_service, knob, message):
    svc = fake_service
    svc.configure(**{knob: {"grace"}})
    before = svc.balance
    r = profile(svc, "grace")
    body = r.json()
    assert r.status_code == 403
    assert body["success"] is False and body["message"] == message
    assert "error_code" not in body  # auth-layer rejections carry none
    assert "X-Credits-Consumed" not in r.headers  # not charged: no credits' headers
    assert svc.balance == before and svc.billed() == 0
    assert profile(svc, "ada").status_code == 200  # the key is fine


def test_a_person_can_be_refused_by_prsn_id(fake_service):
    person_id = data.person("linus")["id"]
    fake_service.configure(opted_out=[person_id])
    assert profile(fake_service, "linus").status_code == 403
    assert profile(fake_service, "ada").status_code == 200


def test_40_handles_one_opted_out_one_premium_gated(fake_service):
    svc = fake_service
    handles = [f"person-{i:05d}" for i in range(40)]
    svc.configure(opted_out={handles[3]}, premium_gated={handles[17]}, rate_burst=1000)
    statuses = Counter(profile(svc, h).status_code for h in handles)
    assert statuses == Counter({200: 38, 403: 2})
    assert svc.billed() == 38
    assert set(svc.billed_handles()) == set(handles) - {handles[3], handles[17]}
    assert svc.stats()["credits"] == 38


def test_batch_counts_refused_people_in_errors(fake_service):
    svc = fake_service
    svc.configure(
        batch_resolve_rate=0,
        opted_out={"grace"},
        premium_gated={data.person("linus")["id"], "prsn_gated"},
    )
    before = svc.balance
    job = submit(svc, ["ada", "grace", "linus", "unknown-x"], ids=["prsn_gated"]).json()
    page = finished(svc, job["data"]["job_id"])
    assert page["total"] == 5 and page["resolved"] == 2 and page["errors"] == 3
    assert set(page["profiles"]) == {"ada"}
    assert page["not_found"] == ["unknown-x"]  # never the refused ones
    assert svc.billed_handles() == Counter({"ada": 1, "unknown-x": 1})
    assert svc.balance == before - 2


# -- 2. insufficient credits ----------------------------------------------------------------------


def test_credits_run_out_mid_job_then_a_top_up_pays_for_the_rest(fake_service):
    svc = fake_service
    svc.configure(balance=30, rate_burst=1000)  # 90 quick requests: never the limit
    handles = [f"person-{i:05d}" for i in range(60)]
    replies = [profile(svc, h) for h in handles]
    assert [r.status_code for r in replies] == [200] * 30 + [402] * 30
    refused = replies[30].json()
    assert refused["error_code"] == "1080" and refused["message"] == "Insufficient credits"
    assert "X-Credits-Consumed" not in replies[30].headers  # a 402 is not charged
    assert "X-Credits-Balance" not in replies[30].headers
    assert replies[29].headers["X-Credits-Balance"] == "0"  # the last one paid says so
    assert svc.balance == 0 and svc.billed() == 30

    svc.configure(balance=100)  # a top-up
    assert all(profile(svc, h).status_code == 200 for h in handles[30:])
    assert svc.billed() == 60 and svc.balance == 70
    assert svc.billed_handles() == Counter(dict.fromkeys(handles, 1))
    assert svc.stats()["credits"] == 60


def test_reset_restores_the_balance(fake_service):
    svc = fake_service
    svc.configure(balance=0)
    assert profile(svc, "ada").status_code == 402
    svc.reset()
    assert svc.balance == svc.knobs.balance > 0
    assert profile(svc, "ada").status_code == 200


def test_a_not_found_costs_too_and_can_be_refused(fake_service):
    svc = fake_service
    svc.configure(balance=1)
    assert profile(svc, "unknown-x").json()["error_code"] == "1010"  # billed
    r = profile(svc, "unknown-y")
    assert r.status_code == 402 and r.json()["error_code"] == "1080"
    assert svc.billed() == 1


def test_credits_403_answers_insufficient_credits_as_a_403(fake_service):
    svc = fake_service
    svc.configure(balance=0, credits_403=True)
    r = profile(svc, "ada")
    body = r.json()
    assert r.status_code == 403
    assert body["message"] == "Insufficient credits to complete this request"
    assert "error_code" not in body
    assert svc.billed() == 0


def test_a_route_costlier_than_the_balance_is_refused(fake_service):
    svc = fake_service
    svc.configure(route_costs={PROFILE: 5}, balance=9)
    ok = profile(svc, "ada")
    assert ok.status_code == 200 and ok.headers["X-Credits-Consumed"] == "5"
    assert profile(svc, "grace").status_code == 402  # 5 > 4 left
    assert svc.balance == 4


def test_batch_submit_is_prechecked(fake_service):
    svc = fake_service
    svc.configure(batch_resolve_rate=0, balance=0.5)
    r = submit(svc, ["ada", "grace"])
    assert r.status_code == 402 and r.json()["error_code"] == "1080"
    assert svc.batch_jobs == {} and svc.billed() == 0


def test_a_job_the_balance_runs_out_in_stops_with_status_error(fake_service):
    svc = fake_service
    svc.configure(batch_resolve_rate=0, balance=3)
    handles = ["ada", "grace", "unknown-x", "linus", "edsger", "barbara"]
    r = submit(svc, handles)
    assert r.status_code == 202 and "X-Credits-Consumed" not in r.headers
    page = finished(svc, r.json()["data"]["job_id"])
    assert page["status"] == "error"  # production's job stops there (SKILL.md)
    assert page["total"] == 6 and page["resolved"] == 3 and page["errors"] == 0
    assert set(page["profiles"]) == {"ada", "grace"} and page["not_found"] == ["unknown-x"]
    assert page["next_cursor"] == 3  # the items before the stop, and never more
    assert svc.billed() == 3 and svc.balance == 0
    assert svc.stats()["billed_batch_items"] == 3
    svc.configure(balance=100)  # a top-up does not restart it
    again = finished(svc, r.json()["data"]["job_id"])
    assert (again["status"], again["resolved"], again["next_cursor"]) == ("error", 3, 3)
    assert svc.billed() == 3 and svc.billed_handles() == Counter(dict.fromkeys(handles[:3], 1))


# -- 3. a 403 that means rate-limited -------------------------------------------------------------


def test_rate_limit_as_403_carries_the_429s_headers_and_body(fake_service):
    svc = fake_service
    svc.configure(rate_limit_per_minute=7, rate_burst=1, rate_limit_as_403=True)
    assert profile(svc, "ada").status_code == 200
    r = profile(svc, "grace")
    body = r.json()
    assert r.status_code == 403
    assert body["message"] == "Rate limit exceeded"
    wait = int(r.headers["Retry-After"])
    assert body["errors"] == {"current_tier": "Emulator", "current_limit": 7, "retry_after": wait}
    assert "error_code" not in body
    assert wait >= 1
    assert svc.billed() == 1 and svc.rate_limited() == 0 and svc.count(status=403) == 1


# -- 4. route costs -------------------------------------------------------------------------------


def test_route_costs_are_public_and_list_only_costs_other_than_1(fake_service):
    r = public(fake_service, ROUTE_COSTS_PATH)
    assert r.status_code == 200 and "X-Credits-Consumed" not in r.headers
    body = r.json()["data"]
    costs = {item["route"]: item["credits_cost"] for item in body["routes"]}
    assert body["count"] == len(body["routes"])
    assert costs[COMPANY] == 2
    assert costs[BATCH] == 0 and costs[HEALTH] == 0
    assert costs["/api/data/v1/skills/skill"] == 0 == costs["/api/data/v1/skills/search"]
    assert 1 not in costs.values()
    assert all(isinstance(c, int) for c in costs.values())
    assert all({"route", "title", "description", "credits_cost"} == set(i) for i in body["routes"])
    assert public(fake_service, ROUTE_COSTS_PATH, "POST").status_code == 405


def test_billing_follows_the_route_cost_knob(fake_service):
    svc = fake_service
    svc.configure(route_costs={PROFILE: 2, "/api/data/v1/people/search": 1})
    listed = public(svc, ROUTE_COSTS_PATH).json()["data"]["routes"]
    assert [(i["route"], i["credits_cost"]) for i in listed] == [(PROFILE, 2)]
    before = svc.balance
    r = profile(svc, "ada")
    assert r.headers["X-Credits-Consumed"] == "2"
    assert float(r.headers["X-Credits-Balance"]) == before - 2 == svc.balance
    assert svc.stats()["credits"] == 2

    svc.configure(route_costs={PROFILE: 0})  # free: answered, not billed
    r = profile(svc, "grace")
    assert r.status_code == 200 and r.headers["X-Credits-Consumed"] == "0"
    assert svc.billed(PROFILE, handle="grace") == 0 and svc.balance == before - 2


def test_batch_items_bill_1_each_whatever_the_submit_route_lists(fake_service):
    svc = fake_service
    svc.configure(batch_resolve_rate=0)
    before = svc.balance
    r = submit(svc, ["ada", "unknown-x"])
    assert "X-Credits-Consumed" not in r.headers  # a submit is free: its items bill
    finished(svc, r.json()["data"]["job_id"])
    assert svc.balance == before - 2


def test_health_is_free_keyless_and_listed_at_0(fake_service):
    r = public(fake_service, HEALTH)
    assert r.status_code == 200 and "X-Credits-Consumed" not in r.headers
    assert fake_service.billed() == 0


# -- 5. the tier ladder ---------------------------------------------------------------------------


def test_the_tier_ladder_is_public_and_production_s(fake_service):
    r = public(fake_service, TIERS_PATH)
    assert r.status_code == 200
    results = r.json()["data"]["results"]
    assert [t["name"] for t in results] == [
        "Testing",
        "Hobby",
        "Developer",
        "Startup",
        "Growth",
        "Scale",
        "Business",
        "Ultra",
        "Strategic Partner",
    ]
    keys = {"id", "name", "min_credits", "max_credits", "limit_per_minute", "credits_per_dollar"}
    assert all(set(t) == keys for t in results)
    assert results[0] | {"id": 0} == {
        "id": 0,
        "name": "Testing",
        "min_credits": 0,
        "max_credits": 99,
        "limit_per_minute": 7,
        "credits_per_dollar": 100,
    }
    assert results[2]["min_credits"] == 10_000 and results[2]["limit_per_minute"] == 70
    assert results[-1]["max_credits"] is None and results[-1]["limit_per_minute"] == 550


def test_a_ladder_knob_replaces_it(fake_service):
    fake_service.configure(ladder=[("Fast", 100, None, 1200), ("Slow", 0, 99, 120)])
    results = public(fake_service, TIERS_PATH).json()["data"]["results"]
    assert [(t["name"], t["min_credits"], t["max_credits"]) for t in results] == [
        ("Slow", 0, 99),
        ("Fast", 100, None),
    ]


def test_the_issue_s_scenario_slow_fast_at_130(fake_service):
    svc = fake_service
    svc.configure(ladder=SLOW_FAST, balance=130, tier_follows_balance=True)
    tier = panel(svc, TIER).json()["data"]
    assert tier["balance"] == 130
    assert tier["current_tier"] == {
        "name": "Fast",
        "min_credits": 100,
        "max_credits": None,
        "limit_per_minute": 1200,
    }
    assert tier["next_tier"] is None
    assert tier["previous_tier"]["name"] == "Slow"
    assert tier["previous_tier"]["limit_per_minute"] == 120

    svc.configure(balance=99)
    tier = panel(svc, TIER).json()["data"]
    assert tier["current_tier"]["name"] == "Slow" and tier["current_tier"]["max_credits"] == 99
    assert tier["next_tier"]["name"] == "Fast" and tier["next_tier"]["credits_needed"] == 1
    assert tier["previous_tier"] is None


def test_production_ladder_tier_payload_follows_the_balance(fake_service):
    svc = fake_service
    svc.configure(tier_follows_balance=True, balance=10_000)
    tier = panel(svc, TIER).json()["data"]
    assert tier["current_tier"]["name"] == "Developer"
    assert tier["current_tier"]["limit_per_minute"] == 70
    assert tier["credits_per_dollar"] == 185
    assert tier["next_tier"]["name"] == "Startup" and tier["next_tier"]["credits_needed"] == 20_000
    assert tier["previous_tier"]["name"] == "Hobby"
    svc.configure(rate_burst=1000)
    assert profile(svc, "ada").status_code == 200  # one credit later: Hobby
    tier = panel(svc, TIER).json()["data"]
    assert (
        tier["current_tier"]["name"] == "Hobby" and tier["current_tier"]["limit_per_minute"] == 30
    )


def test_spending_drops_the_tier_and_its_limit_is_enforced(fake_service):
    svc = fake_service
    ladder = (LadderTier("Slow", 0, 99, 6), LadderTier("Fast", 100, None, 6000))
    svc.configure(ladder=ladder, balance=102, tier_follows_balance=True, rate_burst=1)
    statuses = []
    for i in range(3):  # on Fast: one every 10 ms is within the limit
        statuses.append(profile(svc, f"person-{i:05d}").status_code)
        time.sleep(0.03)
    assert statuses == [200, 200, 200] and svc.balance == 99  # now on Slow: 6/min
    assert profile(svc, "ada").status_code == 200  # the first one on Slow is admitted
    r = profile(svc, "grace")
    assert r.status_code == 429
    wait = int(r.headers["Retry-After"])
    assert r.json()["errors"] == {"current_tier": "Slow", "current_limit": 6, "retry_after": wait}
    assert wait >= 5


def test_off_the_tier_stays_the_configured_limit(fake_service):
    svc = fake_service
    svc.configure(balance=50, rate_limit_per_minute=6000)  # 50 is Testing on the ladder
    tier = panel(svc, TIER).json()["data"]
    assert tier["current_tier"]["name"] == "Emulator"
    assert tier["current_tier"]["limit_per_minute"] == 6000
    assert tier["previous_tier"] is None and tier["next_tier"] is None


# -- 6. the balance -------------------------------------------------------------------------------


def test_the_balance_route_answers_the_balance_free(fake_service):
    svc = fake_service
    svc.configure(balance=10)
    assert profile(svc, "ada").status_code == 200
    r = panel(svc, BALANCE_PATH)
    assert r.status_code == 200 and r.json()["data"] == {"balance": 9}
    assert "X-Credits-Consumed" not in r.headers and svc.balance == 9
    assert requests.get(svc.base_url + BALANCE_PATH, timeout=10).status_code == 401
    assert panel(svc, BALANCE_PATH, key="lk_test_nope").status_code == 403
    assert svc.count(BALANCE_PATH, key=svc.api_key) == 1
