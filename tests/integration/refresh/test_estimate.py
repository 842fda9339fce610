"""``estimate_profiles(..., refresh="changed")`` after people moved: its figures are the leads'.

120 leads, two at each of 60 companies, and 3 sparse people (no position: not checkable) are
bought once; 10 of the 120 then move. 4 more leads were never bought, 2 of whom have opted out
(a 403 for their record: never billed, never cached). The estimate, made by a new Client on the
same cache (a user's next session), reads no feed page and bills nothing. Its figures are
computed here from the leads' own records, not from the library:

- checked: the 120 cached answers that name a current organisation; the 3 not checkable are
  held as they are while they last, or, once the cache's clock passed ``expire_after``, bought;
- organisations: the distinct ``org_`` ids of their current positions (60);
- feed calls: ``ceil(60 / MAX_IDS_PER_CALL)`` = 2 (before any page, the feed is taken for about
  one event per organisation a week, so 50 organisations over a two-day window fill a third of
  a page: a call holds as many ids as a URL takes);
- most: every checked answer bought anew, plus a page per feed call, plus the 4 uncached and
  the 3 once expired;
- least: a page per feed call, plus the 3 once expired (the uncached may be refused: unbilled).

The refresh that follows spends between the least and the most, and buys exactly the movers,
the uncached who have not opted out and the sparse once expired. At a profile cost of 2 (the
costs route says so), the figures count 2 a profile, and ``max_credits`` one below the most
refuses the refresh before any page.
"""

from __future__ import annotations

import math
from collections import Counter

import pandas as pd
import pytest

from lookup_pandas.enrichment.refresh_plan import MAX_IDS_PER_CALL
from lookup_pandas.errors import BudgetExceededError
from lookup_pandas.testing import FakeService, data
from lookup_pandas.testing.routes import PROFILE

from ..helpers import make_client
from .world import CHANGED, Tally, employees, enrich, later, move_every, spread_leads, summary_of

pytestmark = pytest.mark.timeout(120)

COMPANIES, EACH, MOVERS = 60, 2, 10
#: A feed page's credits (the emulator's default for every route it does not list).
PAGE = 1.0
#: The answers' expire_after (seconds), which ``later`` moves the cache's clock past.
EXPIRE = 3600


def current_orgs(handle: str) -> set[str]:
    """The ``org_`` ids of the emulator's record's current positions (no end date)."""
    record = data.person(handle) or {}
    return {p["organization"]["id"] for p in record.get("positions") or () if not p["end_date"]}


def world(svc: FakeService, cache: object) -> tuple[list[str], list[str], list[str], list[str]]:
    """The checkable leads, the sparse ones, the uncached ones and the movers, the first two
    bought once (by a Client of their own) and the movers moved."""
    leads = spread_leads(COMPANIES, EACH)
    sparse = employees("acme", 3, sparse=True)
    uncached = employees("umbrella", 4)
    svc.configure(opted_out=set(uncached[:2]))
    with make_client(svc, cache=cache, expire_after=EXPIRE) as client:
        enrich(leads + sparse, client, method="single")
    assert svc.billed_handles() == Counter(leads + sparse)
    movers = list(move_every(svc, leads, len(leads) // MOVERS))
    assert len(movers) == MOVERS
    return leads, sparse, uncached, movers


@pytest.mark.parametrize("expired", [False, True], ids=["within-expiry", "past-expiry"])
@pytest.mark.parametrize("cost", [1.0, 2.0], ids=["profile-1-credit", "profile-2-credits"])
def test_the_estimate_counts_what_the_leads_hold_and_the_refresh_spends_within_it(
    fake_service, tmp_path, monkeypatch, cost, expired
):
    svc = fake_service
    if cost != 1.0:
        svc.configure(route_costs={PROFILE: cost})
    cache = tmp_path / "c.sqlite"
    leads, sparse, uncached, movers = world(svc, cache)
    if expired:
        later(monkeypatch, EXPIRE + 1)
    orgs = set().union(*(current_orgs(h) for h in leads))
    assert len(orgs) == COMPANIES and not any(current_orgs(h) for h in sparse)
    calls = math.ceil(len(orgs) / MAX_IDS_PER_CALL)
    bought = sparse if expired else []  # bought whatever the feed says
    held = [] if expired else sparse
    most = len(leads) * cost + calls * PAGE + len(bought + uncached) * cost
    least = calls * PAGE + len(bought) * cost
    frame = pd.DataFrame({"handle": leads + sparse + uncached})

    with make_client(svc, cache=cache) as client:  # a new session on the same cache
        before = Tally.of(svc)
        est = frame.lookup.estimate_profiles("handle", client=client, refresh=CHANGED)
        estimated = Tally.of(svc) - before
        out = enrich(frame["handle"], client, refresh=CHANGED, method="single")
    spent = Tally.of(svc) - estimated - before
    checks = est.refresh

    print(f"estimate {est}; refresh {spent.credits:g} credits, {spent.pages} feed pages")
    assert estimated.nothing_billed  # free panel calls at most: no page, no profile, no credit
    assert checks is not None
    got = (checks.checked, checks.organizations, checks.feed_calls, checks.uncheckable)
    assert got == (len(leads), len(orgs), calls, len(bought))
    assert checks.held == len(held)
    assert (checks.most, checks.least) == (most, least)
    assert est.credits == most  # what the estimate says the job may spend is the most
    assert est.unique == len(frame) and est.to_fetch == len(frame) - len(held)

    opted_in = uncached[2:]
    assert spent.billed == Counter(movers + bought + opted_in)  # once each, nobody else
    assert least <= spent.credits <= most
    assert spent.credits == (MOVERS + len(bought + opted_in)) * cost + spent.pages * PAGE
    statuses = out.set_index("handle")["lookup_status"]
    assert (statuses[uncached[:2]] == "forbidden").all()
    counts = summary_of(out).refresh
    assert counts is not None
    assert (counts.checked, counts.moved, counts.uncheckable) == (len(leads), MOVERS, len(bought))
    assert counts.held == len(held)
    assert counts.feed_pages == spent.pages and summary_of(out).credits == spent.credits


def test_max_credits_counts_the_profile_cost_of_the_most(fake_service, tmp_path):
    """A new Client (it has read no route costs yet) refuses a refresh whose most, at 2 credits
    a profile, exceeds ``max_credits``, before any feed page."""
    svc = fake_service
    svc.configure(route_costs={PROFILE: 2})
    cache = tmp_path / "c.sqlite"
    leads, sparse, uncached, movers = world(svc, cache)
    calls = math.ceil(COMPANIES / MAX_IDS_PER_CALL)
    most = 2 * (len(leads) + len(uncached)) + calls * PAGE  # the sparse held: not bought
    handles = leads + sparse + uncached

    before = Tally.of(svc)
    with make_client(svc, cache=cache) as client, pytest.raises(BudgetExceededError) as refused:
        enrich(handles, client, refresh=CHANGED, method="single", max_credits=most - 1)
    assert (Tally.of(svc) - before).nothing_billed
    assert refused.value.needed == most
    with make_client(svc, cache=cache) as client:
        enrich(handles, client, refresh=CHANGED, method="single", max_credits=most)
    assert (Tally.of(svc) - before).billed == Counter(movers + uncached[2:])
