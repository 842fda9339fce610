"""The emulator's data store: deterministic synthetic people and companies, shaped as production's.

Example::

    person("ada-lovelace-042")["first_name"]      # "Ada": a named handle names its person
    person("ada")["positions"][0]["organization"]  # {"id": "org_...", "name", "slug", "url"}
    person("unknown-bob")                         # None: handles starting "unknown" do not exist
    search("engineer", geo_country_code="DE", skills="python,sql", skills_match="any")
    employees("acme")                             # the 137 current employees, in a stable order
    employees("acme", current_only=False, sort="recently_left")  # former ones first
    is_sparse_person("person-00009")              # True: no summary, positions, geo (~5%)
    thin(person("ada"))                           # the record as the sparse-records mode sends it

A person record holds what production documents: ``id`` (``prsn_…``), ``handle``,
``first_name``, ``last_name``, ``headline``, ``summary``, ``positions`` (current first, each with
``title``, ``organization {id, name, slug, url}``, ``start_date`` / ``end_date`` as
``{year, month}``, ``is_current``), ``education``, ``skills``, ``certifications``,
``languages``, ``projects``, ``publications``, ``geo {city, country, country_code, region}``,
``follower_count``, ``connection_count``, the flags ``is_creator``, ``is_premium``,
``is_open_to_work``, ``is_hiring``, ``primary_locale`` and ``localized_headline``. Nothing
beyond ``id`` and ``handle`` is promised: sparse people (:func:`is_sparse_person`) lack
``summary``, ``positions`` and ``geo``, and :func:`thin` keeps a handle-seeded half of the rest.

Companies: ``COMPANIES`` fixes the number of CURRENT employees of a few slugs (any other slug gets
a derived one; ``unknown-*`` is not found). Current employees are ``<slug>-employee-NNNNN``;
about a quarter as many former employees, ``<slug>-former-NNNNN``, hold a position there with an
``end_date``. ``person()`` of such a handle is the same record the employees list returns.

Filters match what the (full) record shows: a record without ``geo`` never matches a geo filter,
one without ``positions`` never matches a title, organization or start-date filter. Everything
derives from a hash of the handle or slug (no clock, no randomness), so the same question always
gets the same answer, in any process, without storing anything.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

__all__ = [
    "COMPANIES",
    "EMPLOYEE_SORTS",
    "SEARCH_POPULATION",
    "SKILLS_MATCH",
    "SPARSE_FIELDS",
    "employee_records",
    "employees",
    "former_count",
    "is_sparse_person",
    "is_unknown",
    "person",
    "search",
    "search_records",
    "thin",
]

FIRST = [
    "Ada",
    "Alan",
    "Grace",
    "Linus",
    "Margaret",
    "Dennis",
    "Barbara",
    "Ken",
    "Frances",
    "Edsger",
    "Radia",
    "Donald",
    "Hedy",
    "Tim",
    "Katherine",
    "Guido",
    "Sophie",
    "Yukihiro",
]
LAST = [
    "Lovelace",
    "Turing",
    "Hopper",
    "Torvalds",
    "Hamilton",
    "Ritchie",
    "Liskov",
    "Thompson",
    "Allen",
    "Dijkstra",
    "Perlman",
    "Knuth",
    "Lamarr",
    "Berners-Lee",
    "Johnson",
    "van Rossum",
    "Wilson",
    "Matsumoto",
]
TITLES = [
    "Software Engineer",
    "Data Scientist",
    "Product Manager",
    "Data Engineer",
    "Engineering Manager",
    "Designer",
    "Sales Director",
    "Account Executive",
    "Machine Learning Engineer",
    "Recruiter",
    "Marketing Lead",
    "CTO",
]
SENIORITY = ["", "Senior ", "Staff ", "Principal ", "Junior ", "Associate "]
#: (city, country, country code, region, language of the locale)
CITIES = [
    ("Berlin", "Germany", "DE", "Berlin", "de"),
    ("London", "United Kingdom", "GB", "England", "en"),
    ("Paris", "France", "FR", "Île-de-France", "fr"),
    ("New York", "United States", "US", "New York", "en"),
    ("Toronto", "Canada", "CA", "Ontario", "en"),
    ("Lisbon", "Portugal", "PT", "Lisbon", "pt"),
    ("Bangalore", "India", "IN", "Karnataka", "en"),
    ("São Paulo", "Brazil", "BR", "São Paulo", "pt"),
    ("Tokyo", "Japan", "JP", "Tokyo", "ja"),
]
LANGUAGE_NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "pt": "Portuguese",
    "ja": "Japanese",
    "es": "Spanish",
    "it": "Italian",
    "zh": "Chinese",
}
PROFICIENCIES = [
    "NATIVE_OR_BILINGUAL",
    "FULL_PROFESSIONAL",
    "PROFESSIONAL_WORKING",
    "LIMITED_WORKING",
    "ELEMENTARY",
]
SKILLS = [
    "python",
    "pandas",
    "sql",
    "spark",
    "machine learning",
    "statistics",
    "go",
    "rust",
    "leadership",
    "negotiation",
    "figma",
    "kubernetes",
    "excel",
    "tableau",
]
#: Organizations people's positions are drawn from (employees lists add the company asked for).
ORGANIZATIONS = [
    "acme",
    "globex",
    "hooli",
    "initech",
    "umbrella",
    "stark-industries",
    "wayne-enterprises",
    "cyberdyne",
]
SCHOOLS = [
    ("mit", "MIT"),
    ("eth-zurich", "ETH Zurich"),
    ("university-of-oxford", "University of Oxford"),
    ("tu-munich", "TU Munich"),
    ("sorbonne-university", "Sorbonne University"),
    ("university-of-toronto", "University of Toronto"),
    ("iit-bombay", "IIT Bombay"),
    ("university-of-tokyo", "University of Tokyo"),
]
DEGREES = ["BSc", "MSc", "PhD", "BA", "MBA"]
FIELDS_OF_STUDY = [
    "Computer Science",
    "Mathematics",
    "Statistics",
    "Physics",
    "Economics",
    "Design",
    "Business Administration",
]
CERTIFICATIONS = [
    ("AWS Certified Solutions Architect", "Amazon Web Services"),
    ("Certified Kubernetes Administrator", "Cloud Native Computing Foundation"),
    ("Professional Scrum Master I", "Scrum.org"),
    ("Google Data Analytics", "Google"),
    ("Tableau Desktop Specialist", "Tableau"),
]
PROJECT_NAMES = [
    "Open data pipeline",
    "Churn model",
    "Design system",
    "Pricing engine",
    "Search relevance",
]
PUBLISHERS = ["arXiv", "IEEE", "ACM", "Medium"]

#: Companies with a fixed number of CURRENT employees; any other slug gets a derived one
#: (unknown-* is not found). Former employees: about a quarter as many, see former_count().
COMPANIES: dict[str, int] = {"acme": 137, "globex": 50, "initech": 0, "hooli": 1234, "umbrella": 7}
_NAMED_HANDLE = re.compile(r"^([a-z]{2,})-([a-z]{2,})(?:-\d{1,3})?$")
_EMPLOYEE_HANDLE = re.compile(r"^(.+)-(employee|former)-(\d{5})$")

#: How many people the search endpoint searches over ("person-00000" ...).
SEARCH_POPULATION = 3000

#: The employees list's sort orders (None: the stable order, current employees then former).
EMPLOYEE_SORTS = ("newest", "oldest", "recently_left")
SKILLS_MATCH = ("all", "any")

#: The month everything is dated from: a fixed point, never the clock.
_NOW = 2024 * 12 + 5  # June 2024, as a month index (year * 12 + month - 1)

#: The fields a sparse person lacks (the keys are absent, not empty).
SPARSE_FIELDS = ("summary", "positions", "geo")
#: Picked so that the handles the docs and tests name (ada, grace, ...) are full records.
SPARSE_SALT = "sparse-6"


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).digest()


def _pick(seq: Sequence[Any], digest: bytes, i: int) -> Any:
    return seq[digest[i % len(digest)] % len(seq)]


def _month(index: int) -> dict[str, int]:
    return {"year": index // 12, "month": index % 12 + 1}


def is_unknown(name: str) -> bool:
    """Handles and slugs starting with ``unknown`` or ``no-such`` do not exist."""
    lowered = name.lower()
    return lowered.startswith(("unknown", "no-such"))


def is_sparse_person(handle: str) -> bool:
    """True for the ~5% of people whose record has no ``summary``, ``positions`` or ``geo``.

    The rule: the first byte of ``_digest(SPARSE_SALT, handle.lower())`` is below 13 (13/256
    of handles). Sparse among the first handles: ``person-00009``, ``person-00025``,
    ``acme-employee-00009``, ``acme-employee-00010``; never the handles the docs and tests name
    (``ada``, ``grace``, ``linus``, ``ada-lovelace``, ...).
    """
    return _digest(SPARSE_SALT, handle.lower())[0] < 13


def _organization(slug: str) -> dict[str, Any]:
    return {
        "id": "org_" + _digest("company", slug)[:6].hex(),
        "name": slug.replace("-", " ").title(),
        "slug": slug,
        "url": f"https://www.example.com/company/{slug}",
    }


def _head_count(slug: str) -> int:
    return COMPANIES.get(slug, 10 + _digest("company", slug)[1] % 300)


def former_count(slug: str) -> int:
    """How many former employees company ``slug`` has: about a quarter of its head-count."""
    return (_head_count(slug) + 2) // 4


def _title(d: bytes, i: int) -> str:
    title = str(_pick(TITLES, d, i + 1))
    return title if title == "CTO" else str(_pick(SENIORITY, d, i)) + title


def _positions(handle: str, d: bytes) -> list[dict[str, Any]]:
    """1–4 positions, newest first; the first is current unless the person is between jobs.

    ``<slug>-employee-N`` holds a current position at ``slug``; ``<slug>-former-N`` held one
    there that ended (the second position); no other position of theirs is at that slug.
    """
    employee = _EMPLOYEE_HANDLE.match(handle)
    at, kind = (employee.group(1), employee.group(2)) if employee else (None, None)
    n = 1 + d[5] % 4
    between_jobs = d[6] % 12 == 0
    if kind == "employee":
        between_jobs = False
    elif kind == "former":
        n = max(n, 2)
    others = [s for s in ORGANIZATIONS if s != at]
    out = []
    cursor = _NOW - d[7] % 4 if between_jobs else _NOW
    for i in range(n):
        length = 4 + d[8 + i] % 60  # months
        start = cursor - length
        current = i == 0 and not between_jobs
        slug = _pick(others, d, 12 + i)
        if at is not None and ((kind == "employee" and i == 0) or (kind == "former" and i == 1)):
            slug = at
        out.append(
            {
                "title": _title(d, 16 + 2 * i),
                "organization": _organization(slug),
                "start_date": _month(start),
                "end_date": None if current else _month(cursor),
                "is_current": current,
            }
        )
        cursor = start - d[24 + i] % 5  # a gap of 0–4 months between positions
    return out


def _education(d: bytes, graduated: int) -> list[dict[str, Any]]:
    out = []
    for i in range(d[0] % 3):  # 0–2 entries, most recent first
        slug, name = _pick(SCHOOLS, d, 2 + i)
        years = 2 + d[4 + i] % 4
        end = graduated - i * (years + 1)
        out.append(
            {
                "school": {"name": name, "slug": slug},
                "degree": _pick(DEGREES, d, 6 + i),
                "field_of_study": _pick(FIELDS_OF_STUDY, d, 8 + i),
                "start_year": end - years,
                "end_year": end,
            }
        )
    return out


def _languages(d: bytes, native: str) -> list[dict[str, str]]:
    names = [native] + [code for code in LANGUAGE_NAMES if code != native]
    picked = [native]
    for i in range(d[10] % 3):  # up to two more: English first for non-English speakers
        extra = "en" if native != "en" and i == 0 else _pick(names[1:], d, 11 + i)
        if extra not in picked:
            picked.append(extra)
    levels = ["NATIVE_OR_BILINGUAL"] + [_pick(PROFICIENCIES[1:], d, 15 + k) for k in range(2)]
    return [
        {"name": LANGUAGE_NAMES[code], "proficiency": level}
        for code, level in zip(picked, levels, strict=False)
    ]


@lru_cache(maxsize=65536)
def _person(handle: str) -> dict[str, Any]:
    """The record of ``handle`` (already lower case). Shared: callers must copy before changing."""
    d = _digest("person", handle)
    x = _digest("person-extra", handle)  # a second stream of bytes for the minor fields
    first, last = _pick(FIRST, d, 0), _pick(LAST, d, 1)
    named = _NAMED_HANDLE.match(handle)
    if named:  # "ada-lovelace-042" is Ada Lovelace, as a lead list would expect
        first, last = named.group(1).title(), named.group(2).title()
    city, country, code, region, language = _pick(CITIES, d, 2)
    positions = _positions(handle, d)
    latest = positions[0]
    org = latest["organization"]["name"]
    between_jobs = not latest["is_current"]
    headline = (
        f"{latest['title']} | Open to work" if between_jobs else f"{latest['title']} at {org}"
    )
    skills = sorted({_pick(SKILLS, x, 15 + i) for i in range(2 + x[16] % 5)})
    first_start = positions[-1]["start_date"]["year"]
    flags = d[29]
    certs = dict.fromkeys(_pick(CERTIFICATIONS, x, 17 + k) for k in range(x[18] % 3))
    certifications = [
        {"name": name, "authority": authority, "year": 2024 - x[19 + i] % 8}
        for i, (name, authority) in enumerate(certs)
    ]
    projects = (
        []
        if x[21] % 3
        else [
            {
                "title": _pick(PROJECT_NAMES, x, 22),
                "description": f"Built with {skills[0]}.",
                "start_date": _month(_NOW - 6 - x[23] % 30),
            }
        ]
    )
    publications = (
        []
        if x[24] % 5
        else [
            {
                "title": f"Notes on {skills[-1]}",
                "publisher": _pick(PUBLISHERS, x, 25),
                "year": 2024 - x[26] % 10,
            }
        ]
    )
    record: dict[str, Any] = {
        "id": "prsn_" + d[20:28].hex(),
        "handle": handle,
        "first_name": first,
        "last_name": last,
        "headline": headline,
        "summary": f"{first} works on {', '.join(skills[:2])} in {city}.",
        "positions": positions,
        "education": _education(x, first_start),
        "skills": skills,
        "certifications": certifications,
        "languages": _languages(x, language),
        "projects": projects,
        "publications": publications,
        "geo": {"city": city, "country": country, "country_code": code, "region": region},
        "follower_count": x[27] * 13 + x[28],
        "connection_count": 50 + x[29] * 2,
        "is_creator": bool(flags & 1),
        "is_premium": bool(flags & 4),
        "is_open_to_work": between_jobs or bool(flags & 8 and flags & 16),
        "is_hiring": bool(flags & 32) and not between_jobs,
        "primary_locale": {"country": code, "language": language},
        "localized_headline": {f"{language}_{code}": headline},
    }
    if is_sparse_person(handle):
        for name in SPARSE_FIELDS:
            del record[name]
    return record


def person(handle: str) -> dict[str, Any] | None:
    """The full person record for ``handle``, or None when it does not exist.

    Public handles are case-insensitive, as in production: ``Ada`` and ``ada`` are one person,
    whose record carries the handle in lower case. Each call returns a fresh copy.
    """
    if is_unknown(handle):
        return None
    return copy.deepcopy(_person(handle.lower()))


def thin(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` as the sparse-records mode sends it: ``id``, ``handle`` and about half the rest.

    Which fields stay is decided per (handle, field name) by a hash, so the same person always
    loses the same fields. Returns a new (shallow) dict; ``record`` is untouched.
    """
    handle = str(record.get("handle", ""))
    return {
        k: v
        for k, v in record.items()
        if k in ("id", "handle") or _digest("thin", handle, k)[0] & 1
    }


