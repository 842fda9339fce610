"""The emulator's data store: deterministic synthetic people and companies.

Example::

    person("ada-lovelace")["id"]          # always the same "prsn_..." for the same handle
    person("unknown-bob")                 # None: handles starting "unknown" do not exist
    employees("acme")                     # 137 records; company "unknown-co" does not exist

Everything derives from a hash of the handle or slug, so the same question always gets the same
answer, in any process, without storing anything.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Any

__all__ = [
    "COMPANIES",
    "SEARCH_POPULATION",
    "employees",
    "is_unknown",
    "person",
    "search",
]

FIRST = ["Ada", "Alan", "Grace", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances",
         "Edsger", "Radia", "Donald", "Hedy", "Tim", "Katherine", "Guido", "Sophie", "Yukihiro"]
LAST = ["Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson",
        "Allen", "Dijkstra", "Perlman", "Knuth", "Lamarr", "Berners-Lee", "Johnson", "van Rossum",
        "Wilson", "Matsumoto"]
TITLES = ["Software Engineer", "Data Scientist", "Product Manager", "Data Engineer",
          "Engineering Manager", "Designer", "Sales Director", "Account Executive",
          "Machine Learning Engineer", "Recruiter", "Marketing Lead", "CTO"]
SENIORITY = ["", "Senior ", "Staff ", "Principal ", "Junior ", "Lead "]
CITIES = [("Berlin", "Germany", "DE"), ("London", "United Kingdom", "GB"),
          ("Paris", "France", "FR"), ("New York", "United States", "US"),
          ("Toronto", "Canada", "CA"), ("Lisbon", "Portugal", "PT"), ("Bangalore", "India", "IN"),
          ("São Paulo", "Brazil", "BR"), ("Tokyo", "Japan", "JP")]
SKILLS = ["python", "pandas", "sql", "spark", "machine learning", "statistics", "go", "rust",
          "leadership", "negotiation", "figma", "kubernetes", "excel", "tableau"]
INDUSTRIES = ["Software", "Finance", "Retail", "Healthcare", "Manufacturing", "Media"]

#: Companies with a fixed head-count; any other slug gets a derived one (unknown-* is not found).
COMPANIES: dict[str, int] = {"acme": 137, "globex": 50, "initech": 0, "hooli": 1234, "umbrella": 7}
_NAMED_HANDLE = re.compile(r"^([a-z]{2,})-([a-z]{2,})(?:-\d{1,3})?$")

#: How many people the search endpoint searches over.
SEARCH_POPULATION = 3000


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).digest()


def _pick(seq: list[Any], digest: bytes, i: int) -> Any:
    return seq[digest[i % len(digest)] % len(seq)]


def is_unknown(name: str) -> bool:
    """Handles and slugs starting with ``unknown`` or ``no-such`` do not exist."""
    lowered = name.lower()
    return lowered.startswith(("unknown", "no-such"))


def _company(slug: str) -> dict[str, Any]:
    d = _digest("company", slug)
    return {
        "name": slug.replace("-", " ").title(),
        "slug": slug,
        "industry": _pick(INDUSTRIES, d, 0),
        "size": COMPANIES.get(slug, 10 + d[1] % 300),
    }


@lru_cache(maxsize=65536)
def _person(handle: str) -> dict[str, Any]:
    d = _digest("person", handle)
    first, last = _pick(FIRST, d, 0), _pick(LAST, d, 1)
    named = _NAMED_HANDLE.match(handle)
    if named:  # "ada-lovelace-042" is Ada Lovelace, as a lead list would expect
        first, last = named.group(1).title(), named.group(2).title()
    city, country, code = _pick(CITIES, d, 2)
    title = _pick(SENIORITY, d, 3) + _pick(TITLES, d, 4)
    n_positions = 1 + d[5] % 3
    positions = []
    year = 2024
    for i in range(n_positions):
        start = year - 1 - d[6 + i] % 6
        slug = _pick(["acme", "globex", "hooli", "initech", "umbrella", "stark-industries",
                      "wayne-enterprises", "cyberdyne"], d, 9 + i)
        positions.append({
            "title": title if i == 0 else _pick(TITLES, d, 12 + i),
            "organization": _company(slug),
            "start_year": start,
            "end_year": None if i == 0 else year,
            "is_current": i == 0,
        })
        year = start
    skills = sorted({_pick(SKILLS, d, 15 + i) for i in range(2 + d[16] % 5)})
    return {
        "id": "prsn_" + d[20:28].hex(),
        "handle": handle,
        "first_name": first,
        "last_name": last,
        "full_name": f"{first} {last}",
        "headline": f"{title} at {positions[0]['organization']['name']}",
        "summary": f"{first} works on {', '.join(skills[:2])} in {city}.",
        "geo": {"city": city, "country": country, "country_code": code},
        "positions": positions,
        "skills": skills,
        "counts": {"connections": 50 + d[17] * 2, "followers": d[18] * 13 + d[19]},
        "flags": {"open_to_work": bool(d[29] & 1), "verified": bool(d[29] & 2),
                  "premium": bool(d[29] & 4)},
        "profile_url": f"https://www.example.com/in/{handle}",
    }


def person(handle: str) -> dict[str, Any] | None:
    """The full person record for ``handle``, or None when it does not exist.

    Public handles are case-insensitive, as in production: ``Ada`` and ``ada`` are one person,
    whose record carries the handle in lower case.
    """
    if is_unknown(handle):
        return None
    rec = _person(handle.lower())
    # A fresh copy: callers may mutate what they get.
    return {**rec, "geo": dict(rec["geo"]), "counts": dict(rec["counts"]),
            "flags": dict(rec["flags"]), "skills": list(rec["skills"]),
            "positions": [{**p, "organization": dict(p["organization"])} for p in rec["positions"]]}


def _summary(p: dict[str, Any]) -> dict[str, Any]:
    current = p["positions"][0]
    return {
        "id": p["id"],
        "handle": p["handle"],
        "full_name": p["full_name"],
        "title": current["title"],
        "headline": p["headline"],
        "geo": dict(p["geo"]),
        "company": {k: current["organization"][k] for k in ("name", "slug")},
    }


@lru_cache(maxsize=256)
def _employees(slug: str) -> tuple[dict[str, Any], ...]:
    size = _company(slug)["size"]
    out = []
    for i in range(size):
        p = _person(f"{slug}-employee-{i:05d}")
        rec = _summary(p)
        rec["company"] = {"name": _company(slug)["name"], "slug": slug}
        rec["start_year"] = p["positions"][0]["start_year"]
        out.append(rec)
    return tuple(out)


def employees(slug: str) -> list[dict[str, Any]] | None:
    """Every employee record of company ``slug`` in a stable order; None when unknown."""
    if is_unknown(slug):
        return None
    return [dict(r) for r in _employees(slug)]


@lru_cache(maxsize=1)
def _population() -> tuple[dict[str, Any], ...]:
    return tuple(_summary(_person(f"person-{i:05d}")) for i in range(SEARCH_POPULATION))


def search(title: str, **filters: str) -> list[dict[str, Any]]:
    """People whose title contains ``title`` (case-insensitive), then exact-match filters.

    Filters: ``country_code`` (``DE``), ``city``, ``company`` (slug).
    """
    needle = title.strip().lower()
    out = []
    for rec in _population():
        if needle not in rec["title"].lower():
            continue
        if "country_code" in filters and rec["geo"]["country_code"] != filters["country_code"]:
            continue
        if "city" in filters and rec["geo"]["city"].lower() != filters["city"].lower():
            continue
        if "company" in filters and rec["company"]["slug"] != filters["company"]:
            continue
        out.append(dict(rec))
    return out
