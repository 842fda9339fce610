"""A batch job's credits are counted once, and a resumed job's are counted at all (issue 21,
items 5 and 9): the summary's credits equal what the service billed during the run, for people
and companies (issue 30, items 1 and 2)."""

from __future__ import annotations

import json
import time

import pandas as pd
import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.api.functions import enrich_companies_with_summary, enrich_with_summary
from lookup_pandas.cli.estimate import describe_estimate
from lookup_pandas.enrichment.lookup import lookup_values
from lookup_pandas.enrichment.plan import Options
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
from lookup_pandas.testing import BATCH, PROFILE, MockTransport, envelope
from lookup_pandas.testing.replies import Request

from ..helpers import make_client

HANDLES = [f"credit{i:03d}-lead" for i in range(300)]


def _summary(frame, client, **kwargs):
    kwargs.setdefault("progress", False)
    return enrich_with_summary(frame, "handle", client=client, **kwargs)[1]


def test_a_batch_jobs_summary_credits_equal_what_was_billed(fake_service, tmp_path):
    frame = pd.DataFrame({"handle": HANDLES})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        summary = _summary(frame, client, method="batch")
        assert client.stats.credits_consumed == 0  # the answers' headers reported none
    assert summary.jobs == 1 and summary.fetched == len(HANDLES)
    assert summary.credits == fake_service.billed() == len(HANDLES)


def test_a_resumed_jobs_items_are_counted_as_they_resolve_during_the_run(fake_service, tmp_path):
    # An interrupted run's job, still resolving when the next run polls it: the items that had
    # resolved before that first poll were billed before the run; the rest, during it. The job
    # waits (a rate of nearly 0) until the run's first poll, which finds 76 items resolved and
    # the rest resolving at 40 a second (the next one 24 ms on): however slow the machine is
    # until then, both parts are seen.
    fake_service.configure(batch_resolve_rate=1e-9)
    cache = tmp_path / "c.sqlite"
    stored = HANDLES[:152]
    with make_client(fake_service, cache=cache) as client:  # an interrupted run's leftover
        job_id = client.parts.batch.submit(PEOPLE, stored, None)
        client.parts.store.remember(lp.store.StoredJob(job_id, tuple(stored), 0.0))
    polled: list[float] = []

    def first_poll_finds_half_resolved(req: Request) -> None:
        if req.method == "GET" and not polled:
            polled.append(time.monotonic())
            fake_service.state.jobs[job_id].submitted = polled[0] - 76.02 / 40
            fake_service.configure(batch_resolve_rate=40)
        # the normal route answers

    fake_service.override(BATCH, first_poll_finds_half_resolved)
    frame = pd.DataFrame({"handle": stored})
    with make_client(fake_service, cache=cache, rate_limit_per_minute=600) as client:
        client.parts.contact.learn_pace()
        est = frame.lookup.estimate_profiles("handle", client=client)
        line = describe_estimate(est, client.rate_limit_per_minute)
        summary = _summary(frame, client)
    assert (est.to_fetch, est.stored_jobs, est.stored_items, est.jobs) == (152, 1, 152, 0)
    assert "collecting 1 stored job of 152" in line
    assert fake_service.count(BATCH, method="POST") == 1  # the leftover's own submit only
    assert fake_service.billed() == 152
    with fake_service.state.lock:
        during = sum(r.item and r.billed and r.at > polled[0] for r in fake_service.state.records)
    assert during == 152 - 76  # the job was still resolving: the test shows both parts
    assert summary.credits == during


def test_a_rerun_after_a_job_holding_refused_people_costs_nothing_and_says_so(
    fake_service, tmp_path
):
    # Opted-out and premium-gated people end in a batch job's errors and never resolve; the
    # job is finished all the same, collected once, and never counted again (issue 30, item 1).
    refused = {HANDLES[3], HANDLES[40]}
    fake_service.configure(opted_out={HANDLES[3]}, premium_gated={HANDLES[40]})
    frame = pd.DataFrame({"handle": HANDLES[:60]})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        first = _summary(frame, client, method="batch")
        assert client.parts.store.jobs() == []  # finished: forgotten
        billed = fake_service.billed()
        assert first.credits == billed == 58
        assert (first.fetched, first.refused) == (58, 2)
        for _ in range(2):
            again = _summary(frame, client)
            assert again.credits == 0 and fake_service.billed() == billed
            assert (again.cached, again.refused, again.jobs) == (58, 2, 0)
    assert {h for h in HANDLES[:60] if fake_service.count(PROFILE, handle=h)} == refused


def test_a_company_batch_jobs_credits_equal_what_was_billed(fake_service, tmp_path):
    slugs = [f"acct{i:03d}-co" for i in range(40)]
    frame = pd.DataFrame({"slug": slugs})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        enriched, summary = enrich_companies_with_summary(
            frame, "slug", client=client, method="batch", progress=False
        )
        again = enrich_companies_with_summary(frame, "slug", client=client, progress=False)[1]
    assert summary.jobs == 1
    assert summary.credits == fake_service.billed() == 40
    assert enriched.lookup.summary == summary
    assert again.credits == 0 and fake_service.billed() == 40


def _batch_service(report_items: bool):
    """A service with batch jobs whose polls, when ``report_items``, also say in
    X-Credits-Consumed how many items they resolved (production does not document whether
    they do): either way each item is one credit, counted once."""

    def handler(request):
        url = request.url
        if "/api/panel/" in url:
            tier = {"balance": 1e6, "current_tier": {"name": "t", "limit_per_minute": None}}
            return 200, envelope(tier)
        if request.method == "POST":
            submitted["handles"] = json.loads(request.body)["handles"]
            return 202, envelope({"job_id": "job_1"})
        handles = submitted["handles"]
        companies = "/companies/" in url
        page = {
            "status": "completed",
            "total": len(handles),
            "resolved": len(handles),
            "errors": 0,
            "next_cursor": len(handles),
            "not_found": [],
            "companies" if companies else "profiles": {
                h: {"id": f"{'org' if companies else 'prsn'}_{h}", "handle": h, "slug": h}
                for h in handles
            },
        }
        headers = {"X-Credits-Consumed": str(len(handles) if report_items else 0)}
        return 200, envelope(page), headers

    submitted: dict[str, list[str]] = {}
    return handler


@pytest.mark.parametrize("kind", [PEOPLE, COMPANIES], ids=["people", "companies"])
def test_batch_items_are_counted_once_whether_or_not_the_polls_report_them(kind):
    # A service whose polls report their items in X-Credits-Consumed: every batch path is a
    # batch path (endpoints.is_batch), companies' too (issue 30, item 2: they counted twice).
    for report in (False, True):
        handler = _batch_service(report)
        client = lp.Client(
            api_key="lk_test_unit",
            base_url="http://service.test",
            cache=False,
            transport=MockTransport(handler),
        )
        with client:
            result = lookup_values(
                HANDLES[:40],
                client=client,
                options=Options(method="batch", progress=False),
                kind=kind,
            )
        assert result.status == ["ok"] * 40
        assert result.summary.credits == 40, report
