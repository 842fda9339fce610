"""lookup_pandas.testing.state: the moves held for the life of the emulator, the job-change
feed's knobs, the tiers, the keys' reasons, the free repeat and a batch job stopped by the
balance; no server."""

from __future__ import annotations

import pytest

from lookup_pandas.testing import catalog, data
from lookup_pandas.testing.batch import BatchJob
from lookup_pandas.testing.state import (
    EMULATOR_CREDITS_PER_DOLLAR,
    EMULATOR_TIER,
    Knobs,
    ServiceState,
)


def test_moves_last_until_reset_and_configure_keeps_them():
    state = ServiceState(Knobs())
    record = state.move("ada", "globex", "CTO")
    assert record["headline"] == "CTO at Globex"
    record["headline"] = "changed by the caller"  # a copy: the state's is untouched
    assert state.world.current(data.person("ada"))["headline"] == "CTO at Globex"
    assert len(state.world.events) == 2
    assert state.world.events[0]["detected_at"] == catalog.today().isoformat()
    state.configure(job_change_rate=10)
    assert len(state.world.made) == 1
    state.reset()
    assert state.world.made == () and state.world.events == ()
    assert state.world.current(data.person("ada")) == data.person("ada")


def test_job_change_knobs():
    knobs = Knobs()
    assert knobs.job_change_rate == catalog.JOB_CHANGE_RATE == 3.0
    assert dict(knobs.job_change_rates) == {}
    assert dict(Knobs(job_change_rates={" Hooli ": 500}).job_change_rates) == {"hooli": 500.0}
    assert Knobs(job_change_rates={"hooli": 5}) == Knobs(job_change_rates={"hooli": 5.0})
    for bad in ({"job_change_rate": -1}, {"job_change_rates": {"acme": -0.5}}):
        with pytest.raises(ValueError, match="at least 0"):
            Knobs(**bad)


# -- tiers ---------------------------------------------------------------------------------------


def test_the_configured_limit_is_the_emulator_tier_alone_on_its_ladder():
    state = ServiceState(Knobs(balance=1234, rate_limit_per_minute=600))
    assert state.tier() == {
        "balance": 1234,
        "credits_per_dollar": EMULATOR_CREDITS_PER_DOLLAR,
        "current_tier": {
            "name": EMULATOR_TIER,
            "min_credits": 0,
            "max_credits": None,
            "limit_per_minute": 600,
        },
        "next_tier": None,
        "previous_tier": None,
    }
    assert state.tier_name() == "Emulator" and state.limit_per_minute() == 600
    state.configure(advertise_rate_limit=False)
    assert "limit_per_minute" not in state.tier()["current_tier"]


def test_an_enterprise_workspace_outranks_the_ladder_and_the_configured_limit():
    state = ServiceState(Knobs(tier_follows_balance=True, balance=50, rate_limit_per_minute=10))
    assert state.tier_name() == "Testing" and state.limit_per_minute() == 7
    state.configure(enterprise_limit_per_minute=900)
    assert state.ladder_tier() is None and state.tier_name() is None
    assert state.limit_per_minute() == 900
    assert state.tier()["current_tier"] is None and state.tier()["limit_per_minute"] == 900


def test_why_a_key_is_refused_stays_the_emulator_s():
    state = ServiceState(Knobs(), api_key="lk_test_first")
    assert state.check_key("lk_test_first") is None
    assert state.check_key("lk_test_other") == "unknown"
    assert state.check_key(state.wrong_workspace_key) == "other workspace"
    state.rotate_key()
    assert state.check_key("lk_test_first") == "rotated"
    state.revoke_key(state.current_key)
    assert state.check_key(state.current_key) == "revoked"


# -- the free repeat -----------------------------------------------------------------------------

PROFILE = "/api/data/v1/people/profile"


def test_a_repeat_is_free_within_the_window_of_the_billed_answer_only():
    state = ServiceState(Knobs(balance=10, free_repeat_seconds=60))
    ada = ("GET", PROFILE, (("handle", "ada"),), "k")
    assert state.pay(PROFILE, ada, now=0.0) == (1.0, 9.0)
    assert state.pay(PROFILE, ada, now=60.0) == (0.0, 9.0)  # the window's last moment
    assert state.pay(PROFILE, ada, now=60.5) == (1.0, 8.0)  # free ones did not extend it
    assert state.pay(PROFILE, ada, now=100.0) == (0.0, 8.0)
    assert state.pay(PROFILE, ("GET", PROFILE, (("handle", "grace"),), "k"), now=100.0) == (
        1.0,
        7.0,
    )
    state.configure(free_repeat_seconds=0)
    assert state.pay(PROFILE, ada, now=100.0) == (1.0, 6.0)


def test_without_the_knob_nothing_is_remembered():
    state = ServiceState(Knobs(balance=2))
    ada = ("GET", PROFILE, (("handle", "ada"),), "k")
    assert state.pay(PROFILE, ada, now=0.0) == (1.0, 1.0)
    assert state.pay(PROFILE, ada, now=0.0) == (1.0, 0.0)
    assert state.pay(PROFILE, ada, now=0.0) is None  # broke: refused, nothing taken
    assert state._billed_at == {}


# -- a batch job the balance runs out in ---------------------------------------------------------


def test_a_job_stops_at_the_first_item_it_cannot_pay():
    state = ServiceState(Knobs(balance=2, batch_resolve_rate=10))
    job = BatchJob.submit(("ada", "unknown-x", "grace", "linus"), key="k", now=0.0, error_rate=0)
    state.add_job(job)
    state.settle_jobs(now=0.15)  # one item resolved
    assert state.balance == 1 and job.stopped is None and job.status(1) == "processing"
    state.settle_jobs(now=1.0)  # the third cannot be paid: the job stops at 0.3 s
    assert (job.stopped, job.stopped_at) == (2, pytest.approx(0.3))
    assert job.processed(now=10.0, rate=10) == 2 and job.status(2) == "error"
    assert job.finished_at(10) == pytest.approx(0.3)
    state.configure(balance=100)
    state.settle_jobs(now=10.0)
    assert state.balance == 100 and state.count(billed=True) == 2
    lifetime = state.knobs.batch_job_lifetime
    assert state.job(job.job_id, "k", now=0.3 + lifetime - 1) is job
    assert state.job(job.job_id, "k", now=0.3 + lifetime + 1) is None  # expires from the stop
