"""The listing functions: a company's employees, people search, the credits tier.

>>> import lookup_pandas as lp
>>> from lookup_pandas.testing import MockTransport, envelope
>>> def answer(request):
...     if "/api/panel/" in request.url:
...         return 200, envelope({"current_tier": {"limit_per_minute": 60000}})
...     people = [{"id": "prsn_1", "handle": "ada", "geo": {"city": "London"}}]
...     return 200, envelope(people, pagination={"page": 1, "has_more": False})
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
...                    transport=MockTransport(answer))
>>> listing_table(SEARCH, {"title": "engineer", "limit": 50}, max_records=None, client=client,
...               progress=False)
       id handle geo.city
0  prsn_1    ada   London

Each public function takes ``client=None`` (the default client) and returns a new frame.
Nested objects are flattened with ".", ``id`` and ``handle`` come first, lists stay lists. An
empty answer is an empty frame.
Filters are checked before anything is sent (:mod:`lookup_pandas.identifiers.queries`).
``client.paginate`` is the unchecked escape hatch.
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
from ..service.listings import EMPLOYEES, SEARCH, CompanyParam, Listing

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "DEFAULT_LIMIT",
    "FRAMES",
    "Frame",
    "company_employees",
    "company_query",
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

    Example: ``listing_frame(SEARCH, params, max_records=None, client=None, progress=None,
    frame="polars")``
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

    A filter set to None is not sent. ``row`` shapes each record before it is flattened (an
    alumnus's person and education record into one row). The pages are page- or cursor-based,
    told by the answer. See the module's example.
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

    Each value is read by :func:`~lookup_pandas.identifiers.companies.checked_companies` (slugs in
    any case, page URLs, ``org_`` ids, else a UsageError). Where the endpoint takes the other form
    (an id where it takes a slug, or the reverse), the company is looked up first. That lookup is
    billed once at its route's cost, then cached. An unknown company is a NotFoundError, and the
    listing is not asked. ``client`` is built only then.

    >>> company_query(EMPLOYEES, {"slug": " https://www.linkedin.com/company/Acme/ "}, None)
    {'slug': 'acme'}
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
    record = fetched(resolve_client(client).parts.sender.request, value, COMPANIES)
    found = record.get(param.field)
    if not isinstance(found, str) or not found:
        raise ResponseError(
            f"The company record of {value!r} has no {param.field}, which {param.name} needs."
        )
    return found


def _check_frame(frame: str) -> None:
    """Check, before anything is sent, that ``frame`` is "pandas" or "polars" and can be used.

    A wrong name is a UsageError. Polars not installed is a ConfigurationError naming the extra.
    """
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
    """A Python filter value as the service reads it.

    >>> query_value(True), query_value(["acme", "globex"]), query_value(50)
    ('true', 'acme,globex', 50)
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
    company page URL or an ``org_`` id. The endpoint takes only a slug, so an id is first looked
    up for its slug (billed once and cached). An unknown company raises NotFoundError. A company
    with no employees gives an empty frame.

    ``filters`` take production's names: ``current_only``, ``title``, ``geo_country_code``,
    ``geo_city``, ``start_year``, ``start_month`` and ``sort`` (``newest``, ``oldest``,
    ``recently_left``). ``limit`` is the page size (1–50). ``max_records`` stops after that many
    records. ``client`` is the Client (default ``lp.default_client()``), and ``progress=False``
    hides the bar.

    Refused with a UsageError before anything is sent: a ``slug`` that is no company (blank, a
    website without ``/company/``), another filter name (the message suggests the closest),
    ``limit`` outside 1–50, ``title`` or ``geo_city`` under 3 characters, a ``geo_country_code``
    that is not two letters (:data:`lookup_pandas.service.listings.EMPLOYEES`).
    ``client.paginate(EMPLOYEES_PATH, params)`` sends any parameter unchecked.

    ``frame="polars"`` returns a polars DataFrame with the same columns and values. It needs the
    extra, ``pip install 'lookup-pandas[polars]'``.
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
    title: str | None = ...,
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
    title: str | None = ...,
    *,
    limit: int = ...,
    max_records: int | None = ...,
    client: Client | None = ...,
    progress: bool | None = ...,
    frame: Literal["polars"],
    **filters: Any,
) -> pl.DataFrame: ...
def search_people(
    title: str | None = None,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
    frame: Frame = "pandas",
    **filters: Any,
) -> pd.DataFrame | pl.DataFrame:
    """People matching every filter given (a position's ``title`` among them), one row each,
    walking the cursor pages.

    Example: ``lp.search_people("engineer", geo_country_code="DE", max_records=200)``, or
    without a title: ``lp.search_people(headline="founder", industry="software")``

    Every filter is optional, as in production, but one is needed: a search with none would
    bill page after page of everyone. ``filters`` take production's names: ``first_name``,
    ``last_name``, ``headline``, ``summary``, ``geo_city``, ``geo_country_code``,
    ``organization_slugs``, ``skills`` (with ``skills_match``, ``any`` by default),
    ``current_only`` and the rest of :data:`lookup_pandas.service.listings.SEARCH`
    (``is_creator``, ``tenure_min_years``, ``last_change_type``, ``industry``,
    ``company_size_min``, ``exclude_titles``...). ``organization_slugs`` and
    ``exclude_organization_slugs`` are lists or comma-separated companies, in any form
    :func:`company_employees` takes, each looked up once for its slug. ``limit``,
    ``max_records``, ``client`` and ``progress`` are as in :func:`company_employees`.

    Each row is a person record. Only ``id`` and ``handle`` are promised, and
    ``lp.overview(frame)`` shows name, headline, company and city.

    Refused with a UsageError before anything is sent: no filter at all, another filter name
    (the message suggests the closest), ``limit`` outside 1–50, ``title``, ``first_name``,
    ``last_name``, ``headline``, ``summary`` or ``geo_city`` under 3 characters (stripped), a
    ``geo_country_code`` that is not two letters, a flag that is not true or false, a number
    that is not whole or out of its bounds, a choice not among production's
    (``last_change_type``, ``skills_match``), a ``_min`` above its ``_max``.
    ``client.paginate(SEARCH_PATH, params)`` sends any parameter unchecked.

    ``frame="polars"`` returns a polars DataFrame with the same columns and values. It needs the
    extra, ``pip install 'lookup-pandas[polars]'``.
    """
    return listing_frame(
        SEARCH,
        {"title": title, "limit": limit, **filters},
        max_records=max_records,
        client=client,
        progress=progress,
        frame=frame,
    )
