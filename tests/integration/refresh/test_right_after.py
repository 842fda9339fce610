"""A refresh right after a refresh buys nobody; past ``expire_after``, what the feed cannot
check is bought again; and every refresh bills between its estimate's least and most.

Lists of 40 leads at 8 companies (5 of whom move to Globex), with or without billed not-founds
(``unknown-*``), sparse people (no position) and opted-out people (a 403 for their record: never
billed, never cached), are bought once by a Client whose answers last ``EXPIRE`` seconds. Then
four refreshes, each after its estimate (which bills nothing):

1. right after the purchase: the movers are bought, nobody else; the not-founds and the sparse
   are kept as they are (source ``cache``, no check time), the opted-out asked again, unbilled;
2. right after the first: no profile is billed, only feed pages; the frame is the first's;
3. once the cache's clock passed ``expire_after``: the not-founds and the sparse are bought
   again, once each; the checkable answers are checked and kept;
4. right after the third: no profile billed again.

The emulator's billing judges each: per person, the feed pages and the credits.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from lookup_pandas.enrichment.provenance import CHECKED_AT_COLUMN, SOURCE_COLUMN

from ..helpers import make_client
from .world import (
    CHANGED,
    Tally,
    employees,
    enrich,
    later,
    move_every,
    spread_leads,
    summary_of,
    without_provenance,
)

pytestmark = pytest.mark.timeout(180)

#: The answers' expire_after (seconds), which ``later`` moves the cache's clock past.
EXPIRE = 3600
NOT_FOUND = ["unknown-lead-one", "unknown-lead-two", "no-such-lead-three"]
SPARSE = employees("acme", 3, sparse=True)
OPTED_OUT = employees("umbrella", 3)


@pytest.mark.parametrize(
    "extras",
    [
        ("not_found", "sparse", "opted_out"),
        ("opted_out",),
        ("not_found",),
        (),
    ],
    ids=["all-kinds", "opted-out", "not-founds", "movers-only"],
)
def test_a_refresh_right_after_a_refresh_buys_nobody_until_answers_expire(
    fake_service, tmp_path, monkeypatch, extras
):
    svc = fake_service
    checkable = spread_leads(companies=8, each=5)
    unchecked = (NOT_FOUND if "not_found" in extras else []) + (
        SPARSE if "sparse" in extras else []
    )
    opted = OPTED_OUT if "opted_out" in extras else []
    svc.configure(opted_out=set(opted))
    leads = checkable + unchecked + opted
    frame = pd.DataFrame({"handle": leads})

    def refresh(client, **options):
        """An estimate, then the refresh: its frame, and what the two spent."""
        before = Tally.of(svc)
        est = frame.lookup.estimate_profiles("handle", client=client, refresh=CHANGED)
        estimated = Tally.of(svc) - before
        assert estimated.nothing_billed  # free panel calls at most
        out = enrich(leads, client, refresh=CHANGED, **options)
        spent = Tally.of(svc) - before
        assert est.refresh is not None
        print(f"{est.refresh.least:g} <= {spent.credits:g} <= {est.refresh.most:g}; {est}")
        assert est.refresh.least <= spent.credits <= est.refresh.most
        assert summary_of(out).credits == spent.credits
        assert (out.set_index("handle").loc[opted, "lookup_status"] == "forbidden").all()
        return out, spent

    with make_client(svc, cache=tmp_path / "c.sqlite", expire_after=EXPIRE) as client:
        enrich(leads, client, method="single")
        assert svc.billed_handles() == Counter(checkable + unchecked)  # the opted-out: never
        movers = list(move_every(svc, checkable, 8))

        first, once = refresh(client, provenance=True)
        second, twice = refresh(client, provenance=True)
        later(monkeypatch, EXPIRE + 1)
        third, expired = refresh(client)
        _, after = refresh(client)

    assert once.billed == Counter(movers)
    assert once.credits == len(movers) + once.pages
    counts = summary_of(first).refresh
    assert counts is not None
    assert (counts.moved, counts.held, counts.uncheckable) == (len(movers), len(unchecked), 0)

    assert twice.billed == Counter() and twice.credits == twice.pages  # feed pages only
    counts = summary_of(second).refresh
    assert counts is not None
    assert (counts.checked, counts.unchanged, counts.moved) == (len(checkable),) * 2 + (0,)
    assert counts.held == len(unchecked)
    pd.testing.assert_frame_equal(without_provenance(second), without_provenance(first))
    rows = second.set_index("handle")
    assert (rows.loc[unchecked, SOURCE_COLUMN] == "cache").all()  # kept, not checked
    assert rows.loc[unchecked, CHECKED_AT_COLUMN].isna().all()
    assert (rows.loc[checkable, SOURCE_COLUMN] == "checked").all()
    not_found = [h for h in unchecked if h in NOT_FOUND]
    assert (rows.loc[not_found, "lookup_status"] == "not_found").all()

    assert expired.billed == Counter(unchecked)  # bought again once expired, once each
    assert expired.credits == len(unchecked) + expired.pages
    counts = summary_of(third).refresh
    assert counts is not None
    assert (counts.held, counts.uncheckable, counts.moved) == (0, len(unchecked), 0)
    pd.testing.assert_frame_equal(third, without_provenance(first))

    assert after.billed == Counter() and after.credits == after.pages
