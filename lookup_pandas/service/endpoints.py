"""The service's endpoints: their paths, the surface each is on, and the data each answers with.

>>> is_panel(TIER_PATH)
True
>>> expected_data(PROFILE_PATH)
<class 'dict'>
>>> ENDPOINTS["company"].param_for("acme")
('slug', 'acme')
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
    "EMAILS_HEALTH_PATH",
    "EMAILS_PREFIX",
    "EMAIL_FIND_PATH",
    "EMAIL_FIND_PROFILE_PATH",
    "EMAIL_PROSPECTS_PATH",
    "EMAIL_REVERSE_PATH",
    "EMAIL_VERIFY_PATH",
    "FIND_BATCH_PATH",
    "PART_SEPARATOR",
    "VERIFY_BATCH_PATH",
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
    "MIN_TEXT",
    "PANEL_PREFIX",
    "PROFILE_PATH",
    "SEARCH",
    "SEARCH_PATH",
    "TIER_PATH",
    "Filter",
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
#: The Data API's liveness probe. It is free and needs no key.
HEALTH_PATH = f"{DATA_PREFIX}/health"
#: Bulk enrichment. POST submits a job, GET with ``job_id`` and ``after`` tracks it.
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
#: The Email API (``email-api.md``): same key, same envelope, its own base.
EMAILS_PREFIX = "/api/emails/v1"
EMAIL_VERIFY_PATH = f"{EMAILS_PREFIX}/verify"
EMAIL_FIND_PATH = f"{EMAILS_PREFIX}/find"
EMAIL_FIND_PROFILE_PATH = f"{EMAILS_PREFIX}/find/linkedin"
EMAIL_REVERSE_PATH = f"{EMAILS_PREFIX}/reverse"
EMAIL_PROSPECTS_PATH = f"{EMAILS_PREFIX}/prospects"
#: The Email API's batch jobs: POST ``{"emails": [...]}`` / ``{"queries": [...]}``, GET with
#: ``job_id`` and an integer ``after``.
VERIFY_BATCH_PATH = f"{EMAILS_PREFIX}/verify/batch"
FIND_BATCH_PATH = f"{EMAILS_PREFIX}/find/batch"
#: The Email API's liveness probe: free, no key.
EMAILS_HEALTH_PATH = f"{EMAILS_PREFIX}/health"
#: What joins the parts of a value sent as several parameters (``find``'s first name, last name
#: and domain): a tab, which no part holds once normalised (inner whitespace is one space).
PART_SEPARATOR = "\t"


@dataclass(frozen=True)
class CompanyParam:
    """A query parameter that names companies, and the company field it is sent as.

    >>> EMPLOYEES.companies
    (CompanyParam(name='slug', field='slug', many=False),)
    >>> JOB_CHANGES.companies[0].many
    True
    """

    name: str
    field: str  # "slug" or "id": what production documents this parameter takes
    many: bool = False  # a comma-separated list (or a Python list) of companies


MIN_TEXT = 3  # production's shortest free-text filter, after stripping


@dataclass(frozen=True)
class Filter:
    """One filter a listing takes, and the values production takes for it.

    ``kind`` is one of:

    - ``"text"``: free text, 3 characters or more once stripped
    - ``"word"``: a keyword, or a comma-separated list of them, not blank
    - ``"code"``: a two-letter country code
    - ``"bool"``: true or false
    - ``"int"``: a whole number from ``low`` to ``high`` (None: no top)
    - ``"year"``: a year from ``low`` to this year plus ``high``
    - ``"choice"``: one of ``choices``

    >>> SEARCH.filter("last_change_type").choices
    ('joined', 'left', 'title_change')
    >>> ALUMNI.filter("end_year_max").bounds(this_year=2026)
    (1900, 2036)
    """

    name: str
    kind: str = "text"
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def bounds(self, this_year: int) -> tuple[int | None, int | None]:
        """The lowest and highest whole number taken (a year's top counted from ``this_year``)."""
        if self.kind == "year":
            return self.low, this_year + (self.high or 0)
        return self.low, self.high

    def parse(self, value: Any, this_year: int) -> Any:
        """``value`` as production takes it (a choice lower-cased, a number an int), else a
        ValueError giving the reason: what the emulator answers 400 for, and the library refuses.

        >>> EMPLOYEES.filter("start_year").parse("2027", 2026)
        Traceback (most recent call last):
        ...
        ValueError: must be an integer between 1900 and 2026
        """
        kind, text = self.kind, str(value).strip()
        if kind == "bool" and not isinstance(value, bool):
            if text.lower() not in ("true", "false"):
                raise ValueError("must be true or false")
            return text.lower() == "true"
        if kind in ("int", "year"):
            return self._number(value, this_year)
        if kind == "choice":
            if text.lower() not in self.choices:
                raise ValueError("must be one of " + ", ".join(self.choices))
            return text.lower()
        if kind == "text" and len(text) < MIN_TEXT:
            raise ValueError(f"must be at least {MIN_TEXT} characters")
        if kind == "code" and not (len(text) == 2 and text.isascii() and text.isalpha()):
            raise ValueError("must be a two-letter country code")
        return text if kind == "code" else value

    def _number(self, value: Any, this_year: int) -> int:
        low, high = self.bounds(this_year)
        try:
            number = int(str(value).strip()) if not isinstance(value, bool | float) else None
        except ValueError:
            number = None
        if (
            number is None
            or (low is not None and number < low)
            or (high is not None and number > high)
        ):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise ValueError(f"must be an integer {bound}")
        return number


def _of(kind: str, names: str, **limits: Any) -> tuple[Filter, ...]:
    """The filters named in ``names`` (one a word), each of ``kind``.

    >>> _of("int", "skill_count_min skill_count_max", low=0)[1]
    Filter(name='skill_count_max', kind='int', low=0, high=None, choices=())
    """
    return tuple(Filter(name, kind, **limits) for name in names.split())


def _choice(name: str, *choices: str) -> Filter:
    return Filter(name, "choice", choices=choices)


@dataclass(frozen=True)
class Listing:
    """The query one list endpoint takes: its required parameter and production's filters.

    >>> SEARCH.required, SEARCH.text[:2], SEARCH.needs_filter
    ('', ('title', 'first_name'), True)
    >>> "limit" in SEARCH.filters, SEARCH.filter("is_creator").kind
    (False, 'bool')
    >>> SEARCH.ranges[0]
    ('skill_count_min', 'skill_count_max')
    """

    name: str  # as the user knows it: "people search"
    path: str
    required: str  # "" when none is (people search, job changes), or when one of ``one_of`` is
    #: Every filter production documents or its SDK sends, the required one too when it is one.
    #: Paging parameters (``limit``, ``page``, ``cursor``, ``start``) are not filters.
    params: tuple[Filter, ...]
    #: At least one of these is required (companies search: ``name`` or ``website``).
    one_of: tuple[str, ...] = ()
    companies: tuple[CompanyParam, ...] = ()  # the parameters that name companies
    #: A query with no filter at all is refused: it would bill pages of everyone.
    needs_filter: bool = False

    @property
    def filters(self) -> tuple[str, ...]:
        """The filters' names, as declared."""
        return tuple(f.name for f in self.params)

    @property
    def text(self) -> tuple[str, ...]:
        """The free-text filters: production needs 3 characters or more."""
        return tuple(f.name for f in self.params if f.kind == "text")

    @property
    def ranges(self) -> tuple[tuple[str, str], ...]:
        """(lowest, highest) pairs, such as ``tenure_min_years`` and ``tenure_max_years``."""
        names = set(self.filters)
        return tuple(
            (n, top)
            for n in self.filters
            if (top := n.replace("_min", "_max", 1)) != n and top in names
        )

    def filter(self, name: str) -> Filter | None:
        """The declaration of filter ``name``; None for a name this listing does not take."""
        return next((f for f in self.params if f.name == name), None)


def _search_by_name(name: str, path: str) -> Listing:
    """A search by partial match on a name: ``name`` is its one filter, and it is free text."""
    return Listing(name=name, path=path, required="name", params=(Filter("name"),))


_COUNTS = {"low": 0}
#: ``GET /people/search`` (``renidly/renidly-skills``, ``data-api.md``; the SDK 0.3.0's
#: ``PeopleSearchParams``, "regenerated from the Data API OpenAPI spec"). Every filter is optional.
SEARCH = Listing(
    name="people search",
    path=SEARCH_PATH,
    required="",
    params=(
        *_of("text", "title first_name last_name headline summary geo_city"),
        *_of("code", "geo_country_code"),
        *_of(
            "word",
            """
            primary_language organization_slugs institution_ids certifications
            certification_authority speaks_language skills education_level degree field_of_study
            industry function description exclude_titles exclude_organization_slugs
            exclude_industries
        """,
        ),
        *_of("bool", "is_creator is_premium current_only is_boomerang"),
        _choice("skills_match", "any", "all"),
        *_of(
            "int",
            """
            skill_count_min skill_count_max tenure_min_years tenure_max_years company_count_min
            company_count_max current_company_count_min follower_count_min company_size_min
            company_size_max experience_min_years function_min_years
        """,
            **_COUNTS,
        ),
        Filter("last_change_within_days", "int", low=1),
        _choice("last_change_type", "joined", "left", "title_change"),
    ),
    companies=(
        CompanyParam("organization_slugs", "slug", many=True),
        CompanyParam("exclude_organization_slugs", "slug", many=True),
    ),
    needs_filter=True,
)
#: ``GET /companies/employees`` (same reference): ``slug`` only, no ``id`` parameter.
EMPLOYEES = Listing(
    name="company employees",
    path=EMPLOYEES_PATH,
    required="slug",
    companies=(CompanyParam("slug", "slug"),),
    params=(
        Filter("current_only", "bool"),
        *_of("text", "title"),
        Filter("geo_country_code", "code"),
        Filter("geo_city"),
        Filter("start_year", "year", low=1900, high=0),  # 1900 to this year
        Filter("start_month", "int", low=1, high=12),
        _choice("sort", "newest", "oldest", "recently_left"),
    ),
)
#: ``GET /companies/search``: ``name`` or ``website`` (3+ characters), cursor pages.
COMPANY_SEARCH = Listing(
    name="companies search",
    path=COMPANY_SEARCH_PATH,
    required="",
    one_of=("name", "website"),
    params=(
        *_of("text", "name website"),
        *_of(
            "int",
            "staff_count_min staff_count_max follower_count_min follower_count_max",
            **_COUNTS,
        ),
        *_of("word", "industries industries_v2"),
        Filter("hq_city"),
        Filter("hq_country_code", "code"),
        Filter("founded", "year", low=1800, high=0),
    ),
)
#: ``GET /institutions/search``: partial match on the name, page-based pages.
INSTITUTION_SEARCH = _search_by_name("institutions search", INSTITUTION_SEARCH_PATH)
#: ``GET /skills/search``: partial match on the skill's name, page-based pages.
SKILL_SEARCH = _search_by_name("skills search", SKILL_SEARCH_PATH)
#: ``GET /institutions/alumni``: each record a person plus the education record linking them.
ALUMNI = Listing(
    name="institution alumni",
    path=ALUMNI_PATH,
    required="normalized_name",
    params=(
        Filter("current_only", "bool"),
        *_of("text", "degree field_of_study geo_city"),
        Filter("geo_country_code", "code"),
        # 1900 to this year + 10
        *_of("year", "start_year_min start_year_max end_year_min end_year_max", low=1900, high=10),
        _choice("sort", "newest", "oldest", "recently_graduated"),
    ),
)
#: ``GET /job-changes/search``: join, leave and title-change events, page-based pages.
JOB_CHANGES = Listing(
    name="job changes",
    path=JOB_CHANGES_PATH,
    required="",
    params=(
        _choice("event_type", "joined", "left", "title_change"),
        Filter("organization_ids", "word"),
        Filter("geo_city"),
        Filter("geo_country_code", "code"),
        Filter("title"),
        Filter("days_ago", "int", low=1, high=365),
    ),
    companies=(CompanyParam("organization_ids", "id", many=True),),
)


@dataclass(frozen=True)
class Endpoint:
    """One endpoint of the Data API, declared once for the Client, the CLI and the emulator.

    >>> profile = ENDPOINTS["profile"]
    >>> profile.kind, profile.not_found, profile.results
    ('person', '1010', 'profiles')
    >>> ENDPOINTS["people_search"].pages
    'cursor'
    """

    name: str
    path: str
    #: The record kind: person, company, institution, skill, job_change; the Email API's
    #: verdict, email (a find's answer), reverse, prospect.
    kind: str
    data: type | None = dict  # dict: one record, list: a page of them, None: not checked
    ids: tuple[tuple[str, str], ...] = ()  # opaque id prefixes and the parameter each goes as
    key: str | None = None  # the parameter for any value that is no id
    pages: str | None = None  # a list's paging: "cursor" or "page"
    not_found: str | None = None  # the error_code of a billed not-found
    listing: Listing | None = None  # a list endpoint's query
    batch: str | None = None  # the batch path that resolves this lookup's values in bulk
    results: str | None = None  # the key of the results in that batch job's poll
    #: The parameters a value of several parts is sent as, in order (``find``: first_name,
    #: last_name, domain); the parts are joined by PART_SEPARATOR.
    parts: tuple[str, ...] = ()

    def query(self, value: str) -> dict[str, str]:
        """The query a lookup of ``value`` sends: its parts by name, else :meth:`param_for`.

        >>> ENDPOINTS["email_find"].query("jane\\tdoe\\tacme.com")
        {'first_name': 'jane', 'last_name': 'doe', 'domain': 'acme.com'}
        >>> ENDPOINTS["email_verify"].query("jane@acme.com")
        {'email': 'jane@acme.com'}
        """
        if self.parts:
            return dict(zip(self.parts, value.split(PART_SEPARATOR), strict=True))
        return dict([self.param_for(value)])

    def param_for(self, value: str) -> tuple[str, str]:
        """The parameter a value is sent as: its id prefix's, else ``key``.

        >>> ENDPOINTS["profile"].param_for("prsn_1a2b")
        ('id', 'prsn_1a2b')
        >>> ENDPOINTS["profile"].param_for("ada")
        ('handle', 'ada')
        """
        for prefix, param in self.ids:
            if value.startswith(prefix):
                return param, value
        if self.key is None:
            raise ValueError(f"{self.name} takes only ids ({', '.join(p for p, _ in self.ids)})")
        return self.key, value


#: Every endpoint of the Data API (production's 16 routes, the two batch pairs counted once each)
#: and of the Email API (its 10, the same way: 8).
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
        Endpoint("institution", INSTITUTION_PATH, "institution", key="normalized_name",
                 not_found="1040"),
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
        # Their batch twins (VERIFY_BATCH_PATH, FIND_BATCH_PATH) are declared below as routes;
        # the engine's email batch runs are not written yet, so no lookup names them as its
        # ``batch`` (issue 41).
        Endpoint("email_verify", EMAIL_VERIFY_PATH, "verdict", key="email"),
        Endpoint("email_find", EMAIL_FIND_PATH, "email",
                 parts=("first_name", "last_name", "domain")),
        Endpoint("email_find_profile", EMAIL_FIND_PROFILE_PATH, "email", key="url"),
        Endpoint("email_reverse", EMAIL_REVERSE_PATH, "reverse", key="email"),
        Endpoint("email_prospects", EMAIL_PROSPECTS_PATH, "prospect", pages="cursor"),
        Endpoint("verify_batch", VERIFY_BATCH_PATH, "batch"),
        Endpoint("find_batch", FIND_BATCH_PATH, "batch"),
        Endpoint("emails_health", EMAILS_HEALTH_PATH, "health", None),
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

    >>> is_batch(COMPANY_BATCH_PATH), is_batch("/prefix" + BATCH_PATH + "/job_1")
    (True, True)
    >>> is_batch(PROFILE_PATH)
    False
    """
    trimmed = path.rstrip("/")
    return any(trimmed.endswith(p) or p + "/" in trimmed for p in _BATCH_PATHS)


def is_panel(path: str) -> bool:
    """True for the panel surface (``/api/panel/...``), wherever the base URL puts it.

    >>> is_panel("/prefix/api/panel/credits/tier/k/"), is_panel(PROFILE_PATH)
    (True, False)
    """
    return PANEL_PREFIX in path


def expected_data(path: str) -> type | None:
    """The type of ``data`` the endpoint at ``path`` answers with, None for an unknown one.

    ``path`` may start with the base URL's own path (a service behind a path prefix).

    >>> expected_data("/gateway" + SEARCH_PATH)
    <class 'list'>
    >>> expected_data("/api/data/v1/nothing") is None
    True
    """
    trimmed = path.rstrip("/")
    return next(
        (kind for known, kind in _DATA.items() if trimmed.endswith(known.rstrip("/"))), None
    )


def checked_data(env: Envelope, path: str, kind: type | None = None) -> Any:
    """``env.data`` when it is of the kind the endpoint answers with, else a ResponseError.

    >>> from lookup_pandas.service.envelope import Envelope
    >>> env = Envelope(data=[], message="ok", pagination=None, request_id=None, body={})
    >>> checked_data(env, SEARCH_PATH)
    []
    >>> checked_data(env, PROFILE_PATH)
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.ResponseError: The answer's data for ... is list, not an object. (HTTP 200)
    """
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
