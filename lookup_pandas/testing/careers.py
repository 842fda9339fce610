"""A person's career as their record shows it: tenure, companies, function, job changes.

Example::

    career = Career(data.person("ada"))
    career.tenure_years, career.company_count, career.is_boomerang   # whole years, counts, bool
    career.function                      # "engineering": the current position's title's
    career.latest_change                 # Change("joined", date(...), position): the newest one
    changes(data.person("ada"))          # every job change, as the job-change feed dates them

Years are whole years (rounded down) up to ``REFERENCE_DATE``, the day the records are dated
from; a position that starts later (a move made while the emulator runs) counts none. A record
that shows no positions has no career: each reading is None, and matches no filter.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any, NamedTuple

from .company_records import industry
from .people import head_count
from .vocab import _NOW, FUNCTIONS, REFERENCE_DATE, TITLES

__all__ = ["Career", "Change", "changes", "event_id", "function_of", "today"]


def today() -> dt.date:
    """The job-change feed's "today": the real UTC date, as the library counts ``days_ago``.

    >>> today() > REFERENCE_DATE
    True
    """
    return dt.datetime.now(dt.UTC).date()


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


def event_id(handle: str, kind: str, slug: str, when: dt.date, key: tuple[str, ...] = ()) -> str:
    """The id of ``handle``'s ``kind`` event at company ``slug`` on ``when`` (``key`` tells apart
    two such events on one day), as the job-change feed gives it.

    >>> event_id("ada", "joined", "acme", REFERENCE_DATE)[:4]
    'jce_'
    """
    return "jce_" + _digest("event", handle, kind, slug, when.isoformat(), *key).hex()[:16]


class Change(NamedTuple):
    """One job change: its type (joined, left, title_change), its day, the position it is about,
    the title before a title change, and its id in the feed."""

    kind: str
    when: dt.date
    position: Mapping[str, Any]
    previous_title: str | None
    id: str


def _day(month: Mapping[str, int], handle: str, kind: str) -> dt.date:
    day = 1 + _digest("event-day", handle, kind)[0] % 28
    return dt.date(month["year"], month["month"], day)


def _change(handle: str, kind: str, pos: Mapping[str, Any], when: dt.date,
            before: str | None = None) -> Change:  # fmt: skip
    return Change(
        kind, when, pos, before, event_id(handle, kind, pos["organization"]["slug"], when)
    )


def changes(record: Mapping[str, Any]) -> list[Change]:
    """The job changes ``record``'s positions show, as the feed dates the population's own:
    ``joined`` on a day of the month a position began, ``left`` on a day of the month one ended,
    and for about one current position in four a ``title_change`` halfway from its start to
    ``REFERENCE_DATE`` (from one of ``TITLES``).

    >>> sorted({c.kind for c in changes({"handle": "x", "positions": []})})
    []
    """
    handle = str(record["handle"])
    out = []
    for pos in record.get("positions", ()):
        joined = _day(pos["start_date"], handle, "joined")
        out.append(_change(handle, "joined", pos, joined))
        if pos["end_date"] is not None:
            out.append(_change(handle, "left", pos, _day(pos["end_date"], handle, "left")))
        elif _digest("title-change", handle)[0] % 4 == 0:
            before = TITLES[_digest("old-title", handle)[0] % len(TITLES)]
            if before != pos["title"]:
                when = joined + (REFERENCE_DATE - joined) / 2
                out.append(_change(handle, "title_change", pos, when, before))
    return out


def function_of(title: str) -> str | None:
    """The job function of ``title``: that of the longest of ``FUNCTIONS``' titles it holds
    (case-insensitive), None when it holds none.

    >>> function_of("Senior Data Engineer"), function_of("Staff Designer"), function_of("Chef")
    ('engineering', 'design', None)
    """
    lowered = title.lower()
    held = [known for known in FUNCTIONS if known.lower() in lowered]
    return FUNCTIONS[max(held, key=len)] if held else None


def _month(date: Mapping[str, int]) -> int:
    return int(date["year"]) * 12 + int(date["month"]) - 1


def _years(months: int) -> int:
    return max(0, months) // 12


class Career:
    """What ``record`` shows of a career, each reading made once, when first read.

    ``events``: job-change events (as the feed sends them, in the order they happened) that
    name the person; when any do, the latest of them is the latest change (a person who moved
    while the emulator runs: on the day of a move, the company joined counts after the one
    left), else the latest of :func:`changes`.
    """

    def __init__(self, record: dict[str, Any], events: Iterable[Mapping[str, Any]] = ()) -> None:
        self.record = record
        handle = record.get("handle")
        self._events = [e for e in events if e["person"]["handle"] == handle]

    @cached_property
    def positions(self) -> Sequence[Mapping[str, Any]] | None:
        """The record's positions, newest first; None when it shows none."""
        positions = self.record.get("positions")
        return positions if isinstance(positions, list) else None

    @cached_property
    def current(self) -> Mapping[str, Any] | None:
        """The current position (the first one, when it is current)."""
        positions = self.positions or []
        return positions[0] if positions and positions[0]["is_current"] else None

    @cached_property
    def tenure_years(self) -> int | None:
        """Whole years in the current position; None when there is none."""
        now = self.current
        return None if now is None else _years(_NOW - _month(now["start_date"]))

    @cached_property
    def experience_years(self) -> int | None:
        """Whole years since the first position began."""
        if not self.positions:
            return None
        return _years(_NOW - min(_month(p["start_date"]) for p in self.positions))

    @cached_property
    def company_count(self) -> int | None:
        """How many distinct organizations the positions name."""
        return None if self.positions is None else len(self._slugs(self.positions))

    @cached_property
    def current_company_count(self) -> int | None:
        """How many distinct organizations the current positions name."""
        if self.positions is None:
            return None
        return len(self._slugs(p for p in self.positions if p["is_current"]))

    @cached_property
    def is_boomerang(self) -> bool | None:
        """Whether the person went back to an organization after working at another."""
        if self.positions is None:
            return None
        runs: list[str] = []
        for pos in reversed(self.positions):  # oldest first
            slug = pos["organization"]["slug"]
            if not runs or runs[-1] != slug:
                runs.append(slug)
        return len(set(runs)) < len(runs)

    @cached_property
    def function(self) -> str | None:
        """The job function of the current position's title."""
        return None if self.current is None else function_of(self.current["title"])

    @cached_property
    def function_years(self) -> int | None:
        """Whole years in positions of the current position's function, ended ones included."""
        if self.function is None or self.positions is None:
            return None
        months = 0
        for pos in self.positions:
            if function_of(pos["title"]) == self.function:
                end = _NOW if pos["end_date"] is None else min(_NOW, _month(pos["end_date"]))
                months += max(0, end - _month(pos["start_date"]))
        return _years(months)

    @cached_property
    def company(self) -> str | None:
        """The slug of the current position's organization."""
        return None if self.current is None else str(self.current["organization"]["slug"])

    @cached_property
    def industry(self) -> str | None:
        """The current company's industry, as its company record gives it."""
        return None if self.company is None else industry(self.company)

    @cached_property
    def company_size(self) -> int | None:
        """The current company's head count (its employees list and record)."""
        return None if self.company is None else head_count(self.company)

    @cached_property
    def latest_change(self) -> tuple[str, dt.date] | None:
        """(type, day) of the latest job change: the newest by day, then by feed id (the
        feed's order); None when the record shows none."""
        if self._events:  # a move: the company joined (or the new title) after the one left
            _, e = max(
                enumerate(self._events),
                key=lambda n_e: (n_e[1]["detected_at"], n_e[1]["event_type"] != "left", n_e[0]),
            )
            return str(e["event_type"]), dt.date.fromisoformat(e["detected_at"])
        if not self.positions:
            return None
        latest = max(changes(self.record), key=lambda c: (c.when, c.id))
        return latest.kind, latest.when

    @staticmethod
    def _slugs(positions: Iterable[Mapping[str, Any]]) -> set[str]:
        return {str(p["organization"]["slug"]) for p in positions}
