"""The emulator's institutions, alumni, skills and job-change events, as production shapes them.

Example::

    institution("eth-zurich")            # {"id": "inst_...", "name": "ETH Zurich", ...}
    search_institutions("univ")          # the institutions whose name holds "univ", by name
    alumni("mit", degree="msc", sort="recently_graduated")   # person records + "education"
    skill_by_id(search_skills("python")[0]["id"])            # {"id", "name", "normalized_name"}
    job_changes(event_type="joined", days_ago=30)            # events, the latest first
    job_feed({"organization_ids": org_id("hooli")}, rate=500)   # lazily: len() at once

Institutions are those people's education names (``data.SCHOOLS``) and a few more nobody in the
population attended (no alumni). An alumnus is a person of the search population (``person-NNNNN``)
whose education names the institution: the record is the person's, with ``education`` replaced by
the one education record that links them. Skills are those people list plus more of the catalog.

Job changes (:func:`job_feed`) live on two clocks. The feed's "today" is the real UTC date
(:func:`today`), because the library counts ``days_ago`` from its own clock: the background
(other people's events at every organisation, every day, busier where more people work) and the
moves made while the emulator runs (:mod:`.moves`) are dated from it, so every window holds
every event type. The population's records are dated from ``REFERENCE_DATE`` (2024-06-30), and
so are its own events (``joined`` when a position began, ``left`` when one ended,
``title_change`` for some current positions): they keep those dates, which lie more than a year
before any real today, so they come in the feed's unwindowed tail and in no ``days_ago`` window.
"""

from __future__ import annotations

import bisect
import copy
import datetime as dt
import hashlib
import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, overload

from ..service.listings import ALUMNI, JOB_CHANGES
from . import data
from .careers import changes, event_id, today
from .filters import declared, lowered
from .names import company_name, make_id, name_of, org_id, person_id
from .vocab import REFERENCE_DATE, SENIORITY

__all__ = [
    "ALUMNI_SORTS",
    "EVENT_TYPES",
    "JOB_CHANGE_RATE",
    "JobFeed",
    "MAX_DAYS_AGO",
    "REFERENCE_DATE",
    "WORLD",
    "alumni",
    "event",
    "institution",
    "job_changes",
    "job_feed",
    "search_institutions",
    "search_skills",
    "skill_by_id",
    "today",
]

#: Institutions with no alumni in the population (listed by search, found by lookup).
_MORE_INSTITUTIONS = [
    ("stanford-university", "Stanford University"),
    ("university-of-cambridge", "University of Cambridge"),
    ("epfl", "EPFL"),
    ("university-of-lisbon", "University of Lisbon"),
]
#: Skills in the catalog beyond those people list; display names for the lower-case ones.
_MORE_SKILLS = ["data analysis", "data visualization", "deep learning", "java", "typescript",
                "project management", "public speaking", "product strategy", "pytorch",
                "dbt"]  # fmt: skip
_DISPLAY = {"sql": "SQL", "dbt": "dbt", "pytorch": "PyTorch", "typescript": "TypeScript"}
ALUMNI_SORTS = ("newest", "oldest", "recently_graduated")
EVENT_TYPES = ("joined", "left", "title_change")
#: Background job changes per 1,000 employees per day at each organisation, by default (the
#: ``job_change_rate`` knob): a company of 200 has about four a week, acme (137) three.
JOB_CHANGE_RATE = 3.0
#: Production's longest ``days_ago``, and how far back the background goes.
MAX_DAYS_AGO = 365
#: The organisations an unfiltered feed covers: those people's positions name, and the
#: companies of a fixed head count.
WORLD = tuple(sorted({*data.ORGANIZATIONS, *data.COMPANIES}))


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode()).digest()


# -- institutions ------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _institutions() -> dict[str, dict[str, Any]]:
    pairs = sorted([*data.SCHOOLS, *_MORE_INSTITUTIONS], key=lambda p: p[1].lower())
    return {
        slug: {
            "id": make_id("inst_", slug),
            "name": name,
            "normalized_name": slug,
            "url": f"https://www.{slug}.example.edu",
        }
        for slug, name in pairs
    }


def institution(normalized_name: str) -> dict[str, Any] | None:
    """The institution of ``normalized_name`` (case-insensitive), or None."""
    found = _institutions().get(normalized_name.strip().lower())
    return dict(found) if found is not None else None


