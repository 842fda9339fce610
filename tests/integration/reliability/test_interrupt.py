"""Ctrl-C during an enrichment: what was paid for is kept, nothing more is sent, resume pays once.

Ctrl-C is ``_thread.interrupt_main()`` called from inside the emulator while it answers: the
KeyboardInterrupt arrives in the main thread while enrich_profiles waits for its workers.
"""

from __future__ import annotations

import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup

from ..enrich_helpers import AfterN, interrupt_main, lead_frame
from ..helpers import PROFILE, make_client

pytestmark = pytest.mark.timeout(120)


def test_interrupted_run_keeps_what_was_fetched_and_resume_pays_once(fake_service, tmp_path):
    cache = tmp_path / "interrupt.sqlite"
    handles = [f"ctrlc{i:02d}-lead" for i in range(40)]
    frame = lead_frame(handles)
    before = frame.copy(deep=True)
    fake_service.configure(latency=0.02)
    trigger = AfterN(15, interrupt_main)
    fake_service.override(PROFILE, trigger)

    with (
        make_client(fake_service, cache=cache, max_workers=4) as client,
        pytest.raises(KeyboardInterrupt),
    ):
        frame.lookup.enrich_profiles("handle", client=client, progress=False, method="single")

    assert trigger.fired
    fake_service.override(PROFILE, None)
    answered = fake_service.count(PROFILE)
    assert answered >= 15
    assert answered < len(handles)  # it did stop
    assert fake_service.count(PROFILE, status=200) == answered
    assert frame.equals(before)

    with make_client(fake_service, cache=cache) as client:
        est = frame.lookup.estimate_profiles("handle", client=client)
        assert est.cached >= 15
        assert est.cached == answered  # every answer paid for is in the cache
        assert est.to_fetch == len(handles) - est.cached
        sent = fake_service.count(PROFILE)
        out = frame.lookup.enrich_profiles("handle", client=client, progress=False, method="single")

    assert fake_service.count(PROFILE) - sent == est.to_fetch
    assert out["lookup_status"].tolist() == ["ok"] * len(handles)
    assert out["profile_handle"].tolist() == handles
    assert {h: fake_service.billed(PROFILE, handle=h) for h in handles} == {h: 1 for h in handles}


def test_interrupt_sends_nothing_that_was_still_waiting_for_a_slot(fake_service, tmp_path):
    # A slow tier: 60 calls/min advertised, so the client paces about one call a second and
    # the other workers sit waiting for their slots. Ctrl-C after the 2nd answer: the calls
    # already on the wire finish (and are kept), the ones still waiting must not go out.
    fake_service.configure(rate_limit_per_minute=60)
    handles = [f"slowc{i}-lead" for i in range(8)]
    frame = lead_frame(handles)
    trigger = AfterN(2, interrupt_main)
    fake_service.override(PROFILE, trigger)

    with (
        make_client(fake_service, cache=tmp_path / "slow.sqlite", max_workers=4) as client,
        pytest.raises(KeyboardInterrupt),
    ):
        frame.lookup.enrich_profiles("handle", client=client, progress=False)

    assert trigger.fired
    assert fake_service.count(PROFILE) == 2
    assert fake_service.billed(PROFILE) == 2
