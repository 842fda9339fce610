"""SearchPanel driven from Python (no browser) against the emulator.

What a user does in the notebook is done here on the widgets themselves: type into
``panel.title`` (its value syncs, nothing runs), press Enter (the Text widget's "submit" custom
message), click Search / Load more, pick a person in ``panel.person``. Every expectation about
the network is counted at the emulator.
"""

from __future__ import annotations

import html
import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import ipywidgets as widgets
import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.errors import UsageError
from lookup_pandas.frames.overview import full_name
from lookup_pandas.service.paths import COMPANY_PATH
from lookup_pandas.service.paths import COMPANY_SEARCH_PATH as COMPANY_SEARCH
from lookup_pandas.testing import FakeService
from lookup_pandas.testing import company_records as emulator_companies
from lookup_pandas.testing import data as emulator_data

from ..helpers import (
    DROP,
    EMPLOYEES,
    PROFILE,
    SEARCH,
    TIER,
    Tap,
    data_count,
    fail,
    make_client,
    rate_limited,
    server_error,
)

pytestmark = pytest.mark.timeout(60)

TITLE = "engineer"  # ~1000 matches: many pages
NARROW = "senior data scientist"  # about 100 matches: a few pages of 50


@pytest.fixture(params=["full", "sparse"], autouse=True)
def sparse(request: pytest.FixtureRequest, fake_service: FakeService) -> bool:
    """Every panel test runs against full records and against sparse ones (id, handle and
    some other fields): the panel must show whatever a record has, and never fail on a gap."""
    on = request.param == "sparse"
    fake_service.configure(sparse_records=on)
    return on


def served(handle: str, sparse: bool) -> dict:
    """The record as the emulator sends it in this mode."""
    record = emulator_data.person(handle)
    assert record is not None
    return emulator_data.thin(record) if sparse else record


def shown_name(record: dict) -> str:
    """What the profile view titles a record with: its name, else its handle."""
    return full_name(record.get("first_name"), record.get("last_name")) or record["handle"]


# -- helpers -------------------------------------------------------------------------------------


def press_enter(panel: lp.SearchPanel) -> None:
    """What the browser sends when Enter is pressed in the title box: a custom "submit" message."""
    panel.title._handle_msg(
        {"content": {"data": {"method": "custom", "content": {"event": "submit"}}}, "buffers": []}
    )


def text_of(value: str) -> str:
    """The visible text of an HTML widget's value."""
    return html.unescape(re.sub(r"<[^>]+>", "", value))


def body_rows(table_html: str) -> int:
    match = re.search(r"<tbody>(.*)</tbody>", table_html, re.S)
    assert match is not None, f"no <tbody> in the table HTML: {table_html[:200]!r}"
    return match.group(1).count("<tr>")


def search_records(svc: FakeService) -> list[Any]:
    return [r for r in svc.requests if r.path == SEARCH]


def assert_one_line_error(panel: lp.SearchPanel, exc_name: str) -> None:
    raw = panel.message.value
    text = text_of(raw).strip()
    assert exc_name in text, f"expected {exc_name} in the panel message, got {text!r}"
    assert "Traceback" not in raw
    assert "\n" not in raw and "\r" not in raw, f"message is not one line: {raw!r}"
    assert len(text.splitlines()) == 1


def assert_usable(panel: lp.SearchPanel, svc: FakeService, title: str = TITLE) -> None:
    """After a failure: a fresh search succeeds and clears the message."""
    before = svc.count(SEARCH, status=200)
    panel.title.value = title
    panel.search_button.click()
    assert svc.count(SEARCH, status=200) == before + 1
    assert panel.message.value == ""
    n = int(panel.page_size.value)
    assert len(panel.results) == n
    assert f"loaded {n} · more available" in text_of(panel.summary.value)
    assert panel.search_button.disabled is False
    assert panel.more_button.disabled is False
    assert panel.busy.layout.display == "none"


def all_widgets(root: widgets.Widget) -> list[widgets.Widget]:
    """Every widget of the panel's tree: children, and their layout and style models."""
    seen: dict[int, widgets.Widget] = {}
    stack = [root]
    while stack:
        w = stack.pop()
        if id(w) in seen:
            continue
        seen[id(w)] = w
        stack.extend(getattr(w, "children", ()) or ())
        for name in ("layout", "style"):
            sub = getattr(w, name, None)
            if isinstance(sub, widgets.Widget):
                stack.append(sub)
    return list(seen.values())


@pytest.fixture
def client(fake_service: FakeService) -> Iterator[lp.Client]:
    """No cache, no retries: every call is one request the emulator sees."""
    c = make_client(fake_service, max_retries=0)
    yield c
    c.close()


@pytest.fixture
def panel(client: lp.Client) -> lp.SearchPanel:
    p = lp.SearchPanel(client, page_size=20)
    yield p
    p.close()


# -- searching -------------------------------------------------------------------------------------


@pytest.mark.parametrize("title", ["", "ab", "  ab  ", "x"])
def test_short_title_says_so_and_sends_nothing(fake_service, panel, title):
    panel.title.value = title
    press_enter(panel)
    panel.search_button.click()
    assert fake_service.requests == []
    text = text_of(panel.message.value).strip()
    assert "3 characters" in text
    assert "\n" not in panel.message.value
    assert panel.results.empty
    assert panel.more_button.disabled is True


