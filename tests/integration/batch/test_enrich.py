"""Enrichment through the service's batch jobs, against the emulator over loopback.

What is tested: ``method="auto"`` picks batch jobs for more than 20 handles to fetch (cached
handles do not count) and single calls otherwise; a batch run and a run of single calls give
the same frame for the same input; a service without batch jobs costs one 404 submit, then
single calls (remembered), and ``method="batch"`` refuses it; lists over 1,000 handles are
split; items a job errored on, and a job that expired before it was polled, are completed by
single calls; a rejected key stops the run; every batch result is cached as a single
answer (the same Client, a new one on the same file, ``estimate_profiles``); ``max_calls``
and ``errors="raise"`` work alike; the estimate of a batch run; the progress bar; and the API
key never lands in the files beside the cache. Waits are bounded; no wall-clock thresholds.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas import (
    AuthenticationError,
    BatchUnavailableError,
    BudgetExceededError,
    ConfigurationError,
    NotFoundError,
)
from lookup_pandas.api import functions as api
from lookup_pandas.client.fetching import fetched
from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.testing import BATCH, PROFILE, FakeService

from ..enrich_helpers import AfterN, expected_status, lead_frame, person_id, spellings
from ..helpers import TIER, data_count, make_client

STATUS, ERROR = "lookup_status", "lookup_error"


def enrich(frame, client, **kwargs):
    kwargs.setdefault("progress", False)
    return frame.lookup.enrich_profiles("handle", client=client, **kwargs)


def names(tag: str, n: int, unknown: int = 0) -> list[str]:
    """``n`` handles that exist, then ``unknown`` that do not (``unknown-...``)."""
    return [f"{tag}{i:04d}" for i in range(n)] + [f"unknown-{tag}{i}" for i in range(unknown)]


def posts(svc: FakeService) -> int:
    """Batch submits the emulator saw."""
    return svc.count(BATCH, method="POST")


def billed_per_handle(svc: FakeService) -> dict[str, int]:
    """Credits per handle, single lookups and batch items alike."""
    return dict(svc.billed_handles())


def files_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def assert_statuses(out: pd.DataFrame, values: list) -> None:
    assert out[STATUS].tolist() == [expected_status(v) for v in values]
    for value, status, got in zip(values, out[STATUS], out["profile_id"], strict=True):
        if status == "ok":
            assert got == person_id(normalise_handle(value))
        else:
            assert pd.isna(got)


# -- 1. the fast path --------------------------------------------------------------------------


def test_auto_uses_one_batch_job_and_bills_each_handle_once(fake_service, fake_client):
    handles = names("fast", 55, unknown=5)
    frame = lead_frame(handles)

    out, summary = api.enrich_with_summary(frame, "handle", client=fake_client, progress=False)

    assert posts(fake_service) == 1
    assert fake_service.count(PROFILE) == 0
    assert fake_service.count(BATCH, method="GET") >= 1  # the polls
    assert billed_per_handle(fake_service) == {h: 1 for h in handles}
    for h in ("fast0000", "unknown-fast0"):
        assert fake_service.billed(handle=h) == 1
    assert_statuses(out, handles)
    assert out[STATUS].value_counts().to_dict() == {"ok": 55, "not_found": 5}
    assert summary.jobs == 1
    assert summary.fetched == 60
    assert summary.cached == 0 and summary.failed == 0
    assert summary.statuses == {
        "ok": 55,
        "not_found": 5,
        "forbidden": 0,
        "invalid": 0,
        "error": 0,
    }
    assert summary.credits == 60


# -- 2. the same frame whichever the method ----------------------------------------------------


def test_batch_and_single_give_the_same_frame(fake_service, tmp_path):
    found = names("same", 24)
    unknown = ["unknown-same-a", "unknown-same-b"]
    values = [s for h in found[:6] for s in spellings(h)]  # profile URLs, slashes, spaces
    values += found[6:] + found[6:12]  # duplicates
    values += unknown + unknown[:1] + [None, "", "   ", float("nan"), pd.NA]
    rng = np.random.default_rng(11)
    values = [values[i] for i in rng.permutation(len(values))]
    frame = lead_frame(values, index=[f"r{i}" for i in range(len(values))])
    distinct = {normalise_handle(v) for v in values} - {None}

    with make_client(fake_service, cache=tmp_path / "batch.sqlite") as client:
        batch = enrich(frame, client, method="batch")
    assert posts(fake_service) == 1 and fake_service.count(PROFILE) == 0

    with make_client(fake_service, cache=tmp_path / "single.sqlite") as client:
        single = enrich(frame, client, method="single")
    assert posts(fake_service) == 1
    assert fake_service.count(PROFILE) == len(distinct)

    pd.testing.assert_frame_equal(batch, single)
    assert_statuses(batch, values)
    assert billed_per_handle(fake_service) == {h: 2 for h in distinct}  # once per method


_POOL = [f"hb-p{i}" for i in range(5)] + ["unknown-hb-0", "unknown-hb-1"]
_SPELLED = st.sampled_from(_POOL).flatmap(lambda h: st.sampled_from(spellings(h)))
_BLANK = st.sampled_from([None, float("nan"), "", "   ", "\t"])


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=st.lists(st.one_of(_SPELLED, _SPELLED, _BLANK), max_size=14), cached=st.booleans())
def test_batch_and_single_give_equal_frames_for_any_list(fake_service, values, cached):
    # Each example gets fresh caches: a temporary file on one side, no cache on the other
    # (``cached`` says which side has the file, so both paths are walked).
    fake_service.configure(batch_resolve_rate=0)
    frame = lead_frame(values)
    distinct = {normalise_handle(v) for v in values} - {None}
    with tempfile.TemporaryDirectory() as folder:
        on_disk = Path(folder) / "cache.sqlite"
        sent_posts, sent_profiles = posts(fake_service), fake_service.count(PROFILE)
        with make_client(fake_service, cache=on_disk if cached else False) as client:
            batch = enrich(frame, client, method="batch")
            assert client.parts.store.jobs() == []
        assert posts(fake_service) - sent_posts == (1 if distinct else 0)
        assert fake_service.count(PROFILE) == sent_profiles
        with make_client(fake_service, cache=False if cached else on_disk) as client:
            single = enrich(frame, client, method="single")
        assert posts(fake_service) - sent_posts == (1 if distinct else 0)
        assert fake_service.count(PROFILE) - sent_profiles == len(distinct)
    pd.testing.assert_frame_equal(batch, single)
    assert batch[STATUS].tolist() == [expected_status(v) for v in values]


# -- 3. a service without batch jobs -----------------------------------------------------------


def test_without_batch_auto_falls_back_to_single_calls_and_remembers(fake_service, tmp_path):
    fake_service.configure(batch=False)
    first, second = names("nob", 38, unknown=2), names("nob2-", 40)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        out, summary = api.enrich_with_summary(lead_frame(first), "handle", client=client)
        assert summary.jobs == 0 and "batch job" not in str(summary)  # none was created
        assert summary.fetched == len(first)
        assert posts(fake_service) == 1
        assert fake_service.count(BATCH, method="POST", status=404) == 1
        assert fake_service.count(BATCH, method="GET") == 0
        assert {h: fake_service.count(PROFILE, handle=h) for h in first} == {h: 1 for h in first}
        assert_statuses(out, first)
        assert client.parts.batch.supported_for(PEOPLE) is False

        again = enrich(lead_frame(second), client)
        assert posts(fake_service) == 1  # remembered: no second submit
        assert fake_service.count(PROFILE) == len(first) + len(second)
        assert_statuses(again, second)
    assert billed_per_handle(fake_service) == {h: 1 for h in first + second}


def test_without_batch_method_batch_raises(fake_service, tmp_path):
    fake_service.configure(batch=False)
    frame = lead_frame(names("nob-raise", 30))
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        with pytest.raises(BatchUnavailableError) as info:
            enrich(frame, client, method="batch")
        assert isinstance(info.value, ConfigurationError)
        assert posts(fake_service) == 1
        assert fake_service.billed() == 0
        assert fake_service.count(PROFILE) == 0
        assert client.parts.batch.supported_for(PEOPLE) is False

        # The Client knows now: refused before anything is sent.
        sent = fake_service.count()
        with pytest.raises(BatchUnavailableError):
            enrich(frame, client, method="batch")
        assert fake_service.count() == sent
    assert fake_service.billed() == 0


# -- 4. small lists -------------------------------------------------------------------------------


def test_auto_threshold_is_more_than_20_handles_to_fetch(fake_service, fake_client):
    twenty = names("small", 20)
    out = enrich(lead_frame(twenty + twenty[:5]), fake_client)  # duplicates do not count
    assert posts(fake_service) == 0
    assert fake_service.count(PROFILE) == 20
    assert out[STATUS].eq("ok").all()

    twenty_one = names("small21-", 21)
    out = enrich(lead_frame(twenty_one), fake_client)
    assert posts(fake_service) == 1
    assert fake_service.count(PROFILE) == 20
    assert out[STATUS].eq("ok").all()
    assert billed_per_handle(fake_service) == {h: 1 for h in twenty + twenty_one}


def test_cached_handles_do_not_count_towards_the_threshold(fake_service, fake_client):
    thirty = names("half", 28, unknown=2)
    enrich(lead_frame(thirty[:15]), fake_client)
    assert fake_service.count(PROFILE) == 15
    frame = lead_frame(thirty)
    est = frame.lookup.estimate_profiles("handle", client=fake_client)
    assert (est.cached, est.to_fetch, est.method) == (15, 15, "single")

    out = enrich(frame, fake_client)
    assert posts(fake_service) == 0
    assert fake_service.count(PROFILE) == 30
    assert_statuses(out, thirty)
    assert billed_per_handle(fake_service) == {h: 1 for h in thirty}


# -- 5. more than 1,000 handles --------------------------------------------------------------------


def test_a_long_list_is_split_into_jobs_of_at_most_1000(fake_service):
    fake_service.configure(batch_page_size=500, batch_resolve_rate=0)
    handles = names("long", 2100)
    with make_client(fake_service, cache=False) as client:
        out = enrich(lead_frame(handles), client)

    jobs = fake_service.batch_jobs
    assert len(jobs) == 3 == posts(fake_service)
    assert all(len(inputs) <= 1000 for inputs in jobs.values())
    assert sorted(h for inputs in jobs.values() for h in inputs) == sorted(handles)
    assert fake_service.count(PROFILE) == 0
    assert billed_per_handle(fake_service) == {h: 1 for h in handles}
    assert out[STATUS].eq("ok").all()
    assert out["profile_handle"].tolist() == handles


# -- 6. items a job errored on -------------------------------------------------------------------


def test_items_in_errors_are_fetched_by_single_calls(fake_service, fake_client):
    fake_service.configure(batch_error_rate=0.2)
    handles = names("itemerr", 75, unknown=5)
    out = enrich(lead_frame(handles), fake_client)

    assert_statuses(out, handles)
    assert not out[STATUS].eq("error").any()
    (job,) = fake_service.state.jobs.values()
    errored = {i for i, outcome in zip(job.inputs, job.outcomes, strict=True) if outcome == "error"}
    assert errored  # about 16 of 80: the emulator's draw is deterministic
    assert fake_service.count(PROFILE) == len(errored) > 0
    assert {h: fake_service.count(PROFILE, handle=h) for h in handles} == {
        h: int(h in errored) for h in handles
    }
    assert billed_per_handle(fake_service) == {h: 1 for h in handles}
    assert fake_client.parts.store.jobs() == []


# -- 7. a job that expires before it is collected ---------------------------------------------


def test_a_job_that_expires_before_it_is_polled_falls_back_to_single_calls(fake_service, tmp_path):
    # The job resolves at once and can be polled for 0.1 s after; this client first polls it
    # 0.5 s after the submit, and gets a 404.
    fake_service.configure(batch_job_lifetime=0.1, batch_resolve_rate=0)
    handles = names("expire", 56, unknown=4)
    with make_client(fake_service, cache=tmp_path / "c.sqlite", batch_poll_interval=0.5) as c:
        out = enrich(lead_frame(handles), c)
        assert c.parts.store.jobs() == []  # the expired job is forgotten

    assert_statuses(out, handles)
    assert fake_service.count(BATCH, method="GET", status=404) == 1
    # A job this run submitted expired before it was polled: jobs expire faster than this
    # client polls, so the handles are fetched singly (a single call cannot expire) rather
    # than submitted again, which could expire again and pay again.
    assert posts(fake_service) == 1
    assert {h: fake_service.count(PROFILE, handle=h) for h in handles} == {h: 1 for h in handles}
    # Each item of the expired job was billed as it resolved and its result was lost with the
    # job (production bills it too): every handle cost exactly two credits, never more.
    assert billed_per_handle(fake_service) == {h: 2 for h in handles}


# -- 8. the key rejected mid-job -------------------------------------------------------------------


def test_a_key_revoked_mid_job_raises_and_stops(fake_service, fake_client):
    fake_service.configure(batch_resolve_rate=100)  # 60 items: still processing at poll 2
    # The 1st request to BATCH is the submit, the 2nd the first poll: it is answered, then
    # the key is revoked.
    revoke = AfterN(2, fake_service.revoke_key)
    fake_service.override(BATCH, revoke)
    with pytest.raises(AuthenticationError):
        enrich(lead_frame(names("revoked", 60)), fake_client)

    assert revoke.fired
    assert posts(fake_service) == 1
    assert fake_service.count(BATCH, method="GET", status=200) == 1
    forbidden = fake_service.count(status=403)
    assert 1 <= forbidden <= 2  # only what was in flight
    assert fake_service.count(PROFILE) == 0
    sent = fake_service.count()
    time.sleep(0.3)  # nothing is left running that would send more
    assert fake_service.count() == sent
    # The job stays stored: a re-run with a valid key polls it instead of paying again.
    assert [j.inputs for j in fake_client.parts.store.jobs()] == [tuple(names("revoked", 60))]


# -- 9. every batch result is a cache hit afterwards -----------------------------------------------


def test_batch_results_are_cache_hits_for_every_later_call(fake_service, fake_client, tmp_path):
    handles = names("hit", 27, unknown=3)
    frame = lead_frame(handles + handles[:4])
    first = enrich(frame, fake_client)
    assert posts(fake_service) == 1 and fake_service.count(PROFILE) == 0
    sent = fake_service.count()

    assert fake_client.profile("hit0003")["id"] == person_id("hit0003")
    assert fake_client.profile("unknown-hit1") is None
    with pytest.raises(NotFoundError):
        fetched(fake_client.parts.sender.request, "unknown-hit2", PEOPLE)
    assert fake_service.count() == sent

    again = enrich(frame, fake_client)
    pd.testing.assert_frame_equal(again, first)
    assert fake_service.count() == sent

    with make_client(fake_service, cache=tmp_path / "lookup-cache.sqlite") as other:
        est = frame.lookup.estimate_profiles("handle", client=other)
        assert (est.unique, est.cached, est.to_fetch, est.method) == (30, 30, 0, "none")
        pd.testing.assert_frame_equal(enrich(frame, other), first)
        assert other.profile("hit0004")["id"] == person_id("hit0004")
        assert other.profile("unknown-hit0") is None
    assert fake_service.count() == sent
    assert billed_per_handle(fake_service) == {h: 1 for h in handles}


# -- 10. max_calls -------------------------------------------------------------------------------


def test_max_calls_counts_billable_items_with_batch(fake_service, fake_client):
    handles = names("budget", 48, unknown=2)
    frame = lead_frame(handles + handles[:10])
    with pytest.raises(BudgetExceededError) as info:
        enrich(frame, fake_client, method="batch", max_calls=49)
    assert (info.value.needed, info.value.allowed) == (50, 49)
    assert fake_service.count(BATCH) == 0
    assert fake_service.count() == 0

    out = enrich(frame, fake_client, method="batch", max_calls=50)
    assert posts(fake_service) == 1 and fake_service.count(PROFILE) == 0
    assert_statuses(out, handles + handles[:10])
    assert billed_per_handle(fake_service) == {h: 1 for h in handles}


# -- 11. errors="raise" ---------------------------------------------------------------------------


def test_raise_mode_with_batch_names_the_not_found_handle(fake_service, fake_client):
    handles = names("raiseb", 29) + ["unknown-raiseb"]
    with pytest.raises(NotFoundError) as info:
        enrich(lead_frame(handles), fake_client, method="batch", errors="raise")
    assert "unknown-raiseb" in str(info.value)
    assert posts(fake_service) == 1
    assert fake_service.count(PROFILE) == 0


# -- 12. the estimate ------------------------------------------------------------------------------


def test_estimate_of_a_batch_run(fake_service, fake_client):
    frame = lead_frame(names("estb", 245, unknown=5) + [None, ""])

    est = frame.lookup.estimate_profiles("handle", client=fake_client, method="auto")
    assert (est.rows, est.unique, est.cached, est.to_fetch) == (252, 250, 0, 250)
    assert (est.method, est.jobs) == ("batch", 1)
    assert est.polls >= 3
    assert est.seconds is not None and est.seconds > 0  # the tier read for the balance route
    assert est.credits == 250  # batch items at 1 each
    assert data_count(fake_service) == 0 and fake_service.count(TIER) == 1  # free reads only

    assert fake_client.parts.contact.learn_pace() > 0  # known already: not read again
    assert data_count(fake_service) == 0 and fake_service.count(TIER) == 1
    again = frame.lookup.estimate_profiles("handle", client=fake_client, method="auto")
    assert (again.method, again.jobs, again.polls, again.seconds) == (
        est.method, est.jobs, est.polls, est.seconds,
    )  # fmt: skip

    single = frame.lookup.estimate_profiles("handle", client=fake_client, method="single")
    assert (single.method, single.jobs, single.polls, single.to_fetch) == ("single", 0, 0, 250)
    assert data_count(fake_service) == 0 and fake_service.count(TIER) == 1


# -- 13. the progress bar --------------------------------------------------------------------------


def test_progress_bar_shows_the_total_credits_and_jobs(fake_service, fake_client, capsys):
    handles = names("bar", 57, unknown=3)
    out = enrich(lead_frame(handles), fake_client, progress=True)
    assert_statuses(out, handles)

    err = capsys.readouterr().err
    final = [line for line in err.replace("\n", "\r").split("\r") if line.strip()][-1]
    assert "60/60" in final, final
    assert "credits=60" in final, final
    assert "jobs=1/1" in final, final


# -- the API key never lands beside the cache ------------------------------------------------------


def test_the_api_key_is_in_no_file_beside_the_cache(fake_service, tmp_path):
    key = fake_service.api_key.encode()
    done, stopped = tmp_path / "done", tmp_path / "stopped"
    handles = names("secret", 30)

    # A run that completes: its job is forgotten.
    with make_client(fake_service, cache=done / "leads.sqlite") as client:
        enrich(lead_frame(handles), client)
    files = files_bytes(done)
    assert {"leads.sqlite", "leads.store.sqlite"} <= set(files)
    assert b"secret0007" in files["leads.sqlite"]  # the cached answers are in there
    for name, content in files.items():
        assert key not in content, name

    # A run stopped mid-job: its job stays stored.
    fake_service.configure(batch_resolve_rate=100)
    fake_service.override(BATCH, AfterN(2, fake_service.revoke_key))
    with make_client(fake_service, cache=stopped / "leads.sqlite") as client:
        with pytest.raises(AuthenticationError):
            enrich(lead_frame(names("secret2-", 60)), client)
        (stored,) = client.parts.store.jobs()
    files = files_bytes(stopped)
    assert "leads.store.sqlite" in files
    assert any(stored.job_id.encode() in content for content in files.values())
    for name, content in files.items():
        assert key not in content, name
