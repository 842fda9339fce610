"""SearchPanel: search people by title in a notebook, page by page, and open a profile.

Example::

    panel = lp.SearchPanel()       # the default client (LOOKUP_* variables or lp.configure)
    panel                          # last line of a cell: type a title, Enter or Search
    panel.results                  # a DataFrame of everything loaded so far

There is deliberately no API-key box: a key typed into a widget is saved in the notebook's
widget state. The client lives in Python only, never in a synced trait, and every message the
panel shows is built from error texts that do not contain the key.
"""

from __future__ import annotations

import html
import logging
from typing import Any

import ipywidgets as widgets
import pandas as pd

from .client import SEARCH_PATH, Client, resolve_client
from .errors import ServiceError
from .frames import records_to_frame
from .pagination import PagePlan

logger = logging.getLogger(__name__)

__all__ = ["SearchPanel"]

MIN_TITLE = 3
TABLE_COLUMNS = [("full_name", "Name"), ("title", "Title"), ("company.name", "Company"),
                 ("geo.city", "City"), ("handle", "Handle")]


def _cell(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


class SearchPanel(widgets.VBox):
    """A people-search panel: title box, page size, Search, Load more, results, profile view.

    Load more is enabled only while the service says ``has_more``; each click loads exactly the
    next page (cursors passed back unchanged). While a call runs the buttons are disabled and
    a "loading" line shows. Every failure (authentication, rate limit, validation, network)
    becomes a one-line message here, and the panel stays usable.
    """

    def __init__(self, client: Client | None = None, *, page_size: int = 50) -> None:
        self._client_arg = client
        self._records: list[dict[str, Any]] = []
        self._plan: PagePlan | None = None
        self._next: dict[str, Any] | None = None
        self._rendering = False  # the picker's options are being replaced: not a user choice

        # The value syncs as the user types (nothing runs); Enter sends the Text widget's
        # "submit" message, which searches. (Observing value with continuous_update=False would
        # also search on blur, so typing and then clicking Search would search twice.)
        self.title = widgets.Text(
            placeholder="Job title, e.g. data scientist (Enter to search)",
            description="Title", continuous_update=True,
            layout=widgets.Layout(width="26em"),
        )
        self.page_size = widgets.BoundedIntText(
            value=page_size, min=1, max=50, description="Page size",
            layout=widgets.Layout(width="11em"),
        )
        self.search_button = widgets.Button(description="Search", button_style="primary",
                                            icon="search")
        self.more_button = widgets.Button(description="Load more", disabled=True)
        self.busy = widgets.HTML("<i>loading…</i>", layout=widgets.Layout(display="none"))
        self.message = widgets.HTML()
        self.summary = widgets.HTML()
        self.table = widgets.HTML()
        self.person = widgets.Dropdown(options=[], description="Profile", disabled=True,
                                       layout=widgets.Layout(width="34em"))
        self.profile_view = widgets.HTML()

        self.title.on_msg(self._on_title_msg)
        self.search_button.on_click(lambda _: self.search())
        self.more_button.on_click(lambda _: self.load_more())
        self.person.observe(self._on_person, names="value")

        super().__init__([
            widgets.HBox([self.title, self.page_size, self.search_button, self.more_button,
                          self.busy]),
            self.message,
            self.summary,
            self.table,
            self.person,
            self.profile_view,
        ])
        self.add_class("lookup-search-panel")

    # -- what the user and the tests see ---------------------------------------------------

    @property
    def results(self) -> pd.DataFrame:
        """Everything loaded so far, with the same columns as ``lp.search_people``."""
        return records_to_frame(self._records)

    @property
    def has_more(self) -> bool:
        return self._next is not None

    def search(self) -> None:
        """Start a new search with the title box's text (what Enter and Search do)."""
        title = self.title.value.strip()
        if len(title) < MIN_TITLE:
            self._say(f"Type at least {MIN_TITLE} characters of a job title.")
            return
        self._records = []
        self._plan = PagePlan(style=None)
        self._next = self._plan.first({"title": title, "limit": int(self.page_size.value)})
        self.profile_view.value = ""
        self._load_page()

    def load_more(self) -> None:
        """Load exactly the next page of the current search."""
        if self._next is not None:
            self._load_page()

    # -- internals -------------------------------------------------------------------------

    def _on_title_msg(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        if content.get("event") == "submit":  # Enter in the title box
            self.search()

    def _say(self, text: str, *, error: bool = True) -> None:
        color = "#b00020" if error else "inherit"
        self.message.value = (
            f'<span class="lookup-message" style="color:{color}">{html.escape(text)}</span>'
            if text else ""
        )

    def _busy(self, on: bool) -> None:
        self.busy.layout.display = "" if on else "none"
        self.search_button.disabled = on
        self.more_button.disabled = on or self._next is None
        self.person.disabled = on or not self._records

    def _load_page(self) -> None:
        assert self._plan is not None and self._next is not None
        params = self._next
        self._busy(True)
        self._say("")
        try:
            body = resolve_client(self._client_arg).get(SEARCH_PATH, params)
            records = body.get("data")
            if not isinstance(records, list):
                raise ServiceError("The search answer's data is not a list.")
            self._next = self._plan.next(params, body.get("pagination"), len(records))
            self._records.extend(records)
        except Exception as exc:  # every failure is one line in the panel, never a traceback
            self._say(_one_line(exc))
            logger.debug("search failed", exc_info=True)
            if not self._records:
                self._next = None  # a failed first page: Search again, not Load more
        finally:
            self._busy(False)
            self._render()

    def _render(self) -> None:
        n = len(self._records)
        more = "more available" if self._next is not None else "all loaded"
        self.summary.value = f'<span class="lookup-summary">loaded {n} · {more}</span>'
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(_cell(_get(r, key)))}</td>"
                             for key, _ in TABLE_COLUMNS) + "</tr>"
            for r in self._records
        )
        head = "".join(f"<th>{label}</th>" for _, label in TABLE_COLUMNS)
        self.table.value = (
            '<div style="max-height:22em;overflow:auto">'
            f'<table class="lookup-results"><thead><tr>{head}</tr></thead>'
            f"<tbody>{rows}</tbody></table></div>"
        )
        options = [("", None)] + [
            (f"{_cell(r.get('full_name'))} — {_cell(r.get('title'))}", r.get("handle"))
            for r in self._records if r.get("handle")
        ]
        current = self.person.value
        self._rendering = True  # replacing options resets the value: that is not a new choice
        try:
            self.person.options = options
            if current in {v for _, v in options}:
                self.person.value = current
        finally:
            self._rendering = False

    def _on_person(self, change: dict[str, Any]) -> None:
        if self._rendering:
            return
        handle = change.get("new")
        if not handle:
            self.profile_view.value = ""
            return
        self._busy(True)
        try:
            record = resolve_client(self._client_arg).profile(handle)
            if record is None:
                self.profile_view.value = f"<p>No profile for {html.escape(handle)}.</p>"
            else:
                self.profile_view.value = _profile_html(record)
            self._say("")
        except Exception as exc:
            self._say(_one_line(exc))
            logger.debug("profile failed", exc_info=True)
        finally:
            self._busy(False)


def _get(record: dict[str, Any], dotted: str) -> Any:
    value: Any = record
    for part in dotted.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def _profile_html(p: dict[str, Any]) -> str:
    esc = html.escape
    geo = p.get("geo") or {}
    place = ", ".join(str(x) for x in (geo.get("city"), geo.get("country")) if x)
    positions = "".join(
        f"<li>{esc(_cell(pos.get('title')))} at "
        f"{esc(_cell((pos.get('organization') or {}).get('name')))} "
        f"({esc(_cell(pos.get('start_year')))}–{esc(_cell(pos.get('end_year')) or 'now')})</li>"
        for pos in p.get("positions") or []
    )
    skills = ", ".join(esc(str(s)) for s in p.get("skills") or [])
    counts = p.get("counts") or {}
    return (
        f'<div class="lookup-profile"><h3>{esc(_cell(p.get("full_name")))}</h3>'
        f"<p>{esc(_cell(p.get('headline')))}<br>{esc(place)}</p>"
        f"<ul>{positions}</ul><p><b>Skills:</b> {skills}</p>"
        f"<p>{esc(_cell(counts.get('connections')))} connections · "
        f"{esc(_cell(counts.get('followers')))} followers · id {esc(_cell(p.get('id')))}</p></div>"
    )
