"""Batch enrichment through the SDK's job handles: ``enrich_batch`` (people, companies), then
``status()``, ``wait()`` and ``stream()``, as production's reference describes the three steps.

Results come keyed to the inputs sent (the SDK adds ``matched_input``), misses in ``not_found``;
a job whose balance runs out midway ends ``status == "error"`` with what resolved still
readable; polling a job the service does not know is a ``NotFoundError`` (404, ``1090``).
"""

from __future__ import annotations

import pytest
import renidly

from lookup_pandas.testing import FakeService, data
from lookup_pandas.testing import companies as company_records

from ..conftest import QUIET_BURST

POLL = {"poll_interval": 0.01, "timeout": 30}  # timeout: a job that never ends fails, not hangs


def keyed(rows) -> dict[str, dict]:
    """Each row's record by the input it matched."""
    return {r.matched_input: {k: v for k, v in r.model_dump().items() if k != "matched_input"}
            for r in rows}  # fmt: skip


def test_people_enrich_batch_status_wait_and_stream(sdk, fake_service):
    linus = data.person("linus")
    job = sdk.data.people.enrich_batch(handles=["ada", "grace", "unknown-zed"], ids=[linus["id"]])
    assert job.id in fake_service.batch_jobs
    status = job.status()
    assert status["total"] == 4 and status["status"] in ("processing", "completed")

    result = job.wait(**POLL)
    assert (result.status, result.total, result.errors) == ("completed", 4, 0)
    assert result.not_found == ["unknown-zed"]
    expected = {"ada": data.person("ada"), "grace": data.person("grace"), linus["id"]: linus}
    assert keyed(result.results) == expected

    streamed = list(job.stream(**POLL))
    assert keyed(streamed) == expected
    assert fake_service.billed() == 4  # each item once, found or not: collecting is free


def test_companies_enrich_batch(sdk):
    hooli = company_records.company("hooli")
    job = sdk.data.companies.enrich_batch(handles=["acme", "unknown-co"], ids=[hooli["id"]])
    result = job.wait(**POLL)
    assert (result.status, result.total, result.errors) == ("completed", 3, 0)
    assert result.not_found == ["unknown-co"]
    assert keyed(result.results) == {"acme": company_records.company("acme"), hooli["id"]: hooli}
    assert job.status()["status"] == "completed"


def test_a_job_whose_balance_runs_out_midway_ends_in_error(sdk_for):
    handles = ["ada", "grace", "linus", "alan", "barbara"]
    with FakeService(balance=3, batch_resolve_rate=0, rate_burst=QUIET_BURST) as svc:
        job = sdk_for(svc).data.people.enrich_batch(handles=handles)
        result = job.wait(**POLL)
        assert svc.balance == 0
    # stopped: three resolved (billed, readable), none errored, two never resolve
    assert (result.status, result.total, result.resolved, result.errors) == ("error", 5, 3, 0)
    assert keyed(result.results) == {h: data.person(h) for h in handles[:3]}


def test_polling_a_job_the_service_does_not_know_is_not_found(sdk, fake_service):
    job = sdk.data.people.enrich_batch(handles=["ada"])
    fake_service.reset()  # the emulator forgets every job
    with pytest.raises(renidly.NotFoundError) as caught:
        job.status()
    assert (caught.value.status_code, caught.value.error_code) == (404, "1090")


def test_an_empty_batch_is_an_invalid_request(sdk, fake_service):
    with pytest.raises(renidly.InvalidRequestError) as caught:
        sdk.data.people.enrich_batch()
    assert caught.value.status_code == 400 and caught.value.field_errors
    assert fake_service.batch_jobs == {}
