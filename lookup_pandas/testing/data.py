"""The emulator's people data store, in one place: deterministic synthetic people, as production's.

This module re-exports what its parts define: ``vocab`` (words, places, fixed numbers),
``people`` (one record per handle) and ``lists`` (search and employees); company records are
in :mod:`.companies`, institutions, skills and job changes in :mod:`.catalog`.

Example::

    person("ada-lovelace-042")["first_name"]      # "Ada": a named handle names its person
    person("ada")["positions"][0]["organization"]  # {"id": "org_...", "name", "slug", "url"}
    person("unknown-bob")                         # None: handles starting "unknown" do not exist
    person_by_id(person("ada")["id"])             # the same record as person("ada")
    search(title="engineer", geo_country_code="DE", skills="python,sql", skills_match="all")
    employees("acme")                             # the 137 current employees, in a stable order
    employees("acme", current_only=False, sort="recently_left")  # former ones first
    is_sparse_person("person-00009")              # True: no summary, positions, geo (~5%)
    thin(person("ada"))                           # the record as the sparse-records mode sends it

A person record holds what production documents: ``id`` (``prsn_…``, reversible:
:func:`person_by_id` answers the same record, see :mod:`.names`), ``handle``,
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

from .lists import (
    employee_records,
    employees,
    geo_matches,
    population,
    search,
    search_records,
)
from .people import (
    KEPT,
    company_url,
    former_count,
    head_count,
    is_sparse_person,
    is_unknown,
    person,
    person_by_id,
    thin,
)
from .vocab import (
    CITIES,
    COMPANIES,
    EMPLOYEE_SORTS,
    FIRST,
    LAST,
    ORGANIZATIONS,
    SCHOOLS,
    SEARCH_POPULATION,
    SKILLS,
    SKILLS_MATCH,
    SPARSE_FIELDS,
    TITLES,
)

__all__ = [
    "CITIES",
    "COMPANIES",
    "EMPLOYEE_SORTS",
    "FIRST",
    "KEPT",
    "LAST",
    "ORGANIZATIONS",
    "SCHOOLS",
    "SEARCH_POPULATION",
    "SKILLS",
    "SKILLS_MATCH",
    "SPARSE_FIELDS",
    "TITLES",
    "company_url",
    "employee_records",
    "employees",
    "former_count",
    "geo_matches",
    "head_count",
    "is_sparse_person",
    "is_unknown",
    "person",
    "person_by_id",
    "population",
    "search",
    "search_records",
    "thin",
]
