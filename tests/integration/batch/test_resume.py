"""Resuming batch jobs an earlier run submitted: never paying twice for one handle.

What is tested, against the emulator over loopback: a child process enriching by batch jobs
is stopped with SIGINT mid-collection, and the re-run polls the stored job instead of
submitting its handles again; the same without signals (a job submitted and stored but never
collected, and a BatchRun broken off after its first result); a stored job that expired is
polled once (404), forgotten, and what is still needed is submitted anew; a resumed job is
forgotten once every one of its inputs is cached, and kept while some are not; a run of
single calls resumes a stored job too, and ``refresh=True`` ignores stored jobs.

Production facts the emulator mirrors: a batch item is billed when it resolves, collected or
not; a submitted job runs to its end; submitting a handle again pays again; an unknown or
expired job answers 404. Every wait is bounded; nothing depends on wall-clock thresholds.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.api import functions as api
from lookup_pandas.enrichment.batch_run import BatchRun
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import StoredJob, namespace, store_path
from lookup_pandas.store.local import LocalStore
from lookup_pandas.testing import BATCH, PROFILE, FakeService

from ..enrich_helpers import expected_status, lead_frame, person_id
from ..helpers import make_client

#: The run's one pool, as ``lookup_values`` makes it (one per test module here).
POOL = ThreadPoolExecutor(4, "test-run")
pytestmark = pytest.mark.timeout(120)

STATUS = "lookup_status"


def names(tag: str, n: int, unknown: int = 0) -> list[str]:
    """``n`` handles that exist, then ``unknown`` that do not (``unknown-...``)."""
    return [f"{tag}{i:04d}" for i in range(n)] + [f"unknown-{tag}{i}" for i in range(unknown)]


def enrich(frame, client, **kwargs):
    kwargs.setdefault("progress", False)
    return frame.lookup.enrich_profiles("handle", client=client, **kwargs)


def posts(svc: FakeService) -> int:
    """Batch submits the emulator saw."""
    return svc.count(BATCH, method="POST")


def polls(svc: FakeService, job_id: str, **kwargs) -> int:
    """Polls of one job the emulator saw."""
    return svc.count(BATCH, method="GET", job_id=job_id, **kwargs)


def submitted_inputs(svc: FakeService) -> Counter[str]:
    """How many jobs each input was submitted in, over every job since the reset."""
    return Counter(h for inputs in svc.batch_jobs.values() for h in inputs)


def assert_rows(out, handles: list[str]) -> None:
    """Every row ok or not_found as the emulator's data says, with the right record."""
    assert out[STATUS].tolist() == [expected_status(h) for h in handles]
    for handle, status, got in zip(handles, out[STATUS], out["profile_id"], strict=True):
        if status == "ok":
            assert got == person_id(handle), handle


def store_a_job(svc: FakeService, cache, handles: list[str]) -> str:
    """What an interrupted run leaves: a job submitted and stored, nothing collected."""
    with make_client(svc, cache=cache) as client:
        job_id = client.parts.batch.submit(PEOPLE, handles, None)
        client.parts.store.remember(StoredJob(job_id, tuple(handles), time.time()))
        assert job_id in [j.job_id for j in client.parts.store.jobs()]
    return job_id


def wait_until(condition, *, within: float = 30.0, step: float = 0.02) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


def wait_resolved(svc: FakeService, job_id: str, *, within: float = 30.0) -> None:
    """Until every item of the job resolved (and so was billed, collected or not)."""

    def resolved() -> bool:
        svc.state.settle_jobs()
        job = svc.state.jobs[job_id]
        return job.settled >= job.total

    assert wait_until(resolved, within=within)


# -- 1. Ctrl-C in another process -----------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import os
    import sys

    import pandas as pd

    import lookup_pandas as lp

    handles = sys.argv[1:]
    frame = pd.DataFrame({"handle": handles})
    client = lp.Client(cache=os.environ["LOOKUP_CACHE"], batch_poll_interval=0.05)
    print("started", flush=True)
    try:
        frame.lookup.enrich_profiles("handle", client=client, method="batch", progress=False)
    finally:
        client.close()
    print("finished", flush=True)
    """
)


def _child_env(svc: FakeService, cache) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(LOOKUP_API_KEY=svc.api_key, LOOKUP_BASE_URL=svc.base_url, LOOKUP_CACHE=str(cache))
    return env


def _read_line(proc: subprocess.Popen, within: float) -> str:
    """The child's next stdout line, waiting at most ``within`` seconds ("" if none)."""
    ready, _, _ = select.select([proc.stdout], [], [], within)
    return proc.stdout.readline() if ready else ""


