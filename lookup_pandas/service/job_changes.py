"""Production's job-change feed, read: each event's person, organisation, day and identity.

Production documents the feed's filters (``organization_ids``, ``days_ago``) but not its
events' fields. An event names the person (``id``, ``handle``) and the organisation; its date's
name differs between servers (the emulator says ``detected_at``). :func:`read_event` takes
whichever of the usual names an event carries.

>>> import datetime as dt
>>> today = dt.date(2026, 11, 27)
>>> event = read_event({"id": "jce_1", "event_type": "left", "detected_at": "2026-11-20",
...                     "person": {"id": "prsn_1", "handle": "Ada"},
...                     "organization": {"id": "org_1"}}, today)
>>> event.person_id, event.handle, event.organization_id, event.day, event.key, event.kind
('prsn_1', 'Ada', 'org_1', datetime.date(2026, 11, 20), 'jce_1', 'left')
>>> read_event({"person_id": "prsn_2", "date": "not a date"}, today).day  # unreadable: today
datetime.date(2026, 11, 27)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DATE_FIELDS", "MAX_DAYS_AGO", "JobChange", "days_ago", "read_event"]

#: The names an event's date goes by, tried in this order.
DATE_FIELDS = (
    "detected_at",
    "date",
    "event_date",
    "changed_at",
    "occurred_at",
    "created_at",
    "timestamp",
    "updated_at",
)
#: The feed's widest window: ``days_ago`` is 1-365.
MAX_DAYS_AGO = 365


@dataclass(frozen=True, slots=True)
class JobChange:
    """One event of the feed: whom it is about, where, on which day, and its identity.

    ``key`` is the event's ``id``, else a digest of the event as sent: the same event read
    twice has the same key.
    """

    key: str
    person_id: str | None
    handle: str | None
    organization_id: str | None
    day: dt.date
    #: ``joined``, ``left``, ``title_change`` (lower case), or None when the event says none.
    kind: str | None = None


def read_event(raw: Mapping[str, Any], today: dt.date) -> JobChange:
    """``raw`` read. An event whose date cannot be read counts as dated ``today``.

    The person is ``raw["person"]`` (or ``profile``), else top-level ``person_id`` /
    ``handle``. See the module's example.
    """
    person = _mapping(raw, "person", "profile")
    organization = _mapping(raw, "organization", "company")
    return JobChange(
        key=_key(raw),
        person_id=_text(person.get("id")) or _text(raw.get("person_id")),
        handle=_text(person.get("handle")) or _text(raw.get("handle")),
        organization_id=_text(organization.get("id")) or _text(raw.get("organization_id")),
        day=_day(raw) or today,
        kind=(_text(raw.get("event_type")) or _text(raw.get("type")) or "").lower() or None,
    )


def days_ago(since: dt.date, today: dt.date) -> int:
    """The feed's ``days_ago`` that reaches back to the day ``since`` (1-365).

    >>> days_ago(dt.date(2026, 11, 20), dt.date(2026, 11, 27)), days_ago(dt.date(2026, 11, 27),
    ...     dt.date(2026, 11, 27)), days_ago(dt.date(2020, 1, 1), dt.date(2026, 11, 27))
    (7, 1, 365)
    """
    return min(MAX_DAYS_AGO, max(1, (today - since).days))


def _mapping(raw: Mapping[str, Any], *names: str) -> Mapping[str, Any]:
    """The first of ``names`` that holds a mapping, else an empty one."""
    return next((value for n in names if isinstance(value := raw.get(n), Mapping)), {})


def _text(value: Any) -> str | None:
    """``value`` as a non-blank string, else None."""
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
        return str(value).strip()
    return None


def _key(raw: Mapping[str, Any]) -> str:
    """The event's ``id``, else the digest of the whole event."""
    given = _text(raw.get("id")) or _text(raw.get("event_id"))
    if given:
        return given
    body = json.dumps(raw, sort_keys=True, default=str, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()


def _day(raw: Mapping[str, Any]) -> dt.date | None:
    """The UTC day of the first readable date among :data:`DATE_FIELDS`.

    >>> _day({"timestamp": 1764201600}), _day({"date": "2026-11-27T23:30:00-02:00"})
    (datetime.date(2025, 11, 27), datetime.date(2026, 11, 28))
    """
    days = (_parsed_day(raw.get(name)) for name in DATE_FIELDS)
    return next((day for day in days if day is not None), None)


def _parsed_day(value: Any) -> dt.date | None:
    """An ISO date or date-time, or seconds (or milliseconds) since the epoch, as a UTC day."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 10**11 else value
        try:
            return dt.datetime.fromtimestamp(seconds, dt.UTC).date()
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        try:
            return dt.date.fromisoformat(text[:10])
        except ValueError:
            return None
    if when.tzinfo is not None:
        when = when.astimezone(dt.UTC)
    return when.date()
