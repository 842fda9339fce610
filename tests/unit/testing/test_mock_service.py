"""lookup_pandas.testing.mock_service: people and their batch jobs over a MockTransport, and a
cache folder removed at exit; no server."""

from __future__ import annotations

from pathlib import Path

import pytest

from lookup_pandas.errors import NotFoundError
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.testing import MockService

ADA = {"id": "prsn_1", "handle": "ada"}


def test_the_cache_folder_and_the_clients_go_at_exit():
    with MockService(ADA) as service:
        client = service.client()  # never closed by the caller
        client.profile("ada")
        where = Path(str(client.settings.cache))
        assert where.exists()
    assert not where.parent.exists()
    assert service.count("/people/profile") == 1


def test_without_a_cache_every_call_is_sent():
    with MockService(ADA) as service, service.client(cache=False) as client:
        client.profile("ada")
        client.profile("ada")
        assert client.settings.cache_label == "off"
    assert service.count("/people/profile") == 2


def test_the_balance_is_the_tiers():
    with MockService(ADA, balance=42) as service, service.client(cache=False) as client:
        assert client.credits_tier()["balance"] == 42


def test_a_batch_job_pages_its_results_from_the_cursor_on():
    grace = {"id": "prsn_2", "handle": "grace"}
    with MockService(ADA, grace) as service, service.client(cache=False) as client:
        job_id = client.parts.batch.submit(PEOPLE, ["ada", "linus", "grace", "prsn_9"], None)
        whole = client.parts.batch.status(PEOPLE, job_id, 0, None)
        rest = client.parts.batch.status(PEOPLE, job_id, 2, None)
    assert (whole["status"], whole["total"], whole["next_cursor"]) == ("completed", 4, 4)
    assert sorted(whole["profiles"]) == ["ada", "grace"]
    assert whole["not_found"] == ["linus", "prsn_9"]  # an id: the profile route's, by handle
    assert (sorted(rest["profiles"]), rest["not_found"]) == (["grace"], ["prsn_9"])


def test_each_submit_is_its_own_job_and_an_unknown_job_is_not_found():
    with MockService(ADA) as service, service.client(cache=False) as client:
        first, second = (
            client.parts.batch.submit(PEOPLE, ["ada"], None),
            client.parts.batch.submit(PEOPLE, ["grace"], None),
        )
        assert first != second
        assert client.parts.batch.status(PEOPLE, second, 0, None)["not_found"] == ["grace"]
        with pytest.raises(NotFoundError, match="Job not found"):
            client.parts.batch.status(PEOPLE, "job_unknown", 0, None)
