"""The Data API's other lists as DataFrames: companies, institutions and skills by name, an
institution's alumni, and job changes.

Example::

    lp.search_companies("acme", hq_country_code="DE")   # one row per company (cursor pages)
    lp.search_institutions("berlin")                    # find an institution's normalized_name
    lp.institution_alumni("tu-berlin", degree="master") # a person + the education linking them
    lp.search_skills("python")                          # skl_ ids and normalized names
    lp.job_changes(event_type="joined", days_ago=30)    # one row per event, person.* and
                                                        # organization.* flattened

Each is :func:`lookup_pandas.api.listings.listing_table` over its endpoint's one declaration
(:data:`lookup_pandas.service.endpoints.ENDPOINTS`): the same paginator, cache and pace as
``search_people``, and the query checked before anything is sent (a misspelt filter is a
UsageError that suggests the closest name; text filters need 3+ characters; ``limit`` is 1–50).
Each returns a pandas DataFrame (``lookup_pandas.frames.records.polars.to_polars`` converts one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..service.endpoints import (
    ALUMNI,
    COMPANY_SEARCH,
    INSTITUTION_SEARCH,
    JOB_CHANGES,
    SKILL_SEARCH,
)
from .listings import DEFAULT_LIMIT, listing_table

if TYPE_CHECKING:
    import pandas as pd

    from ..client.client import Client

__all__ = [
    "alumnus_row",
    "institution_alumni",
    "job_changes",
    "search_companies",
    "search_institutions",
    "search_skills",
]


def alumnus_row(record: dict[str, Any]) -> dict[str, Any]:
    """One alumni answer as one row: the person's fields, and the education record that links
    them to the institution under ``education`` (flattened to ``education.degree``, ...).

    Example: ``alumnus_row({"person": {"id": "prsn_1"}, "education": {"degree": "MSc"}})`` ->
    ``{"id": "prsn_1", "education": {"degree": "MSc"}}``. The emulator (and production) send the
    person record with ``education`` replaced by the linking record: that is kept as it is; a
    record holding the person under ``person`` is lifted to the same shape.
    """
    person = record.get("person")
    if not isinstance(person, Mapping):
        return record
    rest = {k: v for k, v in record.items() if k != "person"}
    return {**person, **rest}


def search_companies(
    name: str | None = None,
    *,
    website: str | None = None,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
    **filters: Any,
) -> pd.DataFrame:
    """Companies whose name (or website) matches, one row per company record, cursor pages.

    Example: ``lp.search_companies("acme", staff_count_min=50, hq_country_code="DE")``;
    ``lp.search_companies(website="acme.example")``.

    ``name`` or ``website`` is required (3+ characters). Filters take production's names:
    ``staff_count_min``/``_max``, ``follower_count_min``/``_max``, ``industries``,
    ``industries_v2``, ``hq_city``, ``hq_country_code``, ``founded`` (see
    :data:`lookup_pandas.service.endpoints.COMPANY_SEARCH`). Each row is a company record (``id``
    ``org_…``, ``slug``, ``name``...; ``hq.city`` flattened); ``df.lookup.enrich_companies``
    takes its ``slug`` column. Neither ``name`` nor ``website``, another filter name, text
    under 3 characters: a UsageError, nothing sent.
    """
    params = {"name": name, "website": website, "limit": limit, **filters}
    return listing_table(
        COMPANY_SEARCH,
        params,
        max_records=max_records,
        client=client,
        progress=progress,
    )


def search_institutions(
    name: str,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Institutions whose name contains ``name`` (3+ characters), one row each, page by page.

    Example: ``lp.search_institutions("berlin")[["id", "name", "normalized_name"]]``: the
    ``normalized_name`` is what :func:`institution_alumni` takes, the ``inst_`` id what
    ``search_people(..., institution_ids=...)`` does.
    """
    return listing_table(
        INSTITUTION_SEARCH,
        {"name": name, "limit": limit},
        max_records=max_records,
        client=client,
        progress=progress,
    )


def institution_alumni(
    normalized_name: str,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
    **filters: Any,
) -> pd.DataFrame:
    """Alumni and students of an institution: one row per person, with the education record
    that links them to it flattened beside the person (``education.degree``, ...).

    Example: ``lp.institution_alumni("tu-berlin", degree="master", geo_country_code="DE")``

    ``normalized_name`` as :func:`search_institutions` gives it. Filters take production's
    names: ``current_only``, ``degree``, ``field_of_study``, ``geo_city`` (3+ characters each
    where text), ``geo_country_code``, ``start_year_min``/``_max``, ``end_year_min``/``_max``,
    ``sort`` (``newest``, ``oldest``, ``recently_graduated``); see
    :data:`lookup_pandas.service.endpoints.ALUMNI`. Another name: a UsageError, nothing sent.
    """
    return listing_table(
        ALUMNI,
        {"normalized_name": normalized_name, "limit": limit, **filters},
        max_records=max_records,
        client=client,
        progress=progress,
        row=alumnus_row,
    )


def search_skills(
    name: str,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Skills whose name contains ``name`` (3+ characters): ``id`` (``skl_…``), ``name``,
    ``normalized_name``, one row each, page by page.

    Example: ``lp.search_skills("python")["normalized_name"]``: what
    ``search_people(..., skills=...)`` takes.
    """
    return listing_table(
        SKILL_SEARCH,
        {"name": name, "limit": limit},
        max_records=max_records,
        client=client,
        progress=progress,
    )


def job_changes(
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
    **filters: Any,
) -> pd.DataFrame:
    """Recent job-change events (joined, left, title change): one row per event, its person
    and organization flattened (``person.handle``, ``organization.slug``, ...).

    Example: ``lp.job_changes(event_type="joined", organization_ids=["org_1", "org_2"],
    days_ago=30)``

    No parameter is required; with none, every recent event, page by page (``max_records``
    caps what is bought). Filters take production's names: ``event_type`` (``joined``,
    ``left``, ``title_change``), ``organization_ids`` (a list, or comma-separated ``org_…``
    ids; a slug or company page URL is first looked up once for its id, billed once and cached,
    see :func:`~lookup_pandas.api.listings.company_query`), ``geo_city``, ``geo_country_code``,
    ``title`` (3+ characters where text), ``days_ago`` (1–365); see
    :data:`lookup_pandas.service.endpoints.JOB_CHANGES`. Another name: a UsageError, nothing sent.
    """
    return listing_table(
        JOB_CHANGES,
        {"limit": limit, **filters},
        max_records=max_records,
        client=client,
        progress=progress,
    )
