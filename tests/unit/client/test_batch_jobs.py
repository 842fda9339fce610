"""The batch-job protocol (lookup_pandas.client.batch_jobs), against a MockTransport: no server."""

from __future__ import annotations

import pytest

import lookup_pandas as lp
from lookup_pandas.client.batch_jobs import no_batch
from lookup_pandas.errors import BatchUnavailableError, NotFoundError, ResponseError, ServiceError
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"
TIER = envelope({"balance": 100, "current_tier": {"name": "t", "limit_per_minute": 60000}})


def client_on(batch, **kwargs) -> lp.Client:
    def handler(request):
        if "/api/panel/" in request.url:
            return 200, TIER
        return batch(request)

    return lp.Client(
        api_key="lk_test_unit",
        base_url=BASE,
        transport=MockTransport(handler),
        cache=False,
        max_retries=0,
        **kwargs,
    )


def test_the_no_batch_message_speaks_to_python_and_to_the_command_line():
    told = ServiceError("nope", status_code=405)
    error = no_batch(BASE, told)
    assert error.message == (
        f"The service at {BASE} has no batch jobs (POST /api/data/v1/people/batch/enrich "
        "answered 405); use method='single' or 'auto'."
    )
    assert error.cli_message == (
        f"The service at {BASE} has no batch jobs (POST /api/data/v1/people/batch/enrich "
        "answered 405); use --method single or auto."
    )
    assert error.status_code == 405
    assert no_batch(BASE).message == (
        f"The service at {BASE} has no batch jobs; use method='single' or 'auto'."
    )


def test_a_submit_returns_the_job_id_and_learns_batch_jobs_exist():
    with client_on(lambda r: (200, envelope({"job_id": "job_1"}))) as client:
        assert client.parts.batch.supported_for(PEOPLE) is None
        assert client.parts.batch.submit(PEOPLE, ["ada", "grace"], None) == "job_1"
        assert client.parts.batch.supported_for(PEOPLE) is True


@pytest.mark.parametrize("status", [404, 405])
def test_a_service_without_batch_jobs_is_told_once(status):
    sent = []

    def batch(request):
        sent.append(request)
        return status, envelope(None, success=False, message="no")

    with client_on(batch) as client:
        with pytest.raises(BatchUnavailableError, match=f"answered {status}"):
            client.parts.batch.submit(PEOPLE, ["ada"], None)
        assert client.parts.batch.supported_for(PEOPLE) is False
        with pytest.raises(BatchUnavailableError):
            client.parts.batch.submit(PEOPLE, ["ada"], None)
        assert len(sent) == 1


def test_a_submit_answer_without_a_job_id_is_a_response_error():
    client = client_on(lambda r: (200, envelope({"queued": True})))
    with client, pytest.raises(ResponseError, match="no job_id"):
        client.parts.batch.submit(PEOPLE, ["ada"], None)


def test_a_poll_of_a_job_that_is_gone_is_not_found():
    client = client_on(lambda r: (404, envelope(None, success=False, message="gone")))
    with client, pytest.raises(NotFoundError):
        client.parts.batch.status(PEOPLE, "job_1", 0, None)


def test_a_poll_returns_the_answers_data():
    page = {"status": "processing", "total": 2, "resolved": 1, "profiles": {}}
    with client_on(lambda r: (200, envelope(page))) as client:
        assert client.parts.batch.status(PEOPLE, "job_1", 0, None) == page


def test_a_result_is_the_single_calls_answer():
    with client_on(lambda r: (500, envelope(None, success=False))) as client:
        record = {"id": "prsn_ada", "handle": "ada"}
        assert client.parts.batch.result(PEOPLE, "ada", record, "job_1").data == record
        with pytest.raises(NotFoundError):
            client.parts.batch.result(PEOPLE, "nobody", None, "job_1")
