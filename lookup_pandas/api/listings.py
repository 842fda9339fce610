"""The listing functions: a company's employees, people search, the credits tier.

Example::

    lp.search_people("data scientist", max_records=100)   # one row per person, flattened
    lp.company_employees("acme")                          # every employee, page by page
    lp.credits_tier()                                     # one row: balance, tier

Each takes ``client=None`` (the default client, see ``lp.configure``) and returns a new frame:
nested objects flattened with ".", ``id`` and ``handle`` first, lists kept as lists. An empty
answer is an empty frame. Keyword filters take production's names and are checked before
anything is sent (:mod:`lookup_pandas.identifiers.queries`: a misspelt name, a ``limit`` outside
1–50,
a text
filter under 3 characters are a UsageError); ``client.paginate`` is the unchecked escape hatch.
A company is taken in any form enrichment takes (:func:`company_query`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal, overload

import pandas as pd

from ..client.client import Client, check_max_records, resolve_client
from ..client.fetching import fetched
from ..errors import ConfigurationError, ResponseError, UsageError
from ..frames.records import records_to_frame
from ..identifiers.companies import checked_companies, is_company_id
from ..identifiers.kinds import COMPANIES
from ..identifiers.queries import check_listing
from ..service.endpoints import EMPLOYEES, SEARCH, CompanyParam, Listing

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "DEFAULT_LIMIT",
    "FRAMES",
    "Frame",
    "company_employees",
    "company_query",
    "credits_tier",
    "listing_frame",
    "listing_table",
    "query_value",
    "search_people",
]

DEFAULT_LIMIT = 50  # the service's maximum page size: fewer billed pages

Frame = Literal["pandas", "polars"]
FRAMES = ("pandas", "polars")


def listing_frame(
    listing: Listing,
    params: dict[str, Any],
    *,
    max_records: int | None,
    client: Client | None,
    progress: bool | None,
    frame: Frame,
) -> pd.DataFrame | pl.DataFrame:
    """:func:`listing_table` as a pandas or a polars frame, ``frame`` checked first.

    Example: ``listing_frame(SEARCH, {"title": "engineer", "limit": 50}, max_records=None,
    client=None, progress=None, frame="polars")``
    """
    _check_frame(frame)
    out = listing_table(listing, params, max_records=max_records, client=client, progress=progress)
    if frame == "pandas":
        return out
    from ..frames.polars import to_polars

    return to_polars(out)


def listing_table(
    listing: Listing,
    params: dict[str, Any],
    *,
    max_records: int | None,
    client: Client | None,
    progress: bool | None,
    row: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """Every record of ``listing`` for ``params`` as a pandas frame, the query checked first.

    Example: ``listing_table(SKILL_SEARCH, {"name": "python", "limit": 50}, max_records=None,
    client=None, progress=None)``

    A filter set to None is not sent. ``row`` shapes each record before it is flattened (an
    alumnus's person and education record into one row). The one paginator reads the pages
    (page- or cursor-based, detected from the answer).
    """
    check_max_records(max_records)  # before a client is even built
    asked = {k: query_value(v) for k, v in params.items()}
    check_listing(listing, asked)  # what production would ignore or refuse: nothing sent
    query = {k: v for k, v in company_query(listing, asked, client).items() if v is not None}
    records: Iterable[dict[str, Any]] = resolve_client(client).paginate(
        listing.path,
        query,
        max_records=max_records,
        progress=progress,
    )
    if row is not None:
        records = map(row, records)
    return records_to_frame(records)


def company_query(
    listing: Listing, params: dict[str, Any], client: Client | None
) -> dict[str, Any]:
    """``params`` with each company parameter of ``listing`` as its endpoint takes it.

    Example: ``company_query(EMPLOYEES, {"slug": " https://www.linkedin.com/company/Acme/ "},
    None)`` -> ``{"slug": "acme"}``; ``organization_slugs=["ACME", "globex"]`` -> ``"acme,globex"``

    Each value is read by the company rule
    (:func:`~lookup_pandas.identifiers.companies.checked_companies`:
    slugs in any case, page URLs, ``org_`` ids; anything else a UsageError, nothing sent). Where
    the endpoint takes the other form (an ``org_`` id for employees, which take only ``slug``; a
    slug for job changes, which take only ``organization_ids``), the company is looked up for it
    first (``/companies/company``: billed once at that route's cost, then cached; an unknown one
    is a NotFoundError and the listing is not asked). ``client`` is built only then.
    """
    out = dict(params)
    for param in listing.companies:
        if out.get(param.name) is None:
            continue
        sent = [
            value
            if is_company_id(value) == (param.field == "id")
            else _looked_up(value, param, client)
            for value in checked_companies(out[param.name], many=param.many)
        ]
        out[param.name] = ",".join(dict.fromkeys(sent))
    return out


def _looked_up(value: str, param: CompanyParam, client: Client | None) -> str:
    """Company ``value``'s ``param.field`` (its slug, its id), from its record."""
    record = fetched(resolve_client(client).lookup_answer, value, COMPANIES)
    found = record.get(param.field)
    if not isinstance(found, str) or not found:
        raise ResponseError(
            f"The company record of {value!r} has no {param.field}, which {param.name} needs."
        )
    return found


def _check_frame(frame: str) -> None:
    """``frame`` is "pandas" or "polars" (UsageError), and polars can be used (else a
    ConfigurationError naming the extra): checked before anything is sent."""
    if frame not in FRAMES:
        raise UsageError(f"frame must be one of {', '.join(map(repr, FRAMES))}, not {frame!r}.")
    if frame == "polars":
        try:
            import polars  # noqa: F401
        except ImportError as exc:
            raise ConfigurationError(
                "frame='polars' needs polars, which is not installed: "
                "pip install 'lookup-pandas[polars]'."
            ) from exc
        from ..frames.polars import require_pyarrow

        require_pyarrow()


def query_value(value: Any) -> Any:
    """A Python filter value as the service reads it: ``True`` -> ``"true"``, a list of slugs
    or skills -> ``"a,b"``; anything else unchanged.

    Example: ``query_value(["acme", "globex"]) == "acme,globex"``
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else value
        return ",".join(query_value(v) if isinstance(v, bool) else str(v) for v in items)
    return value


@overload
def company_employees(
    slug: str,
    *,
    limit: int = ...,
    max_records: int | None = ...,
    client: Client | None = ...,
    progress: bool | None = ...,
    frame: Literal["pandas"] = ...,
    **filters: Any,
) -> pd.DataFrame: ...
@overload
def company_employees(
    slug: str,
    *,
    limit: int = ...,
    max_records: int | None = ...,
    client: Client | None = ...,
    progress: bool | None = ...,
    frame: Literal["polars"],
    **filters: Any,
) -> pl.DataFrame: ...
def company_employees(
    slug: str,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
    frame: Frame = "pandas",
    **filters: Any,
) -> pd.DataFrame | pl.DataFrame:
    """Every employee of company ``slug``, one row each (page- or cursor-paged, detected).

    Example: ``lp.company_employees("https://www.linkedin.com/company/Acme/", title="engineer")``

    ``slug`` takes what ``enrich_companies`` takes: a slug in any case (sent lower-cased), a
    company page URL or an ``org_`` id. The service's employees endpoint takes only a slug, so
    an id is first looked up for its slug (one company lookup, billed once and cached: free
    when enrichment bought it already). An unknown company raises NotFoundError; a company
    with no employees gives an empty frame. Filters take production's names:
    ``current_only``, ``title``, ``geo_country_code``, ``geo_city``, ``start_year``,
    ``start_month`` and ``sort`` (``newest``, ``oldest``, ``recently_left``).

    Refused with a UsageError before anything is sent: a ``slug`` that is no company (blank, a
    website without ``/company/``), another filter name (the message suggests the closest,
    ``geo_contry_code`` -> ``geo_country_code``), ``limit`` outside 1–50, ``title`` or
    ``geo_city`` under 3 characters, a ``geo_country_code`` that is not two letters (see
    :data:`lookup_pandas.service.endpoints.EMPLOYEES`).
    ``client.paginate(EMPLOYEES_PATH, params)`` sends any parameter unchecked.

    ``frame="polars"`` returns a polars DataFrame instead: the same columns and values (see
    :func:`lookup_pandas.frames.records.polars.to_polars`); it needs the extra,
    ``pip install 'lookup-pandas[polars]'``.
    """
    return listing_frame(
        EMPLOYEES,
        {"slug": slug, "limit": limit, **filters},
        max_records=max_records,
        client=client,
        progress=progress,
        frame=frame,
    )


@overload
def search_people(
    title: str,
    *,
    limit: int = ...,
    max_records: int | None = ...,
    client: Client | None = ...,
    progress: bool | None = ...,
    frame: Literal["pandas"] = ...,
    **filters: Any,
) -> pd.DataFrame: ...
@overload
def search_people(
    title: str,
    *,
    limit: int = ...,
    max_records: int | None = ...,
    client: Client | None = ...,
    progress: bool | None = ...,
    frame: Literal["polars"],
    **filters: Any,
) -> pl.DataFrame: ...
def search_people(
    title: str,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
    frame: Frame = "pandas",
    **filters: Any,
) -> pd.DataFrame | pl.DataFrame:
    """People whose title matches ``title``, one row each, walking the cursor pages.

    Example: ``lp.search_people("engineer", geo_country_code="DE", current_only=True,
    max_records=200)``

    Filters take production's names: ``first_name``, ``last_name``, ``headline``, ``summary``,
    ``geo_city``, ``geo_country_code``, ``organization_slugs`` (a list or comma-separated
    companies: slugs in any case, page URLs, or ``org_`` ids, each looked up once for its slug
    as in :func:`company_employees`), ``skills`` (with ``skills_match``), ``current_only`` and
    the rest of
    :data:`lookup_pandas.service.endpoints.SEARCH` (``primary_language``, ``tenure_min_years``,
    ``education_level``...). Each record is a person record: only ``id`` and ``handle`` are
    promised; ``lp.overview(frame)`` shows name, headline, company and city.

    Refused with a UsageError before anything is sent: another filter name
    (the message suggests the closest, ``country`` -> ``geo_country_code``), ``limit`` outside
    1–50, ``title``, ``first_name``, ``last_name``, ``headline``, ``summary`` or ``geo_city``
    under 3 characters (stripped; an empty title too), a ``geo_country_code`` that is not two
    letters. ``client.paginate(SEARCH_PATH, params)`` sends any parameter unchecked.

    ``frame="polars"`` returns a polars DataFrame instead: the same columns and values (see
    :func:`lookup_pandas.frames.records.polars.to_polars`); it needs the extra,
    ``pip install 'lookup-pandas[polars]'``.
    """
    return listing_frame(
        SEARCH,
        {"title": title, "limit": limit, **filters},
        max_records=max_records,
        client=client,
        progress=progress,
        frame=frame,
    )


def credits_tier(*, client: Client | None = None) -> pd.DataFrame:
    """The credits tier as a one-row frame (``balance``, ``current_tier.name``, ...); not cached.

    Example: ``lp.credits_tier()["current_tier.limit_per_minute"].item()``
    """
    return records_to_frame([resolve_client(client).credits_tier()])
