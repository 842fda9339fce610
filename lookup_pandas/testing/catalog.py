"""The emulator's institutions, alumni, skills and job-change events, as production shapes them.

Example::

    institution("eth-zurich")            # {"id": "inst_...", "name": "ETH Zurich", ...}
    search_institutions("univ")          # the institutions whose name holds "univ", by name
    alumni("mit", degree="msc", sort="recently_graduated")   # person records + "education"
    skill_by_id(search_skills("python")[0]["id"])            # {"id", "name", "normalized_name"}
    job_changes(event_type="joined", days_ago=90)            # events, the latest first

Institutions are those people's education names (``data.SCHOOLS``) and a few more nobody in the
population attended (no alumni). An alumnus is a person of the search population (``person-NNNNN``)
whose education names the institution: the record is the person's, with ``education`` replaced by
the one education record that links them. Skills are those people list plus more of the catalog.
Job changes are derived from the population's positions: ``joined`` when a position began,
``left`` when one ended, ``title_change`` for some current positions; dated against a fixed
"today", ``REFERENCE_DATE`` (never the clock).
"""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
from functools import lru_cache
from typing import Any

from ..service.endpoints import ALUMNI, JOB_CHANGES
from . import data
from .filters import declared, lowered
from .names import make_id, name_of

__all__ = [
    "ALUMNI_SORTS",
    "EVENT_TYPES",
    "REFERENCE_DATE",
    "alumni",
    "institution",
    "job_changes",
    "search_institutions",
    "search_skills",
    "skill_by_id",
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
#: The emulator's "today" for job changes: the last day of the month data.py dates from.
REFERENCE_DATE = dt.date(2024, 6, 30)


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


# -- job changes -------------------------------------------------------------------------------


def _date(month: dict[str, int], handle: str, kind: str) -> dt.date:
    day = 1 + _digest("event-day", handle, kind)[0] % 28
    return dt.date(month["year"], month["month"], day)


def _event(rec: dict[str, Any], kind: str, position: dict[str, Any], when: dt.date,
           previous_title: str | None = None) -> dict[str, Any]:  # fmt: skip
    org = position["organization"]
    geo = rec.get("geo") or {}
    event: dict[str, Any] = {
        "id": "jce_" + _digest("event", rec["handle"], kind, org["slug"]).hex()[:16],
        "event_type": kind,
        "detected_at": when.isoformat(),
        "person": {k: rec[k] for k in ("id", "handle", "first_name", "last_name", "headline")},
        "organization": {"id": org["id"], "name": org["name"], "slug": org["slug"]},
        "title": position["title"],
        "geo": {"city": geo.get("city"), "country_code": geo.get("country_code")},
    }
    if previous_title is not None:
        event["previous_title"] = previous_title
    return event


@lru_cache(maxsize=1)
def _events() -> tuple[dict[str, Any], ...]:
    """Every event of the population within two years of ``REFERENCE_DATE``, latest first."""
    out = []
    earliest = REFERENCE_DATE - dt.timedelta(days=730)
    for rec in data.population():
        handle = rec["handle"]
        for pos in rec.get("positions", ()):
            out.append(_event(rec, "joined", pos, _date(pos["start_date"], handle, "joined")))
            if pos["end_date"] is not None:
                out.append(_event(rec, "left", pos, _date(pos["end_date"], handle, "left")))
            elif _digest("title-change", handle)[0] % 4 == 0:
                before = data.TITLES[_digest("old-title", handle)[0] % len(data.TITLES)]
                if before != pos["title"]:
                    start = _date(pos["start_date"], handle, "joined")
                    when = start + (REFERENCE_DATE - start) / 2
                    out.append(_event(rec, "title_change", pos, when, previous_title=before))
    kept = [e for e in out if e["detected_at"] >= earliest.isoformat()]
    kept.sort(key=lambda e: (e["detected_at"], e["id"]), reverse=True)
    return tuple(kept)


def job_changes(**filters: Any) -> list[dict[str, Any]]:
    """Events matching every filter given, the latest first (fresh copies).

    ``filters``: the job-changes endpoint's (``JOB_CHANGES.filters``; TypeError on another name).
    ``event_type``: one of ``EVENT_TYPES``; ``organization_ids``: comma-separated ``org_`` ids,
    any of them; ``geo_city`` / ``geo_country_code``: case-insensitive equality; ``title``: a
    case-insensitive substring; ``days_ago``: detected within that many days of
    ``REFERENCE_DATE``.
    """
    given = declared(filters, JOB_CHANGES)
    event_type, days_ago = given.get("event_type"), given.get("days_ago")
    orgs = {o.strip() for o in (given.get("organization_ids") or "").split(",") if o.strip()}
    since = (REFERENCE_DATE - dt.timedelta(days=days_ago)).isoformat() if days_ago else ""
    city, country, needle = (
        lowered(given.get(n)) for n in ("geo_city", "geo_country_code", "title")
    )
    out = []
    for e in _events():
        if event_type and e["event_type"] != event_type:
            continue
        if orgs and e["organization"]["id"] not in orgs:
            continue
        if city and str(e["geo"]["city"] or "").lower() != city:
            continue
        if country and str(e["geo"]["country_code"] or "").lower() != country:
            continue
        if needle and needle not in e["title"].lower():
            continue
        if e["detected_at"] < since:
            continue
        out.append(copy.deepcopy(e))
    return out