def institution_by_id(value: str) -> dict[str, Any] | None:
    """The institution whose ``inst_`` id is ``value``, or None."""
    slug = name_of("inst_", value)
    return None if slug is None else institution(slug)


def search_institutions(name: str) -> list[dict[str, Any]]:
    """Institutions whose name (or normalized name) holds ``name``, case-insensitive, by name."""
    needle = name.strip().lower()
    return [
        dict(rec)
        for rec in _institutions().values()
        if needle in rec["name"].lower() or needle in rec["normalized_name"]
    ]


def alumni(normalized_name: str, **filters: Any) -> list[dict[str, Any]] | None:
    """Alumni (and current students) of an institution, filtered; None for an unknown one.

    ``filters``: the alumni endpoint's (``ALUMNI.filters``; TypeError on another name).
    ``current_only``: only those whose studies end after ``REFERENCE_DATE``'s year; ``degree`` /
    ``field_of_study``: case-insensitive substrings; geo filters as people search's; year
    bounds inclusive. ``sort``: None (handle order), ``newest`` / ``oldest`` (start year),
    ``recently_graduated`` (end year, latest first). Fresh copies.
    """
    given = declared(filters, ALUMNI)
    slug = normalized_name.strip().lower()
    if slug not in _institutions():
        return None
    current_only, sort = given.get("current_only"), given.get("sort")
    years = {k: (given.get(f"{k}_min"), given.get(f"{k}_max")) for k in ("start_year", "end_year")}
    texts = {k: given.get(k) for k in ("degree", "field_of_study")}
    city, country = lowered(given.get("geo_city")), lowered(given.get("geo_country_code"))
    out: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for rec in data.population():
        link = next((e for e in rec.get("education", ()) if e["school"]["slug"] == slug), None)
        if link is None or (current_only and link["end_year"] <= REFERENCE_DATE.year):
            continue
        if any(v and v.strip().lower() not in str(link[k]).lower() for k, v in texts.items()):
            continue
        if any(
            (lo is not None and link[k] < lo) or (hi is not None and link[k] > hi)
            for k, (lo, hi) in years.items()
        ):
            continue
        if (city or country) and not data.geo_matches(rec, city, country):
            continue
        out.append((rec, link))
    if sort in ("newest", "oldest"):
        out.sort(key=lambda pair: pair[1]["start_year"], reverse=sort == "newest")
    elif sort == "recently_graduated":
        out.sort(key=lambda pair: pair[1]["end_year"], reverse=True)
    return [{**copy.deepcopy(rec), "education": dict(link)} for rec, link in out]


# -- skills ------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _skills() -> dict[str, dict[str, Any]]:
    names = sorted({*data.SKILLS, *_MORE_SKILLS})
    return {
        n: {
            "id": make_id("skl_", n),
            "name": _DISPLAY.get(n, n.title() if " " in n else n.capitalize()),
            "normalized_name": n,
        }
        for n in names
    }


def skill_by_id(value: str) -> dict[str, Any] | None:
    """The skill whose ``skl_`` id is ``value``, or None (production's 1030)."""
    name = name_of("skl_", value)
    found = _skills().get(name) if name is not None else None
    return dict(found) if found is not None else None


def search_skills(name: str) -> list[dict[str, Any]]:
    """Skills whose name holds ``name`` (case-insensitive), by normalized name."""
    needle = name.strip().lower()
    return [dict(s) for n, s in _skills().items() if needle in n]


# -- job changes ------------------------------------------------------------------------------


#: What an event says of its person.
_EVENT_PERSON = ("id", "handle", "first_name", "last_name", "headline")


