"""Client.paginate against the emulator: page, cursor and offset walks, and every way to stop."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lookup_pandas import PaginationError, ServerError
from lookup_pandas.testing import data

from ..helpers import (
    EMPLOYEES,
    SEARCH,
    FailFirst,
    Tap,
    make_client,
    ok,
    server_error,
)


def ids(records):
    return [r["id"] for r in records]


def walk(client, path, params, **kwargs):
    kwargs.setdefault("progress", False)
    return list(client.paginate(path, params, **kwargs))


# -- complete walks ------------------------------------------------------------------------------


def test_page_walk_reads_every_employee_in_ceil_n_over_limit_calls(fake_service, fake_client):
    expected = data.employees("acme")
    records = walk(fake_client, EMPLOYEES, {"slug": "acme", "limit": 50})

    assert len(expected) == 137
    assert ids(records) == ids(expected)
    assert len(set(ids(records))) == 137
    assert fake_service.count(EMPLOYEES) == math.ceil(137 / 50) == 3
    pages = [r.param("page") for r in fake_service.requests if r.path == EMPLOYEES]
    # The first call may omit page (the style is only known from its answer); it means page 1.
    assert pages[0] in (None, "1")
    assert pages[1:] == ["2", "3"]


def test_cursor_walk_reads_every_search_result(fake_service, fake_client):
    expected = data.search(title="engineer")
    n = len(expected)
    tap = Tap(fake_service, SEARCH)
    fake_service.override(SEARCH, tap)

    records = walk(fake_client, SEARCH, {"title": "engineer", "limit": 50})

    assert n > 100  # several pages
    assert ids(records) == ids(expected)
    assert len(set(ids(records))) == n
    assert fake_service.count(SEARCH) == math.ceil(n / 50)
    assert fake_service.billed(SEARCH) == math.ceil(n / 50)


def test_cursors_go_back_byte_for_byte(fake_service, fake_client):
    tap = Tap(fake_service, SEARCH)
    fake_service.override(SEARCH, tap)

    walk(fake_client, SEARCH, {"title": "engineer", "limit": 50})

    sent = [r.param("cursor") for r in fake_service.requests if r.path == SEARCH]
    emitted = tap.emitted_cursors()
    assert sent[0] is None  # the first call omits the cursor
    # Each later call carries exactly the cursor the previous answer gave, decoded by the server.
    assert sent[1:] == emitted
    assert len(emitted) == len(sent) - 1 >= 2
    joined = "".join(emitted)
    assert "+" in joined and "/" in joined and "=" in joined  # the hard characters were there
    assert all(r.status == 200 for r in fake_service.requests)


def test_employees_by_cursor_when_the_service_says_so(fake_service, fake_client):
    fake_service.configure(employees_style="cursor")
    tap = Tap(fake_service, EMPLOYEES)
    fake_service.override(EMPLOYEES, tap)

    records = walk(fake_client, EMPLOYEES, {"slug": "acme", "limit": 50})

    assert ids(records) == ids(data.employees("acme"))
    assert fake_service.count(EMPLOYEES) == 3
    reqs = [r for r in fake_service.requests if r.path == EMPLOYEES]
    assert all(r.param("page") is None for r in reqs)
    assert [r.param("cursor") for r in reqs][1:] == tap.emitted_cursors()


def test_exactly_one_full_page_is_one_call(fake_service, fake_client):
    records = walk(fake_client, EMPLOYEES, {"slug": "globex", "limit": 50})
    assert len(set(ids(records))) == 50
    assert fake_service.count(EMPLOYEES) == 1


def test_company_without_employees_is_one_call_and_no_records(fake_service, fake_client):
    assert walk(fake_client, EMPLOYEES, {"slug": "initech", "limit": 50}) == []
    assert fake_service.count(EMPLOYEES) == 1


def offset_pages(req):
    """A list paged by offset (``start``, echoed in its pagination block), as the caller may
    meet elsewhere: production's employees take no offset, so the emulator answers these
    pages only where a test scripts them."""
    records = data.employees(req.param("slug"))
    start, limit = int(req.param("start") or 0), int(req.param("limit") or 20)
    more = start + limit < len(records)
    pagination = {"start": start, "limit": limit, "has_more": more}
    return ok(records[start : start + limit], "Employees retrieved successfully", pagination)


def test_offset_walk(fake_service, fake_client):
    fake_service.override(EMPLOYEES, offset_pages)
    records = walk(fake_client, EMPLOYEES, {"slug": "acme", "limit": 50}, style="offset")

    assert ids(records) == ids(data.employees("acme"))
    starts = [r.param("start") for r in fake_service.requests if r.path == EMPLOYEES]
    assert starts == ["0", "50", "100"]
    assert all(r.param("page") is None for r in fake_service.requests if r.path == EMPLOYEES)


def test_paginate_is_lazy(fake_service, fake_client):
    it = fake_client.paginate(EMPLOYEES, {"slug": "acme", "limit": 50}, progress=False)
    first = next(it)
    assert first["id"] == data.employees("acme")[0]["id"]
    assert fake_service.count(EMPLOYEES) == 1
    it.close()
    assert fake_service.count(EMPLOYEES) == 1


def test_transient_failure_mid_walk_is_retried_and_nothing_is_lost(fake_service, fake_client):
    page_two = FailFirst(1, server_error)
    fake_service.override(
        EMPLOYEES, lambda req: page_two(req) if req.param("page") == "2" else None
    )
    records = walk(fake_client, EMPLOYEES, {"slug": "acme", "limit": 50})

    assert ids(records) == ids(data.employees("acme"))
    pages = [r.param("page") for r in fake_service.requests if r.path == EMPLOYEES]
    assert pages[0] in (None, "1")
    assert pages[1:] == ["2", "2", "3"]
    assert fake_service.billed(EMPLOYEES) == 3


def test_persistent_failure_mid_walk_raises(fake_service):
    fake_service.override(
        EMPLOYEES, lambda req: server_error() if req.param("page") == "2" else None
    )
    with make_client(fake_service, max_retries=1) as client:
        got = []
        with pytest.raises(ServerError):
            for rec in client.paginate(EMPLOYEES, {"slug": "acme", "limit": 50}, progress=False):
                got.append(rec)
    assert ids(got) == ids(data.employees("acme")[:50])
    assert fake_service.count(EMPLOYEES, page=2) == 2


@given(
    slug=st.sampled_from(["acme", "globex", "initech", "umbrella"]),
    limit=st.integers(min_value=1, max_value=50),
)
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_limit_reads_everything_in_the_minimum_number_of_calls(lookup_service, slug, limit):
    lookup_service.reset()
    lookup_service.configure(rate_burst=50)  # exact counts: see conftest._tolerant_limiter
    try:
        expected = data.employees(slug)
        with make_client(lookup_service) as client:
            records = walk(client, EMPLOYEES, {"slug": slug, "limit": limit})
        assert ids(records) == ids(expected)
        assert lookup_service.count(EMPLOYEES) == max(1, math.ceil(len(expected) / limit))
    finally:
        lookup_service.reset()


# -- stopping ------------------------------------------------------------------------------------


def _page(records, **pagination):
    return ok(records, "Search completed successfully", {"limit": 50, **pagination})


def test_has_more_false_stops_even_with_a_next_cursor(fake_service, fake_client):
    recs = data.search(title="engineer")[:3]
    fake_service.override(SEARCH, lambda req: _page(recs, has_more=False, next_cursor="abc"))

    records = walk(fake_client, SEARCH, {"title": "engineer", "limit": 50})

    assert ids(records) == ids(recs)
    assert fake_service.count(SEARCH) == 1


def test_repeating_cursor_raises_instead_of_looping(fake_service, fake_client):
    recs = data.search(title="engineer")[:2]
    fake_service.override(SEARCH, lambda req: _page(recs, has_more=True, next_cursor="same+/="))

    with pytest.raises(PaginationError):
        for _ in itertools.islice(
            fake_client.paginate(SEARCH, {"title": "engineer", "limit": 50}, progress=False), 1000
        ):
            pass
    assert 1 <= fake_service.count(SEARCH) <= 3


def test_cursor_cycle_of_two_raises(fake_service, fake_client):
    recs = data.search(title="engineer")[:2]

    def flip(req):
        nxt = "B" if req.param("cursor") == "A" else "A"
        return _page(recs, has_more=True, next_cursor=nxt)

    fake_service.override(SEARCH, flip)
    with pytest.raises(PaginationError):
        for _ in itertools.islice(
            fake_client.paginate(SEARCH, {"title": "engineer", "limit": 50}, progress=False), 1000
        ):
            pass
    assert fake_service.count(SEARCH) <= 4


def test_has_more_with_an_empty_page_raises(fake_service, fake_client):
    fake_service.override(SEARCH, lambda req: _page([], has_more=True, next_cursor="next"))
    with pytest.raises(PaginationError):
        walk(fake_client, SEARCH, {"title": "engineer", "limit": 50})
    assert fake_service.count(SEARCH) == 1


def test_has_more_without_a_cursor_raises(fake_service, fake_client):
    recs = data.search(title="engineer")[:2]
    fake_service.override(SEARCH, lambda req: _page(recs, has_more=True, next_cursor=""))
    with pytest.raises(PaginationError):
        walk(fake_client, SEARCH, {"title": "engineer", "limit": 50})
    assert fake_service.count(SEARCH) == 1


def test_page_number_that_goes_back_raises(fake_service, fake_client):
    first = data.employees("acme")[:50]

    def back(req):
        if req.param("page") == "2":
            return ok(
                first,
                "Employees retrieved successfully",
                {"page": 1, "limit": 50, "has_more": True},
            )
        return None

    fake_service.override(EMPLOYEES, back)
    with pytest.raises(PaginationError):
        walk(fake_client, EMPLOYEES, {"slug": "acme", "limit": 50})
    assert fake_service.count(EMPLOYEES) == 2


def test_offset_that_does_not_advance_raises(fake_service, fake_client):
    """An endpoint that ignores ``start`` echoes start=0 forever: stop, do not pay for it."""
    first = data.employees("acme")[:50]

    def stuck(req):
        return ok(
            first, "Employees retrieved successfully", {"start": 0, "limit": 50, "has_more": True}
        )

    fake_service.override(EMPLOYEES, stuck)
    with pytest.raises(PaginationError):
        for _ in itertools.islice(
            fake_client.paginate(
                EMPLOYEES, {"slug": "acme", "limit": 50}, style="offset", progress=False
            ),
            500,
        ):
            pass
    assert fake_service.count(EMPLOYEES) <= 3


def test_offset_walk_of_an_endpoint_that_ignores_start_stops_at_the_second_page(
    fake_service, fake_client
):
    """Production documents no offset on employees, and the emulator ignores ``start`` there
    as production ignores a parameter it does not know: page 1 again, no position echoed.
    The second page's records are the first's: stop there, do not pay for more."""
    with pytest.raises(PaginationError, match="start 50 answered the records of start 0"):
        for _ in itertools.islice(
            fake_client.paginate(
                EMPLOYEES, {"slug": "acme", "limit": 50}, style="offset", progress=False
            ),
            500,
        ):
            pass
    assert fake_service.count(EMPLOYEES) == 2


@pytest.mark.parametrize(("max_records", "calls"), [(60, 2), (50, 1), (1, 1), (137, 3), (500, 3)])
def test_max_records_stops_without_fetching_another_page(
    fake_service, fake_client, max_records, calls
):
    records = walk(fake_client, EMPLOYEES, {"slug": "acme", "limit": 50}, max_records=max_records)
    assert ids(records) == ids(data.employees("acme")[:max_records])
    assert fake_service.count(EMPLOYEES) == calls


def test_max_records_zero_sends_nothing(fake_service, fake_client):
    assert walk(fake_client, EMPLOYEES, {"slug": "acme", "limit": 50}, max_records=0) == []
    assert fake_service.count() == 0


def test_max_records_on_a_cursor_walk(fake_service, fake_client):
    records = walk(fake_client, SEARCH, {"title": "engineer", "limit": 50}, max_records=120)
    assert ids(records) == ids(data.search(title="engineer")[:120])
    assert fake_service.count(SEARCH) == 3
