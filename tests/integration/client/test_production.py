"""The library does what production does where the emulator once taught it otherwise (issue 38).

Each test runs the library against the emulator set up as production answers: an enterprise
account (its own limit, its own balance route), a 429 whose wait is only in its body, an
institution not found (``1040``), production's free repeat, a batch job stopped by credits.
"""

from __future__ import annotations

import threading

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.cli.tier import tier_line
from lookup_pandas.config.settings import SAFE_DEFAULT_RATE_PER_MINUTE
from lookup_pandas.errors import InsufficientCreditsError
from lookup_pandas.service.paths import ALUMNI_PATH, BATCH_PATH
from lookup_pandas.testing import FakeService
from lookup_pandas.testing.replies import fail

from ..helpers import PROFILE, make_client, wait_until

ENTERPRISE_LIMIT = 1200  # calls a minute: fast, as an enterprise contract is


def leads(n: int, prefix: str = "lead") -> pd.DataFrame:
    return pd.DataFrame({"handle": [f"{prefix}-{i:03d}" for i in range(n)]})


# -- enterprise accounts -----------------------------------------------------------------------


def test_an_enterprise_key_is_paced_by_its_own_limit_not_the_safe_default():
    """The tier answer has current_tier null and limit_per_minute at the top (the SDK's 0.2.1):
    the pace is 95% of that limit, where it once fell back to 7 calls a minute."""
    handles = 40
    with (
        FakeService(enterprise_limit_per_minute=ENTERPRISE_LIMIT) as svc,
        make_client(svc, max_workers=4) as client,
    ):
        estimate = leads(handles).lookup.estimate_profiles("handle", client=client)
        assert client.parts.contact.learn_pace() == pytest.approx(0.95 * ENTERPRISE_LIMIT)
        out = leads(handles).lookup.enrich_profiles(
            "handle", client=client, method="single", progress=False
        )
        sent = [r.at for r in svc.requests if r.path == PROFILE]
        assert (out["lookup_status"] == "ok").all() and len(sent) == handles
        assert svc.rate_limited() == 0
    # The pace is the enterprise limit's: at the safe default the 39 gaps would take 334 s. A
    # tenth of that holds on a loaded machine, where a ratio to the limit's 2 s would not (the
    # rate-bound benchmark measures how close to the limit a run keeps).
    at_safe_default = (handles - 1) * 60.0 / SAFE_DEFAULT_RATE_PER_MINUTE
    assert max(sent) - min(sent) < at_safe_default / 10
    assert estimate.tier_change is None  # an enterprise account climbs no ladder


def test_an_enterprise_account_s_tier_balance_and_estimate():
    with (
        FakeService(enterprise_limit_per_minute=ENTERPRISE_LIMIT, balance=5_000_000) as svc,
        make_client(svc) as client,
    ):
        tier = lp.credits_tier(client=client)
        assert tier["limit_per_minute"].item() == ENTERPRISE_LIMIT
        assert tier_line(client.credits_tier()).startswith("tier enterprise: 1,200 calls/min")
        assert lp.balance(client=client) == 5_000_000  # the enterprise workspace's route
        client.parts.contact.learn_pace()
        estimate = leads(95).lookup.estimate_profiles("handle", client=client, method="single")
        assert estimate.seconds == pytest.approx(95 / (0.95 * ENTERPRISE_LIMIT) * 60)


# -- a 429's wait -----------------------------------------------------------------------------


def test_a_429_whose_wait_is_only_in_its_body_is_waited_out(fake_service):
    """The official SDK reads the wait from errors.retry_after; production's reference does not
    say whether the Retry-After header comes too."""
    told = []

    def once(request):
        if told:
            return None  # the real route
        told.append(request)
        errors = {"current_tier": "Hobby", "current_limit": 30, "retry_after": 1}
        return fail(429, "Rate limit exceeded", errors=errors)  # no Retry-After header

    fake_service.override(PROFILE, once)
    with make_client(fake_service, rate_limit_per_minute=6000) as client:
        assert client.profile("ada")["handle"] == "ada"
    first, second = (r.at for r in fake_service.requests if r.path == PROFILE)
    assert second - first >= 1.0  # waited as the body said (capped by retry_after_max=2)


# -- institutions not found -------------------------------------------------------------------


def test_alumni_of_an_unknown_institution_is_an_empty_frame_bought_once(fake_service, tmp_path):
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        for _ in range(2):
            out = lp.institution_alumni("no-such-school", client=client, progress=False)
            assert out.empty
    assert fake_service.billed(ALUMNI_PATH) == 1  # production's billed 1040, then cached


# -- production's free repeat -----------------------------------------------------------------


def test_a_free_repeat_counts_0_credits_in_the_summary():
    """Production answers an identical repeat from its own short-lived cache, free, and says so
    in X-Credits-Consumed: the summary's credits are what the service billed."""
    with FakeService(free_repeat_seconds=600) as svc:
        figures = []
        for _ in range(2):  # two Clients without a cache of their own
            with make_client(svc, cache=False) as client:
                out = leads(5).lookup.enrich_profiles("handle", client=client, progress=False)
                figures.append(out.lookup.summary.credits)
        assert figures == [5.0, 0.0]
        assert svc.stats()["credits"] == 5.0


# -- a batch job stopped by credits -----------------------------------------------------------


def test_a_batch_job_stopped_by_credits_keeps_what_resolved_and_a_rerun_buys_the_rest(tmp_path):
    """Production's job ends in status "error" when the balance runs out mid-job. The balance
    covers the job when it is checked; another spender on the account drains it (to 10
    credits) once the job is submitted."""
    cache = tmp_path / "c.sqlite"
    with FakeService(balance=1_000, batch_resolve_rate=100) as svc:
        drained = threading.Event()

        def drain() -> None:
            if wait_until(lambda: bool(svc.batch_jobs), within=30):
                svc.configure(balance=10)
                drained.set()

        spender = threading.Thread(target=drain)
        spender.start()
        with make_client(svc, cache=cache) as client, pytest.raises(InsufficientCreditsError):
            leads(50).lookup.enrich_profiles("handle", client=client, method="batch")
        spender.join()
        assert drained.is_set()
        (job,) = svc.state.jobs.values()
        assert svc.count(BATCH_PATH, method="POST") == 1
        bought = sum(svc.billed_handles().values())
        assert 10 <= bought < 50 and svc.balance == 0  # what resolved before the balance ran out
        svc.configure(balance=1_000)  # topped up
        with make_client(svc, cache=cache) as client:
            out = leads(50).lookup.enrich_profiles("handle", client=client, method="batch")
        assert (out["lookup_status"] == "ok").all()
        billed = svc.billed_handles()
        assert sum(billed.values()) == 50 and set(billed.values()) == {1}  # each bought once
        assert job.stopped is not None  # the stopped job was the first run's only one
