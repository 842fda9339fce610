"""Unit tests for lookup_pandas.client.pagination.PagePlan: page, cursor and offset walks, loop
guards."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lookup_pandas.client.pagination import PagePlan, check_max_records, walk
from lookup_pandas.errors import PaginationError, UsageError

# ---------------------------------------------------------------------------------------------
# page style


def test_page_style_detected_and_next_page_is_sent_page_plus_one():
    plan = PagePlan()
    sent = plan.first({"slug": "acme", "limit": 50})
    assert sent == {"slug": "acme", "limit": 50}  # page 1 is implicit on the first call
    nxt = plan.next(sent, {"page": 1, "limit": 50, "has_more": True}, n_records=50)
    assert nxt == {"slug": "acme", "limit": 50, "page": 2}
    assert plan.style == "page"
    nxt = plan.next(nxt, {"page": 2, "limit": 50, "has_more": True}, n_records=50)
    assert nxt == {"slug": "acme", "limit": 50, "page": 3}
    assert plan.next(nxt, {"page": 3, "limit": 50, "has_more": False}, n_records=7) is None
    assert plan.pages == 3


def test_page_style_does_not_mutate_sent_params():
    plan = PagePlan()
    sent = {"slug": "acme", "page": 4, "limit": 10}
    nxt = plan.next(sent, {"page": 4, "limit": 10, "has_more": True}, n_records=10)
    assert nxt["page"] == 5
    assert sent == {"slug": "acme", "page": 4, "limit": 10}


def test_page_style_accepts_numeric_strings():
    plan = PagePlan()
    nxt = plan.next({"page": "2"}, {"page": "2", "limit": 5, "has_more": True}, n_records=5)
    assert nxt == {"page": 3}


def test_answered_page_different_from_asked_page_is_pagination_error():
    plan = PagePlan()
    with pytest.raises(PaginationError) as info:
        plan.next(
            {"page": 3, "limit": 50}, {"page": 1, "limit": 50, "has_more": True}, n_records=50
        )
    assert "page 3" in info.value.message and "page 1" in info.value.message


def test_page_mismatch_detected_even_on_the_last_page():
    plan = PagePlan()
    with pytest.raises(PaginationError):
        plan.next({"page": 2}, {"page": 5, "has_more": False}, n_records=3)


def test_page_walk_that_stays_on_page_1_is_stopped():
    # A server that ignores `page` keeps answering page 1: the second call must not be repeated.
    plan = PagePlan()
    sent = plan.first({"limit": 10})
    sent = plan.next(sent, {"page": 1, "limit": 10, "has_more": True}, 10)
    with pytest.raises(PaginationError):
        plan.next(sent, {"page": 1, "limit": 10, "has_more": True}, 10)


def test_explicit_page_style_first_sets_page_1_and_drops_cursor():
    plan = PagePlan(style="page")
    assert plan.first({"slug": "a", "cursor": "stale"}) == {"slug": "a", "page": 1}


# ---------------------------------------------------------------------------------------------
# cursor style

CURSOR = "eyJpZCI6IDQyfQ==+/ab c/+=="


def test_cursor_style_detected_and_cursor_passed_back_byte_for_byte():
    plan = PagePlan()
    sent = plan.first({"title": "engineer", "limit": 25})
    assert "cursor" not in sent
    nxt = plan.next(sent, {"limit": 25, "has_more": True, "next_cursor": CURSOR}, n_records=25)
    assert plan.style == "cursor"
    assert nxt == {"title": "engineer", "limit": 25, "cursor": CURSOR}
    assert nxt["cursor"].encode() == CURSOR.encode()


def test_cursor_replaced_not_accumulated():
    plan = PagePlan()
    a = plan.next({"limit": 2}, {"has_more": True, "next_cursor": "c1"}, 2)
    b = plan.next(a, {"has_more": True, "next_cursor": "c2"}, 2)
    assert b == {"limit": 2, "cursor": "c2"}


def test_cursor_detected_even_when_page_also_present():
    plan = PagePlan()
    nxt = plan.next({"limit": 2}, {"page": 1, "has_more": True, "next_cursor": "abc"}, 2)
    assert nxt == {"limit": 2, "cursor": "abc"}


def test_has_more_false_stops_even_with_a_non_empty_cursor():
    plan = PagePlan()
    assert (
        plan.next({"limit": 5}, {"limit": 5, "has_more": False, "next_cursor": "more?"}, 5) is None
    )


def test_has_more_false_with_empty_cursor_stops():
    plan = PagePlan()
    assert plan.next({"limit": 5}, {"limit": 5, "has_more": False, "next_cursor": ""}, 2) is None


@pytest.mark.parametrize("cursor", ["", None, 17, ["x"]])
def test_has_more_true_without_usable_cursor_is_pagination_error(cursor):
    plan = PagePlan()
    with pytest.raises(PaginationError):
        plan.next({"limit": 5}, {"limit": 5, "has_more": True, "next_cursor": cursor}, 5)


def test_repeated_cursor_is_pagination_error():
    plan = PagePlan()
    sent = plan.first({"limit": 5})
    sent = plan.next(sent, {"has_more": True, "next_cursor": "A"}, 5)
    sent = plan.next(sent, {"has_more": True, "next_cursor": "B"}, 5)
    with pytest.raises(PaginationError) as info:
        plan.next(sent, {"has_more": True, "next_cursor": "A"}, 5)
    assert "already" in info.value.message


def test_explicit_cursor_style_first_drops_stale_cursor():
    plan = PagePlan(style="cursor")
    assert plan.first({"title": "cto", "cursor": "old", "limit": 3}) == {"title": "cto", "limit": 3}


def test_first_removes_stale_cursor_with_detected_style():
    plan = PagePlan()
    params = {"title": "cto", "cursor": "old"}
    assert plan.first(params) == {"title": "cto"}
    assert params == {"title": "cto", "cursor": "old"}  # caller's mapping untouched


# ---------------------------------------------------------------------------------------------
# common guards


@pytest.mark.parametrize(
    "pagination",
    [
        {"page": 1, "has_more": True},
        {"has_more": True, "next_cursor": "abc"},
    ],
    ids=["page", "cursor"],
)
def test_has_more_true_with_no_records_is_pagination_error(pagination):
    plan = PagePlan()
    with pytest.raises(PaginationError):
        plan.next({"page": 1}, pagination, n_records=0)


@pytest.mark.parametrize("has_more", [None, "true", "false", 1, 0, "missing"])
def test_has_more_missing_or_not_bool_is_pagination_error(has_more):
    pagination = {"page": 1, "limit": 50}
    if has_more != "missing":
        pagination["has_more"] = has_more
    plan = PagePlan()
    with pytest.raises(PaginationError):
        plan.next({"page": 1}, pagination, n_records=50)


def test_no_pagination_block_with_detected_style_is_a_single_page():
    plan = PagePlan()
    assert plan.next({"handle": "ada"}, None, n_records=1) is None
    assert plan.pages == 1


@pytest.mark.parametrize("style", ["page", "cursor", "offset"])
def test_no_pagination_block_with_explicit_style_is_pagination_error(style):
    plan = PagePlan(style=style)
    with pytest.raises(PaginationError):
        plan.next({}, None, n_records=3)


def test_undetectable_style_with_more_pages_is_pagination_error():
    plan = PagePlan()
    with pytest.raises(PaginationError) as info:
        plan.next({"limit": 5}, {"limit": 5, "has_more": True}, n_records=5)
    assert "offset" in info.value.message


def test_unknown_style_is_rejected():
    with pytest.raises(ValueError):
        PagePlan(style="pages")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [None, "two", [2]])
def test_non_numeric_page_is_pagination_error(bad):
    plan = PagePlan(style="page")
    with pytest.raises(PaginationError):
        plan.next({"page": bad}, {"page": 1, "has_more": True}, n_records=3)


# ---------------------------------------------------------------------------------------------
# offset style


def test_offset_style_advances_start_by_records_received():
    plan = PagePlan(style="offset", offset_param="start")
    sent = plan.first({"q": "x", "limit": 10, "cursor": "stale"})
    assert sent == {"q": "x", "limit": 10, "start": 0}
    sent = plan.next(sent, {"limit": 10, "has_more": True}, n_records=10)
    assert sent == {"q": "x", "limit": 10, "start": 10}
    sent = plan.next(sent, {"limit": 10, "has_more": True}, n_records=7)  # a short page
    assert sent == {"q": "x", "limit": 10, "start": 17}
    assert plan.next(sent, {"limit": 10, "has_more": False}, n_records=3) is None


def test_offset_style_with_custom_param_name():
    plan = PagePlan(style="offset", offset_param="offset")
    sent = plan.first({"limit": 4})
    assert sent == {"limit": 4, "offset": 0}
    assert plan.next(sent, {"has_more": True}, 4) == {"limit": 4, "offset": 4}


def test_offset_style_has_more_with_empty_page_is_pagination_error():
    plan = PagePlan(style="offset")
    with pytest.raises(PaginationError):
        plan.next({"start": 20}, {"has_more": True}, n_records=0)


# ---------------------------------------------------------------------------------------------
# whole walks against simulated servers


def walk_page_server(n_total: int, limit: int, max_calls: int = 10_000) -> tuple[int, list[int]]:
    records = list(range(n_total))
    plan = PagePlan()
    params: dict | None = plan.first({"slug": "acme", "limit": limit})
    calls, got = 0, []
    while params is not None:
        calls += 1
        assert calls <= max_calls
        page = int(params.get("page", 1))
        batch = records[(page - 1) * limit : page * limit]
        got.extend(batch)
        pagination = {"page": page, "limit": limit, "has_more": page * limit < n_total}
        params = plan.next(params, pagination, len(batch))
    return calls, got


def walk_cursor_server(n_total: int, limit: int) -> tuple[int, list[int]]:
    records = list(range(n_total))
    plan = PagePlan()
    params: dict | None = plan.first({"title": "cto", "limit": limit})
    calls, got = 0, []
    while params is not None:
        calls += 1
        start = int(params["cursor"].split("+")[1]) if "cursor" in params else 0
        batch = records[start : start + limit]
        got.extend(batch)
        more = start + limit < n_total
        pagination = {
            "limit": limit,
            "has_more": more,
            "next_cursor": f"c+{start + limit}+/= x" if more else "",
        }
        params = plan.next(params, pagination, len(batch))
    return calls, got


@settings(deadline=None)
@given(
    n_total=st.integers(min_value=0, max_value=600), limit=st.integers(min_value=1, max_value=50)
)
def test_page_walk_makes_exactly_the_needed_calls(n_total, limit):
    calls, got = walk_page_server(n_total, limit)
    assert calls == max(1, math.ceil(n_total / limit))
    assert got == list(range(n_total))


@settings(deadline=None)
@given(
    n_total=st.integers(min_value=0, max_value=600), limit=st.integers(min_value=1, max_value=50)
)
def test_cursor_walk_makes_exactly_the_needed_calls(n_total, limit):
    calls, got = walk_cursor_server(n_total, limit)
    assert calls == max(1, math.ceil(n_total / limit))
    assert got == list(range(n_total))


# ---------------------------------------------------------------------------------------------
# walk: the loop Client.paginate delegates to, over any page reader


def _pages(total: int, limit: int):
    """A page reader over ``total`` records, page-based, recording the params it was given."""
    asked: list[dict] = []

    def page(params, plan):
        asked.append(dict(params))
        n = params.get("page", 1)
        records = [{"i": i} for i in range((n - 1) * limit, min(n * limit, total))]
        pagination = {"page": n, "limit": limit, "has_more": n * limit < total}
        plan.check(params, pagination)
        return records, pagination

    return page, asked


def test_walk_yields_every_record_page_by_page():
    page, asked = _pages(5, 2)
    assert [r["i"] for r in walk(page, "/x/people", {"limit": 2})] == [0, 1, 2, 3, 4]
    assert [p.get("page", 1) for p in asked] == [1, 2, 3]


def test_walk_stops_at_max_records_without_reading_another_page():
    page, asked = _pages(10, 2)
    assert len(list(walk(page, "/x/people", {"limit": 2}, max_records=3))) == 3
    assert len(asked) == 2
    assert list(walk(page, "/x/people", max_records=0)) == []
    assert len(asked) == 2


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_max_records_must_be_a_whole_number(bad):
    with pytest.raises(UsageError, match="max_records"):
        check_max_records(bad)
    check_max_records(None)


def test_walk_makes_its_plan_with_new_plan_only_when_the_first_record_is_asked_for():
    made: list[PagePlan] = []

    def new_plan() -> PagePlan:
        made.append(PagePlan("offset", offset_param="skip"))
        return made[-1]

    asked: list[dict] = []

    def page(params, plan):
        asked.append(dict(params))
        start = params["skip"]
        records = [{"i": i} for i in range(start, min(start + 2, 5))]
        pagination = {"skip": start, "has_more": start + 2 < 5}
        plan.check(params, pagination)
        return records, pagination

    records = walk(page, "/x/people", {"limit": 2}, new_plan)
    assert made == []  # a walk is lazy: nothing is made, checked or read before next()
    assert [r["i"] for r in records] == [0, 1, 2, 3, 4]
    assert len(made) == 1 and [p["skip"] for p in asked] == [0, 2, 4]