def test_sigint_mid_collection_then_the_rerun_polls_the_stored_job_and_pays_once(
    fake_service, tmp_path
):
    # 300 handles in one job resolving at 40 items/s (7.5 s), 50 results a poll: the child has
    # collected some when it is stopped, and the job goes on resolving (and billing) after.
    fake_service.configure(batch_resolve_rate=40, batch_page_size=50)
    handles = names("sigint", 290, unknown=10)
    cache = tmp_path / "resume.sqlite"
    stderr = (tmp_path / "child.err").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, *handles],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=_child_env(fake_service, cache),
    )
    try:
        assert _read_line(proc, 60).strip() == "started"

        def mid_job() -> bool:
            jobs = fake_service.batch_jobs
            return (
                len(jobs) == 1
                and fake_service.billed(BATCH) >= 75  # items resolved: 1.5 pages and more
                and fake_service.count(BATCH, method="GET", status=200) >= 3
            )

        assert wait_until(mid_job, within=60), (fake_service.batch_jobs, proc.poll())
        assert proc.poll() is None  # still at work
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        proc.stdout.close()
        stderr.close()

    err = (tmp_path / "child.err").read_text()
    assert code != 0, err  # KeyboardInterrupt
    assert "KeyboardInterrupt" in err
    (job_id, inputs), *more = fake_service.batch_jobs.items()
    assert more == [] and inputs == tuple(handles)
    assert fake_service.count(PROFILE) == 0
    # The job is stored beside the cache, under the key's hash (not the key).
    assert store_path(cache).name == "resume.store.sqlite"
    assert store_path(cache).is_file()
    stored = LocalStore(store_path(cache), namespace(fake_service.api_key, fake_service.base_url))
    assert [(j.job_id, j.inputs) for j in stored.jobs()] == [(job_id, tuple(handles))]

    frame = lead_frame(handles)
    with make_client(fake_service, cache=cache) as client:
        est = frame.lookup.estimate_profiles("handle", client=client)
        # Some results were collected (and cached) before the signal, not all of them.
        assert 0 < est.cached < len(handles), est
        polled = polls(fake_service, job_id)
        out, summary = api.enrich_with_summary(
            frame, "handle", client=client, method="batch", progress=False
        )
        assert client.parts.store.jobs() == []
        assert stored.jobs() == []

    assert polls(fake_service, job_id) > polled  # the re-run polled the stored job...
    assert posts(fake_service) == 1  # ...and submitted nothing again
    assert submitted_inputs(fake_service) == {h: 1 for h in handles}
    assert fake_service.count(PROFILE) == 0
    assert_rows(out, handles)
    assert set(out[STATUS]) == {"ok", "not_found"}
    assert (summary.cached, summary.fetched, summary.failed) == (
        est.cached,
        len(handles) - est.cached,
        0,
    )
    assert fake_service.billed_handles() == {h: 1 for h in handles}
    for h in (handles[0], handles[150], handles[-1]):
        assert fake_service.billed(handle=h) == 1

    sent = fake_service.count()
    with make_client(fake_service, cache=cache) as client:
        third = enrich(frame, client, method="batch")
        assert client.parts.store.jobs() == []
    assert fake_service.count() == sent
    assert third.equals(out)


# -- 2. resume without signals -------------------------------------------------------------------


def test_a_stored_job_never_collected_is_polled_and_only_new_handles_are_submitted(
    fake_service, tmp_path
):
    cache = tmp_path / "c.sqlite"
    old, new = names("stored", 27, unknown=3), names("fresh", 24, unknown=1)
    old_job = store_a_job(fake_service, cache, old)
    values = old[::2] + new + old[1::2] + old[:5]  # interleaved, with duplicates
    frame = lead_frame(values)

    with make_client(fake_service, cache=cache) as client:
        assert [j.job_id for j in client.parts.store.jobs()] == [old_job]
        out = enrich(frame, client)
        assert client.parts.store.jobs() == []

    jobs = fake_service.batch_jobs
    assert posts(fake_service) == len(jobs) == 2
    assert jobs[old_job] == tuple(old)
    (new_job,) = set(jobs) - {old_job}
    assert jobs[new_job] == tuple(new)  # only the handles no stored job held
    assert polls(fake_service, old_job, status=200) >= 1
    assert submitted_inputs(fake_service) == {h: 1 for h in old + new}
    assert fake_service.count(PROFILE) == 0
    assert_rows(out, values)
    assert fake_service.billed_handles() == {h: 1 for h in old + new}