def event(
    record: dict[str, Any],
    kind: str,
    position: dict[str, Any],
    when: dt.date,
    *,
    previous_title: str | None = None,
    key: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The ``kind`` event of ``record`` at ``position``'s organisation on ``when``, as the feed
    sends it; ``key`` tells apart the ids of two such events on one day.

    >>> ada = data.person("ada")
    >>> sorted(event(ada, "joined", ada["positions"][0], REFERENCE_DATE))[:4]
    ['detected_at', 'event_type', 'geo', 'id']
    """
    org = position["organization"]
    geo = record.get("geo") or {}
    out: dict[str, Any] = {
        "id": event_id(record["handle"], kind, org["slug"], when, key),
        "event_type": kind,
        "detected_at": when.isoformat(),
        "person": {k: record.get(k) for k in _EVENT_PERSON},
        "organization": {"id": org["id"], "name": org["name"], "slug": org["slug"]},
        "title": position["title"],
        "geo": {"city": geo.get("city"), "country_code": geo.get("country_code")},
    }
    if previous_title is not None:
        out["previous_title"] = previous_title
    return out


@lru_cache(maxsize=1)
def _events() -> tuple[dict[str, Any], ...]:
    """The population's own events within two years of ``REFERENCE_DATE``, latest first."""
    out = []
    earliest = REFERENCE_DATE - dt.timedelta(days=730)
    for rec in data.population():
        for change in changes(rec):
            out.append(event(rec, change.kind, dict(change.position), change.when,
                             previous_title=change.previous_title))  # fmt: skip
    kept = [e for e in out if e["detected_at"] >= earliest.isoformat()]
    kept.sort(key=lambda e: (e["detected_at"], e["id"]), reverse=True)
    return tuple(kept)


# -- the background: other people's events at every organisation, every day -------------------


@dataclass(frozen=True)
class _Shape:
    """What a background event is, apart from who, where and when."""

    event_type: str
    city: str
    country_code: str
    title: str
    previous_title: str


#: Background events repeat their shapes every ``_CYCLE`` events. A multiple of 3, so the
#: types take turns (joined, left, title_change): any three events in a row hold all three.
_CYCLE = 3 * len(data.CITIES) * len(data.TITLES) * 2


def _job_title(d: bytes, i: int) -> str:
    base = data.TITLES[i % len(data.TITLES)]
    return base if base == "CTO" else SENIORITY[d[i % len(d)] % len(SENIORITY)] + base


@lru_cache(maxsize=1)
def _shapes() -> tuple[_Shape, ...]:
    out = []
    for r in range(_CYCLE):
        d = _digest("background-event", str(r))
        city = data.CITIES[d[0] % len(data.CITIES)]
        now, before = d[1], d[1] + 1 + d[2] % (len(data.TITLES) - 1)  # two different titles
        out.append(_Shape(EVENT_TYPES[r % 3], city[0], city[2], _job_title(d, now),
                          _job_title(d, before)))  # fmt: skip
    return tuple(out)


@dataclass(frozen=True)
class _Match:
    """What a query's filters ask of an event (None: anything), as lower case."""

    event_type: str | None = None
    city: str | None = None
    country_code: str | None = None
    title: str | None = None

    def takes(self, kind: str, city: str | None, country_code: str | None, title: str) -> bool:
        return (
            (not self.event_type or kind == self.event_type)
            and (not self.city or str(city or "").lower() == self.city)
            and (not self.country_code or str(country_code or "").lower() == self.country_code)
            and (not self.title or self.title in title.lower())
        )

    def takes_event(self, e: dict[str, Any]) -> bool:
        geo = e["geo"]
        return self.takes(e["event_type"], geo["city"], geo["country_code"], e["title"])


@lru_cache(maxsize=64)
def _taken(match: _Match) -> tuple[tuple[bool, ...], tuple[int, ...]]:
    """Which shapes of the cycle ``match`` takes, and how many of the first n it takes."""
    taken = tuple(match.takes(s.event_type, s.city, s.country_code, s.title) for s in _shapes())
    return taken, (0, *itertools.accumulate(taken))


class _Background:
    """One organisation's background: ``per_day`` events a day on average, evenly spread.

    Event ``k`` (a whole number counted from the first day of the calendar) falls on the day
    ``d`` (a date ordinal) with ``upto(d - 1) <= k < upto(d)``; its shape is the cycle's
    ``(k + offset) % _CYCLE``-th, and its person is ``bg-<slug>-<k>``, in no lead list.
    """

    __slots__ = ("offset", "per_day", "slug", "_phase", "_tag")

    def __init__(self, slug: str, per_day: float) -> None:
        seed = _digest("background", slug)
        self.slug, self.per_day = slug, per_day
        self.offset = int.from_bytes(seed[1:4], "big") % _CYCLE
        self._phase, self._tag = seed[0] / 256, seed[4:7].hex()

    def upto(self, day: int) -> int:
        """How many events fell on the days up to ``day`` (an ordinal), that day included."""
        return math.floor(self.per_day * day + self._phase) if self.per_day > 0 else 0

    def taken(self, counts: tuple[int, ...], low: int, high: int) -> int:
        """How many of events ``low`` to ``high - 1`` a match takes (``counts``: from
        :func:`_taken`)."""
        whole = counts[-1]

        def upto(n: int) -> int:
            cycles, rest = divmod(n + self.offset, _CYCLE)
            return cycles * whole + counts[rest]

        return upto(high) - upto(low)

    def event_id(self, k: int) -> str:
        """A stable id, cheap to make: the organisation's tag and the event's number."""
        return f"jce_{self._tag}{k:010x}"

    def event(self, k: int, when: dt.date) -> dict[str, Any]:
        shape = _shapes()[(k + self.offset) % _CYCLE]
        handle = f"bg-{self.slug}-{k:07d}"
        person = data.person(handle) or {}
        name = company_name(self.slug)
        left = shape.event_type == "left"
        out: dict[str, Any] = {
            "id": self.event_id(k),
            "event_type": shape.event_type,
            "detected_at": when.isoformat(),
            "person": {
                "id": person_id(handle),
                "handle": handle,
                "first_name": person.get("first_name"),
                "last_name": person.get("last_name"),
                "headline": f"{shape.title} | Open to work" if left else f"{shape.title} at {name}",
            },
            "organization": {"id": org_id(self.slug), "name": name, "slug": self.slug},
            "title": shape.title,
            "geo": {"city": shape.city, "country_code": shape.country_code},
        }
        if shape.event_type == "title_change":
            out["previous_title"] = shape.previous_title
        return out


#: An event of a day, before it is built: its id, and its organisation's background and number
#: (a background event) or the event itself (any other).
_Key = tuple[str, _Background | None, Any]


class JobFeed(Sequence[dict[str, Any]]):
    """The events one query finds, newest first (by date, then id, both descending), built only
    as they are read.

    Its length is counted at once, day by day, without building any event; reading a slice
    builds the events of the days it covers only (``listed`` counts them), so a page of a giant
    organisation's year costs one or two of its days. Each event read is a fresh dict.
    """

    def __init__(self, backgrounds: Sequence[_Background], match: _Match, first: int, last: int,
                 others: Iterable[dict[str, Any]]) -> None:  # fmt: skip
        self._backgrounds = [b for b in backgrounds if b.per_day > 0]
        self._first, self._last = first, last
        self._taken, counts = _taken(match)
        self._others: dict[int, list[dict[str, Any]]] = {}
        for e in others:
            day = dt.date.fromisoformat(e["detected_at"]).toordinal()
            self._others.setdefault(day, []).append(e)
        per_day = {day: len(events) for day, events in self._others.items()}
        every = counts[-1] == _CYCLE  # no filter but organisations and days: count, not match
        for b in self._backgrounds:
            ends = [b.upto(day) for day in range(first - 1, last + 1)]
            for i, day in enumerate(range(first, last + 1)):
                low, high = ends[i], ends[i + 1]
                if n := high - low if every else b.taken(counts, low, high):
                    per_day[day] = per_day.get(day, 0) + n
        self._days = sorted(per_day, reverse=True)
        self._ends = list(itertools.accumulate(per_day[day] for day in self._days))
        self._listed: tuple[int, list[_Key]] | None = None
        #: How many events' keys were listed to read what was read: a day's, once per day read.
        self.listed = 0

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self._read(start, stop)
        at = index + len(self) if index < 0 else index
        if not 0 <= at < len(self):
            raise IndexError("job-change feed index out of range")
        return self._read(at, at + 1)[0]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for day in self._days:
            for key in self._keys(day):
                yield self._built(key, day)

    def _read(self, start: int, stop: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        at = bisect.bisect_right(self._ends, start)
        while start < stop and at < len(self._days):
            day, begins = self._days[at], self._ends[at - 1] if at else 0
            keys = self._keys(day)[start - begins : stop - begins]
            out.extend(self._built(key, day) for key in keys)
            start, at = self._ends[at], at + 1
        return out

    def _keys(self, day: int) -> list[_Key]:
        """The day's events as keys, in the feed's order (the last day listed is kept)."""
        if self._listed is not None and self._listed[0] == day:
            return self._listed[1]
        keys: list[_Key] = [(e["id"], None, e) for e in self._others.get(day, ())]
        if self._first <= day <= self._last:
            for b in self._backgrounds:
                off = b.offset
                keys.extend(
                    (b.event_id(k), b, k)
                    for k in range(b.upto(day - 1), b.upto(day))
                    if self._taken[(k + off) % _CYCLE]
                )
        keys.sort(key=lambda key: key[0], reverse=True)
        self.listed += len(keys)
        self._listed = (day, keys)
        return keys

    @staticmethod
    def _built(key: _Key, day: int) -> dict[str, Any]:
        _, background, item = key
        if background is None:
            return copy.deepcopy(item)
        return background.event(item, dt.date.fromordinal(day))


def _organisations(value: str | None) -> tuple[set[str], list[str]] | None:
    """``organization_ids`` read: the ids asked, and the slugs of the companies among them that
    exist, in order; None when not given."""
    ids = {o.strip() for o in (value or "").split(",") if o.strip()}
    if not ids:
        return None
    slugs = sorted({s for s in (name_of("org_", i) for i in ids) if s})
    return ids, [s for s in slugs if s == s.strip().lower() and not data.is_unknown(s)]


def job_feed(
    filters: Mapping[str, Any],
    *,
    rate: float = JOB_CHANGE_RATE,
    rates: Mapping[str, float] | None = None,
    others: Iterable[dict[str, Any]] = (),
    on: dt.date | None = None,
) -> JobFeed:
    """The events ``filters`` find on day ``on`` (default: :func:`today`), newest first.

    Three kinds of event, merged:

    - the background: about ``rate`` events (``rates[slug]`` for that organisation) per 1,000
      employees (:func:`~lookup_pandas.testing.data.head_count`) per day at every organisation
      asked (none asked: the organisations people's positions name, and ``data.COMPANIES``),
      on every day of the window, every type in turn, about people named ``bg-<slug>-<n>``;
    - ``others``: events the caller adds (the moves made, :mod:`.moves`);
    - the population's own events, dated from its positions, all before ``REFERENCE_DATE``.

    ``filters``: the job-changes endpoint's, as :func:`job_changes` reads them. ``days_ago``:
    events on or after ``on`` minus that many days; without it the background covers the last
    365 days (production's longest window) and the other events every day.

    >>> feed = job_feed({"organization_ids": org_id("acme"), "days_ago": 7})
    >>> sorted({e["event_type"] for e in feed})
    ['joined', 'left', 'title_change']
    """
    given = declared(filters, JOB_CHANGES)
    last = (on or today()).toordinal()
    days_ago = given.get("days_ago")
    first = last - (days_ago or MAX_DAYS_AGO)
    match = _Match(
        *(lowered(given.get(n)) for n in ("event_type", "geo_city", "geo_country_code", "title"))
    )
    asked = _organisations(given.get("organization_ids"))
    slugs = asked[1] if asked is not None else WORLD
    per = dict(rates or {})
    backgrounds = [_Background(s, per.get(s, rate) * data.head_count(s) / 1000) for s in slugs]
    since = dt.date.fromordinal(first).isoformat() if days_ago else ""
    until = dt.date.fromordinal(last).isoformat()
    found = [
        e
        for e in itertools.chain(others, _events())
        if (asked is None or e["organization"]["id"] in asked[0])
        and since <= e["detected_at"] <= until
        and match.takes_event(e)
    ]
    return JobFeed(backgrounds, match, first, last, found)


def job_changes(**filters: Any) -> list[dict[str, Any]]:
    """Events matching every filter given, the latest first (fresh copies): :func:`job_feed`'s,
    with the default rate, on the real UTC date.

    ``filters``: the job-changes endpoint's (``JOB_CHANGES.filters``; TypeError on another name).
    ``event_type``: one of ``EVENT_TYPES``; ``organization_ids``: comma-separated ``org_`` ids,
    any of them; ``geo_city`` / ``geo_country_code``: case-insensitive equality; ``title``: a
    case-insensitive substring; ``days_ago``: dated on or after today minus that many days.
    """
    return list(job_feed(filters))