def test_filters_search_without_a_title(fake_service, client):
    """Production makes every people-search filter optional: the panel's filters stand alone."""
    p = lp.SearchPanel(client, page_size=20, headline="engineer", current_only=True)
    try:
        p.search_button.click()  # the title box left empty
        (sent,) = search_records(fake_service)
        assert dict(sent.params) == {"headline": "engineer", "current_only": "true", "limit": "20"}
        assert len(p.results) == 20 and p.message.value == ""
        for handle in p.results["handle"]:  # the full record (this mode may thin what is sent)
            assert "engineer" in emulator_data.person(handle)["headline"].lower()
        p.title.value = "data"  # a title adds to the filters
        p.search_button.click()
        assert dict(search_records(fake_service)[-1].params)["title"] == "data"
        assert dict(search_records(fake_service)[-1].params)["headline"] == "engineer"
    finally:
        p.close()


def test_panel_filters_are_checked_at_once(client):
    with pytest.raises(UsageError, match="is_creator is true or false"):
        lp.SearchPanel(client, is_creator="maybe")
    with pytest.raises(UsageError, match="did you mean 'headline'"):
        lp.SearchPanel(client, headlin="engineer")


def test_typing_sends_nothing_enter_searches(fake_service, panel):
    for partial in ("e", "en", "eng", "engi", "engineer"):  # the value syncs per keystroke
        panel.title.value = partial
    assert fake_service.requests == []
    assert panel.results.empty

    press_enter(panel)
    assert fake_service.count(SEARCH) == 1
    assert fake_service.count(SEARCH, title=TITLE, limit=20) == 1
    assert len(panel.results) == 20


def test_search_button_searches_once(fake_service, panel):
    panel.title.value = TITLE
    panel.search_button.click()
    assert fake_service.count(SEARCH) == 1
    assert len(panel.results) == 20


def test_first_page(fake_service, client, panel):
    panel.title.value = TITLE
    press_enter(panel)

    assert fake_service.count(SEARCH) == 1
    (rec,) = search_records(fake_service)
    assert dict(rec.params) == {"title": TITLE, "limit": "20"}  # no cursor on a first page
    assert fake_service.count(TIER) == 1  # the client's one pace discovery, nothing else
    assert data_count(fake_service) == 1

    assert text_of(panel.summary.value).strip() == "loaded 20 · more available"
    assert body_rows(panel.table.value) == 20
    assert panel.has_more is True
    assert panel.more_button.disabled is False
    assert panel.message.value == ""

    results = panel.results
    assert isinstance(results, pd.DataFrame)
    assert len(results) == 20
    expected = [r["id"] for r in emulator_data.search(title=TITLE)[:20]]
    assert results["id"].tolist() == expected
    # Every loaded person is in the table and in the profile picker (plus the empty choice).
    for name in lp.overview(results)["name"].dropna():
        assert html.escape(name) in panel.table.value
    assert [v for _, v in panel.person.options] == [None, *results["handle"].tolist()]
    assert panel.person.disabled is False

    same = lp.search_people(TITLE, limit=20, max_records=20, client=client)
    assert list(results.columns) == list(same.columns)
    assert results["id"].tolist() == same["id"].tolist()
    assert results.dtypes.astype(str).tolist() == same.dtypes.astype(str).tolist()


def test_load_more_appends_exactly_the_next_page(fake_service, panel):
    tap = Tap(fake_service, SEARCH)
    fake_service.override(SEARCH, tap)
    panel.title.value = TITLE
    press_enter(panel)
    first_ids = panel.results["id"].tolist()
    assert len(tap.bodies) == 1
    cursor1 = tap.bodies[0]["pagination"]["next_cursor"]
    assert cursor1

    panel.more_button.click()
    assert fake_service.count(SEARCH) == 2
    second = search_records(fake_service)[-1]
    assert second.param("cursor") == cursor1  # passed back unchanged (it holds + / =)
    assert second.param("title") == TITLE and second.param("limit") == "20"
    assert len(panel.results) == 40
    assert panel.results["id"].tolist()[:20] == first_ids
    assert panel.results["id"].is_unique
    assert panel.results["id"].tolist() == [r["id"] for r in emulator_data.search(title=TITLE)[:40]]
    assert text_of(panel.summary.value).strip() == "loaded 40 · more available"
    assert body_rows(panel.table.value) == 40

    cursor2 = tap.bodies[1]["pagination"]["next_cursor"]
    assert cursor2 and cursor2 != cursor1
    panel.more_button.click()
    assert fake_service.count(SEARCH) == 3
    assert search_records(fake_service)[-1].param("cursor") == cursor2
    assert len(panel.results) == 60
    assert panel.results["id"].is_unique
    assert data_count(fake_service) == 3


