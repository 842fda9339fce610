"""The emulator's people lists: search over the population, and a company's employees.

Example: ``search("engineer", geo_country_code="DE")``; ``employees("acme", sort="newest")``
(see :mod:`.data` for what each filter matches).
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..service.endpoints import EMPLOYEES, SEARCH
from .filters import declared, flag, lowered, whole, words
from .people import _person, former_count, head_count, is_unknown
from .vocab import EMPLOYEE_SORTS, SEARCH_POPULATION, SKILLS_MATCH

# -- filters -----------------------------------------------------------------------------------


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


def population() -> tuple[dict[str, Any], ...]:
    """The search population's records, shared (cached): read them, never change them."""
    return _population()


def geo_matches(record: dict[str, Any], city: str | None, country_code: str | None) -> bool:
    """Whether ``record``'s geo is ``city`` and ``country_code`` (lower case; None: any)."""
    return _geo_matches(record, city, country_code)


#: The person fields people search matches by a case-insensitive substring.
_SUBSTRINGS = ("first_name", "last_name", "headline", "summary")


def _matches(rec: dict[str, Any], title: str, q: dict[str, Any]) -> bool:
    """Whether ``rec`` is found by people search for ``title`` and ``q`` (see :func:`_search`)."""
    positions = [p for p in rec.get("positions", ()) if p["is_current"] or not q["current_only"]]
    if not any(title in p["title"].lower() for p in positions):
        return False
    wanted_orgs = set(q["organization_slugs"])
    if wanted_orgs and not any(p["organization"]["slug"] in wanted_orgs for p in positions):
        return False
    if not all(_contains(rec, name, q[name]) for name in _SUBSTRINGS):
        return False
    if not _geo_matches(rec, q["geo_city"], q["geo_country_code"]):
        return False
    if q["skills"]:
        has = set(rec.get("skills", ()))
        found = [s in has for s in q["skills"]]
        if not (any(found) if q["skills_match"] == "any" else all(found)):
            return False
    return True


@lru_cache(maxsize=256)
def _search(title: str, query: tuple[tuple[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """The population's records matching ``title`` and ``query`` (what :func:`search_records`
    made of the filters, as sorted items: a mapping the cache can hash)."""
    q = dict(query)
    return tuple(rec for rec in _population() if _matches(rec, title, q))


def _in_population(handle: str) -> bool:
    number = handle.removeprefix("person-")
    return len(number) == 5 and number.isdigit() and int(number) < SEARCH_POPULATION


def search_records(
    title: str, *, moved: Mapping[str, dict[str, Any]] | None = None, **filters: Any
) -> tuple[dict[str, Any], ...]:
    """What :func:`search` finds, as the shared (cached) records: read them, never change them.

    ``filters``: people search's (``SEARCH.filters``); TypeError on another name, ValueError on a
    bad ``skills_match`` or ``current_only``. ``moved``: the records of people who moved, by
    handle (:class:`.moves.Moves`' ``records``): those of the population are searched as they
    are now.
    """
    given = declared(filters, SEARCH)
    match = (given.get("skills_match") or "all").strip().lower()
    if match not in SKILLS_MATCH:
        raise ValueError("skills_match must be one of all, any")
    query: dict[str, Any] = {
        **{n: lowered(given.get(n)) for n in (*_SUBSTRINGS, "geo_city", "geo_country_code")},
        **{n: words(given.get(n)) for n in ("organization_slugs", "skills")},
        "skills_match": match,
        "current_only": flag(given.get("current_only"), False, "current_only"),
    }
    needle = title.strip().lower()
    found = _search(needle, tuple(sorted(query.items())))
    movers = {h: r for h, r in (moved or {}).items() if _in_population(h)}
    if not movers:
        return found
    kept = [r for r in found if r["handle"] not in movers]
    kept += [r for r in movers.values() if _matches(r, needle, query)]
    return tuple(sorted(kept, key=lambda r: str(r["handle"])))  # the population's order


def search(title: str, **filters: Any) -> list[dict[str, Any]]:
    """People of the search population matching every filter given, in a stable order.

    Example: ``search("engineer", geo_country_code="de", skills="python,sql")``.

    Filters, production's names (blank values count as not given): ``title`` (required) is a
    case-insensitive substring of a position's title; ``first_name``, ``last_name``,
    ``headline``, ``summary`` are case-insensitive substrings; ``geo_city`` is case-insensitive
    equality; ``geo_country_code`` exact, case-insensitive; ``organization_slugs`` (a list or a
    comma-separated string) any of them in a position; ``skills`` (likewise) with
    ``skills_match="all"`` (default) or ``"any"``; ``current_only=False`` (default: ``title``
    and ``organization_slugs`` look at every position; True: the current one only). Another
    filter production declares is ignored. An undeclared name is a TypeError; a bad value a
    ValueError (both from :func:`search_records`). Returns fresh copies.
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
