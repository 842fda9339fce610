"""Where the emulator charges, as production does: the credits' headers and the free repeat.

``X-Credits-Consumed`` / ``X-Credits-Balance`` come only with the answers of billable Data API
routes (a success, a billed not-found, a free repeat at 0), as the official SDK reads them
(``meta.credit_consumed`` is None elsewhere). With ``free_repeat_seconds`` an identical request
soon after a billed one is answered free, as production's short-lived cache does; off by
default, every repeat is billed.
"""

from __future__ import annotations

from collections import Counter

import pytest
import renidly
import requests

from lookup_pandas.testing import (
    BALANCE_PATH,
    BATCH,
    EMPLOYEES,
    HEALTH,
    PROFILE,
    ROUTE_COSTS_PATH,
    TIER,
    TIERS_PATH,
)

DATA_HEADER = "X-service-apikey"
PANEL_HEADER = "X-AUTHAPI-Key"
COMPANY = "/api/data/v1/companies/company"
SKILL = "/api/data/v1/skills/skill"


def get(svc, path, key=..., header=DATA_HEADER, **params) -> requests.Response:
    key = svc.api_key if key is ... else key
    headers = {header: key} if key is not None else {}
    return requests.get(svc.base_url + path, params=params, headers=headers, timeout=10)


def sdk(svc) -> renidly.Renidly:
    """The official SDK on the emulator: no retries; the data key in our header name too."""
    config = renidly.RenidlyConfig(
        base_url=svc.base_url, max_retries=0, default_headers={DATA_HEADER: svc.api_key}
    )
    return renidly.Renidly(svc.api_key, config=config)


def consumed(reply: requests.Response) -> str | None:
    return reply.headers.get("X-Credits-Consumed")


# -- 6. credits' headers only where production charges ---------------------------------------


def test_billable_answers_carry_the_credits_headers(fake_service):
    svc = fake_service
    start = svc.balance
    found, missing = get(svc, PROFILE, handle="ada"), get(svc, PROFILE, handle="unknown-x")
    company, skill = get(svc, COMPANY, slug="globex"), get(svc, SKILL, id="skl_nothing")
    assert [consumed(r) for r in (found, missing, company, skill)] == ["1", "1", "2", "0"]
    assert float(company.headers["X-Credits-Balance"]) == start - 4 == svc.balance
    assert float(skill.headers["X-Credits-Balance"]) == svc.balance  # a free route: 0 of it


def _every_unbilled_answer(svc) -> list[requests.Response]:
    """One answer of each kind production does not charge for."""
    replies = [
        get(svc, PROFILE),  # 400
        get(svc, PROFILE, key=None, handle="ada"),  # 401
        get(svc, PROFILE, key="lk_test_nope", handle="ada"),  # 403, the key
        get(svc, "/api/data/v1/nothing"),  # 404
        get(svc, TIER, header=PANEL_HEADER),
        get(svc, BALANCE_PATH, header=PANEL_HEADER),
        get(svc, HEALTH, key=None),
        get(svc, ROUTE_COSTS_PATH, key=None),
        get(svc, TIERS_PATH, key=None),
    ]
    body = {"ids": [], "handles": ["ada"], "enrich_live": False}
    submit = requests.post(
        svc.base_url + BATCH, json=body, headers={DATA_HEADER: svc.api_key}, timeout=10
    )
    replies += [submit, get(svc, BATCH, job_id=submit.json()["data"]["job_id"], after=0)]
    svc.configure(opted_out={"grace"})
    replies.append(get(svc, PROFILE, handle="grace"))  # 403, one person
    for kind in ("500", "503"):
        svc.configure(fault_rate=1.0, fault_kinds=(kind,))
        replies.append(get(svc, PROFILE, handle="ada"))
    svc.configure(fault_rate=0.0, balance=0)
    replies.append(get(svc, PROFILE, handle="linus"))  # 402
    svc.configure(balance=100, rate_limit_per_minute=6, rate_burst=1)
    fresh = svc.issue_key()  # its own limiter: the first is admitted, the next is a 429
    replies += [get(svc, PROFILE, fresh, handle="barbara"), get(svc, PROFILE, fresh, handle="x")]
    return replies


def test_no_credits_headers_where_nothing_is_charged(fake_service):
    svc = fake_service
    svc.configure(batch_resolve_rate=0)
    replies = _every_unbilled_answer(svc)
    statuses = [r.status_code for r in replies]
    assert statuses == [400, 401, 403, 404, *[200] * 5, 202, 200, 403, 500, 503, 402, 200, 429]
    paid = replies[-2]  # the one billed answer among them
    assert consumed(paid) == "1"
    unbilled = replies[:-2] + replies[-1:]
    assert [consumed(r) for r in unbilled] == [None] * len(unbilled)
    assert all("X-Credits-Balance" not in r.headers for r in unbilled)
    assert all(r.headers["X-Request-Id"].startswith("req_") for r in replies)