def test_walk_to_the_end_disables_load_more(fake_service, panel):
    total = len(emulator_data.search(title=NARROW))
    assert 50 < total <= 250  # 2 to 5 pages of 50
    pages = -(-total // 50)
    panel.page_size.value = 50
    panel.title.value = NARROW
    press_enter(panel)
    for _ in range(pages - 1):
        assert panel.more_button.disabled is False
        panel.more_button.click()

    assert fake_service.count(SEARCH) == pages
    assert len(panel.results) == total
    assert panel.results["id"].is_unique
    assert panel.has_more is False
    assert panel.more_button.disabled is True
    assert text_of(panel.summary.value).strip() == f"loaded {total} · all loaded"
    assert body_rows(panel.table.value) == total

    panel.more_button.click()  # disabled in the browser; clicked anyway from Python
    panel.load_more()
    assert fake_service.count(SEARCH) == pages
    assert len(panel.results) == total


def test_final_page_from_the_service_stops(fake_service, panel):
    """has_more=false on the second page (scripted) ends the walk, whatever the data holds."""
    calls = {"n": 0}

    def second_page_is_last(req):
        calls["n"] += 1
        if req.param("cursor") is None:
            return None  # the real first page
        page = emulator_data.search(title=TITLE)[20:25]
        return 200, {
            "success": True,
            "statusCode": 200,
            "message": "ok",
            "errors": None,
            "data": page,
            "pagination": {"limit": 20, "has_more": False, "next_cursor": ""},
        }

    fake_service.override(SEARCH, second_page_is_last)
    panel.title.value = TITLE
    press_enter(panel)
    panel.more_button.click()
    assert calls["n"] == 2
    assert len(panel.results) == 25
    assert panel.more_button.disabled is True
    assert "all loaded" in text_of(panel.summary.value)
    panel.more_button.click()
    assert fake_service.count(SEARCH) == 2


def test_new_search_resets_results(fake_service, panel):
    panel.title.value = TITLE
    press_enter(panel)
    panel.more_button.click()
    assert len(panel.results) == 40

    panel.title.value = "designer"
    panel.search_button.click()
    assert fake_service.count(SEARCH) == 3
    last = search_records(fake_service)[-1]
    assert dict(last.params) == {"title": "designer", "limit": "20"}  # no old cursor
    assert len(panel.results) == 20
    assert panel.results["id"].tolist() == [
        r["id"] for r in emulator_data.search(title="designer")[:20]
    ]
    assert all(
        any("designer" in p["title"].lower() for p in emulator_data.person(h).get("positions", []))
        for h in panel.results["handle"]
    )
    assert text_of(panel.summary.value).strip() == "loaded 20 · more available"
    assert body_rows(panel.table.value) == 20

    # Load more continues the new search, not the old one.
    panel.more_button.click()
    assert search_records(fake_service)[-1].param("title") == "designer"
    assert panel.results["id"].tolist() == [
        r["id"] for r in emulator_data.search(title="designer")[:40]
    ]


def test_page_size_change_applies_to_the_next_search(fake_service, panel):
    panel.title.value = TITLE
    press_enter(panel)
    panel.page_size.value = 7
    panel.more_button.click()  # the running search keeps its page size (its cursor is bound to it)
    assert search_records(fake_service)[-1].param("limit") == "20"
    assert len(panel.results) == 40
    panel.search_button.click()
    assert search_records(fake_service)[-1].param("limit") == "7"
    assert len(panel.results) == 7


# -- busy state ------------------------------------------------------------------------------------


class Observe:
    """An override that records the panel's state while the request is being answered."""

    def __init__(self, panel: lp.SearchPanel) -> None:
        self.panel = panel
        self.seen: list[tuple[bool, bool, bool, str]] = []
        self.threads: set[str] = set()

    def __call__(self, req):
        p = self.panel
        self.seen.append(
            (
                p.search_button.disabled,
                p.more_button.disabled,
                p.person.disabled,
                p.busy.layout.display,
            )
        )
        self.threads.add(threading.current_thread().name)
        return None  # the real route answers


def test_busy_while_a_call_runs(fake_service, panel):
    assert panel.busy.layout.display == "none"
    watch = Observe(panel)
    fake_service.override(SEARCH, watch)
    panel.title.value = TITLE
    press_enter(panel)
    panel.more_button.click()

    assert len(watch.seen) == 2
    assert threading.current_thread().name not in watch.threads  # seen from the server thread
    for search_disabled, more_disabled, person_disabled, display in watch.seen:
        assert search_disabled is True
        assert more_disabled is True
        assert person_disabled is True
        assert display == ""
    assert panel.search_button.disabled is False
    assert panel.more_button.disabled is False
    assert panel.person.disabled is False
    assert panel.busy.layout.display == "none"

    profile_watch = Observe(panel)
    fake_service.override(PROFILE, profile_watch)
    panel.person.value = panel.results["handle"].iloc[0]
    assert profile_watch.seen == [(True, True, True, "")]
    assert panel.search_button.disabled is False
    assert panel.more_button.disabled is False
    assert panel.person.disabled is False
    assert panel.busy.layout.display == "none"


def test_busy_is_cleared_after_a_failure(fake_service, panel):
    watch = Observe(panel)

    def failing(req):
        watch(req)
        return server_error()

    fake_service.override(SEARCH, failing)
    panel.title.value = TITLE
    press_enter(panel)
    assert watch.seen == [(True, True, True, "")]
    assert panel.search_button.disabled is False
    assert panel.busy.layout.display == "none"
    assert_one_line_error(panel, "ServerError")


# -- errors: one line in the panel, never raised, panel still usable -------------------------------


def test_authentication_error(fake_service, client, panel):
    panel.title.value = TITLE
    press_enter(panel)
    first_ids = panel.results["id"].tolist()
    assert len(first_ids) == 20

    fake_service.revoke_key()  # revoked mid-session
    panel.more_button.click()  # must not raise
    assert_one_line_error(panel, "AuthenticationError")
    assert "Invalid API key" in text_of(panel.message.value)  # the server's words
    assert panel.results["id"].tolist() == first_ids  # what was loaded stays
    panel.search_button.click()
    assert_one_line_error(panel, "AuthenticationError")
    assert fake_service.count(SEARCH, status=403) == 2

    fake_service.reset()  # the fault is gone: the same key is valid again
    fake_service.configure(rate_burst=50)
    assert_usable(panel, fake_service)


def test_authentication_error_then_a_new_key_for_the_default_client(
    fake_service, isolated_default_client
):
    """A panel on the default client picks up lp.configure(...) with a new key, no new panel."""
    old = lp.configure(
        api_key=fake_service.api_key, base_url=fake_service.base_url, cache=False, max_retries=0
    )
    panel = lp.SearchPanel(page_size=20)
    try:
        fake_service.revoke_key()
        panel.title.value = TITLE
        press_enter(panel)
        assert_one_line_error(panel, "AuthenticationError")
        assert panel.results.empty
        assert fake_service.count(SEARCH) == 0  # the tier request was refused first
        assert fake_service.count(TIER, status=403) == 1

        new_key = fake_service.rotate_key()
        lp.configure(api_key=new_key, base_url=fake_service.base_url, cache=False, max_retries=0)
        assert_usable(panel, fake_service)
    finally:
        panel.close()
        old.close()


def test_rate_limit_error(fake_service, panel):
    fake_service.override(SEARCH, lambda req: rate_limited(7))
    panel.title.value = TITLE
    press_enter(panel)
    assert_one_line_error(panel, "RateLimitError")
    assert fake_service.count(SEARCH) == 1  # max_retries=0: one attempt, no waiting
    assert fake_service.count(SEARCH, status=429) == 1
    assert panel.results.empty

    fake_service.override(SEARCH, None)
    assert_usable(panel, fake_service)


def test_validation_error(fake_service, panel):
    fake_service.override(
        SEARCH,
        lambda req: fail(
            400,
            "Validation failed",
            errors={"limit": "must be an integer between 1 and 50"},
            error_code="VALIDATION_ERROR",
        ),
    )
    panel.title.value = TITLE
    press_enter(panel)
    assert_one_line_error(panel, "ValidationError")
    assert fake_service.count(SEARCH) == 1
    assert panel.results.empty

    fake_service.override(SEARCH, None)
    assert_usable(panel, fake_service)


def test_page_size_is_bounded_by_the_widget(panel):
    panel.page_size.value = 500
    assert panel.page_size.value == 50
    panel.page_size.value = 0
    assert panel.page_size.value == 1


def test_network_error(fake_service, panel):
    fake_service.override(SEARCH, lambda req: DROP)
    panel.title.value = TITLE
    press_enter(panel)
    assert_one_line_error(panel, "TransportError")
    assert fake_service.count(SEARCH) == 1
    assert panel.results.empty

    fake_service.override(SEARCH, None)
    assert_usable(panel, fake_service)


def test_configuration_error(fake_service, monkeypatch, tmp_path, isolated_default_client):
    monkeypatch.delenv("LOOKUP_API_KEY", raising=False)
    monkeypatch.delenv("LOOKUP_BASE_URL", raising=False)
    monkeypatch.setenv("LOOKUP_CACHE", "off")
    panel = lp.SearchPanel(page_size=20)  # the default client, resolved at search time
    try:
        panel.title.value = TITLE
        press_enter(panel)
        assert_one_line_error(panel, "ConfigurationError")
        assert "LOOKUP_" in text_of(panel.message.value)  # names the variable to set
        assert fake_service.requests == []
        assert panel.search_button.disabled is False

        monkeypatch.setenv("LOOKUP_API_KEY", fake_service.api_key)
        monkeypatch.setenv("LOOKUP_BASE_URL", fake_service.base_url)
        assert_usable(panel, fake_service)
    finally:
        panel.close()


def test_failed_load_more_keeps_the_page_and_retries_the_same_cursor(fake_service, panel):
    panel.title.value = TITLE
    press_enter(panel)
    first_ids = panel.results["id"].tolist()

    fake_service.override(SEARCH, lambda req: server_error())
    panel.more_button.click()
    assert_one_line_error(panel, "ServerError")
    assert panel.results["id"].tolist() == first_ids
    failed_cursor = search_records(fake_service)[-1].param("cursor")
    assert failed_cursor
    assert panel.more_button.disabled is False  # the page is still there to fetch

    fake_service.override(SEARCH, None)
    panel.more_button.click()
    assert search_records(fake_service)[-1].param("cursor") == failed_cursor
    assert panel.message.value == ""
    assert panel.results["id"].tolist() == [r["id"] for r in emulator_data.search(title=TITLE)[:40]]
    assert panel.results["id"].is_unique


def test_profile_error_is_one_line(fake_service, panel):
    panel.title.value = TITLE
    press_enter(panel)
    fake_service.override(PROFILE, lambda req: server_error())
    panel.person.value = panel.results["handle"].iloc[0]  # must not raise
    assert_one_line_error(panel, "ServerError")
    assert panel.person.disabled is False
    assert panel.busy.layout.display == "none"


# -- profiles -------------------------------------------------------------------------------------


def test_profile_view_and_cache(fake_service, fake_client, sparse):
    panel = lp.SearchPanel(fake_client, page_size=20)
    try:
        panel.title.value = TITLE
        press_enter(panel)
        handles = panel.results["handle"].tolist()
        a, b = handles[2], handles[5]
        expected = served(a, sparse)

        panel.person.value = a
        assert fake_service.count(PROFILE) == 1
        assert fake_service.count(PROFILE, handle=a) == 1
        view = panel.profile_view.value
        assert html.escape(shown_name(expected)) in view
        for skill in expected.get("skills", []):
            assert html.escape(str(skill)) in view
        assert expected["id"] in view
        assert panel.message.value == ""

        panel.person.value = b
        assert fake_service.count(PROFILE, handle=b) == 1
        assert html.escape(shown_name(served(b, sparse))) in panel.profile_view.value

        panel.person.value = None  # the empty choice clears the view
        assert panel.profile_view.value == ""
        panel.person.value = a  # again: from the cache, nothing sent
        assert fake_service.count(PROFILE, handle=a) == 1
        assert fake_service.count(PROFILE) == 2
        assert html.escape(shown_name(expected)) in panel.profile_view.value
    finally:
        panel.close()


def test_load_more_keeps_the_open_profile_without_fetching_it_again(fake_service, panel):
    """Load more sends one search request: no profile request for the person already shown."""
    panel.title.value = TITLE
    press_enter(panel)
    handle = panel.results["handle"].iloc[3]
    panel.person.value = handle
    assert fake_service.count(PROFILE) == 1
    shown = panel.profile_view.value
    assert shown

    before = len(fake_service.requests)
    panel.more_button.click()
    new = fake_service.requests[before:]
    assert [r.path for r in new] == [SEARCH], [(r.path, r.params) for r in new]
    assert fake_service.count(PROFILE) == 1  # cache=False: a second one would be billed again
    assert fake_service.billed(PROFILE) == 1
    assert panel.person.value == handle
    assert panel.profile_view.value == shown


# -- the API key never reaches a widget -----------------------------------------------------------

SECRET = "lk_test_PANELSECRET42"


def test_no_widget_state_contains_the_key():
    with FakeService(api_key=SECRET, rate_burst=50) as svc:
        client = lp.Client(api_key=SECRET, base_url=svc.base_url, cache=False, max_retries=0)
        panel = lp.SearchPanel(client, page_size=20)
        states: list[str] = []

        def snapshot(step: str) -> None:
            for w in all_widgets(panel):
                state = json.dumps(w.get_state(), default=str)
                assert SECRET not in state, f"key in {type(w).__name__} state after {step}"
                states.append(state)

        try:
            panel.title.value = TITLE
            press_enter(panel)
            assert len(panel.results) == 20
            snapshot("search")
            panel.more_button.click()
            assert len(panel.results) == 40
            snapshot("load more")
            panel.person.value = panel.results["handle"].iloc[0]
            assert "lookup-profile" in panel.profile_view.value
            snapshot("profile")

            svc.revoke_key(SECRET)
            panel.person.value = panel.results["handle"].iloc[1]
            assert_one_line_error(panel, "AuthenticationError")
            snapshot("profile auth failure")
            panel.search_button.click()
            assert_one_line_error(panel, "AuthenticationError")
            snapshot("search auth failure")
            panel.more_button.click()
            snapshot("load more auth failure")

            assert svc.count(SEARCH, status=403) >= 1 and svc.count(PROFILE, status=403) >= 1
            assert len(all_widgets(panel)) >= 12  # the walk reached the whole tree
            assert any("lookup-profile" in s for s in states)  # the profile HTML was checked
            # The panel's repr (what a notebook shows as text/plain) is clean as well.
            assert SECRET not in repr(panel)
        finally:
            panel.close()
            client.close()


# -- companies: search, pick one, load its employees ----------------------------------------------

COMPANY_NAME = "labs"  # 10 companies in the emulator: one page
MANY_COMPANIES = "ics"  # 30 (analytics, dynamics, robotics): pages of 20


def company_served(slug: str, sparse: bool) -> dict:
    record = emulator_companies.company(slug)
    assert record is not None
    return emulator_data.thin(record) if sparse else record


def search_companies_in(panel: lp.SearchPanel, name: str = COMPANY_NAME) -> None:
    """What the user does: switch to Companies, type a name, press Enter."""
    panel.kind.value = "Companies"
    panel.title.value = name
    press_enter(panel)


def staffed(panel: lp.SearchPanel, at_least: int) -> str:
    """A loaded company with more than ``at_least`` employees (Load more has a next page)."""
    for slug in panel.results["slug"]:
        record = emulator_companies.company(slug)
        if record is not None and record["employee_count"] > at_least:
            return str(slug)
    raise AssertionError(f"no company with more than {at_least} employees")


def test_toggle_shows_the_company_controls(fake_service, panel):
    assert panel.kind.value == "People"
    assert panel.companies.box.layout.display == "none"
    panel.kind.value = "Companies"
    assert panel.companies.box.layout.display == ""
    assert panel.title.description == "Company"
    assert panel.company.disabled is True and panel.employees_button.disabled is True
    panel.kind.value = "People"
    assert panel.companies.box.layout.display == "none"
    assert panel.title.description == "Title"
    assert fake_service.requests == []


@pytest.mark.parametrize("name", ["", "ab", "  ab  "])
def test_short_company_name_says_so_and_sends_nothing(fake_service, panel, name):
    search_companies_in(panel, name)
    panel.search_button.click()
    assert "3 characters of a company name" in text_of(panel.message.value)
    panel.employees_button.click()  # nothing picked: nothing to load
    assert text_of(panel.message.value) == "Pick a company first."
    assert fake_service.requests == []
    assert panel.results.empty


def test_company_search_fills_the_table_and_the_picker(fake_service, client, panel, sparse):
    search_companies_in(panel)
    assert fake_service.count(COMPANY_SEARCH) == 1
    assert fake_service.count(COMPANY_SEARCH, name=COMPANY_NAME, limit=20) == 1
    assert fake_service.count(SEARCH) == 0
    assert panel.message.value == ""

    expected = [c["slug"] for c in emulator_companies.search_companies(name=COMPANY_NAME)]
    results = panel.results
    assert results["slug"].tolist() == expected
    assert text_of(panel.summary.value).strip() == f"loaded {len(expected)} companies · all loaded"
    assert body_rows(panel.table.value) == len(expected)
    assert "<th>Industry</th>" in panel.table.value and "<th>HQ</th>" in panel.table.value
    assert panel.more_button.disabled is True
    assert [v for _, v in panel.company.options] == [None, *expected]
    assert panel.company.disabled is False
    assert panel.employees_button.disabled is True  # nothing picked yet
    assert [v for _, v in panel.person.options] == [None]  # companies are not profiles
    assert panel.person.disabled is True

    same = lp.search_companies(name=COMPANY_NAME, limit=20, client=client, progress=False)
    assert list(results.columns) == list(same.columns)
    assert results["id"].tolist() == same["id"].tolist()
    assert results.dtypes.astype(str).tolist() == same.dtypes.astype(str).tolist()


def test_company_search_load_more_walks_the_cursor_pages(fake_service, client, panel):
    total = len(emulator_companies.search_companies(name=MANY_COMPANIES))
    assert 20 < total <= 40
    search_companies_in(panel, MANY_COMPANIES)
    assert len(panel.results) == 20 and panel.more_button.disabled is False
    panel.more_button.click()
    assert fake_service.count(COMPANY_SEARCH) == 2
    assert [
        r.param("cursor") is None for r in fake_service.requests if r.path == COMPANY_SEARCH
    ] == [
        True,
        False,
    ]
    assert len(panel.results) == total
    assert panel.more_button.disabled is True
    assert len(panel.company.options) == total + 1
    every = lp.search_companies(name=MANY_COMPANIES, limit=20, client=client, progress=False)
    assert panel.results["id"].tolist() == every["id"].tolist()


def test_pick_a_company_shows_it_without_a_request(fake_service, panel, sparse):
    search_companies_in(panel)
    before = len(fake_service.requests)
    slug = panel.results["slug"].iloc[2]
    panel.company.value = slug
    assert len(fake_service.requests) == before  # the card is the search's record
    expected = company_served(slug, sparse)
    card = panel.company_view.value
    assert "lookup-company" in card
    title = expected.get("name") or slug
    assert f"<h3>{html.escape(title)}</h3>" in card
    if "industry" in expected:
        assert html.escape(expected["industry"]) in card
    if "employee_count" in expected:
        assert f"<th>Employees</th><td>{expected['employee_count']}</td>" in card
    if "hq" in expected:
        assert html.escape(expected["hq"]["city"]) in card
    assert expected["id"] in card and f"slug {slug}" in text_of(card)
    assert panel.employees_button.disabled is False

    panel.company.value = None  # the empty choice clears the card and the button
    assert panel.company_view.value == ""
    assert panel.employees_button.disabled is True


def test_full_company_card(fake_service, panel):
    """With full records the card has the name, industry, employee count and HQ of the pick."""
    fake_service.configure(sparse_records=False)
    search_companies_in(panel)
    slug = panel.results["slug"].iloc[0]
    panel.company.value = slug
    record = emulator_companies.company(slug)
    assert record is not None
    text = text_of(panel.company_view.value)
    for part in (
        record["name"],
        record["industry"],
        str(record["employee_count"]),
        record["hq"]["city"],
        record["hq"]["country_code"],
    ):
        assert part in text, (part, text)


def test_load_employees_of_the_picked_company(fake_service, client, panel, sparse):
    search_companies_in(panel)
    slug = staffed(panel, 40)
    panel.company.value = slug
    name = company_served(slug, sparse).get("name") or slug

    panel.employees_button.click()
    assert fake_service.count(EMPLOYEES) == 1
    assert fake_service.count(EMPLOYEES, slug=slug, limit=20) == 1
    assert panel.message.value == ""
    results = panel.results
    assert len(results) == 20
    assert text_of(panel.summary.value).strip() == f"loaded 20 employees of {name} · more available"
    assert "<th>Headline</th>" in panel.table.value and body_rows(panel.table.value) == 20
    # Employees are people: the profile picker lists them; the company stays picked.
    assert [v for _, v in panel.person.options] == [None, *results["handle"].tolist()]
    assert panel.person.disabled is False
    assert panel.company.value == slug and "lookup-company" in panel.company_view.value
    assert len(panel.company.options) == len(emulator_companies.search_companies(name="labs")) + 1

    panel.more_button.click()  # Load more continues the employees, not the companies search
    assert fake_service.count(EMPLOYEES, slug=slug) == 2
    assert fake_service.count(COMPANY_SEARCH) == 1
    same = lp.company_employees(slug, limit=20, max_records=40, client=client, progress=False)
    assert results["id"].tolist() == same["id"].tolist()[:20]
    assert list(panel.results.columns) == list(same.columns)
    assert panel.results["id"].tolist() == same["id"].tolist()

    handle = panel.results["handle"].iloc[0]
    panel.person.value = handle
    assert fake_service.count(PROFILE, handle=handle) == 1
    assert "lookup-profile" in panel.profile_view.value


def test_employees_then_another_company_then_people(fake_service, panel):
    search_companies_in(panel)
    first, second = panel.results["slug"].iloc[0], panel.results["slug"].iloc[1]
    panel.company.value = first
    panel.employees_button.click()
    panel.company.value = second
    panel.employees_button.click()
    assert fake_service.count(EMPLOYEES, slug=first) == 1
    assert fake_service.count(EMPLOYEES, slug=second) == 1
    assert [r.param("cursor") for r in fake_service.requests if r.path == EMPLOYEES] == [None] * 2
    expected = [p["id"] for p in emulator_data.employees(second)[:20]]
    assert panel.results["id"].tolist() == expected

    panel.kind.value = "People"  # back to people: a title search as before
    assert_usable(panel, fake_service)
    assert fake_service.count(SEARCH, title=TITLE) == 1


def first_staff(slug: str, n: int = 20) -> list[str]:
    return [r["id"] for r in (emulator_data.employees(slug) or [])[:n]]


@pytest.mark.parametrize(
    "spelling",
    ["https://www.linkedin.com/company/ACME/?trk=x", "  Acme ", "linkedin.com/company/acme"],
)
def test_load_employees_of_any_company_form(fake_service, panel, spelling):
    """Issue 30: the panel takes a company as lp.company_employees does (one rule)."""
    panel.load_employees(spelling)
    assert panel.message.value == ""
    assert (
        fake_service.count(EMPLOYEES) == fake_service.count(EMPLOYEES, slug="acme", limit=20) == 1
    )
    assert panel.results["id"].tolist() == first_staff("acme")
    assert text_of(panel.summary.value).strip() == "loaded 20 employees of acme · more available"
    panel.more_button.click()  # Load more continues the same company
    assert fake_service.count(EMPLOYEES, slug="acme") == 2
    assert panel.results["id"].tolist() == first_staff("acme", 40)


def test_a_company_page_url_in_the_box_opens_that_company(fake_service, panel):
    """A company page URL (any case) in the Companies box: one company lookup, the company
    picked, and Load employees asks for its slug."""
    search_companies_in(panel, "https://www.linkedin.com/company/Acme/")
    assert fake_service.count(COMPANY_SEARCH) == 0
    assert fake_service.count(COMPANY_PATH) == fake_service.count(COMPANY_PATH, slug="acme") == 1
    assert panel.message.value == ""
    assert panel.company.value == "acme" and "lookup-company" in panel.company_view.value
    assert panel.results["slug"].tolist() == ["acme"]
    assert panel.employees_button.disabled is False and panel.more_button.disabled is True
    panel.employees_button.click()
    assert fake_service.count(EMPLOYEES) == fake_service.count(EMPLOYEES, slug="acme") == 1
    assert panel.results["id"].tolist() == first_staff("acme")


def test_an_org_id_in_the_box_or_given_opens_that_company(fake_service, panel):
    record = emulator_companies.company("acme")
    assert record is not None
    search_companies_in(panel, f" {record['id']} ")
    assert fake_service.count(COMPANY_PATH, id=record["id"]) == 1
    assert panel.company.value == "acme"
    panel.load_employees(record["id"])  # the id's slug: a lookup (no cache here), then by slug
    assert fake_service.count(EMPLOYEES) == fake_service.count(EMPLOYEES, slug="acme") == 1
    assert panel.results["id"].tolist() == first_staff("acme")


def test_an_unknown_company_in_the_box_is_one_line(fake_service, panel):
    search_companies_in(panel, "https://www.linkedin.com/company/unknown-co/")
    assert "No company unknown-co" in text_of(panel.message.value)
    assert panel.results.empty and panel.employees_button.disabled is True
    assert panel.search_button.disabled is False and panel.busy.layout.display == "none"


def test_an_unknown_org_id_to_load_is_one_line_and_no_employees_asked(fake_service, panel):
    panel.load_employees("org_unknownco")
    assert_one_line_error(panel, "NotFoundError")
    assert fake_service.count(COMPANY_PATH, id="org_unknownco") == 1
    assert fake_service.count(EMPLOYEES) == 0
    assert panel.search_button.disabled is False and panel.busy.layout.display == "none"


@pytest.mark.parametrize(
    "act",
    [
        lambda p: search_companies_in(p, "https://acme.com"),
        lambda p: search_companies_in(p, "https://www.linkedin.com/in/ada/"),
        lambda p: p.load_employees("https://acme.com/about"),
        lambda p: p.load_employees("x"),
        lambda p: p.load_employees("   "),
    ],
    ids=["box-website", "box-person-page", "load-website", "load-short", "load-blank"],
)
def test_what_is_no_company_is_one_line_and_nothing_sent(fake_service, panel, act):
    act(panel)
    assert_one_line_error(panel, "UsageError")
    assert fake_service.count() == 0
    assert panel.search_button.disabled is False and panel.busy.layout.display == "none"


def test_employees_error_is_one_line_and_the_button_retries(fake_service, panel):
    search_companies_in(panel)
    slug = panel.results["slug"].iloc[0]
    panel.company.value = slug
    fake_service.override(EMPLOYEES, lambda req: server_error())
    panel.employees_button.click()  # must not raise
    assert_one_line_error(panel, "ServerError")
    assert panel.employees_button.disabled is False
    assert panel.company.disabled is False and panel.company.value == slug
    assert panel.busy.layout.display == "none"

    fake_service.override(EMPLOYEES, None)
    panel.employees_button.click()
    assert panel.message.value == ""
    assert fake_service.count(EMPLOYEES, slug=slug, status=200) == 1
    assert len(panel.results) == min(20, len(emulator_data.employees(slug)))


def test_company_search_error_is_one_line(fake_service, panel):
    fake_service.override(COMPANY_SEARCH, lambda req: rate_limited(3))
    search_companies_in(panel)
    assert_one_line_error(panel, "RateLimitError")
    assert panel.results.empty
    assert panel.company.disabled is True and panel.employees_button.disabled is True
    fake_service.override(COMPANY_SEARCH, None)
    panel.search_button.click()
    assert panel.message.value == "" and not panel.results.empty


def test_busy_while_company_calls_run(fake_service, panel):
    seen: list[tuple[bool, ...]] = []

    def watch(req):
        seen.append(
            (
                panel.search_button.disabled,
                panel.kind.disabled,
                panel.company.disabled,
                panel.employees_button.disabled,
                panel.busy.layout.display == "",
            )
        )
        return None  # the real route answers

    fake_service.override(COMPANY_SEARCH, watch)
    fake_service.override(EMPLOYEES, watch)
    search_companies_in(panel)
    panel.company.value = panel.results["slug"].iloc[0]
    panel.employees_button.click()
    assert seen == [(True,) * 5, (True,) * 5]
    assert panel.search_button.disabled is False and panel.kind.disabled is False
    assert panel.company.disabled is False and panel.employees_button.disabled is False
    assert panel.busy.layout.display == "none"


def test_no_widget_state_contains_the_key_companies():
    with FakeService(api_key=SECRET, rate_burst=50) as svc:
        client = lp.Client(api_key=SECRET, base_url=svc.base_url, cache=False, max_retries=0)
        panel = lp.SearchPanel(client, page_size=20)

        def snapshot(step: str) -> None:
            tree = all_widgets(panel)
            assert any(w is panel.company for w in tree)
            assert any(w is panel.employees_button for w in tree)
            for w in tree:
                state = json.dumps(w.get_state(), default=str)
                assert SECRET not in state, f"key in {type(w).__name__} state after {step}"

        try:
            search_companies_in(panel, MANY_COMPANIES)
            assert len(panel.results) == 20
            snapshot("company search")
            panel.more_button.click()
            snapshot("company load more")
            panel.company.value = panel.results["slug"].iloc[0]
            assert "lookup-company" in panel.company_view.value
            snapshot("pick")
            panel.employees_button.click()
            assert svc.count(EMPLOYEES) == 1 and not panel.results.empty
            snapshot("employees")

            svc.revoke_key(SECRET)
            panel.employees_button.click()
            assert_one_line_error(panel, "AuthenticationError")
            snapshot("employees auth failure")
            panel.search_button.click()
            assert_one_line_error(panel, "AuthenticationError")
            snapshot("company search auth failure")
            assert SECRET not in repr(panel)
        finally:
            panel.close()
            client.close()
