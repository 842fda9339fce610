"""The service's endpoints: their paths, the surface each is on, and the data each answers with.

Example::

    is_panel(TIER_PATH)                  # True: the panel surface (its own key header, never
                                         # cached, not paced: it is how the pace is learned)
    expected_data(PROFILE_PATH)          # dict: a profile answers with one record
    checked_data(env, SEARCH_PATH)       # env.data, or ResponseError if it is not a list

The one table of endpoint paths: the Client, the cache policy and the emulator's tests read it.
Each list endpoint's query is declared once here (:data:`SEARCH`, :data:`EMPLOYEES`: production's
filter names, which of them are free text): :mod:`lookup_pandas.filters` checks a request
against it before anything is sent, and the emulator's routes parse by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ResponseError

if TYPE_CHECKING:
    from .envelope import Envelope

__all__ = [
    "BATCH_PATH",
    "EMPLOYEES",
    "EMPLOYEES_PATH",
    "HEALTH_PATH",
    "LISTINGS",
    "PANEL_PREFIX",
    "PROFILE_PATH",
    "SEARCH",
    "SEARCH_PATH",
    "TIER_PATH",
    "Listing",
    "checked_data",
    "expected_data",
    "is_panel",
]

PROFILE_PATH = "/api/data/v1/people/profile"
EMPLOYEES_PATH = "/api/data/v1/companies/employees"
SEARCH_PATH = "/api/data/v1/people/search"
TIER_PATH = "/api/panel/credits/tier/k/"
#: The Data API's liveness probe: free, no key needed; proves a base URL when the tier cannot.
HEALTH_PATH = "/api/data/v1/health"
#: Bulk enrichment: POST submits a job, GET with ``job_id`` and ``after`` tracks it.
BATCH_PATH = "/api/data/v1/people/batch/enrich"
PANEL_PREFIX = "/api/panel/"


@dataclass(frozen=True)
class Listing:
    """The query one list endpoint takes: its required parameter and production's filters.

    ``filters`` are every name production documents for the endpoint (the required one too when
    it is also a filter); ``text`` those that are free text (production needs 3+ characters);
    ``codes`` two-letter country codes. Paging parameters (``limit``, ``page``, ``cursor``,
    ``start``) are the paginator's, not filters.
    """

    name: str  # as the user knows it: "people search"
    path: str
    required: str
    filters: tuple[str, ...]
    text: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()


#: ``GET /people/search`` (``renidly/renidly-skills``, ``data-api.md``).
SEARCH = Listing(
    name="people search",
    path=SEARCH_PATH,
    required="title",
    filters=(
        "title",
        "first_name",
        "last_name",
        "headline",
        "summary",
        "geo_city",
        "geo_country_code",
        "primary_language",
        "is_creator",
        "is_premium",
        "organization_slugs",
        "institution_ids",
        "certifications",
        "certification_authority",
        "speaks_language",
        "skills",
        "skills_match",
        "skill_count_min",
        "skill_count_max",
        "current_only",
        "last_change_within_days",
        "last_change_type",
        "tenure_min_years",
        "tenure_max_years",
        "company_count_min",
        "company_count_max",
        "current_company_count_min",
        "is_boomerang",
        "education_level",
        "degree",
        "field_of_study",
    ),
    text=("title", "first_name", "last_name", "headline", "summary", "geo_city"),
    codes=("geo_country_code",),
)
#: ``GET /companies/employees`` (same reference).
EMPLOYEES = Listing(
    name="company employees",
    path=EMPLOYEES_PATH,
    required="slug",
    filters=(
        "current_only",
        "title",
        "geo_country_code",
        "geo_city",
        "start_year",
        "start_month",
        "sort",
    ),
    text=("title", "geo_city"),
    codes=("geo_country_code",),
)
#: The declared list endpoints, by path.
LISTINGS: dict[str, Listing] = {SEARCH_PATH: SEARCH, EMPLOYEES_PATH: EMPLOYEES}

#: The type of ``data`` each known endpoint answers with.
_DATA: dict[str, type] = {
    PROFILE_PATH: dict,
    EMPLOYEES_PATH: list,
    SEARCH_PATH: list,
    TIER_PATH: dict,
    BATCH_PATH: dict,
}
_NAMES: dict[type, str] = {dict: "an object", list: "a list"}


def is_panel(path: str) -> bool:
    """True for the panel surface (``/api/panel/...``), wherever the base URL puts it."""
    return PANEL_PREFIX in path


def expected_data(path: str) -> type | None:
    """The type of ``data`` the endpoint at ``path`` answers with; None for one we do not know.

    ``path`` may carry the base URL's own path in front (a service behind a path prefix).
    """
    trimmed = path.rstrip("/")
    return next(
        (kind for known, kind in _DATA.items() if trimmed.endswith(known.rstrip("/"))), None
    )


def checked_data(env: Envelope, path: str, kind: type | None = None) -> Any:
    """``env.data``, when it is of the kind the endpoint answers with, else a ResponseError."""
    kind = kind or expected_data(path)
    if kind is None or isinstance(env.data, kind):
        return env.data
    wanted = _NAMES.get(kind, kind.__name__)
    raise ResponseError(
        f"The answer's data for {path} is {type(env.data).__name__}, not {wanted}.",
        request_id=env.request_id,
        status_code=env.status_code,
        url=path,
    )
