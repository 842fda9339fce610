"""``lookup-pandas enrich --refresh changed``: the estimate, the summary and the bill are the
emulator's.

``main`` runs in this process against the emulator (tests/integration/cli_helpers.py). 30 leads
at 6 companies and 2 sparse people (no position: not checkable) are enriched once; 6 of the 30
move. Then:

1. ``enrich leads.csv --refresh changed -o out.csv`` buys the 6 movers; the 2 sparse ones are
   kept as they are until they expire. Its estimate line (stderr, before the job) says what it
   checks, and the least and the most it can cost; its summary line what it checked, kept and
   bought, and the feed pages read, as the emulator counted them. The kept rows are the first
   run's; the movers show their new titles. The same command right after buys no profile.
2. ``enrich --refresh leads.csv`` (a bare ``--refresh`` before the input) still buys every
   answer anew.
3. ``--refresh moved`` (before or after the input, or ``--refresh=moved``) exits 2 saying what
   ``--refresh`` takes, and nothing is sent.
4. ``enrich --companies --refresh changed`` exits 2 (the feed is about people), nothing sent.
"""

from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pytest

from lookup_pandas.cli.exits import EXIT_CONFIG

from ..cli_helpers import CliMain, emulator_env
from ..refresh.world import Tally, employees, move_every, spread_leads

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def run(capsys, fake_service, tmp_path):
    """``run("enrich", ...)``: main with the emulator's environment and its own cache."""
    env = emulator_env(fake_service, tmp_path / "cli-cache.sqlite")
    return lambda *args: CliMain(capsys)(env, *args, "--no-progress")


@pytest.fixture
def leads(tmp_path):
    """leads.csv: 30 leads at 6 companies, then 2 sparse people; their handles."""
    checkable, sparse = spread_leads(companies=6, each=5), employees("acme", 2, sparse=True)
    handles = checkable + sparse
    pd.DataFrame({"name": [f"Lead {i}" for i in range(len(handles))], "handle": handles}).to_csv(
        tmp_path / "leads.csv", index=False
    )
    return checkable, sparse


def read(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_refresh_changed_says_what_it_checks_and_buys_the_movers(
    run, fake_service, tmp_path, leads
):
    svc = fake_service
    checkable, sparse = leads
    csv = str(tmp_path / "leads.csv")
    first = run("enrich", csv, "-o", str(tmp_path / "first.csv"))
    assert first.returncode == 0, first.stderr
    assert svc.billed_handles() == Counter(checkable + sparse)
    movers = move_every(svc, checkable, 5)
    assert len(movers) == 6

    before = Tally.of(svc)
    done = run("enrich", csv, "--refresh", "changed", "-o", str(tmp_path / "out.csv"))
    spent = Tally.of(svc) - before
    assert done.returncode == 0, done.stderr
    estimate, summary = done.stderr.strip().splitlines()
    print(estimate, summary, sep="\n")

    assert spent.billed == Counter(list(movers))  # once each, nobody else
    assert spent.credits == len(movers) + spent.pages
    pages = f"{spent.pages} feed page{'s' * (spent.pages != 1)}"
    # least: one page for the one feed call (6 organisations), the 2 sparse kept; most: the 30
    # checked answers bought anew too
    assert estimate.startswith("lookup-pandas: 32 rows, 32 distinct handles")
    assert estimate.endswith(
        "; refresh checks 30 answers at 6 organisations in ~1 feed call, 2 not checkable kept "
        "until they expire: 1 to 31 credits"
    )
    assert summary.startswith("enriched 32 rows (32 ok, 0 not_found, 0 invalid, 0 error)")
    assert "26 cached, 6 fetched, 0 failed;" in summary
    assert f"; {spent.credits:g} credits;" in summary
    assert summary.endswith(
        "; refresh checked 30 (24 unchanged, 6 moved: bought anew), 2 not checkable: kept "
        f"until they expire, {pages} ({spent.pages:g} credit{'s' * (spent.pages != 1)}) -> "
        f"{tmp_path / 'out.csv'}"
    )

    was, now = read(tmp_path / "first.csv"), read(tmp_path / "out.csv")
    kept = ~now["handle"].isin(list(movers))
    assert list(now.columns) == list(was.columns)
    pd.testing.assert_frame_equal(now[kept], was[kept])
    rows = now.set_index("handle")
    for handle, record in movers.items():
        assert rows.at[handle, "profile_headline"] == record["headline"]
        title = json.loads(rows.at[handle, "profile_positions"])[0]["title"]
        assert title == record["positions"][0]["title"]

    before = Tally.of(svc)
    again = run("enrich", csv, "--refresh", "changed", "-o", str(tmp_path / "again.csv"))
    spent = Tally.of(svc) - before
    assert again.returncode == 0, again.stderr
    assert spent.billed == Counter() and spent.credits == spent.pages  # feed pages only
    assert "32 cached, 0 fetched, 0 failed;" in again.stderr
    pd.testing.assert_frame_equal(read(tmp_path / "again.csv"), now)


def test_a_bare_refresh_before_the_input_still_buys_every_answer_anew(
    run, fake_service, tmp_path, leads
):
    svc = fake_service
    checkable, sparse = leads
    csv = str(tmp_path / "leads.csv")
    assert run("enrich", csv, "-o", str(tmp_path / "first.csv")).returncode == 0
    move_every(svc, checkable, 5)
    before = Tally.of(svc)
    done = run("enrich", "--refresh", csv, "-o", str(tmp_path / "out.csv"))
    spent = Tally.of(svc) - before
    assert done.returncode == 0, done.stderr
    assert spent.billed == Counter(checkable + sparse)  # every answer, once
    assert spent.pages == 0  # no feed read
    assert "refresh check" not in done.stderr and "feed" not in done.stderr
    assert "32 fetched" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["enrich", "{csv}", "--refresh", "moved"],
        ["enrich", "--refresh", "moved", "{csv}"],
        ["enrich", "--refresh=moved", "{csv}"],
    ],
    ids=["after-the-input", "before-the-input", "with-equals"],
)
def test_refresh_moved_exits_2_with_one_line_and_sends_nothing(
    run, fake_service, tmp_path, leads, args
):
    csv = str(tmp_path / "leads.csv")
    done = run(*(a.format(csv=csv) for a in args))
    assert done.returncode == EXIT_CONFIG == 2
    assert "Traceback" not in done.stderr
    assert "--refresh" in done.stderr and "'moved'" in done.stderr, done.stderr
    assert "changed" in done.stderr  # what it takes
    assert fake_service.count() == 0


def test_companies_refuse_refresh_changed_before_anything_is_sent(run, fake_service, tmp_path):
    accounts = tmp_path / "accounts.csv"
    accounts.write_text("slug\nacme\nglobex\n")
    done = run("enrich", str(accounts), "--companies", "--refresh", "changed")
    assert done.returncode == EXIT_CONFIG
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "people" in done.stderr and "Traceback" not in done.stderr
    assert fake_service.count() == 0
