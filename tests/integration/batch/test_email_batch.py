"""The Email API's batch jobs (issue 41, item 3): verify and find by name through the engine's
one batch machinery, against the emulator over loopback.

What is tested: more than 20 addresses verified by one batch job and no single call, each
result cached as the single call's answer (a single verify after is free, a re-run too), the
credits 2 an item in the estimate, the summary and the emulator's count; find the same at 3,
over a CRM's spellings; ``max_credits`` refused before the submit; a job that stops with
``status: error`` (the balance ran out) keeps what resolved and the run stops with
InsufficientCreditsError; a submit refused as invalid leaves its queries to single calls; an
opted-out query in a job's ``errors`` ends ``forbidden``, not
billed, and the job goes on; a run killed with SIGKILL after its submit is resumed by polling
the stored job, nothing paid twice; ``method="batch"`` where no batch job exists (reverse,
find by profile) refused before anything is sent; a service without batch jobs answered by
single calls under ``method="auto"`` once a submit told.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.enrichment.lookup import lookup_values
from lookup_pandas.enrichment.plan import Options
from lookup_pandas.errors import (
    BatchUnavailableError,
    BudgetExceededError,
    InsufficientCreditsError,
)
from lookup_pandas.identifiers.kinds import REVERSE, VERIFY
from lookup_pandas.service.paths import (
    EMAIL_FIND_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
    FIND_BATCH_PATH,
    VERIFY_BATCH_PATH,
)
from lookup_pandas.testing import FakeService, mailboxes

from ..helpers import make_client

pytestmark = pytest.mark.timeout(120)

STATUS = "lookup_status"
#: The emulator's route costs: a verify 2, a find 3, and so each batch item of theirs.
VERIFY_COST, FIND_COST = 2, 3


def _people(n: int) -> list[dict]:
    """``n`` people with a findable address at acme.example or globex.example."""
    found = [*mailboxes.prospects("acme.example", "full"),
             *mailboxes.prospects("globex.example", "full")]  # fmt: skip
    assert len(found) >= n
    return found[:n]


def _addresses(n: int) -> pd.DataFrame:
    return pd.DataFrame({"email": [p["email"] for p in _people(n)]})


def _posts(svc: FakeService, path: str) -> int:
    return svc.count(path, method="POST")


def _credits(svc: FakeService) -> float:
    return float(svc.stats()["credits"])


def test_addresses_are_verified_by_one_batch_job_each_cached_as_a_single_call(
    fake_service, fake_client
):
    leads = _addresses(30)
    estimate = leads.lookup.estimate_verify_emails("email", client=fake_client)
    assert (estimate.method, estimate.credits) == ("batch", VERIFY_COST * 30)

    out = leads.lookup.verify_emails("email", client=fake_client, progress=False)

    assert _posts(fake_service, VERIFY_BATCH_PATH) == 1
    assert fake_service.count(EMAIL_VERIFY_PATH) == 0  # no single call
    summary = out.lookup.summary
    assert summary.jobs == 1 and summary.fetched == 30
    assert summary.credits == estimate.credits == _credits(fake_service) == VERIFY_COST * 30
    assert out[STATUS].eq("ok").all()
    assert out["verify_address"].tolist() == leads["email"].tolist()
    verdicts = {e: mailboxes.verify(e) for e in leads["email"]}
    assert out["verify_reason"].tolist() == [verdicts[e]["reason"] for e in leads["email"]]
    assert out["verify_deliverable"].tolist() == [
        verdicts[e]["deliverable"] for e in leads["email"]
    ]

    first = leads["email"][0]
    single = fake_client.get(EMAIL_VERIFY_PATH, {"email": first})["data"]  # a cache hit
    assert fake_service.count(EMAIL_VERIFY_PATH) == 0
    assert single["email"] == first and single["reason"] == verdicts[first]["reason"]

    again = leads.lookup.verify_emails("email", client=fake_client, progress=False)
    assert again.lookup.summary.credits == 0 and again.lookup.summary.cached == 30
    assert _posts(fake_service, VERIFY_BATCH_PATH) == 1 and _credits(fake_service) == 60


def test_a_crm_s_queries_are_found_by_one_batch_job_at_the_finds_cost(fake_service, fake_client):
    people = _people(25)
    leads = pd.DataFrame(
        {
            "first": [f" {p['first_name'].upper()} " for p in people],
            "last": [p["last_name"] for p in people],
            "website": [f"https://www.{p['email'].split('@')[1]}/about" for p in people],
        }
    )
    estimate = leads.lookup.estimate_find_emails("first", "last", "website", client=fake_client)
    assert (estimate.method, estimate.credits) == ("batch", FIND_COST * 25)

    out = leads.lookup.find_emails("first", "last", "website", client=fake_client, progress=False)

    assert _posts(fake_service, FIND_BATCH_PATH) == 1
    assert fake_service.count(EMAIL_FIND_PATH) == 0
    assert out.lookup.summary.credits == estimate.credits == _credits(fake_service) == 75
    assert out[STATUS].eq("ok").all() and out["email_found"].all()
    assert out["email_address"].tolist() == [p["email"] for p in people]

    # the single call's query, as the library sends it: the batch result answers it
    p = people[0]
    query = {"first_name": p["first_name"].lower(), "last_name": p["last_name"].lower(),
             "domain": p["email"].split("@")[1]}  # fmt: skip
    single = fake_client.get(EMAIL_FIND_PATH, query)["data"]
    assert fake_service.count(EMAIL_FIND_PATH) == 0
    assert (single["email"], single["found"]) == (p["email"], True)


def test_max_credits_is_refused_at_the_items_cost_before_the_submit(fake_service, fake_client):
    leads = _addresses(25)
    with pytest.raises(BudgetExceededError, match="50 credits") as refused:
        leads.lookup.verify_emails("email", max_credits=49, client=fake_client, progress=False)
    assert refused.value.needed == 50
    assert fake_service.count(VERIFY_BATCH_PATH) == 0 and _credits(fake_service) == 0


def test_a_job_stopped_by_an_empty_balance_keeps_what_resolved(fake_service, fake_client):
    # The balance is spent elsewhere after the submit, down to 5 items' worth: the job stops
    # with status "error" after 5, and the run with InsufficientCreditsError.
    fake_service.configure(batch_resolve_rate=0)

    def spent_elsewhere(req):
        if req.method == "GET" and fake_service.balance > 10:
            with fake_service.state.lock:
                fake_service.state.balance = 10.0
        return None

    fake_service.override(VERIFY_BATCH_PATH, spent_elsewhere)
    leads = _addresses(30)
    with pytest.raises(InsufficientCreditsError) as stopped:
        leads.lookup.verify_emails("email", client=fake_client, progress=False)
    (job,) = fake_service.state.jobs.values()
    assert job.stopped is not None  # the job ended in "error"
    assert _credits(fake_service) == stopped.value.summary.credits == 10
    assert "5 of this job's 30 billable answers are kept" in str(stopped.value)

    fake_service.override(VERIFY_BATCH_PATH, None)
    fake_service.configure(balance=1000)
    out = leads.lookup.verify_emails("email", method="single", client=fake_client, progress=False)
    assert out.lookup.summary.cached == 5
    assert fake_service.count(EMAIL_VERIFY_PATH, status=200) == 25  # the 5 resolved: cached


def test_an_opted_out_query_ends_forbidden_and_the_job_goes_on(fake_service, fake_client):
    people = _people(25)
    opted = mailboxes.owner(people[3]["email"])
    assert opted is not None
    fake_service.configure(opted_out={opted["handle"]})
    leads = pd.DataFrame(
        {
            "first_name": [p["first_name"] for p in people],
            "last_name": [p["last_name"] for p in people],
            "domain": [p["email"].split("@")[1] for p in people],
        }
    )
    out = leads.lookup.find_emails(client=fake_client, progress=False)
    assert _posts(fake_service, FIND_BATCH_PATH) == 1
    assert out[STATUS].tolist() == ["ok"] * 3 + ["forbidden"] + ["ok"] * 21
    assert fake_service.count(EMAIL_FIND_PATH) == 1  # the errored item, singly: a free 403
    assert out.lookup.summary.credits == _credits(fake_service) == FIND_COST * 24


def test_a_submit_refused_as_invalid_leaves_each_query_to_a_single_call(fake_service, fake_client):
    # A submit the service refuses as invalid (400) is not the run's end: each query is then
    # bought by its own call, which says what is wrong with it, if anything.
    def refused(request):
        if request.method == "POST":
            return 400, {
                "success": False,
                "message": "Validation failed",
                "data": None,
                "errors": {"queries": "refused"},
                "error_code": "VALIDATION_ERROR",
            }
        return None

    fake_service.override(FIND_BATCH_PATH, refused)
    leads = pd.DataFrame(
        {"first_name": [f"ann{i}" for i in range(25)], "last_name": ["berg"] * 25,
         "domain": ["acme.example"] * 25}
    )  # fmt: skip
    out = leads.lookup.find_emails(client=fake_client, progress=False)
    assert fake_service.count(FIND_BATCH_PATH, method="POST", status=400) == 1
    assert fake_service.count(EMAIL_FIND_PATH) == 25
    assert out[STATUS].eq("ok").all() and _credits(fake_service) == 3 * 25


CHILD = textwrap.dedent(
    """
    import os
    import sys

    import pandas as pd

    import lookup_pandas as lp

    frame = pd.DataFrame({"email": sys.argv[1:]})
    client = lp.Client(cache=os.environ["LOOKUP_CACHE"], batch_poll_interval=0.05)
    frame.lookup.verify_emails("email", client=client, method="batch", progress=False)
    """
)


def test_a_run_killed_after_its_submit_is_resumed_by_polling_paying_nothing_twice(
    fake_service, tmp_path
):
    # 40 addresses resolving at 10 a second: the child is killed (SIGKILL: no cleanup) once
    # it polled its job, which goes on resolving and billing at the service.
    fake_service.configure(batch_resolve_rate=10)
    cache = tmp_path / "c.sqlite"
    leads = _addresses(40)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(
        LOOKUP_API_KEY=fake_service.api_key,
        LOOKUP_BASE_URL=fake_service.base_url,
        LOOKUP_CACHE=str(cache),
        PYTHONPATH=os.environ.get("PYTHONPATH", ""),
    )
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, *leads["email"]], env=env, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while fake_service.count(VERIFY_BATCH_PATH, method="GET") == 0:  # stored, then polled
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline
            time.sleep(0.01)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
        if child.stderr:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL

    with make_client(fake_service, cache=cache) as client:
        out = leads.lookup.verify_emails("email", client=client, progress=False)
    assert out[STATUS].eq("ok").all()
    assert _posts(fake_service, VERIFY_BATCH_PATH) == 1  # polled, not submitted again
    assert fake_service.count(EMAIL_VERIFY_PATH) == 0
    assert _credits(fake_service) == VERIFY_COST * 40  # each address paid once
    assert out.lookup.summary.credits <= VERIFY_COST * 40  # what resolved during the re-run


def test_method_batch_where_no_batch_job_exists_is_refused_before_anything_is_sent(
    fake_service, fake_client
):
    addresses = [p["email"] for p in _people(25)]
    with pytest.raises(BatchUnavailableError, match="no batch jobs of addresses"):
        lookup_values(addresses, client=fake_client, kind=REVERSE, options=Options(method="batch"))
    leads = pd.DataFrame({"url": ["https://www.linkedin.com/in/ada/"] * 25})
    with pytest.raises(BatchUnavailableError, match="no batch jobs of profiles"):
        leads.lookup.find_emails(profile="url", method="batch", client=fake_client)
    assert fake_service.count() == 0
    assert fake_service.count(EMAIL_REVERSE_PATH) == 0


def test_a_service_without_batch_jobs_is_answered_by_single_calls(fake_service, fake_client):
    fake_service.configure(batch=False)
    leads = _addresses(25)
    estimate = leads.lookup.estimate_verify_emails("email", client=fake_client)
    out = leads.lookup.verify_emails("email", client=fake_client, progress=False)
    assert estimate.method == "single"
    # one submit tells (404, as for people), the rest are single calls
    assert fake_service.count(VERIFY_BATCH_PATH, status=404) == 1
    assert fake_client.parts.batch.supported_for(VERIFY) is False
    assert fake_service.count(EMAIL_VERIFY_PATH) == 25 and out[STATUS].eq("ok").all()
    assert out.lookup.summary.credits == estimate.credits == _credits(fake_service) == 50
