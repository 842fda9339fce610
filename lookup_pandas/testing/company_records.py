"""The emulator's companies: deterministic firmographics for any slug, and a searchable population.

Example::

    company("acme")["employee_count"]        # 137: what the employees list holds
    company("acme")["name"]                  # "Acme": as people's positions name it
    company_by_id(company("acme")["id"])     # the same record
    company("unknown-co")                    # None: slugs starting unknown / no-such do not exist
    search_companies(name="labs", hq_country_code="DE")   # records, in a stable order

A record holds what production documents: ``id`` (``org_…``), ``name``, ``slug``, ``url`` (the
company page positions link to), ``website``, ``logo_url``, ``description``, ``tagline``,
``industry``, ``employee_count``, ``employee_count_range``, ``hq {city, country_code}``,
``locations`` (the HQ first), ``founded`` (a year), ``specialties``, ``follower_count`` and
``funding`` when known (about a third have none). Sparse companies (:func:`is_sparse_company`,
~5%) also lack ``description``, ``tagline``, ``specialties`` and ``locations``. Everything derives
from a hash of the slug: the same question always gets the same answer.

Search population: the companies people's positions name, those with a fixed head-count, and
``SEARCH_COMPANIES`` more built from ``_STEMS`` x ``_SUFFIXES`` (``"blue-labs"``, ...).
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..service.listings import COMPANY_SEARCH
from .filters import declared, lowered, whole, words
from .names import company_name, name_of, org_id
from .people import company_url, head_count, is_unknown
from .vocab import CITIES, COMPANIES, ORGANIZATIONS

__all__ = [
    "INDUSTRIES",
    "SPARSE_COMPANY_FIELDS",
    "company",
    "company_by_id",
    "company_population",
    "employee_count_range",
    "industry",
    "is_sparse_company",
    "search_companies",
]

INDUSTRIES = [
    "Software Development",
    "Financial Services",
    "IT Services and IT Consulting",
    "Manufacturing",
    "Biotechnology Research",
    "Retail",
    "Advertising Services",
    "Renewable Energy",
]
SPECIALTIES = [
    "machine learning",
    "cloud",
    "analytics",
    "payments",
    "robotics",
    "e-commerce",
    "security",
    "logistics",
    "data platforms",
    "developer tools",
]
_STEMS = ["blue", "north", "data", "quantum", "green", "bright", "iron", "silver", "nova", "polar"]
_SUFFIXES = ["labs", "systems", "analytics", "works", "dynamics", "partners", "robotics", "health"]
_ROUND_TYPES = ["Seed", "Series A", "Series B", "Series C", "Series D"]
_RANGES = ((1, 10), (11, 50), (51, 200), (201, 500), (501, 1000), (1001, 5000), (5001, 10000))
#: The fields a sparse company lacks (the keys are absent, not empty).
SPARSE_COMPANY_FIELDS = ("description", "tagline", "specialties", "locations")
_NON_DOMAIN = re.compile(r"^(?:[a-z][a-z0-9+.-]*://)?(?:www\.)?")


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(("company", *parts)).encode()).digest()


def _pick(seq: Sequence[Any], d: bytes, i: int) -> Any:
    return seq[d[i % len(d)] % len(seq)]


def is_sparse_company(slug: str) -> bool:
    """True for the ~5% of companies whose record lacks ``SPARSE_COMPANY_FIELDS``; never the
    ones people's positions name (acme, globex, ...)."""
    return slug not in ORGANIZATIONS and _digest("sparse", slug)[0] < 13


def employee_count_range(count: int) -> str:
    """``137`` -> ``"51-200"``; above the last bucket ``"10001+"``."""
    for low, high in _RANGES:
        if count <= high:
            return f"{low}-{high}"
    return "10001+"


