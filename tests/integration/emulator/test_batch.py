"""The emulator's batch-enrich endpoints, over loopback, as production's reference describes them.

Submit (POST, 202, nothing billed), items billed as they resolve whether or not anyone
collects them, results paged by an integer cursor, not-found for an unknown or expired job,
404 when the service has no batch, ``enrich_live`` read, and a job that stops with status
"error" where the balance runs out. Waits are bounded polls of the emulator's own counters.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest
import requests

from lookup_pandas.testing import BATCH, data

HANDLES = ["ada", "unknown-x", "grace", "linus", "unknown-y", "edsger"]
FOUND = [h for h in HANDLES if data.person(h) is not None]


def _headers(svc) -> dict[str, str]:
    return {"X-service-apikey": svc.api_key}


def submit(svc, handles, **body) -> requests.Response:
    payload = {"ids": [], "handles": handles, "enrich_live": False, **body}
    return requests.post(svc.base_url + BATCH, json=payload, headers=_headers(svc), timeout=10)


def track(svc, job_id, after=0, key=None) -> requests.Response:
    headers = {"X-service-apikey": key or svc.api_key}
    return requests.get(
        svc.base_url + BATCH,
        params={"job_id": job_id, "after": after},
        headers=headers,
        timeout=10,
    )


def collect(svc, job_id) -> tuple[dict, list, list[dict]]:
    """Walk ``after = next_cursor`` until it stops advancing on a job that is done (completed,
    or stopped: error), bounded."""
    profiles: dict = {}
    not_found: list = []
    polls: list[dict] = []
    after, deadline = 0, time.monotonic() + 10
    while time.monotonic() < deadline:
        page = track(svc, job_id, after).json()["data"]
        polls.append(page)
        profiles.update(page["profiles"])
        not_found += page["not_found"]
        if page["next_cursor"] == after and page["status"] != "processing":
            return profiles, not_found, polls
        if page["next_cursor"] == after:
            time.sleep(0.02)
        after = page["next_cursor"]
    raise AssertionError("the job did not complete within 10 s")


def billed_within(svc, n, seconds=5.0, **params) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and svc.billed(**params) < n:
        time.sleep(0.01)
    return svc.billed(**params)


def test_submit_answers_202_with_a_job_and_bills_nothing_yet(fake_service):
    fake_service.configure(batch_resolve_rate=0.001)  # nothing resolves during the test
    reply = submit(fake_service, HANDLES)
    assert reply.status_code == 202
    body = reply.json()
    assert body["success"] is True and body["statusCode"] == 202
    assert body["data"]["job_id"].startswith("job_")
    assert fake_service.billed() == 0
    page = track(fake_service, body["data"]["job_id"]).json()["data"]
    assert page["status"] == "processing" and page["resolved"] == 0 and page["total"] == 6


def test_results_page_by_integer_cursor_keyed_by_the_exact_input(fake_service):
    fake_service.configure(batch_resolve_rate=10_000, batch_page_size=4)
    inputs = ["Ada", *HANDLES[1:]]  # keyed by the exact string submitted
    job_id = submit(fake_service, inputs).json()["data"]["job_id"]
    profiles, not_found, polls = collect(fake_service, job_id)
    assert set(profiles) == {"Ada", "grace", "linus", "edsger"}
    assert profiles["Ada"]["handle"] == "ada"  # handles are case-insensitive
    assert sorted(not_found) == ["unknown-x", "unknown-y"]
    assert all(len(p["profiles"]) + len(p["not_found"]) <= 4 for p in polls)
    assert [p["next_cursor"] for p in polls][:2] == [4, 6]
    assert polls[-1]["resolved"] == 6 and polls[-1]["errors"] == 0


def test_items_are_billed_as_they_resolve_whether_or_not_collected(fake_service):
    fake_service.configure(batch_resolve_rate=10_000)
    submit(fake_service, HANDLES)  # never polled
    assert billed_within(fake_service, len(HANDLES)) == len(HANDLES)
    assert fake_service.billed(handle="unknown-x") == 1  # a not-found is billed too
    assert fake_service.count(BATCH) == 1  # the one submit; billing is not a request


def test_submitting_the_same_handles_again_pays_again(fake_service):
    fake_service.configure(batch_resolve_rate=10_000)
    submit(fake_service, HANDLES)
    submit(fake_service, HANDLES)
    assert billed_within(fake_service, 2 * len(HANDLES)) == 2 * len(HANDLES)
    assert fake_service.billed(handle="ada") == 2


def test_items_that_end_in_errors_are_counted_and_not_billed(fake_service):
    fake_service.configure(batch_resolve_rate=10_000, batch_error_rate=1.0)
    job_id = submit(fake_service, HANDLES).json()["data"]["job_id"]
    profiles, not_found, polls = collect(fake_service, job_id)
    assert profiles == {} and not_found == []
    assert polls[-1]["errors"] == len(HANDLES) and polls[-1]["resolved"] == 0
    assert fake_service.billed() == 0


@pytest.mark.parametrize("job_id", ["job_does_not_exist", None])
def test_an_unknown_or_expired_job_is_not_found(fake_service, job_id):
    if job_id is None:
        # resolved at once, then pollable for no time at all
        fake_service.configure(batch_job_lifetime=0.0, batch_resolve_rate=0)
        job_id = submit(fake_service, HANDLES).json()["data"]["job_id"]
        time.sleep(0.01)
    reply = track(fake_service, job_id)
    assert reply.status_code == 404 and reply.json()["success"] is False


def test_another_key_cannot_track_a_job(fake_service):
    job_id = submit(fake_service, HANDLES).json()["data"]["job_id"]
    other = fake_service.wrong_workspace_key
    assert track(fake_service, job_id, key=other).status_code in (403, 404)


def test_a_service_without_batch_answers_404_to_the_submit(fake_service):
    fake_service.configure(batch=False)
    assert submit(fake_service, HANDLES).status_code == 404
    fake_service.configure(batch=True)
    other = requests.delete(
        fake_service.base_url + BATCH, headers=_headers(fake_service), timeout=10
    )
    assert other.status_code == 405


@pytest.mark.parametrize("handles", [[], [f"p{i}" for i in range(1001)], [""], [3]])
def test_a_submit_outside_1_to_1000_strings_is_a_validation_error(fake_service, handles):
    reply = submit(fake_service, handles)
    assert reply.status_code == 400
    assert reply.json()["error_code"] == "VALIDATION_ERROR"
    assert fake_service.billed() == 0


def test_sparse_mode_thins_batch_records_too(fake_service):
    fake_service.configure(batch_resolve_rate=10_000, sparse_records=True)
    job_id = submit(fake_service, FOUND).json()["data"]["job_id"]
    profiles, _, _ = collect(fake_service, job_id)
    for handle, record in profiles.items():
        assert record == data.thin(data.person(handle))


# -- enrich_live ---------------------------------------------------------------------------------


@pytest.mark.parametrize("live", ["yes", "true", 1, None, [True]])
def test_enrich_live_must_be_a_boolean(fake_service, live):
    reply = submit(fake_service, HANDLES, enrich_live=live)
    body = reply.json()
    assert reply.status_code == 400 and body["error_code"] == "VALIDATION_ERROR"
    assert body["errors"] == {"enrich_live": "must be true or false"}
    assert fake_service.batch_jobs == {} and fake_service.billed() == 0


def test_enrich_live_is_kept_on_the_job(fake_service):
    svc = fake_service
    live = submit(svc, HANDLES, enrich_live=True).json()["data"]["job_id"]
    standard = submit(svc, HANDLES).json()["data"]["job_id"]
    bare = requests.post(
        svc.base_url + BATCH, json={"handles": HANDLES}, headers=_headers(svc), timeout=10
    )
    assert bare.status_code == 202  # enrich_live is optional
    jobs = svc.state.jobs
    assert jobs[live].enrich_live is True
    assert jobs[standard].enrich_live is False
    assert jobs[bare.json()["data"]["job_id"]].enrich_live is False


# -- a job the balance runs out in ---------------------------------------------------------------


def test_a_job_stops_with_status_error_where_the_balance_runs_out(fake_service):
    svc = fake_service
    svc.configure(batch_resolve_rate=1_000, balance=2, opted_out={"grace"})
    handles = ["ada", "grace", "unknown-x", "linus", "edsger"]
    job_id = submit(svc, handles).json()["data"]["job_id"]
    profiles, not_found, polls = collect(svc, job_id)
    last = polls[-1]
    assert last["status"] == "error"
    # True counts: 2 resolved (billed), grace's refusal, and nothing more ever.
    assert (last["total"], last["resolved"], last["errors"]) == (5, 2, 1)
    assert set(profiles) == {"ada"} and not_found == ["unknown-x"]
    assert last["next_cursor"] == 3
    statuses = [p["status"] for p in polls]
    assert "completed" not in statuses
    assert set(statuses[statuses.index("error") :]) == {"error"}  # from then on
    assert svc.billed() == 2 and svc.balance == 0
    assert svc.billed_handles() == Counter({"ada": 1, "unknown-x": 1})
    svc.configure(balance=50)  # a top-up: the job stays stopped, linus and edsger never resolve
    again = track(svc, job_id).json()["data"]
    assert (again["status"], again["resolved"], again["next_cursor"]) == ("error", 2, 3)
    assert svc.billed() == 2
