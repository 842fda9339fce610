"""The service's endpoints: their paths, the surface each is on, and the data each answers with.

Example::

    is_panel(TIER_PATH)                  # True: the panel surface (its own key header, never
                                         # cached, not paced: it is how the pace is learned)
    expected_data(PROFILE_PATH)          # dict: a profile answers with one record
    checked_data(env, SEARCH_PATH)       # env.data, or ResponseError if it is not a list

The one table of endpoint paths: the Client, the cache policy and the emulator's tests read it.
Each list endpoint's query is declared once here (:data:`SEARCH`, :data:`EMPLOYEES`: production's
filter names, which of them are free text): :mod:`lookup_pandas.identifiers.queries` checks a
request
against it before anything is sent, and the emulator's routes parse by it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ResponseError

if TYPE_CHECKING:
    from .envelope import Envelope

__all__ = [
    "ALUMNI",
    "ALUMNI_PATH",
    "BATCH_PATH",
    "COMPANY_BATCH_PATH",
    "COMPANY_PATH",
    "COMPANY_SEARCH",
    "COMPANY_SEARCH_PATH",
    "DATA_PREFIX",
    "ENDPOINTS",
    "INSTITUTION_PATH",
    "INSTITUTION_SEARCH",
    "INSTITUTION_SEARCH_PATH",
    "JOB_CHANGES",
    "JOB_CHANGES_PATH",
    "SKILL_PATH",
    "SKILL_SEARCH",
    "SKILL_SEARCH_PATH",
    "CompanyParam",
    "Endpoint",
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
    "is_batch",
    "is_panel",
]

DATA_PREFIX = "/api/data/v1"
PROFILE_PATH = f"{DATA_PREFIX}/people/profile"
EMPLOYEES_PATH = f"{DATA_PREFIX}/companies/employees"
SEARCH_PATH = f"{DATA_PREFIX}/people/search"
TIER_PATH = "/api/panel/credits/tier/k/"
#: The Data API's liveness probe: free, no key needed; proves a base URL when the tier cannot.
HEALTH_PATH = f"{DATA_PREFIX}/health"
#: Bulk enrichment: POST submits a job, GET with ``job_id`` and ``after`` tracks it.
BATCH_PATH = f"{DATA_PREFIX}/people/batch/enrich"
PANEL_PREFIX = "/api/panel/"
COMPANY_PATH = f"{DATA_PREFIX}/companies/company"
COMPANY_SEARCH_PATH = f"{DATA_PREFIX}/companies/search"
COMPANY_BATCH_PATH = f"{DATA_PREFIX}/companies/batch/enrich"
INSTITUTION_PATH = f"{DATA_PREFIX}/institutions/institution"
INSTITUTION_SEARCH_PATH = f"{DATA_PREFIX}/institutions/search"
ALUMNI_PATH = f"{DATA_PREFIX}/institutions/alumni"
SKILL_PATH = f"{DATA_PREFIX}/skills/skill"
SKILL_SEARCH_PATH = f"{DATA_PREFIX}/skills/search"
JOB_CHANGES_PATH = f"{DATA_PREFIX}/job-changes/search"


@dataclass(frozen=True)
class CompanyParam:
    """A query parameter that names companies, and the field of a company record it is sent as.

    Example: ``CompanyParam("organization_ids", "id", many=True)``: job changes take
    comma-separated ``org_`` ids; ``CompanyParam("slug", "slug")``: employees take one slug.
    Callers may give any company value (:mod:`lookup_pandas.identifiers.companies`); one of the
    other
    form is looked up for this field (:func:`lookup_pandas.api.listings.company_query`).
    """

    name: str
    field: str  # "slug" or "id": what production documents this parameter takes
    many: bool = False  # a comma-separated list (or a Python list) of companies


@dataclass(frozen=True)
class Listing:
    """The query one list endpoint takes: its required parameter and production's filters.

    ``filters`` are every name production documents for the endpoint (the required one too when
    it is also a filter); ``text`` those that are free text (production needs 3+ characters);
    ``codes`` two-letter country codes; ``companies`` the parameters that name companies.
    Paging parameters (``limit``, ``page``, ``cursor``,
    ``start``) are the paginator's, not filters.
    """

    name: str  # as the user knows it: "people search"
    path: str
    required: str  # "" when none is (job changes), or when one of ``one_of`` is
    filters: tuple[str, ...]
    text: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    #: At least one of these is required (companies search: ``name`` or ``website``).
    one_of: tuple[str, ...] = ()
    companies: tuple[CompanyParam, ...] = ()


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
    companies=(CompanyParam("organization_slugs", "slug", many=True),),
)
#: ``GET /companies/employees`` (same reference): ``slug`` only, no ``id`` parameter.
EMPLOYEES = Listing(
    name="company employees",
    path=EMPLOYEES_PATH,
    required="slug",
    companies=(CompanyParam("slug", "slug"),),
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
#: ``GET /companies/search``: ``name`` or ``website`` (3+ characters); cursor pages.
COMPANY_SEARCH = Listing(
    name="companies search",
    path=COMPANY_SEARCH_PATH,
    required="",
    one_of=("name", "website"),
    filters=(
        "name",
        "website",
        "staff_count_min",
        "staff_count_max",
        "follower_count_min",
        "follower_count_max",
        "industries",
        "industries_v2",
        "hq_city",
        "hq_country_code",
        "founded",
    ),
    text=("name", "website", "hq_city"),
    codes=("hq_country_code",),
)
#: ``GET /institutions/search``: partial match on the name; page-based pages.
INSTITUTION_SEARCH = Listing(
    name="institutions search",
    path=INSTITUTION_SEARCH_PATH,
    required="name",
    filters=("name",),
    text=("name",),
)
#: ``GET /institutions/alumni``: each record a person plus the education record linking them.
ALUMNI = Listing(
    name="institution alumni",
    path=ALUMNI_PATH,
    required="normalized_name",
    filters=(
        "current_only",
        "degree",
        "field_of_study",
        "geo_city",
        "geo_country_code",
        "start_year_min",
        "start_year_max",
        "end_year_min",
        "end_year_max",
        "sort",
    ),
    text=("degree", "field_of_study", "geo_city"),
    codes=("geo_country_code",),
)
#: ``GET /skills/search``: partial match on the skill's name; page-based pages.
SKILL_SEARCH = Listing(
    name="skills search",
    path=SKILL_SEARCH_PATH,
    required="name",
    filters=("name",),
    text=("name",),
)
#: ``GET /job-changes/search``: join / leave / title-change events; page-based pages.
JOB_CHANGES = Listing(
    name="job changes",
    path=JOB_CHANGES_PATH,
    required="",
    filters=(
        "event_type",
        "organization_ids",
        "geo_city",
        "geo_country_code",
        "title",
        "days_ago",
    ),
    text=("geo_city", "title"),
    codes=("geo_country_code",),
    companies=(CompanyParam("organization_ids", "id", many=True),),
)
#: The declared list endpoints, by path.
LISTINGS: dict[str, Listing] = {
    listing.path: listing
    for listing in (SEARCH, EMPLOYEES, COMPANY_SEARCH, INSTITUTION_SEARCH, ALUMNI, SKILL_SEARCH,
                    JOB_CHANGES)
}  # fmt: skip


@dataclass(frozen=True)
class Endpoint:
    """One endpoint of the Data API, declared once: what the Client, the DataFrame functions,
    the CLI and the emulator read.

    ``kind``: the record kind it answers (``person``, ``company``, ``institution``, ``skill``,
    ``job_change``); ``data``: ``dict`` for one record, ``list`` for a page of them; ``ids``:
    opaque id prefixes and the parameter each is sent as; ``key``: the parameter for any other
    value; ``pages``: ``"cursor"`` or ``"page"`` for a list; ``not_found``: the error_code of
    a billed not-found; ``listing``: a list endpoint's query; ``batch``: the batch path that
    resolves this lookup's values in bulk, and ``results`` the key of its poll's results.
    """

    name: str
    path: str
    kind: str
    data: type | None = dict  # None: not checked (the health probe's)
    ids: tuple[tuple[str, str], ...] = ()
    key: str | None = None
    pages: str | None = None
    not_found: str | None = None
    listing: Listing | None = None
    batch: str | None = None
    results: str | None = None

    def param_for(self, value: str) -> tuple[str, str]:
        """The parameter a value is sent as: its id prefix's, else ``key``.

        Example: ``ENDPOINTS["profile"].param_for("prsn_1a2b")`` -> ``("id", "prsn_1a2b")``;
        ``ENDPOINTS["profile"].param_for("ada")`` -> ``("handle", "ada")``
        """
        for prefix, param in self.ids:
            if value.startswith(prefix):
                return param, value
        if self.key is None:
            raise ValueError(f"{self.name} takes only ids ({', '.join(p for p, _ in self.ids)})")
        return self.key, value


#: Every Data API endpoint (production's 16 routes, the two batch pairs counted once each).
ENDPOINTS: dict[str, Endpoint] = {
    e.name: e
    for e in (
        Endpoint("profile", PROFILE_PATH, "person", ids=(("prsn_", "id"),), key="handle",
                 not_found="1010", batch=BATCH_PATH, results="profiles"),
        Endpoint("people_search", SEARCH_PATH, "person", list, pages="cursor", listing=SEARCH),
        Endpoint("company", COMPANY_PATH, "company", ids=(("org_", "id"),), key="slug",
                 not_found="1020", batch=COMPANY_BATCH_PATH, results="companies"),
        Endpoint("companies_search", COMPANY_SEARCH_PATH, "company", list, pages="cursor",
                 listing=COMPANY_SEARCH),
        Endpoint("employees", EMPLOYEES_PATH, "person", list, pages="cursor", listing=EMPLOYEES),
        Endpoint("institution", INSTITUTION_PATH, "institution", key="normalized_name"),
        Endpoint("institutions_search", INSTITUTION_SEARCH_PATH, "institution", list,
                 pages="page", listing=INSTITUTION_SEARCH),
        Endpoint("alumni", ALUMNI_PATH, "person", list, pages="page", listing=ALUMNI),
        Endpoint("skill", SKILL_PATH, "skill", ids=(("skl_", "id"),), not_found="1030"),
        Endpoint("skills_search", SKILL_SEARCH_PATH, "skill", list, pages="page",
                 listing=SKILL_SEARCH),
        Endpoint("job_changes", JOB_CHANGES_PATH, "job_change", list, pages="page",
                 listing=JOB_CHANGES),
        Endpoint("people_batch", BATCH_PATH, "batch"),
        Endpoint("companies_batch", COMPANY_BATCH_PATH, "batch"),
        Endpoint("health", HEALTH_PATH, "health", None),
    )
}  # fmt: skip

#: The type of ``data`` each known endpoint answers with.
_DATA: dict[str, type] = {e.path: e.data for e in ENDPOINTS.values() if e.data is not None}
_DATA[TIER_PATH] = dict
_NAMES: dict[type, str] = {dict: "an object", list: "a list"}


#: The batch paths (submit and poll), read from the table: a new batch route counts at once.
_BATCH_PATHS = tuple(e.path.rstrip("/") for e in ENDPOINTS.values() if e.kind == "batch")


def is_batch(path: str) -> bool:
    """True for a batch job's path (any kind's submit or poll), wherever the base URL puts it.

    Example: ``is_batch(COMPANY_BATCH_PATH)`` -> ``True``; ``is_batch(PROFILE_PATH)`` ->
    ``False``; ``is_batch("/prefix" + BATCH_PATH + "/job_1")`` -> ``True``
    """
    trimmed = path.rstrip("/")
    return any(trimmed.endswith(p) or p + "/" in trimmed for p in _BATCH_PATHS)


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
