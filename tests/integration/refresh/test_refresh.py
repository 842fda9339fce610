"""``refresh="changed"`` over a lead list spread over many companies, judged by the emulator.

400 leads, 10 current employees at each of 40 companies, bought once (a SQLite cache in
tmp_path); 20 of them then move to Globex under new titles (``FakeService.move``: a ``left``
and a ``joined`` event dated today, among the background of other people's events). Then:

1. A refresh buys exactly the 20 movers again (the emulator's billing, per person); every
   other row equals the first run's; the movers show their new titles; it spends no more than
   20 profiles plus the feed pages it read, and at most a quarter of a full re-buy; and the
   summary's figures are the emulator's (moved, feed pages, credits).
2. A second refresh right after buys no profile: it reads feed pages only.
3. Answers that name no current organisation (sparse people, people between jobs) cannot be
   checked: they are kept as they are (source ``cache``, no check time) until they expire
   (``expire_after``, the cache's clock moved on), then bought anew, counted as not checkable.
4. Provenance: a kept answer is ``checked``, with the time of its check
   (``lookup_checked_at``) and its first purchase's time; an answer bought in the run has
   NaT; a second refresh moves the check time on.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.enrichment.provenance import CHECKED_AT_COLUMN, FETCHED_AT_COLUMN, SOURCE_COLUMN
from lookup_pandas.testing import FakeService, data

from ..helpers import make_client
from .world import (
    CHANGED,
    Tally,
    employees,
    enrich,
    later,
    move_every,
    slug_of,
    spread_leads,
    summary_of,
    without_provenance,
)

pytestmark = pytest.mark.timeout(180)

COMPANIES, EACH, MOVERS = 40, 10, 20
#: A short expire_after (seconds), which ``later`` moves the cache's clock past.
EXPIRE = 3600


def bought_then_moved(
    svc: FakeService, client: lp.Client, to: str = "globex"
) -> tuple[list[str], pd.DataFrame, dict[str, dict[str, Any]]]:
    """400 leads bought once, then 20 of them moved to ``to``: the leads, the first frame, the
    movers' new records."""
    leads = spread_leads(COMPANIES, EACH)
    assert len(leads) == COMPANIES * EACH
    first = enrich(leads, client)
    assert (first["lookup_status"] == "ok").all()
    assert Tally.of(svc).billed == Counter(leads)  # each bought once
    movers = move_every(svc, leads, len(leads) // MOVERS, to=to)
    assert len(movers) == MOVERS
    return leads, first, movers


def test_a_refresh_buys_exactly_the_movers_for_a_fraction_of_a_full_rebuy(fake_service, tmp_path):
    svc = fake_service
    with make_client(svc, cache=tmp_path / "c.sqlite") as client:
        leads, first, movers = bought_then_moved(svc, client)
        before = Tally.of(svc)
        estimate = (
            pd.DataFrame({"handle": leads})
            .lookup.estimate_profiles("handle", client=client, refresh=CHANGED)
            .refresh
        )
        assert (Tally.of(svc) - before).nothing_billed  # the estimate reads no feed page
        out = enrich(leads, client, refresh=CHANGED, provenance=True)
    spent = Tally.of(svc) - before
    summary, counts = summary_of(out), summary_of(out).refresh

    assert spent.billed == Counter(list(movers))  # the 20, once each; nobody else
    assert (out["lookup_status"] == "ok").all()
    kept = ~out["handle"].isin(list(movers))
    pd.testing.assert_frame_equal(without_provenance(out)[kept], without_provenance(first)[kept])
    new = out[~kept].set_index("handle")
    for handle, record in movers.items():
        assert new.at[handle, "profile_headline"] == record["headline"]
        assert new.at[handle, "profile_positions"][0]["title"] == record["positions"][0]["title"]
        assert new.at[handle, "profile_headline"].endswith(" at Globex")

    print(f"refresh of {len(leads)}: {spent.credits:g} credits, {spent.pages} feed pages, "
          f"{len(movers)} movers; {summary}")  # fmt: skip
    assert spent.pages >= 1
    assert spent.credits <= MOVERS + spent.pages
    assert spent.credits <= len(leads) / 4
    assert counts is not None
    assert (counts.checked, counts.moved) == (len(leads), MOVERS)
    assert counts.unchanged == len(leads) - MOVERS
    assert (counts.busy, counts.uncheckable) == (0, 0)
    assert counts.feed_pages == spent.pages
    assert counts.feed_credits == spent.pages  # a page costs 1 credit
    assert summary.credits == spent.credits
    assert summary.fetched == MOVERS
    assert estimate is not None and (estimate.checked, estimate.uncheckable) == (len(leads), 0)
    assert estimate.least <= spent.credits <= estimate.most


@pytest.mark.parametrize("to", ["globex", "list"], ids=["to-another-company", "within-the-list"])
def test_a_second_refresh_right_after_buys_no_profile(fake_service, tmp_path, to):
    """Whether the movers joined a company outside the list (its feed is read first by the
    second refresh, which finds their ``joined`` events there) or one of the list's own (the
    first refresh reads that feed, but matches its events only to that company's own leads
    once the groups are split, so some ``joined`` events go unmarked there too)."""
    svc = fake_service
    with make_client(svc, cache=tmp_path / "c.sqlite") as client:
        if to == "list":
            to = slug_of(spread_leads(COMPANIES, EACH)[-1])  # the list's last company
        leads, _, movers = bought_then_moved(svc, client, to)
        once = enrich(leads, client, refresh=CHANGED)
        before = Tally.of(svc)
        again = enrich(leads, client, refresh=CHANGED)
    spent = Tally.of(svc) - before
    counts = summary_of(again).refresh

    assert spent.billed == Counter()  # the movers' events were acted on by the first refresh
    assert spent.pages >= 1 and spent.credits == spent.pages  # feed pages, nothing else
    assert counts is not None
    assert (counts.checked, counts.unchanged, counts.moved) == (len(leads), len(leads), 0)
    assert counts.feed_pages == spent.pages
    assert summary_of(again).credits == spent.credits
    pd.testing.assert_frame_equal(without_provenance(again), without_provenance(once))
    shown = again.set_index("handle")["profile_headline"]
    assert {h: shown[h] for h in movers} == {h: r["headline"] for h, r in movers.items()}
    assert {r["positions"][0]["organization"]["slug"] for r in movers.values()} == {to}


def between_jobs(n: int) -> list[str]:
    """``n`` of the search population whose (full) record holds no current position."""
    found = []
    for i in range(data.SEARCH_POPULATION):
        record = data.person(h := f"person-{i:05d}")
        positions = (record or {}).get("positions") or []
        if positions and all(p["end_date"] is not None for p in positions):
            found.append(h)
        if len(found) == n:
            return found
    raise AssertionError(f"fewer than {n} people between jobs")


def test_answers_naming_no_current_organisation_are_kept_until_they_expire(
    fake_service, tmp_path, monkeypatch
):
    svc = fake_service
    sparse = employees("acme", 6, sparse=True)  # no positions at all
    idle = between_jobs(4)  # positions, all ended
    checkable = employees("acme", 10) + employees("umbrella", 5)
    leads = [h for group in zip(sparse + idle, checkable, strict=False) for h in group]
    leads += checkable[len(sparse + idle) :]
    assert sorted(leads) == sorted(sparse + idle + checkable)
    with make_client(svc, cache=tmp_path / "c.sqlite", expire_after=EXPIRE) as client:
        enrich(leads, client, method="single")
        before = Tally.of(svc)
        kept = enrich(leads, client, refresh=CHANGED, provenance=True)
        middle = Tally.of(svc)
        later(monkeypatch, EXPIRE + 1)
        bought = enrich(leads, client, refresh=CHANGED, provenance=True)
    in_expiry, after_expiry = middle - before, Tally.of(svc) - middle

    # Within expire_after: kept as they are, neither bought nor checked.
    counts = summary_of(kept).refresh
    assert in_expiry.billed == Counter() and in_expiry.credits == in_expiry.pages
    assert counts is not None
    assert (counts.held, counts.uncheckable) == (len(sparse + idle), 0)
    assert (counts.checked, counts.unchanged, counts.moved) == (15, 15, 0)
    rows = kept.set_index("handle")
    assert (rows.loc[sparse + idle, SOURCE_COLUMN] == "cache").all()
    assert rows.loc[sparse + idle, CHECKED_AT_COLUMN].isna().all()
    assert (rows.loc[checkable, SOURCE_COLUMN] == "checked").all()

    # Past it: bought anew, once each; the checkable ones are checked and kept.
    counts = summary_of(bought).refresh
    assert after_expiry.billed == Counter(sparse + idle)
    assert counts is not None
    assert (counts.held, counts.uncheckable) == (0, len(sparse + idle))
    assert (counts.checked, counts.unchanged, counts.moved) == (15, 15, 0)
    assert after_expiry.credits == len(sparse + idle) + after_expiry.pages
    assert summary_of(bought).credits == after_expiry.credits
    source = dict(zip(bought["handle"], bought[SOURCE_COLUMN], strict=True))
    assert {h for h, s in source.items() if s == "checked"} == set(checkable)
    assert {h for h, s in source.items() if s == "single"} == set(sparse + idle)


def test_provenance_says_when_each_kept_answer_was_checked(fake_service, tmp_path):
    svc = fake_service
    leads = employees("acme", 12) + employees("umbrella", 6)
    movers = [leads[0], leads[13]]  # each to the other company of the list (see the test above)
    fresh = employees("globex", 2)  # not cached before the refresh: bought as usual
    with make_client(svc, cache=tmp_path / "c.sqlite") as client:
        first = enrich(leads, client, method="single", provenance=True)
        for h in movers:
            svc.move(h, to="umbrella" if slug_of(h) == "acme" else "acme", title="Refresh Lead")
        start = datetime.now(UTC)
        out = enrich(leads + fresh, client, refresh=CHANGED, provenance=True)
        end = datetime.now(UTC)
        again = lp.get_profiles(leads + fresh, client=client, progress=False, refresh=CHANGED,
                                provenance=True)  # fmt: skip

    assert isinstance(out[CHECKED_AT_COLUMN].dtype, pd.DatetimeTZDtype)
    assert str(out[CHECKED_AT_COLUMN].dt.tz) == "UTC"
    rows = out.set_index("handle")
    kept = [h for h in leads if h not in movers]
    bought = movers + fresh
    assert (rows.loc[kept, SOURCE_COLUMN] == "checked").all()
    assert (rows.loc[bought, SOURCE_COLUMN] == "single").all()
    checked_at = rows.loc[kept, CHECKED_AT_COLUMN]
    assert checked_at.notna().all() and checked_at.nunique() == 1  # one check, one time
    assert start <= checked_at.iloc[0] <= end
    assert rows.loc[bought, CHECKED_AT_COLUMN].isna().all()
    # A kept answer keeps the time it was bought; a bought one has this run's.
    bought_at = first.set_index("handle")[FETCHED_AT_COLUMN]
    assert rows.loc[kept, FETCHED_AT_COLUMN].equals(bought_at.loc[kept])
    assert (rows.loc[bought, FETCHED_AT_COLUMN] >= start).all()

    # The next refresh checks every answer it now holds, the movers' new ones too.
    later = again.set_index("handle")
    assert (later[SOURCE_COLUMN] == "checked").all()
    assert (later[CHECKED_AT_COLUMN] > end).all()
    assert svc.billed_handles() == Counter(leads) + Counter(bought)
