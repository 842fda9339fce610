"""The emulator's per-key counters, spoken to with plain ``requests``.

Each request is recorded with a short hash of the key it carried (never the key) and the time
it was answered; ``count(key=)``, ``billed(key=)``, ``billed_handles(key=)`` and
``rate_limited(key=)`` keep one key's requests, batch items count for the key that submitted
their job, and the counters without ``key=`` are unchanged.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest
import requests

from lookup_pandas.testing import BATCH, PROFILE, TIER
from lookup_pandas.testing.state import key_id

DATA_HEADER = "X-service-apikey"
PANEL_HEADER = "X-AUTHAPI-Key"


def get(svc, key, path=PROFILE, header=DATA_HEADER, **params):
    return requests.get(svc.base_url + path, params=params, headers={header: key}, timeout=10)


def test_count_and_billing_per_key(fake_service):
    svc = fake_service
    svc.configure(rate_burst=1000)
    a, b = svc.api_key, svc.issue_key()
    for handle in ("ada", "grace", "ada"):
        assert get(svc, a, handle=handle).status_code == 200
    assert get(svc, b, handle="ada").status_code == 200
    assert get(svc, b, handle="unknown-x").status_code == 200  # a billed not-found
    assert get(svc, a, TIER, PANEL_HEADER).status_code == 200  # the panel key header

    assert svc.count() == 6
    assert svc.count(PROFILE, key=a) == 3
    assert svc.count(PROFILE, key=b) == 2
    assert svc.count(TIER, key=a) == 1 and svc.count(TIER, key=b) == 0
    assert svc.count(PROFILE, key=a, handle="ada") == 2
    assert svc.count(key=svc.issue_key()) == 0  # a key that sent nothing
    assert svc.billed(key=a) == 3 and svc.billed(key=b) == 2
    assert svc.billed_handles(key=a) == Counter({"ada": 2, "grace": 1})
    assert svc.billed_handles(key=b) == Counter({"ada": 1, "unknown-x": 1})
    assert svc.billed_handles() == Counter({"ada": 3, "grace": 1, "unknown-x": 1})


def test_rate_limited_counts_429s_per_key(fake_service):
    svc = fake_service
    svc.configure(rate_limit_per_minute=60, rate_burst=1)  # the limit is per key
    a, b = svc.api_key, svc.issue_key()
    statuses_a = [get(svc, a, handle=f"h{i}").status_code for i in range(4)]
    statuses_b = [get(svc, b, handle="h9").status_code]
    assert statuses_a == [200, 429, 429, 429]
    assert statuses_b == [200]
    assert svc.rate_limited(key=a) == 3
    assert svc.rate_limited(key=b) == 0
    assert svc.rate_limited() == 3 == svc.count(status=429)
    assert svc.billed_handles(key=a) == Counter({"h0": 1})


def test_a_scripted_429_counts_as_rate_limited(fake_service):
    svc = fake_service
    svc.override(PROFILE, lambda req: (429, {"success": False, "message": "slow down"}))
    assert get(svc, svc.api_key, handle="ada").status_code == 429
    assert svc.rate_limited(key=svc.api_key) == 1
    assert svc.billed_handles() == Counter()


def test_batch_items_are_billed_to_the_key_that_submitted_them(fake_service):
    svc = fake_service
    svc.configure(rate_burst=1000, batch_resolve_rate=0)  # items resolve at once
    a, b = svc.api_key, svc.issue_key()
    body = {"ids": [], "handles": ["ada", "unknown-y"], "enrich_live": False}
    before = time.monotonic()
    r = requests.post(svc.base_url + BATCH, json=body, headers={DATA_HEADER: b}, timeout=10)
    after = time.monotonic()
    assert r.status_code == 202
    assert get(svc, a, handle="grace").status_code == 200
    assert svc.billed_handles(key=b) == Counter({"ada": 1, "unknown-y": 1})
    assert svc.billed_handles(key=a) == Counter({"grace": 1})
    assert svc.count(BATCH, method="POST", key=b) == 1
    assert svc.count(BATCH, method="POST", key=a) == 0
    assert svc.billed(BATCH, key=b) == 2
    items = [rec for rec in svc.state.records if rec.item]
    assert [rec.key_id for rec in items] == [key_id(b)] * 2
    assert all(before <= rec.at <= after for rec in items)  # resolved as submitted


def test_records_carry_a_hash_of_the_key_and_the_time_never_the_key(fake_service):
    svc = fake_service
    svc.configure(rate_burst=1000)
    before = time.monotonic()
    get(svc, svc.api_key, handle="ada")
    get(svc, "lk_test_not_a_key_at_all", handle="ada")  # 403: recorded under its hash too
    requests.get(svc.base_url + PROFILE, params={"handle": "ada"}, timeout=10)  # no key: 401
    after = time.monotonic()
    first, second, third = svc.requests
    assert first.key_id == key_id(svc.api_key)
    assert second.key_id == key_id("lk_test_not_a_key_at_all") and second.status == 403
    assert third.key_id is None and third.status == 401
    assert before <= first.at <= second.at <= third.at <= after
    shown = repr(svc.requests) + str(svc.requests)
    assert svc.api_key not in shown
    assert svc.api_key[8:24] not in shown
    assert svc.count(key="lk_test_not_a_key_at_all", status=403) == 1


@pytest.mark.parametrize("key", ["lk_test_0123456789abcdef", "lk_live_Xyz"])
def test_key_id_is_short_hex_and_hides_the_key(key):
    got = key_id(key)
    assert len(got) == 12 and set(got) <= set("0123456789abcdef")
    assert key_id(key) == got != key_id(key + "0")
    assert key[:8] not in got
