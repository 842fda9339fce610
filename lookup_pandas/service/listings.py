"""What each list endpoint takes: its required parameter and production's filters, declared
once for the Client, the CLI and the emulator (:data:`~lookup_pandas.service.endpoints.ENDPOINTS`
names each endpoint's).

>>> SEARCH.filter("last_change_type").choices
('joined', 'left', 'title_change')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .paths import (
    ALUMNI_PATH,
    COMPANY_SEARCH_PATH,
    EMPLOYEES_PATH,
    INSTITUTION_SEARCH_PATH,
    JOB_CHANGES_PATH,
    SEARCH_PATH,
    SKILL_SEARCH_PATH,
)

__all__ = [
    "ALUMNI",
    "COMPANY_SEARCH",
    "CompanyParam",
    "EMPLOYEES",
    "Filter",
    "INSTITUTION_SEARCH",
    "JOB_CHANGES",
    "Listing",
    "MIN_TEXT",
    "SEARCH",
    "SKILL_SEARCH",
]


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
