"""The emulator's people: one deterministic record per handle (see :mod:`.data`).

Example: ``person("ada")["id"]`` is ``person_id("ada")``; ``person_by_id`` maps it back.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .names import company_name, name_of, org_id, person_id
from .vocab import (
    _EMPLOYEE_HANDLE,
    _NAMED_HANDLE,
    _NOW,
    CERTIFICATIONS,
    CITIES,
    COMPANIES,
    DEGREES,
    FIELDS_OF_STUDY,
    FIRST,
    LANGUAGE_NAMES,
    LAST,
    ORGANIZATIONS,
    PROFICIENCIES,
    PROJECT_NAMES,
    PUBLISHERS,
    SCHOOLS,
    SENIORITY,
    SKILLS,
    SPARSE_FIELDS,
    SPARSE_SALT,
    TITLES,
)


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


def company_url(slug: str) -> str:
    """A company's page: what positions' ``organization.url`` and company records show."""
    return f"https://www.example.com/company/{slug}"


def organization(slug: str) -> dict[str, Any]:
    """A position's organization: the same id, name and url as the company record of ``slug``.

    >>> organization("acme")["name"]
    'Acme'
    """
    return {"id": org_id(slug), "name": company_name(slug), "slug": slug, "url": company_url(slug)}


def head_count(slug: str) -> int:
    """Company ``slug``'s current employees: what its employees list and record count."""
    return COMPANIES.get(slug, 10 + _digest("company", slug)[1] % 300)


def former_count(slug: str) -> int:
    """How many former employees company ``slug`` has: about a quarter of its head-count."""
    return (head_count(slug) + 2) // 4


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
                "organization": organization(slug),
                "start_date": _month(start),
                "end_date": None if current else _month(cursor),
                "is_current": current,
            }
        )
        cursor = start - d[24 + i] % 5  # a gap of 0–4 months between positions
    return out


def _education(d: bytes, graduated: int) -> list[dict[str, Any]]:
    """0–2 entries, most recent first, the first ending the year the first position began; for
    about one person in eight the most recent is under way (it ends after the reference year:
    a current student, for alumni's ``current_only``)."""
    out = []
    studying = d[30] % 8 == 0
    for i in range(d[0] % 3):
        slug, name = _pick(SCHOOLS, d, 2 + i)
        years = 2 + d[4 + i] % 4
        end = graduated - i * (years + 1)
        if studying and i == 0:
            end = _NOW // 12 + 1 + d[31] % 3
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
        "id": person_id(handle),
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


def person_by_id(value: str) -> dict[str, Any] | None:
    """The person whose ``prsn_`` id is ``value`` (the record :func:`person` answers for its
    handle), or None when no such person exists."""
    handle = name_of("prsn_", value)
    return None if handle is None or handle != handle.lower() else person(handle)


#: The fields :func:`thin` always keeps: what names a record.
KEPT = ("id", "handle", "slug")


def thin(record: dict[str, Any], keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """``record`` as the sparse-records mode sends it: ``id``, ``handle`` (``slug`` for a
    company), the ``keep`` fields and about half the rest.

    Which fields stay is decided per (handle or slug, field name) by a hash, so the same record
    always loses the same fields. Returns a new (shallow) dict; ``record`` is untouched.
    """
    name = str(record.get("handle", record.get("slug", "")))
    return {
        k: v for k, v in record.items() if k in KEPT or k in keep or _digest("thin", name, k)[0] & 1
    }