@lru_cache(maxsize=8192)
def _company(slug: str) -> dict[str, Any]:
    """The record of ``slug`` (lower case). Shared: callers must copy before changing it."""
    d = _digest(slug)
    name = company_name(slug)
    count = head_count(slug)
    hq = _pick(CITIES, d, 0)
    others = [c for c in CITIES if c != hq]
    sites = [hq] + [others[(d[1] + k * 3) % len(others)] for k in range(d[2] % 3)]
    industry = _pick(INDUSTRIES, d, 3)
    specialties = sorted({_pick(SPECIALTIES, d, 4 + k) for k in range(1 + d[5] % 4)})
    record: dict[str, Any] = {
        "id": org_id(slug),
        "name": name,
        "slug": slug,
        "url": company_url(slug),
        "website": f"https://www.{slug}.example",
        "logo_url": f"https://media.example.com/logos/{slug}.png",
        "description": f"{name} builds {specialties[0]} products for {industry.lower()}.",
        "tagline": f"{specialties[0].capitalize()}, done well.",
        "industry": industry,
        "employee_count": count,
        "employee_count_range": employee_count_range(count),
        "hq": {"city": hq[0], "country_code": hq[2]},
        "locations": [
            {"city": c[0], "country_code": c[2], "is_hq": i == 0} for i, c in enumerate(sites)
        ],
        "founded": 1950 + d[6] % 74,
        "specialties": specialties,
        "follower_count": count * (20 + d[7] % 80) + d[8],
    }
    if d[9] % 3:  # funding signals are known for about two companies in three
        raised = (1 + d[10] % 200) * 500_000
        record["funding"] = {
            "total_raised_usd": raised,
            "last_round": {
                "type": _pick(_ROUND_TYPES, d, 11),
                "date": f"{2015 + d[12] % 9}-{1 + d[13] % 12:02d}-01",
                "amount_usd": raised // (2 + d[14] % 3),
            },
            "investor_count": 1 + d[15] % 12,
        }
    if is_sparse_company(slug):
        for field_name in SPARSE_COMPANY_FIELDS:
            del record[field_name]
    return record


def company(slug: str) -> dict[str, Any] | None:
    """The company record of ``slug`` (case-insensitive), or None when it does not exist.
    Each call returns a fresh copy."""
    if is_unknown(slug) or not slug.strip():
        return None
    return copy.deepcopy(_company(slug.strip().lower()))


def industry(slug: str) -> str:
    """The industry company ``slug``'s record gives (``slug`` in lower case), read without a copy.

    >>> industry("acme") == company("acme")["industry"]
    True
    """
    return str(_company(slug)["industry"])


def company_by_id(value: str) -> dict[str, Any] | None:
    """The company whose ``org_`` id is ``value``, or None when there is none."""
    slug = name_of("org_", value)
    return None if slug is None or slug != slug.lower() else company(slug)


@lru_cache(maxsize=1)
def company_population() -> tuple[dict[str, Any], ...]:
    """Every company companies search looks at, in a stable (slug) order."""
    slugs = set(ORGANIZATIONS) | set(COMPANIES)
    slugs |= {f"{stem}-{suffix}" for stem in _STEMS for suffix in _SUFFIXES}
    return tuple(_company(slug) for slug in sorted(slugs))


def _domain(website: str) -> str:
    """``"https://www.Blue-Labs.example/about"`` -> ``"blue-labs.example"``."""
    return _NON_DOMAIN.sub("", website.strip().lower()).split("/", 1)[0]


def _within(value: int, low: int | None, high: int | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def search_companies(**filters: Any) -> list[dict[str, Any]]:
    """The population's companies matching every filter given (the shared records: read them,
    never change them), in slug order.

    ``filters``: companies search's (``COMPANY_SEARCH.filters``; TypeError on another name).
    ``name``: a case-insensitive substring of the name or slug; ``website``: the domain given
    (scheme, ``www.`` and path ignored) is a substring of the company's; ``industries`` and
    ``industries_v2``: comma-separated, any of them, each read against the record's
    ``industry`` (case-insensitive: the emulator keeps one list of industry names, which both
    filters read, production's two lists not being documented); ``hq_city`` / ``hq_country_code``:
    case-insensitive equality; ``founded``: the year; the ``_min`` / ``_max`` bounds inclusive
    (``staff_count`` is ``employee_count``).
    """
    given = declared(filters, COMPANY_SEARCH)
    needle, city, country = (lowered(given.get(n)) for n in ("name", "hq_city", "hq_country_code"))
    domain = _domain(given["website"]) if given.get("website") else None
    wanted = {n: set(words(given.get(n))) for n in ("industries", "industries_v2")}
    founded = whole(given.get("founded"))
    bounds = {
        field: (whole(given.get(f"{name}_min")), whole(given.get(f"{name}_max")))
        for field, name in (("employee_count", "staff_count"), ("follower_count", "follower_count"))
    }
    out = []
    for rec in company_population():
        if needle and needle not in rec["name"].lower() and needle not in rec["slug"]:
            continue
        if domain and domain not in _domain(rec["website"]):
            continue
        if any(names and rec["industry"].lower() not in names for names in wanted.values()):
            continue
        if city and rec["hq"]["city"].lower() != city:
            continue
        if country and rec["hq"]["country_code"].lower() != country:
            continue
        if founded is not None and rec["founded"] != founded:
            continue
        if not all(_within(rec[field], low, high) for field, (low, high) in bounds.items()):
            continue
        out.append(rec)
    return out
