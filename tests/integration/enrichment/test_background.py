"""``enrich_profiles(..., background=True)``: an EnrichmentJob, against a slowed emulator.

The emulator answers each request after ``latency`` seconds, so a job of a few dozen handles
runs for seconds: it is seen running right after it is started, and its result is the frame the
foreground call gives (from a second Client on the same cache, which sends nothing). Cancelled
once a few handles are done, it stops sending (the count stops growing), ``result()`` raises
CancelledError, and a foreground re-run pays for no handle twice. An exception in the job (a
wrong key) is raised by ``result()``; two jobs on one Client over overlapping handles buy each
handle once; ``repr(job)`` and ``job.line()`` tell its progress.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import CancelledError
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.service.paths import COMPANY_PATH

from ..enrich_helpers import lead_frame
from ..helpers import PROFILE, make_client, wait_until

pytestmark = pytest.mark.timeout(180)

STATUS = "lookup_status"
#: Seconds the emulator takes to answer each request while a job should be seen running.
SLOW = 0.2


def handles(tag: str, n: int) -> list[str]:
    return [f"bg-{tag}-{i:03d}" for i in range(n)]


def start(frame: pd.DataFrame, client: lp.Client, **kwargs: Any) -> lp.EnrichmentJob:
    kwargs.setdefault("progress", False)
    job = frame.lookup.enrich_profiles("handle", client=client, background=True, **kwargs)
    assert isinstance(job, lp.EnrichmentJob)
    return job


def test_a_background_job_returns_at_once_and_gives_the_foreground_frame(fake_service, tmp_path):
    fake_service.configure(latency=SLOW)
    cache = tmp_path / "c.sqlite"
    leads = lead_frame([*handles("fg", 40), None, "unknown-bg-fg", "bg-fg-000"])
    with make_client(fake_service, cache=cache) as client:
        job = start(leads, client, method="single")
        # 40 handles, 0.2 s each: far from done when the call returned
        assert not job.done()
        assert job.running()
        assert job.status() == "running"
        assert job.summary is None
        out = job.result(timeout=120)
    assert job.done() and not job.running()
    assert job.status() == "done"
    assert job.exception() is None and not job.cancelled()
    assert job.cancel() is False  # too late: it finished
    assert job.summary is not None and job.summary.fetched == 41
    assert out[STATUS].tolist() == ["ok"] * 40 + ["invalid", "not_found", "ok"]
    assert fake_service.billed() == 41

    sent = fake_service.count()
    with make_client(fake_service, cache=cache) as other:
        foreground = leads.lookup.enrich_profiles(
            "handle", client=other, method="single", progress=False
        )
    assert fake_service.count() == sent  # from the cache the job filled
    pd.testing.assert_frame_equal(out, foreground)


def test_background_enrich_companies(fake_service, tmp_path):
    fake_service.configure(latency=0.05)
    accounts = pd.DataFrame({"slug": ["acme", "globex", "ACME", None, "unknown-co"]})
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, cache=cache) as client:
        job = accounts.lookup.enrich_companies(
            "slug", client=client, progress=False, background=True
        )
        assert isinstance(job, lp.EnrichmentJob)
        out = job.result(timeout=120)
    assert out[STATUS].tolist() == ["ok", "ok", "ok", "invalid", "not_found"]
    assert fake_service.count(COMPANY_PATH) == 3
    with make_client(fake_service, cache=cache) as other:
        foreground = accounts.lookup.enrich_companies("slug", client=other, progress=False)
    pd.testing.assert_frame_equal(out, foreground)
    assert fake_service.count(COMPANY_PATH) == 3


def test_cancel_stops_sending_and_a_rerun_bills_nothing_twice(fake_service, tmp_path):
    fake_service.configure(latency=SLOW)
    cache = tmp_path / "c.sqlite"
    wanted = handles("cancel", 60)
    leads = lead_frame(wanted)
    with make_client(fake_service, cache=cache) as client:
        job = start(leads, client, method="single")
        assert wait_until(lambda: job.watch.done >= 3)
        assert job.cancel() is True
        assert job.status() in ("cancelling", "cancelled")
        assert job.wait(30)  # stopped (a bound against a hang, not a speed check)
        assert job.done() and job.cancelled()
        assert job.status() == "cancelled"
        with pytest.raises(CancelledError):
            job.result(timeout=10)
        assert isinstance(job.exception(), CancelledError)
        assert job.cancel() is False
        sent = fake_service.count(PROFILE)
        time.sleep(1.0)  # several answers' worth: had it gone on, more would have come
        assert fake_service.count(PROFILE) == sent
        assert sent < len(wanted)
        # what it did up to the cancel: the rows answered, and every credit it spent (the
        # calls in flight at the cancel landed, were billed and are counted)
        summary = job.summary
        assert summary is not None
        assert 3 <= summary.rows == summary.statuses["ok"] == summary.fetched < len(wanted)
        assert summary.credits == fake_service.billed() == sent
        assert "cancelled" in job.line()

    with make_client(fake_service, cache=cache) as client:
        out = leads.lookup.enrich_profiles("handle", client=client, progress=False)
    assert out[STATUS].tolist() == ["ok"] * len(wanted)
    billed = fake_service.billed_handles()
    assert set(billed) == set(wanted)
    assert set(billed.values()) == {1}  # what the cancelled job bought was not bought again


def test_an_exception_in_the_job_is_raised_by_result(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    with make_client(fake_service, api_key="lk_test_not_a_key", cache=cache) as client:
        job = start(lead_frame(handles("auth", 5)), client)
        assert job.wait(60)
        with pytest.raises(lp.AuthenticationError):
            job.result(timeout=10)
    assert isinstance(job.exception(), lp.AuthenticationError)
    assert job.status() == "failed"
    assert not job.cancelled()
    assert job.summary is None
    assert "lk_test_not_a_key" not in repr(job) + job.line()
    assert fake_service.billed() == 0


def test_two_jobs_on_one_client_buy_each_handle_once(fake_service, tmp_path):
    fake_service.configure(latency=0.05)
    first, second = handles("two", 30), handles("two", 45)[15:]
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        a = start(lead_frame(first), client, method="single")
        b = start(lead_frame(second), client, method="single")
        out_a, out_b = a.result(timeout=120), b.result(timeout=120)
    assert out_a[STATUS].tolist() == ["ok"] * 30
    assert out_b[STATUS].tolist() == ["ok"] * 30
    # the overlap has the same record in both
    overlap = [c for c in out_a.columns if c.startswith("profile_")]
    pd.testing.assert_frame_equal(
        out_a.iloc[15:][overlap].reset_index(drop=True),
        out_b.iloc[:15][overlap].reset_index(drop=True),
    )
    billed = fake_service.billed_handles()
    assert set(billed) == set(first) | set(second)
    assert set(billed.values()) == {1}
    # each summary is its own job's: together they sent what the emulator saw, and paid what
    # it billed (each handle in one of them), not the Client's totals twice
    sa, sb = a.summary, b.summary
    assert sa is not None and sb is not None
    assert sa.requests + sb.requests == fake_service.count()
    assert sa.credits + sb.credits == fake_service.billed() == 45
    assert sa.fetched + sb.fetched == 45 and sa.cached + sb.cached == 15


def test_repr_and_line_tell_the_progress(fake_service, tmp_path):
    fake_service.configure(latency=SLOW)
    wanted = handles("line", 30)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        job = start(lead_frame(wanted), client, method="single")
        assert wait_until(lambda: job.watch.done >= 1 and job.watch.total is not None)
        running = job.line()
        shown = repr(job)
        out = job.result(timeout=120)
    assert re.match(r"running: \d+/30 profiles", running), running
    assert shown.startswith("<EnrichmentJob running: ") and shown.endswith(">")
    assert len(out) == 30
    done = job.line()
    assert done.startswith("done: 30 rows (30 ok"), done
    assert "30 fetched" in done and "30 credits" in done
    assert repr(job) == f"<EnrichmentJob {done}>"
