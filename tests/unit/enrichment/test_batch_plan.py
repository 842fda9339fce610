"""Unit tests for lookup_pandas.enrichment.batch_plan: when to use batch jobs, splitting, polls and
scheduling."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lookup_pandas.enrichment.batch_plan import (
    AUTO_THRESHOLD,
    MAX_JOB_ITEMS,
    MAX_POLL_INTERVAL,
    BatchPage,
    Tracker,
    jobs_tagged,
    smaller_job,
    split,
    tagged,
    use_batch,
)
from lookup_pandas.errors import PaginationError, ResponseError
from lookup_pandas.identifiers.kinds import COMPANIES, FIND, PEOPLE, VERIFY
from lookup_pandas.service.paths import BATCH_PATH
from lookup_pandas.store import StoredJob

ADA = {"handle": "ada", "name": "Ada Lovelace"}
GRACE = {"handle": "grace", "name": "Grace Hopper"}


def page(
    status: str = "processing",
    next_cursor: int = 0,
    *,
    total: int = 3,
    resolved: int = 0,
    errors: int = 0,
    profiles: dict[str, Any] | None = None,
    not_found: list[str] | None = None,
) -> BatchPage:
    """A checked poll answer, built the way the service sends it."""
    return BatchPage.parse(
        {
            "status": status,
            "total": total,
            "resolved": resolved,
            "errors": errors,
            "next_cursor": next_cursor,
            "profiles": profiles or {},
            "not_found": not_found or [],
        },
        PEOPLE.endpoint,
    )


def by_input(results: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return sorted(results, key=lambda pair: pair[0])


# -- constants -----------------------------------------------------------------------------------


def test_constants():
    assert AUTO_THRESHOLD == 20
    assert MAX_JOB_ITEMS == 1000
    assert MAX_POLL_INTERVAL == 30


# -- use_batch -----------------------------------------------------------------------------------


@pytest.mark.parametrize("supported", [True, False, None])
@pytest.mark.parametrize("to_fetch", [0, 1, 20, 21, 5000])
def test_single_never_uses_batch(to_fetch, supported):
    assert use_batch("single", to_fetch, supported) is False


@pytest.mark.parametrize("supported", [True, False, None])
@pytest.mark.parametrize("to_fetch", [1, 2, 20, 21, 1000, 5000])
def test_batch_uses_batch_whenever_anything_is_to_fetch(to_fetch, supported):
    assert use_batch("batch", to_fetch, supported) is True


@pytest.mark.parametrize("supported", [True, False, None])
def test_batch_with_nothing_to_fetch_submits_nothing(supported):
    assert use_batch("batch", 0, supported) is False


@pytest.mark.parametrize(
    ("to_fetch", "supported", "expected"),
    [
        (0, True, False),
        (1, True, False),
        (20, True, False),
        (20, None, False),
        (21, True, True),
        (21, None, True),
        (21, False, False),
        (5000, True, True),
        (5000, None, True),
        (5000, False, False),
    ],
)
def test_auto_uses_batch_above_the_threshold_unless_unsupported(to_fetch, supported, expected):
    assert use_batch("auto", to_fetch, supported) is expected


# -- split ---------------------------------------------------------------------------------------


def names(n: int) -> list[str]:
    return [str(i) for i in range(n)]


def test_split_empty_is_no_jobs():
    assert split([]) == []
    assert split(()) == []


def test_split_one_job_up_to_the_limit():
    handles = names(1000)
    chunks = split(handles)
    assert len(chunks) == 1
    assert chunks[0] == tuple(handles)


def test_split_single_handle():
    assert split(["ada"]) == [("ada",)]


def test_split_one_over_the_limit_is_two_balanced_jobs():
    handles = names(1001)
    chunks = split(handles)
    assert [len(c) for c in chunks] == [501, 500]
    assert chunks[0] == tuple(handles[:501])
    assert chunks[1] == tuple(handles[501:])


def test_split_2500_is_834_833_833_in_order():
    handles = names(2500)
    chunks = split(handles)
    assert [len(c) for c in chunks] == [834, 833, 833]
    assert [h for c in chunks for h in c] == handles
    assert chunks[0][0] == "0" and chunks[-1][-1] == "2499"
    assert all(len(c) <= MAX_JOB_ITEMS for c in chunks)


def test_split_keeps_duplicates_and_order():
    handles = ["b", "a", "b", "c", "a"]
    assert split(handles, size=2) == [("b", "a"), ("b", "c"), ("a",)]
    assert split(handles, size=3) == [("b", "a", "b"), ("c", "a")]


@settings(deadline=None)
@given(n=st.integers(min_value=0, max_value=5000), size=st.integers(min_value=1, max_value=1500))
def test_split_properties(n, size):
    handles = names(n)
    chunks = split(handles, size=size)
    assert [h for c in chunks for h in c] == handles
    assert len(chunks) == math.ceil(n / size)
    assert all(0 < len(c) <= size for c in chunks)
    if chunks:
        lengths = [len(c) for c in chunks]
        assert max(lengths) - min(lengths) <= 1
        assert lengths == sorted(lengths, reverse=True)  # the larger jobs come first


@settings(deadline=None)
@given(n=st.integers(min_value=0, max_value=5000))
def test_split_default_size_properties(n):
    handles = names(n)
    chunks = split(handles)
    assert [h for c in chunks for h in c] == handles
    assert len(chunks) == math.ceil(n / MAX_JOB_ITEMS)
    assert all(0 < len(c) <= MAX_JOB_ITEMS for c in chunks)


# -- BatchPage.parse -----------------------------------------------------------------------------

GOOD = {
    "status": "completed",
    "total": 3,
    "resolved": 2,
    "errors": 1,
    "next_cursor": 3,
    "profiles": {"ada": ADA},
    "not_found": ["grace"],
}


def test_parse_good_payload():
    p = BatchPage.parse(GOOD, PEOPLE.endpoint)
    assert p.status == "completed"
    assert p.total == 3
    assert p.resolved == 2
    assert p.errors == 1
    assert p.next_cursor == 3
    assert dict(p.records) == {"ada": ADA}
    assert list(p.not_found) == ["grace"]


@pytest.mark.parametrize("status", ["processing", "completed", "error"])
def test_parse_accepts_every_known_status(status):
    assert BatchPage.parse({**GOOD, "status": status}, PEOPLE.endpoint).status == status


def test_parse_defaults_when_optional_fields_are_absent():
    p = BatchPage.parse({"status": "processing", "total": 5, "next_cursor": 0}, PEOPLE.endpoint)
    assert dict(p.records) == {}
    assert list(p.not_found) == []
    assert p.resolved == 0
    assert p.errors == 0
    assert p.total == 5
    assert p.next_cursor == 0


@pytest.mark.parametrize("name", ["status", "total", "next_cursor"])
def test_parse_missing_required_field_is_response_error(name):
    data = {k: v for k, v in GOOD.items() if k != name}
    with pytest.raises(ResponseError) as info:
        BatchPage.parse(data, PEOPLE.endpoint)
    assert name in info.value.message
    assert info.value.url == BATCH_PATH


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("status", 1),
        ("status", None),
        ("status", ["completed"]),
        ("total", "3"),
        ("total", True),
        ("total", 3.0),
        ("total", None),
        ("next_cursor", "3"),
        ("next_cursor", True),
        ("next_cursor", False),
        ("next_cursor", 3.0),
        ("next_cursor", None),
        ("resolved", "2"),
        ("resolved", True),
        ("errors", "1"),
        ("errors", False),
        ("profiles", []),
        ("profiles", None),
        ("profiles", "ada"),
        ("not_found", "grace"),
        ("not_found", {"grace": None}),
        ("not_found", None),
    ],
)
def test_parse_ill_typed_field_is_response_error(name, value):
    with pytest.raises(ResponseError) as info:
        BatchPage.parse({**GOOD, name: value}, PEOPLE.endpoint)
    assert name in info.value.message


@pytest.mark.parametrize("status", ["done", "COMPLETED", "", "failed", "pending"])
def test_parse_unknown_status_is_response_error(status):
    with pytest.raises(ResponseError) as info:
        BatchPage.parse({**GOOD, "status": status}, PEOPLE.endpoint)
    assert repr(status) in info.value.message


@pytest.mark.parametrize("bad", [1, None, {"h": "ada"}, ["ada"], b"ada"])
def test_parse_not_found_with_a_non_string_is_response_error(bad):
    with pytest.raises(ResponseError):
        BatchPage.parse({**GOOD, "not_found": ["grace", bad]}, PEOPLE.endpoint)


# -- Tracker: first poll -------------------------------------------------------------------------


def test_own_job_is_first_due_one_interval_after_submit():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    assert t.due == pytest.approx(1.5)
    t = Tracker("job_1", ("ada", "grace"), now=100.0, interval=2.0, mine=True)
    assert t.due == pytest.approx(102.0)


def test_resumed_job_is_due_at_once():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5, mine=False)
    assert t.due == 0.0
    t = Tracker("job_1", ("ada", "grace"), now=100.0, interval=1.5, mine=False)
    assert t.due == 100.0


def test_new_tracker_starts_empty():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    assert t.after == 0
    assert t.collected == frozenset()
    assert t.missing() == ["ada", "grace"]
    assert t.done is False


# -- Tracker: take -------------------------------------------------------------------------------


def test_take_returns_records_and_not_founds():
    t = Tracker("job_1", ("ada", "grace", "linus"), now=0.0, interval=1.5)
    new = t.take(page(next_cursor=2, profiles={"ada": ADA}, not_found=["grace"]), now=1.5)
    assert by_input(new) == [("ada", ADA), ("grace", None)]
    assert t.collected == frozenset({"ada", "grace"})
    assert t.after == 2


def test_take_ignores_inputs_the_job_did_not_submit():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    new = t.take(
        page(
            next_cursor=3,
            profiles={"ada": ADA, "stranger": {"handle": "stranger"}, "ADA": ADA},
            not_found=["nobody", "Grace"],
        ),
        now=1.5,
    )
    assert new == [("ada", ADA)]
    assert t.collected == frozenset({"ada"})
    assert t.missing() == ["grace"]


def test_take_never_returns_an_input_twice_across_pages():
    t = Tracker("job_1", ("ada", "grace", "linus"), now=0.0, interval=1.5)
    first = t.take(page(next_cursor=1, profiles={"ada": ADA}), now=1.5)
    assert first == [("ada", ADA)]
    second = t.take(
        page(next_cursor=3, profiles={"ada": ADA, "grace": GRACE}, not_found=["ada"]), now=2.0
    )
    assert second == [("grace", GRACE)]
    third = t.take(
        page(next_cursor=4, profiles={"grace": GRACE}, not_found=["ada", "linus"]), now=3.0
    )
    assert third == [("linus", None)]
    assert t.collected == frozenset({"ada", "grace", "linus"})


def test_take_input_in_both_lists_of_one_page_is_returned_once():
    t = Tracker("job_1", ("ada",), now=0.0, interval=1.5)
    new = t.take(page(next_cursor=1, profiles={"ada": ADA}, not_found=["ada", "ada"]), now=1.5)
    assert new == [("ada", ADA)]


def test_take_not_found_listed_twice_is_returned_once():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    new = t.take(page(next_cursor=2, not_found=["grace", "grace"]), now=1.5)
    assert new == [("grace", None)]


def test_take_records_status_errors_and_cursor():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    t.take(page("error", next_cursor=7, errors=2, resolved=0), now=1.5)
    assert t.status == "error"
    assert t.errors == 2
    assert t.after == 7


def test_cursor_going_back_is_pagination_error():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    t.take(page(next_cursor=5), now=1.5)
    with pytest.raises(PaginationError) as info:
        t.take(page(next_cursor=4), now=2.0)
    assert "5" in info.value.message and "4" in info.value.message
    assert t.after == 5


def test_cursor_going_back_to_zero_is_pagination_error():
    t = Tracker("job_1", ("ada",), now=0.0, interval=1.5)
    t.take(page(next_cursor=1, profiles={"ada": ADA}), now=1.5)
    with pytest.raises(PaginationError):
        t.take(page("completed", next_cursor=0), now=2.0)


# -- Tracker: scheduling -------------------------------------------------------------------------


def test_full_page_is_polled_again_at_once():
    t = Tracker("job_1", tuple(names(10)), now=0.0, interval=1.5)
    t.take(page(next_cursor=3, resolved=3), now=1.5)
    assert t.due == 1.5
    t.take(page(next_cursor=6, resolved=6), now=1.7)  # as large: still a full page
    assert t.due == 1.7
    t.take(page(next_cursor=10, resolved=10), now=1.9)  # larger still
    assert t.due == 1.9


def test_smaller_step_waits_the_base_interval():
    t = Tracker("job_1", tuple(names(10)), now=0.0, interval=1.5)
    t.take(page(next_cursor=4, resolved=5), now=1.5)
    assert t.due == 1.5
    t.take(page(next_cursor=6, resolved=6), now=2.0)  # 2 < 4: caught up
    assert t.due == pytest.approx(3.5)


def test_smaller_step_resets_a_backed_off_interval_to_the_base():
    t = Tracker("job_1", tuple(names(10)), now=0.0, interval=1.5)
    t.take(page(next_cursor=4, resolved=4), now=1.5)
    now = 1.5
    for _ in range(4):  # stalls: the interval grows
        t.take(page(next_cursor=4, resolved=4), now=now)
        now = t.due
    assert t.interval > 1.5
    t.take(page(next_cursor=5, resolved=4), now=now)  # moved by less than a page, no progress
    assert t.due == pytest.approx(now + 1.5)
    assert t.interval == pytest.approx(1.5)


def test_stall_backs_off_by_half_up_to_the_cap():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    t.take(page(next_cursor=0, resolved=0), now=1.5)  # the first poll counts as progress
    assert t.due == pytest.approx(3.0)
    waits = []
    now = t.due
    for _ in range(12):
        t.take(page(next_cursor=0, resolved=0), now=now)
        waits.append(t.due - now)
        now = t.due
    expected = [min(MAX_POLL_INTERVAL, 1.5 * 1.5**k) for k in range(1, 13)]
    assert waits == pytest.approx(expected)
    assert waits[-1] == pytest.approx(30.0)
    assert waits[:3] == pytest.approx([2.25, 3.375, 5.0625])


def test_progress_resets_the_interval_to_the_base():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=2.0)
    t.take(page(next_cursor=0, resolved=0), now=2.0)
    now = t.due
    for _ in range(5):
        t.take(page(next_cursor=0, resolved=0), now=now)
        now = t.due
    assert t.interval == pytest.approx(2.0 * 1.5**5)
    t.take(page(next_cursor=0, resolved=1), now=now)  # resolved moved
    assert t.due == pytest.approx(now + 2.0)
    assert t.interval == pytest.approx(2.0)
    now = t.due
    t.take(page(next_cursor=0, resolved=1, errors=1), now=now)  # errors moved
    assert t.due == pytest.approx(now + 2.0)
    now = t.due
    t.take(page(next_cursor=0, resolved=1, errors=1), now=now)  # stalled again
    assert t.due == pytest.approx(now + 3.0)


def test_back_off_never_goes_below_the_base():
    t = Tracker("job_1", ("ada",), now=0.0, interval=45.0)  # a base above the cap
    t.take(page(next_cursor=0), now=45.0)
    now = t.due
    for _ in range(3):
        t.take(page(next_cursor=0), now=now)
        assert t.due == pytest.approx(now + 45.0)
        now = t.due


def test_back_off_from_a_base_near_the_cap_is_capped():
    t = Tracker("job_1", ("ada",), now=0.0, interval=25.0)
    t.take(page(next_cursor=0), now=25.0)
    now = t.due
    t.take(page(next_cursor=0), now=now)
    assert t.due == pytest.approx(now + 30.0)


# -- Tracker: done and missing -------------------------------------------------------------------


def test_processing_job_is_never_done():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    t.take(page(next_cursor=2, resolved=2, profiles={"ada": ADA, "grace": GRACE}), now=1.5)
    assert t.done is False
    t.take(page(next_cursor=2, resolved=2), now=3.0)  # the cursor stands still
    assert t.done is False


@pytest.mark.parametrize("status", ["completed", "error"])
def test_terminal_job_is_done_when_the_cursor_stands_still(status):
    t = Tracker("job_1", ("ada", "grace", "linus"), now=0.0, interval=1.5)
    t.take(page(next_cursor=1, resolved=1, profiles={"ada": ADA}), now=1.5)
    assert t.done is False
    t.take(page(status, next_cursor=1, resolved=1), now=3.0)
    assert t.done is True
    assert t.missing() == ["grace", "linus"]


@pytest.mark.parametrize("status", ["completed", "error"])
def test_terminal_job_is_done_once_every_input_is_collected(status):
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    t.take(
        page(status, next_cursor=2, resolved=2, profiles={"ada": ADA}, not_found=["grace"]),
        now=1.5,
    )
    assert t.done is True
    assert t.missing() == []


def test_terminal_job_is_done_when_the_rest_is_counted_in_errors():
    t = Tracker("job_1", ("ada", "grace", "linus", "ken"), now=0.0, interval=1.5)
    t.take(
        page(
            "completed",
            next_cursor=2,
            resolved=2,
            errors=2,
            profiles={"linus": {"handle": "linus"}},
            not_found=["ada"],
        ),
        now=1.5,
    )
    assert t.done is True
    assert t.missing() == ["grace", "ken"]  # input order, not page order


def test_terminal_job_with_errors_short_of_the_rest_is_not_done():
    t = Tracker("job_1", ("ada", "grace", "linus"), now=0.0, interval=1.5)
    t.take(page("processing", next_cursor=2, resolved=1), now=1.5)  # a page of 2
    t.take(page("completed", next_cursor=3, resolved=1, errors=1, not_found=["ada"]), now=2.0)
    assert t.done is False  # 1 collected + 1 error < 3 inputs, and the cursor moved
    assert t.due == 2.0


def test_terminal_job_with_uncollected_inputs_and_a_moving_cursor_is_due_at_once():
    t = Tracker("job_1", ("ada", "grace", "linus"), now=0.0, interval=1.5)
    t.take(page(next_cursor=2, resolved=2, profiles={"ada": ADA}), now=1.5)
    # the cursor moves by less than the largest step: not a full page, yet not done
    t.take(page("completed", next_cursor=3, resolved=3, profiles={"grace": GRACE}), now=2.0)
    assert t.done is False
    assert t.due == 2.0
    assert t.missing() == ["linus"]
    t.take(page("completed", next_cursor=3, resolved=3), now=2.0)  # the cursor stands still
    assert t.done is True
    assert t.missing() == ["linus"]


def test_missing_lists_errored_inputs_in_input_order():
    t = Tracker("job_1", ("d", "c", "b", "a", "e"), now=0.0, interval=1.5)
    t.take(
        page(
            "completed",
            next_cursor=5,
            resolved=3,
            errors=2,
            profiles={"a": {"handle": "a"}, "d": {"handle": "d"}},
            not_found=["e"],
        ),
        now=1.5,
    )
    assert t.missing() == ["c", "b"]
    assert t.collected == frozenset({"a", "d", "e"})


def test_collected_is_a_snapshot():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    t.take(page(next_cursor=1, profiles={"ada": ADA}), now=1.5)
    snapshot = t.collected
    t.take(page(next_cursor=2, not_found=["grace"]), now=2.0)
    assert snapshot == frozenset({"ada"})
    assert t.collected == frozenset({"ada", "grace"})


def test_a_tracker_counts_the_items_that_resolved_while_it_was_polled():
    def page(resolved: int, cursor: int) -> BatchPage:
        return BatchPage("processing", 10, resolved, 0, cursor, {}, [], BATCH_PATH)

    mine = Tracker("job_1", tuple("abcdefghij"), now=0.0, interval=1.0)
    mine.take(page(4, 0), now=1.0)
    mine.take(page(9, 0), now=2.0)
    assert mine.billed == 9  # submitted by this run: every item resolved is this run's
    resumed = Tracker("job_2", tuple("abcdefghij"), now=0.0, interval=1.0, mine=False)
    resumed.take(page(6, 0), now=0.0)  # 6 resolved before this run first asked
    resumed.take(page(10, 0), now=1.0)
    assert resumed.billed == 4


# -- kinds: the store's tags and a company poll -------------------------------------------------


def test_stored_jobs_of_one_kind_are_never_taken_for_anothers():
    people = StoredJob("j1", ("acme", "ada"), 0.0)
    companies = StoredJob("j2", tagged(["acme", "org_X"], COMPANIES.tag), 0.0)
    assert companies.inputs == ("company:acme", "company:org_X")
    assert jobs_tagged([people, companies], PEOPLE.tag) == [people]
    assert jobs_tagged([people, companies], COMPANIES.tag) == [
        StoredJob("j2", ("acme", "org_X"), 0.0)
    ]


def test_a_company_poll_reads_its_results_under_companies():
    data = {
        "status": "completed",
        "total": 2,
        "resolved": 2,
        "next_cursor": 2,
        "companies": {"acme": {"id": "org_1", "slug": "acme"}},
        "not_found": ["unknown-co"],
    }
    page = BatchPage.parse(data, COMPANIES.endpoint)
    assert page.records == {"acme": {"id": "org_1", "slug": "acme"}}
    assert page.not_found == ["unknown-co"]


def _email_poll(results: Any, kind) -> BatchPage:
    data = {"status": "completed", "total": 2, "resolved": 2, "next_cursor": 2}
    return BatchPage.parse({**data, "results": results}, kind.endpoint)


def test_a_verify_poll_gives_each_verdict_its_address_as_the_single_call_does():
    page = _email_poll(
        {"jane@acme.com": {"deliverable": True, "reason": "mailbox_accepts"}}, VERIFY
    )
    assert page.records == {
        "jane@acme.com": {
            "email": "jane@acme.com",
            "deliverable": True,
            "reason": "mailbox_accepts",
        }
    }
    assert page.not_found == []  # a verdict is always an answer


def test_a_find_poll_is_keyed_by_each_query_as_the_value_is_written():
    query = {"first_name": "jane", "last_name": "doe", "domain": "acme.com"}
    results = [{"query": query, "found": True, "email": "jane.doe@acme.com"},
               {"query": {**query, "first_name": "bob"}, "found": False, "email": ""}]  # fmt: skip
    page = _email_poll(results, FIND)
    assert page.records == {
        "jane\tdoe\tacme.com": {"found": True, "email": "jane.doe@acme.com"},
        "bob\tdoe\tacme.com": {"found": False, "email": ""},  # a billed answer, not a not-found
    }


@pytest.mark.parametrize(
    "item", [{"found": True}, {"query": "jane doe"}, {"query": {"first_name": "jane"}}, "x"]
)
def test_a_find_result_without_a_usable_query_is_response_error(item):
    with pytest.raises(ResponseError, match="without a usable query"):
        _email_poll([item], FIND)


def test_a_result_echoed_in_another_case_or_spacing_is_matched_to_its_input():
    sent = ("jane marie\tdoe\tacme.com", "bob\tdoe\tacme.com")
    job = Tracker("job_1", sent, now=0.0, interval=1.0)
    query = {"first_name": "Jane  Marie", "last_name": "DOE", "domain": "acme.com"}
    taken = job.take(_email_poll([{"query": query, "found": False, "email": ""}], FIND), now=1.0)
    assert taken == [("jane marie\tdoe\tacme.com", {"found": False, "email": ""})]
    assert job.missing() == ["bob\tdoe\tacme.com"]  # fetched singly


def test_a_refused_job_is_followed_by_what_the_balance_pays_else_half_of_it():
    # issue 39, item 11: a balance read high (spent elsewhere at the same moment) cannot size it
    assert smaller_job(100, 40.7) == 40  # the balance read pays 40 items (1 credit each)
    assert smaller_job(100, 0.9) == 0  # nothing: the run stops, nothing bought
    assert smaller_job(100, 100) == smaller_job(100, 1e6) == smaller_job(100, None) == 50
    assert smaller_job(2 * (AUTO_THRESHOLD + 1), None) == AUTO_THRESHOLD + 1
    assert smaller_job(2 * AUTO_THRESHOLD + 1, None) is None  # single calls take over
    assert smaller_job(100, 81, each=2.0) == 40  # the Email API's verify items cost 2 each


@given(st.integers(1, MAX_JOB_ITEMS), st.none() | st.floats(0, 1e7))
def test_a_smaller_job_is_always_smaller(refused, balance):
    size = smaller_job(refused, balance)
    assert size is None or 0 <= size < refused


# -- Tracker: the speed it saw -------------------------------------------------------------------


def test_speed_is_what_resolved_a_second_at_the_latest_poll_that_found_it_resolving():
    t = Tracker("job_1", ("ada", "grace", "alan"), now=10.0, interval=1.5)
    assert t.speed is None
    t.take(page(resolved=0, next_cursor=0), now=11.5)
    assert t.speed is None  # nothing resolved yet: nothing to tell
    t.take(page(resolved=1, errors=1, next_cursor=2), now=12.0)  # an error resolved too
    assert t.speed == (1.0, False)
    t.take(page("completed", resolved=2, errors=1, next_cursor=3), now=20.0)
    assert t.speed == (1.0, False)  # it finished somewhen before this poll: no better figure


def test_speed_of_a_job_done_at_its_first_poll_is_a_lower_bound():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
    t.take(page("completed", total=2, resolved=2, next_cursor=2), now=2.0)
    assert t.speed == (1.0, True)


def test_a_resumed_job_tells_no_speed():
    t = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5, mine=False)
    t.take(page(total=2, resolved=1, next_cursor=1), now=2.0)
    assert t.speed is None  # submitted before this run: not on its clock
