"""Production's 403s, 402s and tiers against the emulator: one person's 403 never stops a job,
a job that runs out of credits stops and resumes, and the pace follows the tier down."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from lookup_pandas import (
    AuthenticationError,
    InsufficientCreditsError,
    PermissionDeniedError,
)
from lookup_pandas.testing import PROFILE, TIER, LadderTier
from lookup_pandas.testing.replies import fail

from ..helpers import make_client

OPTED_OUT, GATED = "lead-opted-out-7", "lead-gated-21"


def leads(n: int, prefix: str = "lead") -> pd.DataFrame:
    handles = [f"{prefix}-{i:03d}" for i in range(n)]
    return pd.DataFrame({"handle": handles})


def billed(svc, handle: str | None = None) -> int:
    return sum(
        1
        for r in svc.requests
        if r.path == PROFILE and r.billed and (handle is None or r.param("handle") == handle)
    )


@pytest.mark.parametrize("method", ["single", "batch"])
def test_one_opted_out_and_one_premium_gated_person_never_stop_the_job(
    fake_service, fake_cache_path, method
):
    svc = fake_service
    frame = leads(38)
    frame = pd.concat([frame, pd.DataFrame({"handle": [OPTED_OUT, GATED]})], ignore_index=True)
    svc.configure(opted_out=frozenset({OPTED_OUT}), premium_gated=frozenset({GATED}))
    with make_client(svc, cache=fake_cache_path) as client:
        out = frame.lookup.enrich_profiles("handle", client=client, progress=False, method=method)
        assert out["lookup_status"].value_counts().to_dict() == {"ok": 38, "forbidden": 2}
        rows = out.set_index("handle")
        assert "opted out" in rows.loc[OPTED_OUT, "lookup_error"]
        assert "Premium" in rows.loc[GATED, "lookup_error"]
        assert billed(svc, OPTED_OUT) == billed(svc, GATED) == 0
        assert svc.stats()["credits"] == 38
        assert not client.parts.cache.is_cached(
            PROFILE, {"handle": OPTED_OUT}
        )  # not cached: asked again
        before = svc.stats()["credits"]
        again = frame.lookup.enrich_profiles("handle", client=client, progress=False)
        assert again["lookup_status"].value_counts().to_dict() == {"ok": 38, "forbidden": 2}
        assert svc.stats()["credits"] == before  # the re-run bills 0


def test_client_profile_raises_permission_denied_and_the_key_is_not_blamed(fake_service):
    fake_service.configure(opted_out=frozenset({OPTED_OUT}))
    with make_client(fake_service) as client:
        assert client.profile("lead-001")["handle"] == "lead-001"
        with pytest.raises(PermissionDeniedError, match="opted out"):
            client.profile(OPTED_OUT)
        assert client.profile("lead-002")["handle"] == "lead-002"


def test_an_ambiguous_403_is_decided_by_the_tier_endpoint(fake_service):
    svc = fake_service
    svc.override(
        PROFILE, lambda req: fail(403, "Forbidden") if req.param("handle") == "odd" else None
    )
    with make_client(svc) as client:
        client.profile("lead-001")
        tier_reads = svc.count(TIER)
        with pytest.raises(PermissionDeniedError):
            client.profile("odd")  # the key still reads its tier: about this record
        assert svc.count(TIER) == tier_reads + 1
        svc.revoke_key()
        svc.override(PROFILE, lambda req: fail(403, "Forbidden"))
        client.parts.contact._key_good_at = None  # the memory of a good key, past
        with pytest.raises(AuthenticationError):
            client.profile("lead-003")  # the tier endpoint refuses the key: it is the key's


def test_a_revoked_key_mid_run_still_stops_the_job(fake_service, fake_cache_path):
    svc = fake_service
    calls = {"n": 0}

    def revoke_after_ten(req):
        calls["n"] += 1
        if calls["n"] == 10:
            svc.revoke_key()
        return None

    svc.override(PROFILE, revoke_after_ten)
    with (
        make_client(svc, cache=fake_cache_path, max_workers=2) as client,
        pytest.raises(AuthenticationError),
    ):
        leads(60).lookup.enrich_profiles("handle", client=client, progress=False, method="single")
    assert billed(svc) < 20


@pytest.mark.parametrize("as_403", [False, True])
def test_running_out_of_credits_stops_and_a_top_up_buys_only_the_rest(
    fake_service, fake_cache_path, as_403
):
    svc = fake_service
    svc.configure(credits_403=as_403)
    answered = {"n": 0}

    def spent_elsewhere(req):
        # Another job on the key spends the balance once this one has bought 30 answers.
        answered["n"] += 1
        if answered["n"] == 31:
            svc.configure(balance=0)
        return None

    svc.override(PROFILE, spent_elsewhere)
    frame = leads(60, "credit")
    with make_client(svc, cache=fake_cache_path, max_workers=1) as client:
        with pytest.raises(InsufficientCreditsError) as info:
            frame.lookup.enrich_profiles("handle", client=client, progress=False, method="single")
        message = str(info.value)
        assert "30 of this job's 60 billable answers are kept" in message, message
        assert "buys only the other 30" in message
        assert billed(svc) == 30
        svc.override(PROFILE, None)
        svc.configure(balance=1000)  # topped up
        out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
        assert (out["lookup_status"] == "ok").all()
        spent = svc.stats()
        assert spent["credits"] == 60  # exactly the other 30 (single calls or batch items)
        assert spent["distinct_handles"] == 60


def test_a_job_the_balance_cannot_pay_is_refused_before_sending(fake_service, fake_cache_path):
    svc = fake_service
    svc.configure(balance=20)
    with (
        make_client(svc, cache=fake_cache_path) as client,
        pytest.raises(InsufficientCreditsError) as info,
    ):
        leads(50, "poor").lookup.enrich_profiles("handle", client=client, progress=False)
    assert "50" in str(info.value) and "20" in str(info.value)
    assert billed(svc) == 0


def test_a_403_that_says_rate_limited_is_handled_like_a_429(fake_service):
    # Scripted, so that it does not depend on how fast the machine sends: the first answer is
    # production's rate-limit 403 (no error_code), with the same Retry-After and body as a 429.
    svc = fake_service
    answered = {"n": 0}

    def first_is_limited(req):
        answered["n"] += 1
        if answered["n"] > 1:
            return None
        limits = {"current_tier": "Hobby", "current_limit": 30}
        return fail(403, "Rate limit exceeded", errors=limits, **{"Retry-After": "1"})

    svc.override(PROFILE, first_is_limited)
    with make_client(svc, max_workers=1) as client:
        out = leads(2, "limited").lookup.enrich_profiles(
            "handle", client=client, progress=False, method="single"
        )
        assert client.rate_limit_per_minute == pytest.approx(30 * 0.95)  # slowed like a 429
    assert (out["lookup_status"] == "ok").all()
    assert svc.count(PROFILE, status=403) == 1
    assert client.stats.retries == 1


def test_the_pace_follows_the_tier_down_before_the_429s_come(fake_service, capsys):
    svc = fake_service
    ladder = (LadderTier("Slow", 0, 99, 120), LadderTier("Fast", 100, None, 1200))
    svc.configure(ladder=ladder, balance=130, tier_follows_balance=True, rate_burst=2)
    handles = leads(100, "tierdrop")
    with make_client(svc, max_workers=4) as client:
        started = time.monotonic()
        out = handles.lookup.enrich_profiles(
            "handle", client=client, progress=False, method="single"
        )
        elapsed = time.monotonic() - started
    assert (out["lookup_status"] == "ok").all()
    limited = svc.count(PROFILE, status=429)
    # The bound: 31 credits at 1,200/min, then 69 at 120/min (1.55 s + 34.5 s).
    ratio = elapsed / (31 * 60 / 1200 + 69 * 60 / 120)
    with capsys.disabled():
        print(f"\n   tier drop: {limited} answered 429; {elapsed:.1f} s, {ratio:.2f} x the bound")
    assert limited <= 1
