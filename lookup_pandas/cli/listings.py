"""``lookup-pandas employees | search | tier``: a listing, or the credits tier, as CSV.

Example: ``listing(ListingOptions("search", "engineer", filters=("geo_country_code=DE",)))``
writes the engineers in Germany to stdout.
"""

from __future__ import annotations

import sys
from typing import Any

from .exits import InputError
from .options import ListingOptions, TierOptions
from .output import check_output, write_frame
from .service import service_client

#: Keywords of the listing functions themselves, which a --filter must not set (nor the
#: command's own argument: ``slug`` for employees, ``title`` for search, where it is one).
_OWN_KEYWORDS = {"limit", "max_records", "client", "progress", "frame"}


def listing(options: ListingOptions) -> int:
    """Every record of the listing, written as CSV; ``N records`` on stderr."""
    from .. import api
    from ..client import check_max_records
    from ..endpoints import EMPLOYEES, SEARCH
    from ..filters import check_listing

    o = options
    check_max_records(o.max_records)
    check_output(o.output)
    positional = "slug" if o.command == "employees" else "title"
    filters: dict[str, Any] = dict(pair(f, positional) for f in o.filters)
    # Filter names, limit and values are refused (UsageError, exit 2) before anything is sent,
    # and before a client is even built (no key or base URL needed to be told).
    endpoint = EMPLOYEES if o.command == "employees" else SEARCH
    check_listing(endpoint, {positional: o.query, "limit": o.limit, **filters})
    with service_client() as client:
        list_people = api.company_employees if o.command == "employees" else api.search_people
        frame = list_people(
            o.query,
            limit=o.limit,
            max_records=o.max_records,
            client=client,
            progress=o.progress,
            **filters,
        )
    write_frame(frame, o.output)
    print(f"{len(frame)} records", file=sys.stderr)
    return 0


def pair(text: str, positional: str = "") -> tuple[str, str]:
    """``KEY=VALUE`` as a pair; a KEY the command sets itself (``positional`` too) is refused.

    Example: ``pair("geo_country_code=DE", "title") == ("geo_country_code", "DE")``; whether
    KEY is a filter of the endpoint is the API function's check (lookup_pandas.filters).
    """
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise InputError(f"--filter takes KEY=VALUE, not {text!r}")
    if key in _OWN_KEYWORDS or key == positional:
        raise InputError(
            f"--filter {key}=... is not a filter; use the command's own argument "
            "or option for it (see --help)"
        )
    return key, value


def tier(options: TierOptions) -> int:
    """The credits tier (balance, limit per minute) as a one-row CSV."""
    from .. import api

    check_output(options.output)
    with service_client() as client:
        frame = api.credits_tier(client=client)
    write_frame(frame, options.output)
    return 0
