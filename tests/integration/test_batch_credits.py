"""A batch job's credits are counted once, and a resumed job's are counted at all (issue 21,
items 5 and 9): the summary's credits equal what the service billed for the run."""

from __future__ import annotations

import json

import pandas as pd

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.api import enrich_with_summary
from lookup_pandas.cli import describe_estimate
from lookup_pandas.enrich import lookup_values
from lookup_pandas.testing import BATCH, MockTransport, envelope

from .helpers import make_client

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


def test_a_resumed_jobs_items_are_counted_and_the_estimate_says_it_collects_it(
    fake_service, tmp_path
):
    cache = tmp_path / "c.sqlite"
    stored = HANDLES[:152]
    with make_client(fake_service, cache=cache) as client:  # an interrupted run's leftover
        job_id = client.submit_batch(stored)
        client.store.remember(lp.store.StoredJob(job_id, tuple(stored), 0.0))
    frame = pd.DataFrame({"handle": stored})
    with make_client(fake_service, cache=cache, rate_limit_per_minute=600) as client:
        client.learn_pace()
        est = frame.lookup.estimate_profiles("handle", client=client)
        line = describe_estimate(est, client.rate_limit_per_minute)
        summary = _summary(frame, client)
    assert (est.to_fetch, est.stored_jobs, est.stored_items, est.jobs) == (152, 1, 152, 0)
    assert "collecting 1 stored job of 152" in line
    assert fake_service.count(BATCH, method="POST") == 1  # the leftover's own submit only
    assert summary.credits == fake_service.billed() == 152


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
        page = {
            "status": "completed",
            "total": len(handles),
            "resolved": len(handles),
            "errors": 0,
            "next_cursor": len(handles),
            "not_found": [],
            "profiles": {h: {"id": f"prsn_{h}", "handle": h} for h in handles},
        }
        headers = {"X-Credits-Consumed": str(len(handles) if report_items else 0)}
        return 200, envelope(page), headers

    submitted: dict[str, list[str]] = {}
    return handler


def test_batch_items_are_counted_once_whether_or_not_the_polls_report_them():
    for report in (False, True):
        handler = _batch_service(report)
        client = lp.Client(
            api_key="lk_test_unit",
            base_url="http://service.test",
            cache=False,
            transport=MockTransport(handler),
        )
        with client:
            result = lookup_values(HANDLES[:40], client=client, method="batch", progress=False)
        assert result.status == ["ok"] * 40
        assert result.summary.credits == 40, report
