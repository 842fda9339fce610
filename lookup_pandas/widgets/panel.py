"""SearchPanel: search people by title, or companies by name, page by page, in a notebook.

Example:
    >>> import lookup_pandas as lp
    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> def answer(request):
    ...     if "/people/search" in request.url:
    ...         people = [{"id": "prsn_1", "handle": "ada", "headline": "Engineer"}]
    ...         page = {"limit": 50, "has_more": False, "next_cursor": None}
    ...         return 200, envelope(people, pagination=page)
    ...     if "/credits/tier/" in request.url:
    ...         return 200, envelope({"balance": 100, "current_tier": {"limit_per_minute": 600}})
    ...     return 404, envelope(None, success=False, message="no such route")
    >>> client = lp.Client(api_key="lk_example", base_url="http://service.test", cache=False,
    ...                    transport=MockTransport(answer))
    >>> panel = lp.SearchPanel(client)  # the last line of a cell shows it
    >>> panel.title.value = "engineer"
    >>> panel.search()  # what Enter and Search do
    >>> panel.results[["handle", "headline"]]
      handle  headline
    0    ada  Engineer
    >>> panel.has_more, panel.message.value
    (False, '')
    >>> client.close()
"""

from __future__ import annotations

import contextlib
import html
import logging
from collections.abc import Iterator
from typing import Any

import ipywidgets as widgets
import pandas as pd

from ..api.listings import company_query, query_value
from ..client.client import Client, resolve_client
from ..client.pagination import PagePlan, read_page
from ..frames.overview import OVERVIEW_COLUMNS, current_position, full_name, summary
from ..frames.records import records_to_frame
from ..identifiers.companies import checked_company, names_one_company, normalise_company
from ..identifiers.queries import MIN_TEXT, check_listing
from ..service.listings import COMPANY_SEARCH, EMPLOYEES, SEARCH, Listing
from .company_controls import (
    COMPANIES,
    COMPANY_COLUMNS,
    PEOPLE,
    CompanyControls,
    company_summary,
    replace_options,
)

logger = logging.getLogger(__name__)

__all__ = ["SearchPanel"]

MIN_TITLE = MIN_TEXT  # production's shortest text filter (lookup_pandas.identifiers.queries)
#: (key of :func:`~lookup_pandas.frames.overview.summary`, label) of the people's table.
TABLE_COLUMNS = [(key, key.title()) for key in OVERVIEW_COLUMNS]
#: What the text box asks for, by the toggle: its label, its placeholder, what a short text lacks.
TEXT_BOX = {
    PEOPLE: ("Title", "Job title, e.g. data scientist (Enter to search)", "a job title"),
    COMPANIES: ("Company", "Company name, e.g. labs (Enter to search)", "a company name"),
}


