"""Unit tests for lookup_pandas.enrichment.batch_run: batch jobs submitted, polled, their results
cached as single answers and stored jobs resumed, against a batch service scripted over
MockTransport (no server; the loopback runs are in tests/integration/batch/)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

import lookup_pandas as lp
from lookup_pandas.enrichment.batch_run import BatchRun
from lookup_pandas.errors import BatchUnavailableError, NotFoundError
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.service.envelope import Envelope
from lookup_pandas.service.paths import BATCH_PATH, PROFILE_PATH
from lookup_pandas.store import StoredJob
from lookup_pandas.testing import MockTransport, envelope

#: The run's one pool, as ``lookup_values`` makes it (one per test module here).
POOL = ThreadPoolExecutor(4, "test-run")

BASE = "http://service.test"
TIER = envelope({"balance": 1000, "current_tier": {"name": "t", "limit_per_minute": 60000}})


class BatchService:
    """Batch jobs that resolve at once: a handle starting ``ghost`` is not found, one starting
    ``err`` errors (left out of the results); ``jobs`` may hold jobs of an earlier run."""

    def __init__(self, *, has_batch: bool = True) -> None:
        self.has_batch = has_batch
        self.jobs: dict[str, tuple[str, ...]] = {}
        self.submitted: list[tuple[str, ...]] = []
        self.polled: list[str] = []
        self.singles: list[str] = []

    def __call__(self, request: requests.PreparedRequest) -> tuple[Any, ...]:
        url = urlsplit(request.url or "")
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path.endswith("/credits/tier/k/"):
            return 200, TIER
        if url.path.startswith("/api/panel/"):
            return 404, envelope(None, success=False, message="Not found")
        if url.path == BATCH_PATH and request.method == "POST":
            if not self.has_batch:
                return 404, envelope(None, success=False, message="Not found")
            body = json.loads(request.body or b"{}")
            inputs = (*body["ids"], *body["handles"])
            job_id = f"job_{len(self.jobs) + 1}"
            self.jobs[job_id] = inputs
            self.submitted.append(inputs)
            return 202, envelope({"job_id": job_id})
        if url.path == BATCH_PATH:
            return self.page(query["job_id"], int(query["after"]))
        self.singles.append(query["handle"])
        return 200, envelope({"id": f"prsn_{query['handle']}", "handle": query["handle"]})

    def page(self, job_id: str, after: int) -> tuple[Any, ...]:
        self.polled.append(job_id)
        if job_id not in self.jobs:
            return 404, envelope(None, success=False, message="Job not found", error_code="1090")
        inputs = self.jobs[job_id]
        errored = [h for h in inputs if h.startswith("err")]
        answered = [h for h in inputs if h not in errored][after:]
        data = {
            "status": "completed",
            "total": len(inputs),
            "resolved": len(inputs) - len(errored),
            "errors": len(errored),
            "next_cursor": after + len(answered),
            "profiles": {
                h: {"id": f"prsn_{h}", "handle": h} for h in answered if not h.startswith("ghost")
            },
            "not_found": [h for h in answered if h.startswith("ghost")],
        }
        return 200, envelope(data)


@pytest.fixture
def service() -> BatchService:
    return BatchService()


@pytest.fixture
def client(service, tmp_path):
    with lp.Client(
        api_key="lk_test_unit",
        base_url=BASE,
        cache=tmp_path / "c.sqlite",
        transport=MockTransport(service),
        batch_poll_interval=0.001,
        max_retries=0,
    ) as client:
        yield client


def answers(run: BatchRun) -> dict[str, Any]:
    """Each handle the run hands on: its record, or "not found"."""
    got: dict[str, Any] = {}
    for handle, answer in run:
        assert handle not in got  # each needed handle once
        got[handle] = answer.data if isinstance(answer, Envelope) else "not found"
        if not isinstance(answer, Envelope):
            assert isinstance(answer, NotFoundError)
    return got


def test_a_job_is_submitted_polled_and_every_result_cached_as_a_single_answer(service, client):
    run = BatchRun(client, ["ada", "ghost-1", "grace"], submit=True, pool=POOL, kind=PEOPLE)
    assert run and run.batch_jobs_total == 1
    got = answers(run)
    assert got == {
        "ada": {"id": "prsn_ada", "handle": "ada"},
        "ghost-1": "not found",
        "grace": {"id": "prsn_grace", "handle": "grace"},
    }
    assert service.submitted == [("ada", "ghost-1", "grace")] and service.singles == []
    assert (run.submitted, run.batch_jobs, run.batch_jobs_done, run.billed) == (1, 1, 1, 3)
    assert run.fallback == []
    for handle in ("ada", "ghost-1", "grace"):  # the next lookup of each is a free cache hit
        assert client.parts.cache.is_cached(PROFILE_PATH, {"handle": handle})
    stored = [job.job_id for job in client.parts.store.jobs()]
    assert stored == ["job_1"]  # stored before it was polled
    run.finish()
    assert client.parts.store.jobs() == []  # collected: forgotten


def test_items_a_job_errored_on_are_left_to_single_calls(client):
    run = BatchRun(client, ["ada", "err-1", "grace"], submit=True, pool=POOL, kind=PEOPLE)
    assert set(answers(run)) == {"ada", "grace"}
    assert run.fallback == ["err-1"]


def test_without_submitting_only_stored_jobs_are_collected_and_the_rest_is_left(service, client):
    run = BatchRun(client, ["ada", "grace"], submit=False, pool=POOL, kind=PEOPLE)
    assert not run and run.fallback == ["ada", "grace"]
    assert answers(run) == {} and service.submitted == [] and service.polled == []


def test_a_stored_job_is_polled_instead_of_paying_for_its_handles_again(service, client):
    service.jobs["job_old"] = ("ada", "linus")  # an earlier run's, still on the service
    client.parts.store.remember(StoredJob("job_old", ("ada", "linus"), 0.0))
    run = BatchRun(
        client,
        ["ada", "grace"],
        submit=True,
        stored=client.parts.store.jobs(),
        pool=POOL,
        kind=PEOPLE,
    )
    got = answers(run)
    assert set(got) == {"ada", "grace"}  # linus is cached from the job, not handed on
    assert service.submitted == [("grace",)]
    assert run.batch_jobs == 2 and run.billed == 1  # the stored job's items billed before
    assert client.parts.cache.is_cached(PROFILE_PATH, {"handle": "linus"})


def test_an_expired_stored_job_is_forgotten_and_what_is_still_needed_submitted(service, client):
    client.parts.store.remember(StoredJob("job_gone", ("ada", "grace"), 0.0))
    run = BatchRun(
        client, ["ada"], submit=True, stored=client.parts.store.jobs(), pool=POOL, kind=PEOPLE
    )
    assert run.batch_jobs_total == 1
    assert set(answers(run)) == {"ada"}
    assert "job_gone" in service.polled and service.submitted == [("ada",)]
    assert run.batch_jobs_total == 2
    assert "job_gone" not in {job.job_id for job in client.parts.store.jobs()}


def test_a_refresh_polls_no_stored_job_and_forgets_it_once_its_inputs_are_cached(service, client):
    client.parts.store.remember(StoredJob("job_old", ("ada",), 0.0))
    run = BatchRun(
        client,
        ["ada"],
        submit=True,
        stored=client.parts.store.jobs(),
        resume=False,
        pool=POOL,
        kind=PEOPLE,
    )
    assert set(answers(run)) == {"ada"}
    assert "job_old" not in service.polled
    run.finish()
    assert client.parts.store.jobs() == []


def test_a_service_without_batch_jobs_is_told_once_and_remembered():
    service = BatchService(has_batch=False)
    with lp.Client(
        api_key="lk_test_unit", base_url=BASE, cache=False, transport=MockTransport(service)
    ) as client:
        with pytest.raises(BatchUnavailableError):
            answers(BatchRun(client, ["ada"], submit=True, pool=POOL, kind=PEOPLE))
        assert client.parts.batch.supported_for(PEOPLE) is False
