"""The bar of a ``refresh="changed"`` says what the feed found, with the emulator's figures.

The bar is tqdm's text bar, drawn on stderr as in a terminal (captured here). 40 leads at 10
companies and 3 sparse people (no position: not checkable) are bought once, 5 of the 40 move,
the answers expire (the cache's clock moved past ``expire_after``, so the sparse are bought
anew), and a refresh runs with its bar. Its last line shows the answers checked and the movers among
them (the unchanged are the cached), those not checkable, the feed pages read and the credits,
as the emulator counted them and as the summary says. At a giant company's busy feed, it says
how many were bought for it.
"""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd
import pytest

from ..helpers import make_client
from .world import CHANGED, Tally, employees, enrich, later, move_every, spread_leads, summary_of

pytestmark = pytest.mark.timeout(120)


def last_bar(stderr: str) -> tuple[str, dict[str, str]]:
    """The bar's last drawing on ``stderr`` (tqdm redraws after a carriage return): its
    ``n/total``, and its postfix's fields."""
    line = re.split(r"[\r\n]", stderr.rstrip())[-1]
    done = re.search(r"\| (\d+/\d+) \[", line)
    postfix = re.search(r"(fetched=.*)\]$", line)
    assert done is not None and postfix is not None, line
    return done.group(1), fields(postfix.group(1))


def fields(postfix: str) -> dict[str, str]:
    """``name=value, ...`` as a dict; a value may hold ``, `` itself (``checked=40 (5 ...)``).

    >>> fields("fetched=5, checked=40 (5 moved, 2 at a busy feed), feed_pages=1")
    {'fetched': '5', 'checked': '40 (5 moved, 2 at a busy feed)', 'feed_pages': '1'}
    """
    names = list(re.finditer(r"(?:^|, )([a-z_]+)=", postfix))
    ends = [m.start() for m in names[1:]] + [len(postfix)]
    return {m.group(1): postfix[m.end() : end] for m, end in zip(names, ends, strict=True)}


def test_the_bar_shows_checked_moved_not_checkable_and_feed_pages(
    fake_service, tmp_path, capsys, monkeypatch
):
    svc = fake_service
    leads = spread_leads(companies=10, each=4)
    sparse = employees("acme", 3, sparse=True)
    with make_client(svc, cache=tmp_path / "c.sqlite", expire_after=60) as client:
        enrich(leads + sparse, client)
        movers = list(move_every(svc, leads, 8))
        later(monkeypatch, 61)
        before = Tally.of(svc)
        capsys.readouterr()
        out = pd.DataFrame({"handle": leads + sparse}).lookup.enrich_profiles(
            "handle", client=client, refresh=CHANGED, progress=True
        )
    spent = Tally.of(svc) - before
    summary, counts = summary_of(out), summary_of(out).refresh

    done, shown = last_bar(capsys.readouterr().err)
    print(shown, "|", summary)
    assert done == f"{len(leads + sparse)}/{len(leads + sparse)}"
    assert spent.billed == Counter(movers + sparse)
    assert counts is not None and counts.feed_pages == spent.pages >= 1
    kept = len(leads) - len(movers)
    assert shown["checked"] == f"{len(leads)} ({len(movers)} moved)"
    assert shown["cached"] == str(kept) == str(counts.unchanged)  # the unchanged are kept
    assert shown["feed_pages"] == str(spent.pages)
    assert shown["fetched"] == str(len(movers + sparse))
    assert shown["failed"] == "0"
    assert shown["not_checkable"] == str(len(sparse))
    # The bar's credits are the summary's and the emulator's: the profiles and the feed pages.
    assert summary.credits == spent.credits == len(movers + sparse) + spent.pages
    assert shown["credits"] == f"{spent.credits:g}"


def test_the_bar_shows_the_answers_bought_at_a_busy_feed(fake_service, tmp_path, capsys):
    """At a giant company whose feed holds thousands of events a day (see test_giant_company),
    the leads are bought instead of reading on: the bar says how many, and what was spent."""
    svc = fake_service
    svc.configure(job_change_rates={"hooli": 2500.0})
    leads = employees("hooli", 20)
    with make_client(svc, cache=tmp_path / "c.sqlite") as client:
        enrich(leads, client)
        move_every(svc, leads, 10)
        before = Tally.of(svc)
        capsys.readouterr()
        out = pd.DataFrame({"handle": leads}).lookup.enrich_profiles(
            "handle", client=client, refresh=CHANGED, progress=True
        )
    spent = Tally.of(svc) - before
    counts = summary_of(out).refresh

    done, shown = last_bar(capsys.readouterr().err)
    print(shown)
    assert done == f"{len(leads)}/{len(leads)}"
    assert counts is not None and counts.busy > 0
    assert counts.moved + counts.busy == sum(spent.billed.values())
    assert shown["checked"] == f"{len(leads)} ({counts.moved} moved, {counts.busy} at a busy feed)"
    assert shown["cached"] == str(counts.unchanged)
    assert "not_checkable" not in shown  # every lead names its company
    assert shown["feed_pages"] == str(spent.pages) == "1"
    assert shown["credits"] == f"{spent.credits:g}" == f"{summary_of(out).credits:g}"
