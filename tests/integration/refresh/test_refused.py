"""What ``refresh="changed"`` refuses, before anything is sent or billed.

1. Offline (``Client(offline=True)``) it needs the network: a UsageError, and the emulator sees
   no request, with a cache that holds every answer.
2. ``max_credits`` below the most the refresh can cost (``estimate_profiles``' figure: every
   checked answer bought anew, plus one feed page per group): BudgetExceededError before any
   feed page; at the most, it runs.
3. Companies: ``enrich_companies(..., refresh="changed")`` is a UsageError (the feed is about
   people), through the accessor and the function alike.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.api.functions import enrich_companies
from lookup_pandas.errors import BudgetExceededError, UsageError

from ..helpers import make_client
from .world import CHANGED, Tally, employees, enrich, summary_of

pytestmark = pytest.mark.timeout(60)


def test_offline_a_refresh_is_refused_and_nothing_is_sent(fake_service, tmp_path):
    svc = fake_service
    cache = tmp_path / "c.sqlite"
    leads = employees("acme", 10)
    with make_client(svc, cache=cache) as client:
        enrich(leads, client)
    svc.move(leads[0], to="globex")
    before = Tally.of(svc)
    with lp.Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache, offline=True) as off:
        with pytest.raises(UsageError, match="changed"):
            enrich(leads, off, refresh=CHANGED)
        assert (enrich(leads, off)["lookup_status"] == "ok").all()  # the cache is there
    nothing = Tally.of(svc) - before
    assert nothing.nothing_billed and nothing.requests == 0


def test_max_credits_below_the_most_refuses_before_any_feed_page(fake_service, tmp_path):
    svc = fake_service
    leads = employees("acme", 20) + employees("globex", 10)  # two companies: one feed call
    with make_client(svc, cache=tmp_path / "c.sqlite") as client:
        enrich(leads, client)
        svc.move(leads[0], to="umbrella")
        before = Tally.of(svc)
        estimate = pd.DataFrame({"handle": leads}).lookup.estimate_profiles(
            "handle", client=client, refresh=CHANGED
        )
        assert estimate.refresh is not None
        most = estimate.refresh.most
        assert most == len(leads) + 1  # every answer anew, plus the group's first page
        with pytest.raises(BudgetExceededError) as refused:
            enrich(leads, client, refresh=CHANGED, max_credits=most - 1)
        refusal = Tally.of(svc) - before
        out = enrich(leads, client, refresh=CHANGED, max_credits=most)
    spent = Tally.of(svc) - before

    assert refused.value.needed == most and refused.value.allowed == most - 1
    assert refusal.nothing_billed  # no feed page, no profile
    assert spent.billed == Counter([leads[0]])  # at its most, it runs, and buys the mover
    assert spent.credits == 1 + spent.pages <= most
    assert summary_of(out).refresh is not None and summary_of(out).refresh.moved == 1


def test_companies_refuse_a_refresh_of_what_changed(fake_service, tmp_path):
    svc = fake_service
    accounts = pd.DataFrame({"slug": ["acme", "globex"]})
    with make_client(svc, cache=tmp_path / "c.sqlite") as client:
        with pytest.raises(UsageError, match="people"):
            accounts.lookup.enrich_companies("slug", client=client, refresh=CHANGED)
        with pytest.raises(UsageError, match="people"):
            enrich_companies(accounts, "slug", client=client, refresh=CHANGED)
    assert svc.count() == 0
