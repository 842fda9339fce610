"""``refresh="changed"`` of 50 leads inside one giant company, whose feed may outweigh them.

Hooli has 1,234 employees. At a few hundred or a few thousand job changes per 1,000 employees a
day (the emulator's ``job_change_rates``), its feed over the refresh's window holds hundreds or
thousands of events: more pages than the 50 leads are worth. The refresh must see that from the
first page and buy the leads instead. Whatever the rate, it costs at most the 50 profiles plus
that one page, and every mover among the leads is bought anew, once. At the default rate (a few
events a day) one page tells everything, and only the movers are bought.
"""

from __future__ import annotations

from collections import Counter

import pytest

from lookup_pandas.testing import data

from ..helpers import make_client
from .world import CHANGED, Tally, employees, enrich, move_every, summary_of

pytestmark = pytest.mark.timeout(120)

GIANT, LEADS = "hooli", 50


@pytest.mark.parametrize(
    "rate", [None, 250.0, 2500.0], ids=["default-rate", "hundreds-a-day", "thousands-a-day"]
)
def test_a_refresh_inside_a_giant_company_costs_at_most_its_leads_plus_one_page(
    fake_service, tmp_path, rate
):
    svc = fake_service
    if rate is not None:
        svc.configure(job_change_rates={GIANT: rate})
    per_day = (rate or svc.knobs.job_change_rate) * data.head_count(GIANT) / 1000
    leads = employees(GIANT, LEADS)
    with make_client(svc, cache=tmp_path / "c.sqlite") as client:
        enrich(leads, client)
        movers = list(move_every(svc, leads, 10))
        before = Tally.of(svc)
        out = enrich(leads, client, refresh=CHANGED)
    spent = Tally.of(svc) - before
    summary = summary_of(out)
    counts = summary.refresh

    print(f"{per_day:.0f} events a day at {GIANT}: {spent.credits:g} credits, {spent.pages} "
          f"feed pages, {len(movers)} movers; {summary}")  # fmt: skip
    assert (out["lookup_status"] == "ok").all()
    assert spent.credits <= LEADS + 1  # 50 profiles, plus one feed page
    assert all(spent.billed[h] == 1 for h in movers), spent.billed  # each mover anew, once
    assert max(spent.billed.values()) == 1
    assert counts is not None
    assert counts.feed_pages == spent.pages and summary.credits == spent.credits
    assert counts.moved + counts.busy == sum(spent.billed.values())
    assert counts.unchanged == LEADS - counts.moved - counts.busy
    if per_day > LEADS:  # one day's events fill more than a page: the feed is not worth it
        assert spent.pages == 1
        assert spent.billed == Counter(leads)
    else:  # a quiet feed: one page tells all, only the movers are bought
        assert spent.billed == Counter(movers)
        assert spent.credits == len(movers) + spent.pages
