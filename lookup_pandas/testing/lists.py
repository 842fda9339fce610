"""The emulator's people lists: search over the population, and a company's employees.

Example: ``search(title="engineer", geo_country_code="DE")``; ``employees("acme",
sort="newest")``. :func:`search` and :func:`employees` say what each filter matches.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..service.listings import EMPLOYEES, SEARCH
from .careers import Career, today
from .filters import declared, flag, lowered, read, whole
from .names import make_id
from .people import _person, former_count, head_count, is_unknown
from .vocab import EDUCATION_LEVELS, EMPLOYEE_SORTS, LANGUAGE_NAMES, SEARCH_POPULATION

# -- filters -----------------------------------------------------------------------------------


def _geo_matches(record: Mapping[str, Any], city: str | None, country_code: str | None) -> bool:
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


@lru_cache(maxsize=1)
def _careers() -> tuple[Career, ...]:
    """The population's careers, in its order: each reading is made once, when first read."""
    return tuple(Career(rec) for rec in _population())


def population() -> tuple[dict[str, Any], ...]:
    """The search population's records, shared (cached): read them, never change them."""
    return _population()


def geo_matches(record: dict[str, Any], city: str | None, country_code: str | None) -> bool:
    """Whether ``record``'s geo is ``city`` and ``country_code`` (lower case; None: any)."""
    return _geo_matches(record, city, country_code)


#: Whether a person matches one filter: (their career, whose ``record`` is theirs; the filter's
#: value as :func:`.filters.read` reads it; the whole query) -> bool.
Rule = Callable[[Career, Any, Mapping[str, Any]], bool]
Reading = Callable[[Career], "int | None"]
#: Language names (lower case) to their codes: ``speaks_language`` and ``primary_language``
#: take either.
_LANGUAGE_CODES = {name.lower(): code for code, name in LANGUAGE_NAMES.items()}


def _codes(names: Iterable[str]) -> set[str]:
    return {_LANGUAGE_CODES.get(n.lower(), n.lower()) for n in names}