def test_a_batch_run_broken_off_after_its_first_result_is_resumed_by_the_next_run(
    fake_service, tmp_path
):
    # 40 items at 100/s, 5 results a poll: the run is far from done after its first result.
    fake_service.configure(batch_resolve_rate=100, batch_page_size=5)
    cache = tmp_path / "c.sqlite"
    first, extra = names("broken", 36, unknown=4), names("later", 22)
    with make_client(fake_service, cache=cache) as client:
        run = BatchRun(
            client, first, submit=True, stored=client.parts.store.jobs(), kind=PEOPLE, pool=POOL
        )
        results = iter(run)
        handle, answer = next(results)
        results.close()  # as Ctrl-C in the loop would: the generator stops where it is
        assert handle in first
        (stored,) = client.parts.store.jobs()
        assert stored.inputs == tuple(first)
        cached = [h for h in first if client.parts.cache.is_cached(PROFILE, {"handle": h})]
        assert handle in cached and len(cached) < len(first)

    frame = lead_frame(extra + first)
    with make_client(fake_service, cache=cache) as client:
        out, summary = api.enrich_with_summary(frame, "handle", client=client, progress=False)
        assert client.parts.store.jobs() == []

    jobs = fake_service.batch_jobs
    assert jobs[stored.job_id] == tuple(first)
    assert posts(fake_service) == 2
    assert sorted(jobs.values()) == sorted([tuple(first), tuple(extra)])
    assert submitted_inputs(fake_service) == {h: 1 for h in first + extra}
    assert fake_service.count(PROFILE) == 0
    assert_rows(out, extra + first)
    assert summary.cached == len(cached)
    assert summary.fetched == len(first) + len(extra) - len(cached)
    assert fake_service.billed_handles() == {h: 1 for h in first + extra}


# -- 3. a stored job that expired ------------------------------------------------------------------


class KeepJobsAfterResubmit:
    """An override on BATCH: once the resubmit arrives, jobs live long again, so the new job
    cannot expire while it is collected (the stored one was polled and forgotten before)."""

    def __init__(self, svc: FakeService) -> None:
        self.svc = svc
        self.posts = 0

    def __call__(self, req):
        if req.method == "POST":
            self.posts += 1
            self.svc.configure(batch_job_lifetime=3600.0)
        return None


def test_an_expired_stored_job_is_polled_once_forgotten_and_what_is_needed_resubmitted(
    fake_service, tmp_path
):
    # Jobs resolve at once and can be polled for 0.2 s after: the stored one is long gone.
    fake_service.configure(batch_resolve_rate=0, batch_job_lifetime=0.2)
    cache = tmp_path / "c.sqlite"
    old = names("gone", 33, unknown=2)
    old_job = store_a_job(fake_service, cache, old)
    key = fake_service.api_key
    assert wait_until(lambda: fake_service.state.job(old_job, key) is None, within=10)
    needed = old[5:]  # the run needs most of the stored job, not all of it
    fake_service.override(BATCH, KeepJobsAfterResubmit(fake_service))

    with make_client(fake_service, cache=cache) as client:
        out = enrich(lead_frame(needed), client, method="batch")
        assert client.parts.store.jobs() == []

    assert polls(fake_service, old_job) == 1
    assert polls(fake_service, old_job, status=404) == 1
    jobs = fake_service.batch_jobs
    assert posts(fake_service) == len(jobs) == 2
    (again,) = set(jobs) - {old_job}
    assert jobs[again] == tuple(needed)  # the still-needed inputs, in the stored order
    assert polls(fake_service, again, status=200) >= 1
    assert fake_service.count(PROFILE) == 0
    assert_rows(out, needed)
    # The expired job's items were billed as they resolved and its results are lost with it:
    # what this run needed cost a second credit, the rest nothing more.
    assert fake_service.billed_handles() == {h: 2 if h in needed else 1 for h in old}


# -- 4. when a resumed job is forgotten ------------------------------------------------------------


def test_a_resumed_job_is_forgotten_when_all_is_cached_even_if_the_run_needed_part(
    fake_service, tmp_path
):
    cache = tmp_path / "c.sqlite"
    part, rest = names("needed", 9, unknown=1), names("other", 14, unknown=1)
    unrelated = names("unrelated", 6)
    both = store_a_job(fake_service, cache, part + rest)
    kept = store_a_job(fake_service, cache, unrelated)

    with make_client(fake_service, cache=cache) as client:
        out = enrich(lead_frame(part), client)
        # Polling collected and cached every result of the job, so it is forgotten; the job
        # that holds none of this run's handles was not even polled, and stays.
        assert [j.job_id for j in client.parts.store.jobs()] == [kept]
        est = lead_frame(rest).lookup.estimate_profiles("handle", client=client)
        assert (est.cached, est.to_fetch) == (len(rest), 0)
        sent = fake_service.count()
        rest_out = enrich(lead_frame(rest), client)
        assert fake_service.count() == sent  # all from the cache

    assert polls(fake_service, both) >= 1
    assert polls(fake_service, kept) == 0
    assert posts(fake_service) == 2  # the two stored jobs, nothing more
    assert fake_service.count(PROFILE) == 0
    assert_rows(out, part)
    assert_rows(rest_out, rest)
    for job in (both, kept):
        wait_resolved(fake_service, job)
    assert fake_service.billed_handles() == {h: 1 for h in part + rest + unrelated}


