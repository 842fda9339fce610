"""The Data API's other lists as DataFrames: companies, institutions, skills, alumni, job changes.

Example: ``lp.search_companies("acme", hq_country_code="DE")`` or ``lp.search_skills("python")``.

Each is :func:`lookup_pandas.api.listings.listing_table` over its endpoint's declaration
(:data:`lookup_pandas.service.endpoints.ENDPOINTS`), with the same paginator, cache and pace
as ``search_people``. The query is checked before anything is sent. Each returns a pandas
DataFrame.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..errors import NotFoundError
from ..service.listings import ALUMNI, COMPANY_SEARCH, INSTITUTION_SEARCH, JOB_CHANGES, SKILL_SEARCH
from .listings import DEFAULT_LIMIT, listing_table

if TYPE_CHECKING:
    from ..client.client import Client

__all__ = [
    "EVENT_COLUMNS",
    "alumnus_row",
    "institution_alumni",
    "job_changes",
    "search_companies",
    "search_institutions",
    "search_skills",
]


#: The columns of a job-changes frame without an event: an event's, as a frame of events
#: flattens them (the person and the organisation that production names, the date as the
#: emulator names it), never a person record's ``handle``.
EVENT_COLUMNS = (
    "id",
    "event_type",
    "detected_at",
    "person.id",
    "person.handle",
    "organization.id",
    "organization.name",
    "organization.slug",
    "title",
)


def alumnus_row(record: dict[str, Any]) -> dict[str, Any]:
    """One alumni answer as one row: the person's fields, and the linking education record.

    The emulator and production send the person record with ``education`` replaced by the
    linking record, which is kept as it is. A record holding the person under ``person`` is
    lifted to the same shape.

    >>> alumnus_row({"person": {"id": "prsn_1"}, "education": {"degree": "MSc"}})
    {'id': 'prsn_1', 'education': {'degree': 'MSc'}}
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
    """Companies whose name (or website) matches, one row per company record, walking cursor pages.

    Example: ``lp.search_companies("acme", staff_count_min=50, hq_country_code="DE")``

    ``name`` or ``website`` is required (3+ characters). ``filters`` take production's names:
    ``staff_count_min``/``_max``, ``follower_count_min``/``_max``, ``industries``,
    ``industries_v2``, ``hq_city``, ``hq_country_code``, ``founded``
    (:data:`lookup_pandas.service.listings.COMPANY_SEARCH`). ``limit`` is the page size (1–50),
    ``max_records`` stops after that many records, ``client`` is the Client (default
    ``lp.default_client()``) and ``progress=False`` hides the bar.

    Each row is a company record (``id``, ``slug``, ``name``..., ``hq.city`` flattened), and
    ``df.lookup.enrich_companies`` takes its ``slug`` column. Neither ``name`` nor ``website``,
    another filter name, or text under 3 characters is a UsageError, and nothing is sent.
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

    Example: ``lp.search_institutions("berlin")[["id", "name", "normalized_name"]]``

    The ``normalized_name`` is what :func:`institution_alumni` takes, and the ``inst_`` id what
    ``search_people(..., institution_ids=...)`` takes. ``limit``, ``max_records``, ``client`` and
    ``progress`` are as in :func:`search_companies`.
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
    """Alumni and students of an institution: one row per person, with the linking education record.

    Example: ``lp.institution_alumni("tu-berlin", degree="master", geo_country_code="DE")``

    ``normalized_name`` is as :func:`search_institutions` gives it. The education record is
    flattened beside the person (``education.degree``, ...). ``filters`` take production's names:
    ``current_only``, ``degree``, ``field_of_study``, ``geo_city`` (3+ characters each where
    text), ``geo_country_code``, ``start_year_min``/``_max``, ``end_year_min``/``_max`` and
    ``sort`` (``newest``, ``oldest``, ``recently_graduated``), as
    :data:`lookup_pandas.service.listings.ALUMNI` declares.
    Another name is a UsageError, and nothing is sent. ``limit``, ``max_records``, ``client`` and
    ``progress`` are as in :func:`search_companies`. An institution the service does not know
    (production's not-found ``1040``, billed once and cached) gives an empty frame.
    """
    try:
        return listing_table(
            ALUMNI,
            {"normalized_name": normalized_name, "limit": limit, **filters},
            max_records=max_records,
            client=client,
            progress=progress,
            row=alumnus_row,
        )
    except NotFoundError:
        return pd.DataFrame()


def search_skills(
    name: str,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Skills whose name contains ``name`` (3+ characters), one row each, page by page.

    Example: ``lp.search_skills("python")["normalized_name"]``

    The columns are ``id`` (``skl_…``), ``name`` and ``normalized_name``, which
    ``search_people(..., skills=...)`` takes. ``limit``, ``max_records``, ``client`` and
    ``progress`` are as in :func:`search_companies`.
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
    """Recent job-change events (joined, left, title change), one row per event.

    Example: ``lp.job_changes(event_type="joined", organization_ids=["org_1"], days_ago=30)``

    The person and organization are flattened (``person.handle``, ``organization.slug``, ...). No
    filter is required, and with none every recent event comes, page by page (``max_records``
    caps what is bought). ``filters`` take production's names: ``event_type`` (``joined``,
    ``left``, ``title_change``), ``organization_ids``, ``geo_city``, ``geo_country_code``,
    ``title`` (3+ characters where text), ``days_ago`` (1–365)
    (:data:`lookup_pandas.service.listings.JOB_CHANGES`). ``organization_ids`` is a list or
    comma-separated ``org_`` ids. A slug or company page URL is first looked up once for its id
    (:func:`~lookup_pandas.api.listings.company_query`). Another name is a UsageError, and nothing
    is sent. ``limit``, ``client`` and ``progress`` are as in :func:`search_companies`. With no
    event the frame is empty, with the columns of :data:`EVENT_COLUMNS`.
    """
    frame = listing_table(
        JOB_CHANGES,
        {"limit": limit, **filters},
        max_records=max_records,
        client=client,
        progress=progress,
    )
    if len(frame):
        return frame
    return pd.DataFrame({name: pd.Series(dtype="str") for name in EVENT_COLUMNS})