def _scoped(c: Career, q: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The positions title and company filters read: the current ones with ``current_only``."""
    return [p for p in c.positions or () if p["is_current"] or not q.get("current_only")]


def _items(c: Career, name: str) -> list[Mapping[str, Any]]:
    value = c.record.get(name)
    return value if isinstance(value, list) else []


def _items_of(c: Career, name: str) -> list[str]:
    value = c.record.get(name)
    return [str(v).lower() for v in value] if isinstance(value, list) else []


def _field(c: Career, name: str) -> str:
    return str(c.record.get(name) or "").lower()


def _holds(texts: Iterable[str], needles: Iterable[str]) -> bool:
    """Whether any of ``texts`` (lowered here) holds any of ``needles`` (lower case)."""
    return any(n in t.lower() for t in texts for n in needles)


def _substring(name: str) -> Rule:
    return lambda c, v, q: v in _field(c, name)


def _geo(name: str) -> Rule:
    return lambda c, v, q: str((c.record.get("geo") or {}).get(name, "")).lower() == v


def _is(name: str) -> Rule:
    return lambda c, v, q: c.record.get(name) is v


def _at_least(reading: Reading) -> Rule:
    return lambda c, v, q: (n := reading(c)) is not None and n >= v


def _at_most(reading: Reading) -> Rule:
    return lambda c, v, q: (n := reading(c)) is not None and n <= v


def _skills(c: Career, v: tuple[str, ...], q: Mapping[str, Any]) -> bool:
    has = set(_items_of(c, "skills"))
    found = [s in has for s in v]
    return all(found) if q.get("skills_match") == "all" else any(found)


def _describes(c: Career, v: tuple[str, ...], q: Mapping[str, Any]) -> bool:
    projects = [str(p.get("description", "")) for p in _items(c, "projects")]
    return _holds([_field(c, "headline"), _field(c, "summary"), *projects], v)


def _changed_within(c: Career, v: int, q: Mapping[str, Any]) -> bool:
    since = dt.date.fromordinal(q["_today"]) - dt.timedelta(days=v)
    return c.latest_change is not None and c.latest_change[1] >= since


def _shapes_others(c: Career, v: Any, q: Mapping[str, Any]) -> bool:
    return True  # current_only and skills_match shape other filters' rules


#: Each people-search filter's rule (see :func:`search`), by name: every declared filter.
RULES: dict[str, Rule] = {
    "title": lambda c, v, q: _holds((p["title"] for p in _scoped(c, q)), (v,)),
    **{name: _substring(name) for name in ("first_name", "last_name", "headline", "summary")},
    "geo_city": _geo("city"),
    "geo_country_code": _geo("country_code"),
    "primary_language": lambda c, v, q: (
        str((c.record.get("primary_locale") or {}).get("language", "")).lower() in _codes(v)
    ),
    "organization_slugs": lambda c, v, q: any(
        p["organization"]["slug"] in v for p in _scoped(c, q)
    ),
    "institution_ids": lambda c, v, q: any(
        make_id("inst_", e["school"]["slug"]) in v for e in _items(c, "education")
    ),
    "certifications": lambda c, v, q: any(
        x["name"].lower() in v for x in _items(c, "certifications")
    ),
    "certification_authority": lambda c, v, q: any(
        x["authority"].lower() in v for x in _items(c, "certifications")
    ),
    "speaks_language": lambda c, v, q: bool(
        _codes(lang["name"] for lang in _items(c, "languages")) & _codes(v)
    ),
    "skills": _skills,
    "education_level": lambda c, v, q: any(
        EDUCATION_LEVELS.get(e["degree"]) in v for e in _items(c, "education")
    ),
    "degree": lambda c, v, q: _holds((e["degree"] for e in _items(c, "education")), v),
    "field_of_study": lambda c, v, q: _holds(
        (e["field_of_study"] for e in _items(c, "education")), v
    ),
    "industry": lambda c, v, q: c.industry is not None and c.industry.lower() in v,
    "function": lambda c, v, q: c.function in v,
    "description": _describes,
    "exclude_titles": lambda c, v, q: not _holds((p["title"] for p in _scoped(c, q)), v),
    "exclude_organization_slugs": lambda c, v, q: (
        not any(p["organization"]["slug"] in v for p in _scoped(c, q))
    ),
    "exclude_industries": lambda c, v, q: c.industry is None or c.industry.lower() not in v,
    "is_creator": _is("is_creator"),
    "is_premium": _is("is_premium"),
    "current_only": _shapes_others,
    "is_boomerang": lambda c, v, q: c.is_boomerang is v,
    "skills_match": _shapes_others,
    "skill_count_min": _at_least(lambda c: len(_items_of(c, "skills"))),
    "skill_count_max": _at_most(lambda c: len(_items_of(c, "skills"))),
    "tenure_min_years": _at_least(lambda c: c.tenure_years),
    "tenure_max_years": _at_most(lambda c: c.tenure_years),
    "company_count_min": _at_least(lambda c: c.company_count),
    "company_count_max": _at_most(lambda c: c.company_count),
    "current_company_count_min": _at_least(lambda c: c.current_company_count),
    "follower_count_min": _at_least(lambda c: c.record.get("follower_count")),
    "company_size_min": _at_least(lambda c: c.company_size),
    "company_size_max": _at_most(lambda c: c.company_size),
    "experience_min_years": _at_least(lambda c: c.experience_years),
    "function_min_years": _at_least(lambda c: c.function_years),
    "last_change_within_days": _changed_within,
    "last_change_type": lambda c, v, q: c.latest_change is not None and c.latest_change[0] == v,
}


def _matches(c: Career, q: Mapping[str, Any]) -> bool:
    """Whether the person of career ``c`` matches every filter of ``q`` (see :func:`search`)."""
    return all(RULES[name](c, value, q) for name, value in q.items() if name in RULES)


@lru_cache(maxsize=256)
def _search(query: tuple[tuple[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """The population's records matching ``query``: what :func:`search_records` read of the
    filters, as sorted items (a mapping the cache can hash)."""
    q = dict(query)
    return tuple(c.record for c in _careers() if _matches(c, q))


#: Filters given their default, which a query without them means too (one cache entry).
_DEFAULTS: dict[str, Any] = {"skills_match": "any", "current_only": False}


def _in_population(handle: str) -> bool:
    number = handle.removeprefix("person-")
    return len(number) == 5 and number.isdigit() and int(number) < SEARCH_POPULATION


def search_records(
    *,
    moved: Mapping[str, dict[str, Any]] | None = None,
    events: Iterable[Mapping[str, Any]] = (),
    **filters: Any,
) -> tuple[dict[str, Any], ...]:
    """What :func:`search` finds, as the shared (cached) records: read them, never change them.

    ``filters``: people search's (``SEARCH.filters``), each optional; TypeError on another
    name, ValueError on a value production refuses (:func:`.filters.read`). ``moved``: the
    records of people who moved, by handle, and ``events``: the job-change events of their
    moves (:class:`.moves.Moves`' ``records`` and ``events``): those of the population are
    searched as they are now, their latest change the latest of their events.
    """
    now = today()
    q = {k: v for k, v in read(filters, SEARCH, now.year).items() if _DEFAULTS.get(k, ()) != v}
    if "last_change_within_days" in q:
        q["_today"] = now.toordinal()  # the job-change feed's today, in the cache's key
    found = _search(tuple(sorted(q.items())))
    movers = {h: r for h, r in (moved or {}).items() if _in_population(h)}
    if not movers:
        return found
    moves = tuple(events)
    kept = [r for r in found if r["handle"] not in movers]
    kept += [r for r in movers.values() if _matches(Career(r, moves), q)]
    return tuple(sorted(kept, key=lambda r: str(r["handle"])))  # the population's order


def search(**filters: Any) -> list[dict[str, Any]]:
    """People of the search population matching every filter given, in a stable order.

    Example: ``search(title="engineer", geo_country_code="de", skills="python,sql")``.

    Every filter is optional, as in production (no filter at all: the whole population); None
    and blank values count as not given. Text is matched case-insensitively. A keyword filter
    takes a comma-separated string or a list, and matches when any of its words does (the
    ``exclude_`` ones: when none does). Years are whole years up to the records' reference
    date (:mod:`.careers`); a record that does not show what a filter reads (a sparse one has
    no ``positions``, ``geo`` or ``summary``) does not match it, ``exclude_`` ones aside.

    - ``title``: a substring of a position's title (the current one's with ``current_only``)
    - ``first_name``: a substring of the first name
    - ``last_name``: a substring of the last name
    - ``headline``: a substring of the headline
    - ``summary``: a substring of the summary
    - ``geo_city``: the city (``geo.city``), equal
    - ``geo_country_code``: the country code (``geo.country_code``), equal
    - ``primary_language``: ``primary_locale.language``, given as a code (``de``) or a name
    - ``organization_slugs``: a position's organization slug (the current one's with
      ``current_only``)
    - ``institution_ids``: the ``inst_`` id of an education's school (as institutions have it)
    - ``certifications``: a certification's name, equal
    - ``certification_authority``: a certification's authority, equal
    - ``speaks_language``: a language of ``languages``, by its name or its code
    - ``skills``: a skill, equal; any of them, or all with ``skills_match="all"``
    - ``skills_match``: ``any`` (the default, as production's) or ``all``, for ``skills``
    - ``education_level``: an education's level from its degree (bachelor: BSc, BA; master:
      MSc, MBA; doctorate: PhD); production documents no values, so another word finds nobody
    - ``degree``: a substring of an education's degree
    - ``field_of_study``: a substring of an education's field of study
    - ``industry``: the current company's industry (as its company record gives it), equal
    - ``function``: the job function of the current position's title (``vocab.FUNCTIONS``)
    - ``description``: a substring of the headline, the summary or a project's description
    - ``exclude_titles``: no title ``title`` would read holds any of them
    - ``exclude_organization_slugs``: no position ``organization_slugs`` would read is at any
    - ``exclude_industries``: the current company's industry (if any) is none of them
    - ``current_only``: title and company filters (the ``exclude_`` ones too) read the current
      position only (default False: every position)
    - ``is_creator``: the flag, equal
    - ``is_premium``: the flag, equal
    - ``is_boomerang``: whether the person went back to an organization after another one
    - ``skill_count_min``: how many skills, at least (every bound is inclusive)
    - ``skill_count_max``: how many skills, at most
    - ``tenure_min_years``: whole years in the current position, at least
    - ``tenure_max_years``: whole years in the current position, at most
    - ``company_count_min``: distinct organizations of the positions, at least
    - ``company_count_max``: distinct organizations of the positions, at most
    - ``current_company_count_min``: distinct organizations of the current positions, at least
    - ``follower_count_min``: ``follower_count``, at least
    - ``company_size_min``: the current company's head count (``employee_count``), at least
    - ``company_size_max``: the current company's head count, at most
    - ``experience_min_years``: whole years since the first position began, at least
    - ``function_min_years``: whole years in positions of the current position's function
      (ended ones too), at least
    - ``last_change_within_days``: the latest job change (as the job-change feed dates it;
      a mover's, their move) is at most that many days before the feed's today
    - ``last_change_type``: the latest job change's type (joined, left, title_change)

    An undeclared name is a TypeError; a bad value a ValueError (both from
    :func:`search_records`). Returns fresh copies.
    """
    found = search_records(**filters)
    return [copy.deepcopy(r) for r in found]


# -- employees ---------------------------------------------------------------------------------


def _position_at(rec: dict[str, Any], slug: str) -> dict[str, Any] | None:
    """The position at ``slug`` shown in ``rec`` (None when the record shows none)."""
    positions: list[dict[str, Any]] = rec.get("positions", [])
    return next((p for p in positions if p["organization"]["slug"] == slug), None)


@lru_cache(maxsize=256)
def _employees(slug: str) -> tuple[tuple[dict[str, Any], bool], ...]:
    """(record, is current employee) for every employee, current ones first, in handle order."""
    current = [(_person(f"{slug}-employee-{i:05d}"), True) for i in range(head_count(slug))]
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


def _works_at(rec: dict[str, Any], slug: str) -> bool:
    """Whether ``rec``'s current position is at ``slug``."""
    positions = rec.get("positions") or []
    now = positions[0] if positions else {}
    return bool(now.get("is_current")) and now["organization"]["slug"] == slug


def _roster(
    slug: str, moved: Mapping[str, dict[str, Any]], joined: Collection[str]
) -> Sequence[tuple[dict[str, Any], bool]]:
    """(record, is current employee) of ``slug``'s employees now: its own (the moved ones as
    they are now) and those who moved there; current ones first, each group by handle."""
    own = _employees(slug)
    if not moved:
        return own
    handles = {rec["handle"] for rec, _ in own}
    now = [(moved[r["handle"]], None) if r["handle"] in moved else (r, c) for r, c in own]
    now += [(moved[h], None) for h in sorted(joined) if h in moved and h not in handles]
    rows = [(rec, _works_at(rec, slug) if current is None else current) for rec, current in now]
    return sorted(rows, key=lambda row: (not row[1], str(row[0]["handle"])))


def employee_records(
    slug: str,
    *,
    moved: Mapping[str, dict[str, Any]] | None = None,
    joined: Collection[str] = (),
    **filters: Any,
) -> list[dict[str, Any]] | None:
    """What :func:`employees` lists, as the shared (cached) records: read them, never change them.

    ``filters``: the employees endpoint's (``EMPLOYEES.filters``). None for an unknown company;
    TypeError on another name, ValueError on a bad ``sort`` or ``current_only``. ``moved``: the
    records of people who moved, by handle, and ``joined``: the handles of those who moved to
    ``slug`` (:class:`.moves.Moves`): the company's people as they are now, those who moved
    away former employees, those who moved there current ones.
    """
    given = declared(filters, EMPLOYEES)
    if is_unknown(slug):
        return None
    sort = lowered(given.get("sort"))
    if sort is not None and sort not in EMPLOYEE_SORTS:
        raise ValueError("sort must be one of " + ", ".join(EMPLOYEE_SORTS))
    only_current = flag(given.get("current_only"), True, "current_only")
    needle = lowered(given.get("title"))
    city, country = lowered(given.get("geo_city")), lowered(given.get("geo_country_code"))
    year, month = whole(given.get("start_year")), whole(given.get("start_month"))
    picked: list[tuple[dict[str, Any], bool]] = []
    for rec, is_current in _roster(slug, moved or {}, joined):
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
    Stable sorts: ties keep the stable order. The filters are :func:`employee_records`'; an
    undeclared one is a TypeError. Returns fresh copies.
    """
    found = employee_records(slug, **filters)
    return None if found is None else [copy.deepcopy(r) for r in found]