def _cell(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def people_filters(filters: dict[str, Any]) -> dict[str, Any]:
    """People-search filters as they are sent, checked: a UsageError for what production refuses.

    >>> people_filters({"headline": "founder", "current_only": True, "skills": None})
    {'headline': 'founder', 'current_only': 'true'}
    """
    sent = {k: query_value(v) for k, v in filters.items() if v is not None}
    if sent:
        check_listing(SEARCH, sent)
    return sent


class SearchPanel(widgets.VBox):
    """A search panel: People or Companies, a text box, Search, Load more, results, a detail view.

    For companies it has a picker, the chosen company's card and "Load employees". Load more is
    enabled only while the service says ``has_more``, and loads exactly the next page. Every
    failure becomes a one-line message in the panel, which stays usable.

    Example: ``lp.SearchPanel(page_size=20)``, as the last line of a cell.

    ``filters`` are people-search filters (``lp.search_people``'s) added to every people search:
    ``lp.SearchPanel(headline="founder", geo_country_code="DE")``. With one, the title box may be
    left empty, since production makes every filter optional. They are checked at once: a
    UsageError for a name or value production refuses.
    """

    def __init__(
        self, client: Client | None = None, *, page_size: int = 50, **filters: Any
    ) -> None:
        self.filters = people_filters(filters)
        self._client_arg = client
        self._records: list[dict[str, Any]] = []
        self._plan: PagePlan | None = None
        self._listing: Listing = SEARCH  # what the loaded records are: people, companies, staff
        self._about = ""  # " companies", " employees of acme": said in the summary line
        self._next: dict[str, Any] | None = None

        # The value syncs as the user types (nothing runs); Enter sends the Text widget's
        # "submit" message, which searches. (Observing value with continuous_update=False would
        # also search on blur, so typing and then clicking Search would search twice.)
        self.kind = widgets.ToggleButtons(
            options=[PEOPLE, COMPANIES], value=PEOPLE, layout={"width": "auto"}
        )
        label, placeholder, _ = TEXT_BOX[PEOPLE]
        self.title = widgets.Text(
            placeholder=placeholder,
            description=label,
            continuous_update=True,
            layout={"width": "26em"},
        )
        self.page_size = widgets.BoundedIntText(
            value=page_size, min=1, max=50, description="Page size", layout={"width": "11em"}
        )
        self.search_button = widgets.Button(
            description="Search", button_style="primary", icon="search"
        )
        self.more_button = widgets.Button(description="Load more", disabled=True)
        self.busy = widgets.HTML("<i>loading…</i>", layout=widgets.Layout(display="none"))
        self.message = widgets.HTML()
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.person = widgets.Dropdown(
            options=[], description="Profile", disabled=True, layout={"width": "34em"}
        )
        self.profile_view = widgets.HTML()
        self.companies = CompanyControls()
        self.company = self.companies.picker
        self.company_view = self.companies.view
        self.employees_button = self.companies.button

        self._wire()
        super().__init__(
            [
                self.kind,
                widgets.HBox(
                    [self.title, self.page_size, self.search_button, self.more_button, self.busy]
                ),
                self.message,
                self.summary,
                self.table,
                self.companies.box,
                self.person,
                self.profile_view,
            ]
        )
        self.add_class("lookup-search-panel")

    # -- what the user and the tests see ---------------------------------------------------

    @property
    def results(self) -> pd.DataFrame:
        """Everything loaded so far, with the columns of the listing function that loads it.

        That is ``lp.search_people`` for people, ``lp.company_employees`` for a company's employees,
        and ``lp.search_companies`` for companies.
        """
        return records_to_frame(self._records)

    @property
    def has_more(self) -> bool:
        return self._next is not None

    def search(self) -> None:
        """Start a new search with the box's text: what Enter and Search do.

        People by job title and the panel's ``filters`` (an empty box: by the filters alone), or
        companies by name when the toggle says Companies. A company page URL or an ``org_`` id
        there opens that one company.
        """
        companies = self.kind.value == COMPANIES
        text = self.title.value.strip()
        if not text and self.filters and not companies:
            self._start(SEARCH, dict(self.filters), "")
            return
        if len(text) < MIN_TITLE:
            self._say(f"Type at least {MIN_TITLE} characters of {TEXT_BOX[self.kind.value][2]}.")
            return
        if companies and names_one_company(text):
            self._open_company(text)
        elif companies:
            self._start(COMPANY_SEARCH, {"name": text}, " companies")
        else:
            self._start(SEARCH, {**self.filters, "title": text}, "")

    def load_employees(self, company: str | None = None) -> None:
        """Replace the results with a company's employees, page by page (Load more continues).

        Without ``company``, the picked company's: what "Load employees" does. ``company`` takes any
        form ``lp.company_employees`` takes (``"ACME"``, a company page URL, an ``org_`` id).

        Example: ``panel.load_employees("ACME")``
        """
        if company is None:
            record = self.companies.chosen()
            if record is None:
                self._say("Pick a company first.")
                return
            company = record["slug"]
            name = company_summary(record)["name"] or record["slug"]
        else:
            name = normalise_company(company) or str(company).strip()
        self._start(EMPLOYEES, {"slug": company}, f" employees of {name}")

    def load_more(self) -> None:
        """Load exactly the next page of the current search."""
        if self._next is not None:
            self._load_page()

    # -- internals -------------------------------------------------------------------------

    def _wire(self) -> None:
        self.title.on_msg(self._on_title_msg)
        self.search_button.on_click(lambda _: self.search())
        self.more_button.on_click(lambda _: self.load_more())
        self.person.observe(self._on_person, names="value")
        self.kind.observe(self._on_kind, names="value")
        self.employees_button.on_click(lambda _: self.load_employees())

    def _start(self, listing: Listing, query: dict[str, Any], about: str) -> None:
        query = {**query, "limit": int(self.page_size.value)}
        sent = None
        with self._working("search"):
            check_listing(listing, query)  # what lp.search_people & co refuse, refused here too
            sent = company_query(listing, query, self._client_arg)  # an org_ id's slug...
        if sent is None:  # refused, or the lookup an org_ id needs failed: said in one line
            return
        self._listing, self._about = listing, about
        self._records = []
        self._plan = PagePlan(style=None)
        self._next = self._plan.first(sent)
        self.profile_view.value = ""
        self._load_page()

    def _open_company(self, text: str) -> None:
        """Show the one company ``text`` names as the only result, picked, its employees ready.

        A not-found is said in one line.
        """
        with self._working("company lookup"):
            value = checked_company(text)  # what is no company: a UsageError, in one line
            record = resolve_client(self._client_arg).company(value)
            if record is None:
                self._say(f"No company {value}: the service does not know it.")
            else:
                self._listing, self._about = COMPANY_SEARCH, " company"
                self._records, self._plan, self._next = [record], None, None
                self.profile_view.value = ""
                self._render()
                if record.get("slug"):
                    self.company.value = record["slug"]

    def _on_kind(self, change: dict[str, Any]) -> None:
        self.title.description, self.title.placeholder, _ = TEXT_BOX[change["new"]]
        self.companies.show(change["new"] == COMPANIES)

    def _on_title_msg(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        if content.get("event") == "submit":  # Enter in the title box
            self.search()

    def _say(self, text: str) -> None:
        self.message.value = (
            f'<span class="lookup-message" style="color:#b00020">{html.escape(text)}</span>'
            if text
            else ""
        )

    @contextlib.contextmanager
    def _working(self, what: str) -> Iterator[None]:
        """Busy meanwhile, the message cleared: a failure is one line in it, never a traceback."""
        self._busy(True)
        self._say("")
        try:
            yield
        except Exception as exc:
            self._say(_one_line(exc))
            logger.debug("%s failed", what, exc_info=True)
        finally:
            self._busy(False)

    def _busy(self, on: bool) -> None:
        self.busy.layout.display = "" if on else "none"
        self.search_button.disabled = on
        self.kind.disabled = on
        self.more_button.disabled = on or self._next is None
        self.person.disabled = on or self._listing is COMPANY_SEARCH or not self._records
        self.companies.busy(on)

    def _load_page(self) -> None:
        assert self._plan is not None and self._next is not None
        params = self._next
        if not self._records:
            self._next = None  # a failed first page: Search again, not Load more
        with self._working("search"):
            try:  # the same page walk as Client.paginate, one page per click
                request = resolve_client(self._client_arg).parts.sender.request
                records, pagination = read_page(request, self._listing.path, params, self._plan)
                self._next = self._plan.next(params, pagination, len(records))
                self._records.extend(records)
            finally:
                self._render()

    def _render(self) -> None:
        n = len(self._records)
        more = "more available" if self._next is not None else "all loaded"
        about = html.escape(self._about)
        self.summary.value = f'<span class="lookup-summary">loaded {n}{about} · {more}</span>'
        if self._listing is COMPANY_SEARCH:
            self.companies.set_records(self._records)
            self.table.value = _table([company_summary(r) for r in self._records], COMPANY_COLUMNS)
            shown = []
        else:
            shown = [summary(r) for r in self._records]
            self.table.value = _table(shown, TABLE_COLUMNS)
        replace_options(self.person, shown, "handle", "headline", self._on_person)

    def _on_person(self, change: dict[str, Any]) -> None:
        handle = change.get("new")
        if not handle:
            self.profile_view.value = ""
            return
        with self._working("profile"):
            record = resolve_client(self._client_arg).profile(handle)
            if record is None:
                self.profile_view.value = f"<p>No profile for {html.escape(handle)}.</p>"
            else:
                self.profile_view.value = _profile_html(record)


def _table(shown: list[dict[str, str | None]], columns: list[tuple[str, str]]) -> str:
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(s[key]))}</td>" for key, _ in columns) + "</tr>"
        for s in shown
    )
    head = "".join(f"<th>{label}</th>" for _, label in columns)
    return (
        '<div style="max-height:22em;overflow:auto">'
        f'<table class="lookup-results"><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def _when(date: Any) -> str:
    """A position's date as text: the year and month, a bare year, or "" when unknown.

    Example:
        >>> _when({"year": 2021, "month": 3}), _when({"year": 2021}), _when(None)
        ('2021-03', '2021', '')
    """
    if not isinstance(date, dict) or date.get("year") is None:
        return ""
    month = date.get("month")
    return f"{date['year']}-{month:02d}" if isinstance(month, int) else str(date["year"])


def _profile_html(p: dict[str, Any]) -> str:
    """The detail view, from whatever the record has: a missing field is left out."""
    esc = html.escape
    geo: dict[str, Any] = p["geo"] if isinstance(p.get("geo"), dict) else {}
    place = ", ".join(str(x) for x in (geo.get("city"), geo.get("country")) if x)
    current = current_position(p.get("positions"))
    items = []
    for pos in p.get("positions") or []:
        if not isinstance(pos, dict):
            continue
        org: dict[str, Any] = (
            pos["organization"] if isinstance(pos.get("organization"), dict) else {}
        )
        start, end = _when(pos.get("start_date")), _when(pos.get("end_date"))
        span = f" ({start}–{end or ('now' if pos is current else '')})" if start else ""
        at = f" at {esc(_cell(org.get('name')))}" if org.get("name") else ""
        items.append(f"<li>{esc(_cell(pos.get('title')))}{at}{esc(span)}</li>")
    skills = ", ".join(esc(str(s)) for s in p.get("skills") or [] if isinstance(s, str))
    counts = [
        f"{esc(_cell(p.get(k)))} {label}"
        for k, label in (("connection_count", "connections"), ("follower_count", "followers"))
        if p.get(k) is not None
    ]
    name = full_name(p.get("first_name"), p.get("last_name")) or _cell(p.get("handle"))
    parts = [f"<h3>{esc(name)}</h3>"]
    lines = [esc(_cell(p.get("headline"))), esc(place)]
    if any(lines):
        parts.append("<p>" + "<br>".join(x for x in lines if x) + "</p>")
    if items:
        parts.append(f"<ul>{''.join(items)}</ul>")
    if skills:
        parts.append(f"<p><b>Skills:</b> {skills}</p>")
    ident = f"id {esc(_cell(p.get('id')))}"
    parts.append(f"<p>{' · '.join([*counts, ident])}</p>")
    return f'<div class="lookup-profile">{"".join(parts)}</div>'
