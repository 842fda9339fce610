"""What production would refuse in a listing's query, decided before anything is sent or billed.

>>> from lookup_pandas.service.endpoints import SEARCH
>>> check_listing(SEARCH, {"title": "engineer", "limit": 50, "geo_country_code": "DE"})
>>> check_listing(SEARCH, {"title": "engineer", "limit": 50, "country": "DE"})
Traceback (most recent call last):
...
lookup_pandas.errors.UsageError: 'country' is not a filter of the people search; did you mean
'geo_country_code'? Nothing was sent.
"""

from __future__ import annotations

import datetime
import difflib
import numbers
from collections.abc import Mapping
from typing import Any

from ..errors import UsageError
from ..service.listings import MIN_TEXT, Filter, Listing
from .companies import checked_companies

__all__ = ["MAX_LIMIT", "MIN_LIMIT", "MIN_TEXT", "check_limit", "check_listing", "unknown_filter"]

MIN_LIMIT, MAX_LIMIT = 1, 50  # production's page sizes on every list endpoint

_NOTHING_SENT = "Nothing was sent."
_ESCAPE = "(A filter newer than this list: client.paginate(path, params) sends it unchecked.)"


def check_limit(limit: Any) -> None:
    """``limit`` is a whole number 1–50 (production's page sizes), else a UsageError.

    >>> check_limit(50)
    >>> check_limit(True)
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.UsageError: limit must be a whole number from 1 to 50 (the service's
    page sizes), not True. Nothing was sent.
    """
    if (
        isinstance(limit, bool)
        or not isinstance(limit, numbers.Integral)
        or not MIN_LIMIT <= int(limit) <= MAX_LIMIT
    ):
        raise UsageError(
            f"limit must be a whole number from {MIN_LIMIT} to {MAX_LIMIT} (the service's page "
            f"sizes), not {limit!r}. {_NOTHING_SENT}"
        )


def unknown_filter(listing: Listing, name: str) -> str:
    """The message for a filter name ``listing`` does not take, with the closest names it takes.

    >>> from lookup_pandas.service.endpoints import EMPLOYEES
    >>> unknown_filter(EMPLOYEES, "titel")
    "'titel' is not a filter of the company employees; did you mean 'title'? Nothing was sent."
    >>> print(unknown_filter(EMPLOYEES, "zzz"))
    'zzz' is not a filter of the company employees. It takes: current_only, title, ...
    """
    head = f"{name!r} is not a filter of the {listing.name}"
    close = difflib.get_close_matches(name, listing.filters, n=3)
    if close:
        hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
        return f"{head}; {hint} {_NOTHING_SENT}"
    accepted = ", ".join(listing.filters)
    return f"{head}. It takes: {accepted}. {_NOTHING_SENT} {_ESCAPE}"


def check_listing(listing: Listing, params: Mapping[str, Any], *, year: int | None = None) -> None:
    """Refuse (UsageError) a query production would ignore in part or refuse outright.

    ``params`` is the whole query but the paging, as :func:`~lookup_pandas.api.listings.query_value`
    sends it. A filter set to None is not sent, so only its name is checked. Each value is checked
    against its declaration (:class:`~lookup_pandas.service.listings.Filter`; ``year`` is this
    year, for the year filters' top). Refused:

    - a missing or blank required parameter, or none of ``listing.one_of``
    - no filter at all, where the listing ``needs_filter`` (it would bill pages of everyone)
    - a ``limit`` that is not 1–50
    - a name the endpoint does not take
    - free text under 3 characters, once stripped; a blank keyword
    - a country code that is not two letters
    - a flag that is not true or false, a number that is not whole or out of its bounds, a
      choice that is not one of the declared ones, a lowest above its highest
    - a company parameter that holds no company slug, page URL or ``org_`` id

    >>> from lookup_pandas.service.endpoints import EMPLOYEES, JOB_CHANGES, SEARCH
    >>> check_listing(EMPLOYEES, {"slug": "acme", "limit": 50, "title": "engineer"})
    >>> check_listing(JOB_CHANGES, {})  # no required parameter
    >>> check_listing(EMPLOYEES, {"slug": "acme", "geo_city": "Ro"})
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.UsageError: geo_city needs at least 3 characters (the service refuses
    shorter text), not 'Ro'. Nothing was sent.
    >>> check_listing(SEARCH, {"headline": "engineer", "is_creator": "maybe"})
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.UsageError: is_creator is true or false, not 'maybe'. Nothing was sent.
    """
    for name in params:
        if name not in (listing.required, "limit") and name not in listing.filters:
            raise UsageError(unknown_filter(listing, name))
    if listing.required:
        _check_required(listing, params)
    if listing.one_of and all(params.get(name) is None for name in listing.one_of):
        needed = " or ".join(listing.one_of)
        raise UsageError(f"the {listing.name} needs {needed}. {_NOTHING_SENT}")
    if listing.needs_filter and all(params.get(name) is None for name in listing.filters):
        raise UsageError(
            f"the {listing.name} needs at least one filter ({', '.join(listing.filters[:4])}, "
            f"...): without one it would bill page after page of everyone. {_NOTHING_SENT}"
        )
    if "limit" in params:
        check_limit(params["limit"])
    this_year = year or datetime.date.today().year
    for name, value in params.items():
        declared = listing.filter(name)
        if value is not None and declared is not None:
            _check_value(declared, value, this_year)
    for low, high in listing.ranges:
        bottom, top = params.get(low), params.get(high)
        if bottom is not None and top is not None and int(bottom) > int(top):
            raise UsageError(f"{low} ({bottom}) is above {high} ({top}). {_NOTHING_SENT}")
    for company in listing.companies:
        if params.get(company.name) is not None:
            checked_companies(params[company.name], many=company.many)


#: What the library says of a value production refuses, by the filter's kind.
_REFUSED = {
    "text": "{name} needs at least {min} characters (the service refuses shorter text)",
    "code": "{name} is a two-letter country code such as 'DE'",
    "bool": "{name} is true or false",
    "choice": "{name} must be one of {choices}",
    "int": "{name} must be a whole number {span}",
    "year": "{name} must be a whole number {span}",
}


def _check_value(declared: Filter, value: Any, year: int) -> None:
    """Refuse a value filter ``declared`` does not take: what the service would refuse
    (:meth:`~lookup_pandas.service.listings.Filter.parse`), and a text or keyword that is no
    string."""
    name, kind = declared.name, declared.kind
    words = value if isinstance(value, list | tuple | set | frozenset) else [value]
    no_text = kind == "text" and not isinstance(value, str)
    if no_text or (kind == "word" and not all(isinstance(w, str) and w.strip() for w in words)):
        raise UsageError(f"{name} must be a non-empty string, not {value!r}. {_NOTHING_SENT}")
    try:
        declared.parse(value, year)
    except ValueError:
        low, high = declared.bounds(year)
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        said = _REFUSED[kind].format(
            name=name, min=MIN_TEXT, choices=", ".join(declared.choices), span=span
        )
        raise UsageError(f"{said}, not {value!r}. {_NOTHING_SENT}") from None


def _check_required(listing: Listing, params: Mapping[str, Any]) -> None:
    key = listing.required
    required = params.get(key)
    if not isinstance(required, str) or (key not in listing.text and not required.strip()):
        raise UsageError(f"{key} must be a non-empty string, not {required!r}. {_NOTHING_SENT}")