def test_a_finished_job_is_forgotten_though_errored_inputs_are_not_cached(fake_service, tmp_path):
    # About a third of the items end in the job's errors (not billed, never collected): the
    # run fetches the ones it needs singly; the ones it does not need stay uncached. The job is
    # finished, so it is forgotten: polling it again could only count its items twice (issue
    # 30), and its errored items were never billed, so nothing paid for is lost.
    fake_service.configure(batch_error_rate=0.3)
    cache = tmp_path / "c.sqlite"
    handles = names("errs", 40)
    part, rest = handles[:20], handles[20:]
    job_id = store_a_job(fake_service, cache, handles)
    job = fake_service.state.jobs[job_id]
    errored = {h for h, o in zip(job.inputs, job.outcomes, strict=True) if o == "error"}
    assert errored & set(part) and errored & set(rest)  # the emulator's draw is deterministic

    with make_client(fake_service, cache=cache) as client:
        out = enrich(lead_frame(part), client)
        assert client.parts.store.jobs() == []  # finished: forgotten
        uncached = {h for h in handles if not client.parts.cache.is_cached(PROFILE, {"handle": h})}
        assert uncached == errored & set(rest)
    assert_rows(out, part)
    assert posts(fake_service) == 1
    assert {h: fake_service.count(PROFILE, handle=h) for h in handles} == {
        h: int(h in errored & set(part)) for h in handles
    }
    first_polls = polls(fake_service, job_id)
    assert first_polls >= 1

    with make_client(fake_service, cache=cache) as client:
        again = enrich(lead_frame(rest), client)
        assert client.parts.store.jobs() == []
    assert_rows(again, rest)
    assert polls(fake_service, job_id) == first_polls  # never polled again
    assert posts(fake_service) == 1
    assert {h: fake_service.count(PROFILE, handle=h) for h in handles} == {
        h: int(h in errored) for h in handles
    }
    assert fake_service.billed_handles() == {h: 1 for h in handles}


# -- 5. method="single" and refresh=True ----------------------------------------------------------


def test_method_single_resumes_a_stored_job_instead_of_paying_again(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    old, new = names("single-old", 23, unknown=2), names("single-new", 4, unknown=1)
    job_id = store_a_job(fake_service, cache, old)
    values = new + old

    with make_client(fake_service, cache=cache) as client:
        out = enrich(lead_frame(values), client, method="single")
        assert client.parts.store.jobs() == []

    assert polls(fake_service, job_id, status=200) >= 1
    assert posts(fake_service) == 1  # the stored job's own submit: nothing more
    assert {h: fake_service.count(PROFILE, handle=h) for h in values} == {
        h: int(h in new) for h in values
    }
    assert_rows(out, values)
    assert fake_service.billed_handles() == {h: 1 for h in values}


def test_refresh_ignores_stored_jobs(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    old = names("refresh", 24, unknown=1)
    job_id = store_a_job(fake_service, cache, old)
    wait_resolved(fake_service, job_id)

    with make_client(fake_service, cache=cache) as client:
        out = enrich(lead_frame(old), client, method="single", refresh=True)
        # Not polled; but every input of it is cached now (fetched anew), so it is forgotten.
        assert client.parts.store.jobs() == []

    assert polls(fake_service, job_id) == 0
    assert posts(fake_service) == 1
    assert {h: fake_service.count(PROFILE, handle=h) for h in old} == {h: 1 for h in old}
    assert_rows(out, old)
    # refresh means fetch anew: the job's items and the single calls each cost a credit.
    assert fake_service.billed_handles() == {h: 2 for h in old}


def test_a_stored_job_whose_inputs_are_all_cached_is_forgotten_without_a_poll(
    fake_service, tmp_path
):
    cache = tmp_path / "c.sqlite"
    handles = names("stale", 24, unknown=1)
    job_id = store_a_job(fake_service, cache, handles)
    with make_client(fake_service, cache=cache) as client:
        for handle in handles:  # the same answers, bought one by one meanwhile
            client.profile(handle)
        sent = fake_service.count()
        out = enrich(lead_frame(handles), client)
        assert client.parts.store.jobs() == []  # nothing left to collect from it

    assert fake_service.count() == sent  # every answer from the cache: not even a poll
    assert polls(fake_service, job_id) == 0
    assert_rows(out, handles)
