"""``enrich_profiles(..., refresh="changed", background=True)``: the foreground's frame and figures.

60 leads at 10 companies are bought into two caches (one each: the background's and the
foreground's, so each refresh finds the same world), and 10 of them move. The background job
refreshes the first cache, a foreground call the second. Each buys exactly the 10 movers; the
job's ``result()`` is the foreground's frame; its summary's ``refresh`` figures are the
foreground's, with the feed pages the emulator counted during the job; its watch (what its
view shows) says the same; and a foreground refresh on the job's cache right after buys no one.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from lookup_pandas.enrichment.background import EnrichmentJob

from ..helpers import make_client
from .world import CHANGED, Tally, enrich, move_every, spread_leads, summary_of

pytestmark = pytest.mark.timeout(180)


def test_a_background_refresh_gives_the_foreground_frame_and_figures(fake_service, tmp_path):
    svc = fake_service
    svc.configure(latency=0.01)  # the job runs a while after it is started
    leads = spread_leads(companies=10, each=6)
    job_cache, foreground_cache = tmp_path / "job.sqlite", tmp_path / "fg.sqlite"
    for cache in (job_cache, foreground_cache):
        with make_client(svc, cache=cache) as client:
            enrich(leads, client)
    assert svc.billed_handles() == Counter(leads * 2)
    movers = move_every(svc, leads, 6)
    frame = pd.DataFrame({"handle": leads})

    before = Tally.of(svc)
    with make_client(svc, cache=job_cache) as client:
        job = frame.lookup.enrich_profiles(
            "handle", client=client, refresh=CHANGED, background=True, progress=False
        )
        assert isinstance(job, EnrichmentJob)
        out = job.result(timeout=120)
    in_job = Tally.of(svc) - before
    with make_client(svc, cache=foreground_cache) as client:
        foreground = enrich(leads, client, refresh=CHANGED)
    in_foreground = Tally.of(svc) - before - in_job

    assert job.status() == "done"
    assert in_job.billed == Counter(list(movers))  # the 10, once each; nobody else
    assert in_foreground.billed == Counter(list(movers))
    pd.testing.assert_frame_equal(out, foreground)
    shown = out.set_index("handle")["profile_headline"]
    assert {h: shown[h] for h in movers} == {h: r["headline"] for h, r in movers.items()}

    summary = job.summary
    assert summary is not None
    counts, expected = summary.refresh, summary_of(foreground).refresh
    print(f"job: {summary}; {in_job.pages} feed pages, {in_job.credits:g} credits")
    assert counts is not None and expected is not None
    assert (counts.checked, counts.unchanged, counts.moved) == (len(leads), 50, len(movers))
    assert (counts.busy, counts.uncheckable) == (0, 0)
    assert (counts.checked, counts.unchanged, counts.moved, counts.busy, counts.uncheckable) == (
        expected.checked,
        expected.unchanged,
        expected.moved,
        expected.busy,
        expected.uncheckable,
    )
    assert counts.feed_pages == in_job.pages >= 1 and counts.feed_credits == in_job.pages
    assert expected.feed_pages == in_foreground.pages
    assert summary.credits == in_job.credits == len(movers) + in_job.pages
    assert (summary.cached, summary.fetched) == (50, len(movers))
    assert job.watch.counts["checked"] == f"{len(leads)} ({len(movers)} moved)"
    assert job.watch.counts["cached"] == 50 and job.watch.counts["feed_pages"] == in_job.pages
    assert job.watch.counts["credits"] == f"{in_job.credits:g}"
    assert "refresh checked 60 (50 unchanged, 10 moved: bought anew)" in job.line()

    # The job marked the movers' events acted on: a refresh right after buys no one.
    again_before = Tally.of(svc)
    with make_client(svc, cache=job_cache) as client:
        again = enrich(leads, client, refresh=CHANGED)
    assert (Tally.of(svc) - again_before).billed == Counter()
    pd.testing.assert_frame_equal(again, out)