# -- filters -----------------------------------------------------------------------------------


def _words(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"a, b"`` or ``["a", "b"]`` -> ``("a", "b")``, lower case, blanks dropped."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else value
    return tuple(w for w in (str(i).strip().lower() for i in items) if w)


def _flag(value: bool | str | None, default: bool, name: str) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if not lowered:
        return default
    raise ValueError(f"{name} must be true or false")


def _text(value: str | None) -> str | None:
    """A text filter: lower case, or None when not given or blank."""
    if value is None:
        return None
    stripped = value.strip().lower()
    return stripped or None


def _contains(record: dict[str, Any], name: str, needle: str | None) -> bool:
    if needle is None:
        return True
    value = record.get(name)
    return isinstance(value, str) and needle in value.lower()


def _geo_matches(record: dict[str, Any], city: str | None, country_code: str | None) -> bool:
    if city is None and country_code is None:
        return True
    geo = record.get("geo")
    if not geo:
        return False
    if city is not None and str(geo.get("city", "")).lower() != city:
        return False
    return country_code is None or str(geo.get("country_code", "")).lower() == country_code


# -- search ------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _population() -> tuple[dict[str, Any], ...]:
    return tuple(_person(f"person-{i:05d}") for i in range(SEARCH_POPULATION))


@lru_cache(maxsize=256)
def _search(
    title: str,
    first_name: str | None,
    last_name: str | None,
    headline: str | None,
    summary: str | None,
    geo_city: str | None,
    geo_country_code: str | None,
    organization_slugs: tuple[str, ...],
    skills: tuple[str, ...],
    skills_any: bool,
    current_only: bool,
) -> tuple[dict[str, Any], ...]:
    out = []
    wanted_orgs = set(organization_slugs)
    for rec in _population():
        positions = [p for p in rec.get("positions", ()) if p["is_current"] or not current_only]
        if not any(title in p["title"].lower() for p in positions):
            continue
        if wanted_orgs and not any(p["organization"]["slug"] in wanted_orgs for p in positions):
            continue
        if not (
            _contains(rec, "first_name", first_name)
            and _contains(rec, "last_name", last_name)
            and _contains(rec, "headline", headline)
            and _contains(rec, "summary", summary)
        ):
            continue
        if not _geo_matches(rec, geo_city, geo_country_code):
            continue
        if skills:
            has = set(rec.get("skills", ()))
            if not (any(s in has for s in skills) if skills_any else all(s in has for s in skills)):
                continue
        out.append(rec)
    return tuple(out)


def search_records(
    title: str,
    *,
    first_name: str | None = None,
    last_name: str | None = None,
    headline: str | None = None,
    summary: str | None = None,
    geo_city: str | None = None,
    geo_country_code: str | None = None,
    organization_slugs: str | Iterable[str] | None = None,
    skills: str | Iterable[str] | None = None,
    skills_match: str = "all",
    current_only: bool | str = False,
) -> tuple[dict[str, Any], ...]:
    """What :func:`search` finds, as the shared (cached) records: read them, never change them.

    ValueError on a bad ``skills_match`` or ``current_only``.
    """
    match = (skills_match or "all").strip().lower()
    if match not in SKILLS_MATCH:
        raise ValueError("skills_match must be one of all, any")
    return _search(
        title.strip().lower(),
        _text(first_name),
        _text(last_name),
        _text(headline),
        _text(summary),
        _text(geo_city),
        _text(geo_country_code),
        _words(organization_slugs),
        _words(skills),
        match == "any",
        _flag(current_only, False, "current_only"),
    )


def search(title: str, **filters: Any) -> list[dict[str, Any]]:
    """People of the search population matching every filter given, in a stable order.

    Example: ``search("engineer", geo_country_code="de", skills="python,sql")``.

    Filters, production's names (blank values count as not given): ``title`` (required) is a
    case-insensitive substring of a position's title; ``first_name``, ``last_name``,
    ``headline``, ``summary`` are case-insensitive substrings; ``geo_city`` is case-insensitive
    equality; ``geo_country_code`` exact, case-insensitive; ``organization_slugs`` (a list or a
    comma-separated string) any of them in a position; ``skills`` (likewise) with
    ``skills_match="all"`` (default) or ``"any"``; ``current_only=False`` (default: ``title``
    and ``organization_slugs`` look at every position; True: the current one only). An unknown
    filter name is a TypeError; a bad value a ValueError (both from :func:`search_records`,
    whose keywords these are). Returns fresh copies.
    """
    found = search_records(title, **filters)
    return [copy.deepcopy(r) for r in found]


# -- employees ---------------------------------------------------------------------------------


def _position_at(rec: dict[str, Any], slug: str) -> dict[str, Any] | None:
    """The position at ``slug`` shown in ``rec`` (None when the record shows none)."""
    positions: list[dict[str, Any]] = rec.get("positions", [])
    return next((p for p in positions if p["organization"]["slug"] == slug), None)


@lru_cache(maxsize=256)
def _employees(slug: str) -> tuple[tuple[dict[str, Any], bool], ...]:
    """(record, is current employee) for every employee, current ones first, in handle order."""
    current = [(_person(f"{slug}-employee-{i:05d}"), True) for i in range(_head_count(slug))]
    former = [(_person(f"{slug}-former-{i:05d}"), False) for i in range(former_count(slug))]
    return tuple(current + former)


def _start_key(rec: dict[str, Any], slug: str) -> tuple[int, int] | None:
    pos = _position_at(rec, slug)
    return None if pos is None else (pos["start_date"]["year"], pos["start_date"]["month"])


def _end_key(rec: dict[str, Any], slug: str) -> tuple[int, int] | None:
    pos = _position_at(rec, slug)
    if pos is None or pos["end_date"] is None:
        return None
    return (pos["end_date"]["year"], pos["end_date"]["month"])


def employee_records(
    slug: str,
    *,
    current_only: bool | str = True,
    title: str | None = None,
    geo_country_code: str | None = None,
    geo_city: str | None = None,
    start_year: int | str | None = None,
    start_month: int | str | None = None,
    sort: str | None = None,
) -> list[dict[str, Any]] | None:
    """What :func:`employees` lists, as the shared (cached) records: read them, never change them.

    None for an unknown company; ValueError on a bad ``sort`` or ``current_only``.
    """
    if is_unknown(slug):
        return None
    sort = (sort or "").strip().lower() or None
    if sort is not None and sort not in EMPLOYEE_SORTS:
        raise ValueError("sort must be one of " + ", ".join(EMPLOYEE_SORTS))
    only_current = _flag(current_only, True, "current_only")
    needle = _text(title)
    city, country = _text(geo_city), _text(geo_country_code)
    year = int(start_year) if start_year not in (None, "") else None
    month = int(start_month) if start_month not in (None, "") else None
    picked: list[tuple[dict[str, Any], bool]] = []
    for rec, is_current in _employees(slug):
        if only_current and not is_current:
            continue
        pos = _position_at(rec, slug)
        if needle is not None and (pos is None or needle not in pos["title"].lower()):
            continue
        if year is not None and (pos is None or pos["start_date"]["year"] != year):
            continue
        if month is not None and (pos is None or pos["start_date"]["month"] != month):
            continue
        if not _geo_matches(rec, city, country):
            continue
        picked.append((rec, is_current))
    if sort in ("newest", "oldest"):
        # Records that show no start date at this company go last, in the stable order.
        dated = [r for r in picked if _start_key(r[0], slug) is not None]
        undated = [r for r in picked if _start_key(r[0], slug) is None]
        dated.sort(key=lambda r: _start_key(r[0], slug) or (0, 0), reverse=sort == "newest")
        picked = dated + undated
    elif sort == "recently_left":
        left = [r for r in picked if not r[1]]
        left_dated = sorted(
            (r for r in left if _end_key(r[0], slug) is not None),
            key=lambda r: _end_key(r[0], slug) or (0, 0),
            reverse=True,
        )
        left_undated = [r for r in left if _end_key(r[0], slug) is None]
        picked = left_dated + left_undated + [r for r in picked if r[1]]
    return [rec for rec, _ in picked]


def employees(slug: str, **filters: Any) -> list[dict[str, Any]] | None:
    """Employee records of company ``slug`` (person records), filtered and sorted; None if unknown.

    Example: ``employees("acme", current_only=False, title="engineer", sort="newest")``.

    Filters, production's names: ``current_only=True`` (default: current employees only; False:
    former ones too), ``title`` (case-insensitive substring of the position at this company),
    ``geo_country_code`` (exact, case-insensitive), ``geo_city`` (case-insensitive equality),
    ``start_year`` and ``start_month`` (of the position at this company). ``sort``: None (the
    stable order: current employees, then former ones, each by handle), ``"newest"`` /
    ``"oldest"`` (by the start date at this company; records showing none go last) or
    ``"recently_left"`` (former employees first, the latest end date first, then current ones).
    Stable sorts: ties keep the stable order. The keywords are :func:`employee_records`'; an
    unknown one is a TypeError. Returns fresh copies.
    """
    found = employee_records(slug, **filters)
    return None if found is None else [copy.deepcopy(r) for r in found]
