"""refresh="changed", pure: which answers are checked, the groups, and the first page's decision.

The bound the issue asks for is tested by simulation: over feeds whose events spread over the
window as their first page shows, a refresh never spends more than buying the checked answers
anew, plus one page per group.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

from lookup_pandas.enrichment.refresh_plan import (
    FEED_PAGE,
    MAX_IDS_PER_CALL,
    CheckedAnswer,
    FeedRate,
    Group,
    checked_answer,
    current_organizations,
    decide,
    movers,
    organizations,
)
from lookup_pandas.service.job_changes import JobChange

NOW = dt.datetime(2026, 11, 27, 12, tzinfo=dt.UTC)
TODAY = NOW.date()


def _record(*orgs: str, ended: tuple[str, ...] = ()) -> dict:
    current = [{"organization": {"id": o}, "end_date": None} for o in orgs]
    old = [{"organization": {"id": o}, "end_date": {"year": 2020, "month": 1}} for o in ended]
    return {"id": "prsn_1", "handle": "Ada", "positions": current + old}


def test_only_current_positions_are_checked_the_first_first():
    assert current_organizations(_record("org_2", "org_1", ended=("org_9",))) == ("org_2", "org_1")
    assert current_organizations({"positions": "not a list"}) == ()
    assert current_organizations(None) == ()


@pytest.mark.parametrize(
    ("record", "age_days", "checkable"),
    [
        (_record("org_1"), 7, True),
        (_record(ended=("org_1",)), 7, False),  # between jobs: a join elsewhere is unseen
        ({"id": "prsn_1", "handle": "ada"}, 7, False),  # names no organisation
        (_record("org_1"), 365, True),
        (_record("org_1"), 366, False),  # beyond the feed's widest window
    ],
)
def test_an_answer_is_checkable_with_a_current_organisation_within_365_days(
    record, age_days, checkable
):
    since = NOW - dt.timedelta(days=age_days)
    answer = checked_answer("ada", record, since=since, cost=1.0, now=NOW)
    assert (answer is not None) is checkable
    if answer is not None:
        assert answer.handle == "ada" and answer.days_ago == min(age_days, 365)


def _answer(value: str, *orgs: str, days: int = 7, person_id: str | None = None) -> CheckedAnswer:
    since = NOW - dt.timedelta(days=days)
    return CheckedAnswer(value, person_id, value, orgs, since, days, 1.0)


def test_events_match_by_id_else_handle_from_the_day_bought_and_never_twice():
    ada = _answer("ada", "org_1", days=3, person_id="prsn_1")
    grace = _answer("grace", "org_1", days=3)
    events = [
        JobChange("e1", "prsn_1", "someone-else", "org_1", TODAY),  # by id
        JobChange("e2", None, "GRACE", "org_1", ada.since.date()),  # by handle, the day bought
        JobChange("e3", None, "grace", "org_1", ada.since.date() - dt.timedelta(days=1)),  # before
        JobChange("e4", None, "linus", "org_1", TODAY),  # not ours
    ]
    assert movers(events, {"ada": ada, "grace": grace}, set()) == {"ada": {"e1"}, "grace": {"e2"}}
    assert movers(events, {"ada": ada, "grace": grace}, {"e1", "e2"}) == {}


def test_groups_hold_every_organisation_once_within_the_url_limit():
    answers = [_answer(f"p{i}", f"org_{i % 130}", f"org_{(i + 1) % 130}") for i in range(400)]
    groups = organizations(answers).groups(FeedRate(events=0.0001))  # a quiet feed: ids decide
    orgs = [o for g in groups for o in g.organizations]
    assert sorted(orgs) == sorted({f"org_{i}" for i in range(130)})
    assert all(len(g.organizations) <= MAX_IDS_PER_CALL for g in groups)
    # each answer's cost is split over its organisations: the groups add up to the answers once
    assert sum(sum(g.shares.values()) for g in groups) == pytest.approx(400.0)


def _feed(per_day: float, window_days: int, ours: dict[int, str]) -> list[JobChange]:
    """A feed spread evenly over the window, newest first; event ``i`` is about ``ours[i]``."""
    total = round(per_day * window_days)
    events = []
    for i in range(total):
        day = TODAY - dt.timedelta(days=int(i / per_day)) if per_day else TODAY
        events.append(JobChange(f"e{i}", None, ours.get(i, f"other-{i}"), "org_1", day))
    return events


def _refresh_cost(leads: int, per_day: float, days_ago: int, moved: int) -> tuple[float, int]:
    """Credits one group's check spends (pages read + answers bought) with the rule, and the
    movers it missed."""
    values = [f"p{i}" for i in range(leads)]
    group = Group(("org_1",), days_ago, {"org_1": {v: 1.0 for v in values}})
    answers = {v: _answer(v, "org_1", days=days_ago) for v in values}
    feed = _feed(per_day, days_ago + 1, {i * 7: values[i] for i in range(moved)})
    pages = [feed[i : i + FEED_PAGE] for i in range(0, max(len(feed), 1), FEED_PAGE)]
    found = set(movers(pages[0], answers, set()))
    decision = decide(
        group, pages[0], last=len(pages) == 1, moved=found, page_cost=1.0, rate=FeedRate()
    )
    read, bought = 1, set(found)
    if decision.action == "read":
        for page in pages[1 : 1 + decision.pages]:
            read += 1
            bought |= set(movers(page, answers, set()))
        if len(pages) > 1 + decision.pages:
            bought = set(values)
    elif decision.action == "buy":
        bought |= set(decision.buy)
    truly_moved = {values[i] for i in range(moved) if i * 7 < len(feed)}
    return read + len(bought), len(truly_moved - bought)


@pytest.mark.parametrize(
    ("leads", "per_day", "days_ago", "moved"),
    list(itertools.product([1, 5, 50, 400], [0.5, 5, 60, 400, 3000], [1, 7, 30], [0, 3])),
)
def test_a_group_never_costs_more_than_its_answers_plus_one_page_and_misses_no_mover(
    leads, per_day, days_ago, moved
):
    moved = min(moved, leads)
    cost, missed = _refresh_cost(leads, per_day, days_ago, moved)
    assert cost <= leads + 1
    assert missed == 0


def test_a_giant_feed_buys_its_fifty_leads_after_one_page():
    cost, missed = _refresh_cost(50, 3000, 1, 3)
    assert (cost, missed) == (51, 0)


def test_a_quiet_feed_costs_its_pages_and_movers_not_its_leads():
    cost, missed = _refresh_cost(400, 5, 7, 3)
    assert missed == 0 and cost == 1 + 3  # one page of 40 events, three movers


def test_a_busy_organisation_is_split_from_quiet_ones_when_that_is_cheaper():
    quiet = {f"org_q{i}": {f"q{i}-{j}": 1.0 for j in range(10)} for i in range(4)}
    busy = {"org_b": {f"b{j}": 1.0 for j in range(2)}}
    group = Group(tuple(quiet) + ("org_b",), 7, {**quiet, **busy})
    page = [JobChange(f"e{i}", None, f"x{i}", "org_b", TODAY) for i in range(FEED_PAGE)]
    decision = decide(group, page, last=False, moved=(), page_cost=1.0, rate=FeedRate())
    assert decision.action == "split"
    assert set(decision.buy) == {"b0", "b1"}  # the busy organisation's answers are bought
    assert {o for g in decision.groups for o in g.organizations} == set(quiet)


def test_an_answer_bought_after_a_move_is_not_taken_for_a_mover_by_the_join_it_shows():
    bought = _answer("ada", "org_new", days=0)  # bought today, after the move: at org_new now
    joined = JobChange("e-join", None, "ada", "org_new", TODAY, "joined")
    left_later = JobChange("e-left", None, "ada", "org_new", TODAY + dt.timedelta(days=1), "left")
    title_today = JobChange("e-title", None, "ada", "org_new", TODAY, "title_change")
    assert movers([joined], {"ada": bought}, set()) == {}
    assert movers([left_later, title_today], {"ada": bought}, set()) == {
        "ada": {"e-left", "e-title"}  # what the answer cannot show still counts
    }


def test_the_leaving_an_answer_already_shows_on_its_day_is_no_move():
    bought = _answer("ada", "org_new", days=0)
    left_old = JobChange("e-left", None, "ada", "org_old", TODAY, "left")
    left_new = JobChange("e-left-new", None, "ada", "org_new", TODAY, "left")
    assert movers([left_old], {"ada": bought}, set()) == {}
    assert movers([left_new], {"ada": bought}, set()) == {"ada": {"e-left-new"}}
