"""The SearchPanel's companies side: the company picker, the chosen company's card, its button.

Picking a company sends nothing: the card is built from the record the search returned.

Example:
    >>> side = CompanyControls()
    >>> side.set_records([{"name": "Blue Labs", "slug": "blue-labs", "industry": "Software"}])
    >>> side.picker.value = "blue-labs"  # the card shows the company
    >>> side.chosen()["name"], side.button.disabled
    ('Blue Labs', False)
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets

__all__ = [
    "COMPANIES",
    "COMPANY_COLUMNS",
    "PEOPLE",
    "CompanyControls",
    "company_summary",
    "replace_options",
]

PEOPLE = "People"
COMPANIES = "Companies"
#: (key of :func:`company_summary`, label) of the results table for a companies search.
COMPANY_COLUMNS = [
    ("name", "Name"),
    ("industry", "Industry"),
    ("employees", "Employees"),
    ("hq", "HQ"),
    ("slug", "Slug"),
]


def replace_options(
    dropdown: widgets.Dropdown,
    shown: Sequence[Mapping[str, str | None]],
    key: str,
    detail: str,
    on_pick: Callable[[dict[str, Any]], None],
) -> None:
    """New options for ``dropdown``, its value kept when it is still among them.

    The empty choice, then one option per summary in ``shown`` with a ``key``: its name (else
    its key) and its ``detail``. ``on_pick``, the observer of its value, is not told: replacing
    them is no one's choice.

    Example:
        >>> told = []
        >>> pick = widgets.Dropdown(options=[("Ada", "ada"), ("Grace", "grace")], value="grace")
        >>> pick.observe(told.append, names="value")
        >>> shown = [{"name": "Grace", "handle": "grace", "headline": "Admiral"},
        ...          {"name": None, "handle": "linus", "headline": None}]
        >>> replace_options(pick, shown, "handle", "headline", told.append)
        >>> pick.options, pick.value, told
        ((('', None), ('Grace — Admiral', 'grace'), ('linus', 'linus')), 'grace', [])
    """
    options = [("", None)] + [
        (" — ".join(x for x in (s["name"] or s[key], s[detail]) if x), s[key])
        for s in shown
        if s[key]
    ]
    current = dropdown.value
    dropdown.unobserve(on_pick, names="value")
    dropdown.options = options
    if current in {value for _, value in options}:
        dropdown.value = current
    dropdown.observe(on_pick, names="value")


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


def company_summary(record: Mapping[str, Any]) -> dict[str, str | None]:
    """Name, industry, employees, HQ and slug of a nested company record (None where missing).

    ``employees`` is the count, else the range.

    Example:
        >>> summary = company_summary({"name": "Blue Labs", "employee_count_range": "51-200",
        ...                            "hq": {"city": "Berlin", "country_code": "DE"}})
        >>> summary["employees"], summary["hq"], summary["slug"]
        ('51-200', 'Berlin, DE', None)
    """
    hq = record.get("hq")
    hq = hq if isinstance(hq, Mapping) else {}
    place = ", ".join(str(x) for x in (hq.get("city"), hq.get("country_code")) if x)
    count = record.get("employee_count")
    return {
        "name": _text(record.get("name")),
        "industry": _text(record.get("industry")),
        "employees": _text(count if count is not None else record.get("employee_count_range")),
        "hq": place or None,
        "slug": _text(record.get("slug")),
    }


def company_html(record: Mapping[str, Any]) -> str:
    """The chosen company's card: what the record has (name, industry, HQ, founded...), slug and id.

    A missing field is left out.
    """
    esc = html.escape
    s = company_summary(record)
    facts = [
        ("Industry", s["industry"]),
        ("Employees", s["employees"]),
        ("HQ", s["hq"]),
        ("Founded", _text(record.get("founded"))),
        ("Website", _text(record.get("website"))),
    ]
    rows = "".join(f"<tr><th>{k}</th><td>{esc(v)}</td></tr>" for k, v in facts if v)
    parts = [f"<h3>{esc(s['name'] or s['slug'] or '')}</h3>"]
    tagline = _text(record.get("tagline"))
    if tagline:
        parts.append(f"<p><i>{esc(tagline)}</i></p>")
    if rows:
        parts.append(f"<table>{rows}</table>")
    ident = [
        f"{k} {esc(v)}" for k, v in (("slug", s["slug"]), ("id", _text(record.get("id")))) if v
    ]
    parts.append(f"<p>{' · '.join(ident)}</p>")
    return f'<div class="lookup-company">{"".join(parts)}</div>'


class CompanyControls:
    """The company picker, the chosen company's card and the employees button, in ``box``.

    The picker has one option per company with a slug, and the empty choice. ``box`` is hidden
    while the panel searches people.
    """

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.picker = widgets.Dropdown(
            options=[], description="Company", disabled=True, layout=widgets.Layout(width="30em")
        )
        self.button = widgets.Button(description="Load employees", icon="users", disabled=True)
        self.view = widgets.HTML()
        self.box = widgets.VBox(
            [widgets.HBox([self.picker, self.button]), self.view],
            layout=widgets.Layout(display="none"),
        )
        self.picker.observe(self._on_pick, names="value")

    def show(self, on: bool) -> None:
        self.box.layout.display = "" if on else "none"

    def chosen(self) -> dict[str, Any] | None:
        slug = self.picker.value
        return next((r for r in self.records if slug and r.get("slug") == slug), None)

    def set_records(self, records: list[dict[str, Any]]) -> None:
        """The companies to pick from. The current choice stays when it is still among them."""
        self.records = list(records)
        shown = [company_summary(r) for r in self.records]
        replace_options(self.picker, shown, "slug", "industry", self._on_pick)
        self._show_chosen()

    def busy(self, on: bool) -> None:
        self.picker.disabled = on or not self.records
        self.button.disabled = on or self.chosen() is None

    def _on_pick(self, _change: dict[str, Any]) -> None:
        self._show_chosen()
        self.button.disabled = self.chosen() is None

    def _show_chosen(self) -> None:
        record = self.chosen()
        self.view.value = "" if record is None else company_html(record)