def test_the_sdk_sees_credits_on_data_answers_only(fake_service):
    with sdk(fake_service) as client:
        person = client.data.people.retrieve(handle="ada")
        tier = client.account.tier()
    assert person.meta.credit_consumed == 1
    assert person.meta.remaining_balance == fake_service.balance
    assert tier.meta.credit_consumed is None and tier.meta.remaining_balance is None


# -- 7. the free repeat --------------------------------------------------------------------------


def test_every_repeat_is_billed_by_default(fake_service):
    svc = fake_service
    assert svc.knobs.free_repeat_seconds == 0
    assert [consumed(get(svc, PROFILE, handle="ada")) for _ in range(3)] == ["1"] * 3
    assert svc.billed() == 3


def test_an_identical_request_soon_after_is_answered_free(fake_service):
    svc = fake_service
    svc.configure(free_repeat_seconds=3600)
    start = svc.balance
    first, again = get(svc, PROFILE, handle="ada"), get(svc, PROFILE, handle="ada")
    assert first.json() == again.json() and again.status_code == 200
    assert (consumed(first), consumed(again)) == ("1", "0")
    assert again.headers["X-Credits-Balance"] == first.headers["X-Credits-Balance"]
    assert svc.balance == start - 1
    assert svc.count(PROFILE) == 2 and svc.billed() == 1
    assert [(r.billed, r.credits) for r in svc.requests] == [(True, 1.0), (False, 0.0)]
    stats = svc.stats()
    assert (stats["requests"], stats["billed_calls"], stats["credits"]) == (2, 1, 1.0)
    assert svc.billed_handles() == Counter({"ada": 1})


def test_what_makes_a_request_the_same_one(fake_service):
    svc = fake_service
    svc.configure(free_repeat_seconds=3600)
    other_key = svc.issue_key()
    url = svc.base_url + EMPLOYEES
    headers = {DATA_HEADER: svc.api_key}
    replies = [
        requests.get(url + "?slug=acme&limit=10", headers=headers, timeout=10),
        requests.get(url + "?limit=10&slug=acme", headers=headers, timeout=10),  # same query
        requests.get(url + "?slug=acme&limit=11", headers=headers, timeout=10),  # another
        get(svc, EMPLOYEES, key=other_key, slug="acme", limit=10),  # another key
        get(svc, PROFILE, handle="unknown-x"),
        get(svc, PROFILE, handle="unknown-x"),  # a billed not-found is repeated free too
    ]
    assert [consumed(r) for r in replies] == ["1", "0", "1", "1", "1", "0"]
    assert svc.billed() == 4 and svc.billed(key=other_key) == 1


def test_a_free_repeat_needs_no_credits_and_the_window_is_the_knob(fake_service):
    svc = fake_service
    svc.configure(free_repeat_seconds=3600, balance=1)
    assert consumed(get(svc, PROFILE, handle="ada")) == "1" and svc.balance == 0
    repeat = get(svc, PROFILE, handle="ada")
    assert repeat.status_code == 200 and consumed(repeat) == "0"
    assert get(svc, PROFILE, handle="grace").status_code == 402
    svc.configure(balance=5, free_repeat_seconds=0)  # no window: billed again
    assert consumed(get(svc, PROFILE, handle="ada")) == "1" and svc.balance == 4


def test_the_sdk_reads_a_free_repeat_as_production_s_cache_hit(fake_service):
    fake_service.configure(free_repeat_seconds=3600)
    with sdk(fake_service) as client:
        first = client.data.companies.retrieve(slug="acme")
        again = client.data.companies.retrieve(slug="acme")
    assert first.meta.credit_consumed == 2 and again.meta.credit_consumed == 0
    assert again.meta.remaining_balance == first.meta.remaining_balance


@pytest.mark.parametrize("live", [False, True])
def test_batch_items_repeat_free_unless_enrich_live(fake_service, live):
    svc = fake_service
    svc.configure(free_repeat_seconds=3600, batch_resolve_rate=0)
    handles = ["ada", "unknown-x"]

    def run(enrich_live: bool) -> dict:
        body = {"ids": [], "handles": handles, "enrich_live": enrich_live}
        headers = {DATA_HEADER: svc.api_key}
        job = requests.post(svc.base_url + BATCH, json=body, headers=headers, timeout=10)
        job_id = job.json()["data"]["job_id"]
        return get(svc, BATCH, job_id=job_id, after=0).json()["data"]

    first = run(False)
    again = run(live)
    assert again["status"] == "completed" and again["not_found"] == ["unknown-x"]
    assert set(again["profiles"]) == {"ada"} == set(first["profiles"])
    assert svc.billed() == (4 if live else 2)
    assert svc.stats()["billed_batch_items"] == (4 if live else 2)
    assert consumed(get(svc, PROFILE, handle="ada")) == "1"  # another request: not a repeat
