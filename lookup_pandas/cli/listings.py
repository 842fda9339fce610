"""``lookup-pandas employees | search | search-companies | alumni | ...``: a listing as CSV
(``tier`` is :mod:`.tier`'s).

Example: ``listing(ListingOptions("search", "engineer", filters=("geo_country_code=DE",)))``
writes the engineers in Germany to stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .exits import InputError
from .list_commands import LIST_COMMANDS
from .options import ListingOptions
from .output import check_output, write_frame
from .service import service_client

if TYPE_CHECKING:
    import pandas as pd

#: Keywords of the listing functions themselves, which a --filter must not set (nor the
#: command's own argument: ``slug`` for employees, ``title`` for search, where it is one; nor
#: ``website``, search-companies' own option).
_OWN_KEYWORDS = {"limit", "max_records", "client", "progress", "frame"}


def listing(options: ListingOptions) -> int:
    """Every record of the listing, written as CSV; ``N records`` on stderr."""
    from ..client.client import check_max_records
    from ..identifiers.queries import check_listing

    o = options
    command = LIST_COMMANDS[o.command]
    check_max_records(o.max_records)
    check_output(o.output)
    own: dict[str, Any] = {name: None for name in command.listing.one_of}
    if command.argument is not None:
        own[command.argument] = o.query
    if o.website is not None:
        own["website"] = o.website
    filters: dict[str, Any] = dict(pair(f, *own) for f in o.filters)
    # Filter names, limit and values are refused (UsageError, exit 2) before anything is sent,
    # and before a client is even built (no key or base URL needed to be told).
    check_listing(command.listing, {**own, "limit": o.limit, **filters})
    with service_client(o.offline) as client:
        frame = _function(command.function)(
            **own,
            limit=o.limit,
            max_records=o.max_records,
            client=client,
            progress=o.progress,
            **filters,
        )
    write_frame(frame, o.output)
    print(f"{len(frame)} records", file=sys.stderr)
    return 0


def _function(name: str) -> Callable[..., pd.DataFrame]:
    """The DataFrame function of that name: lookup_pandas.api.functions's, else
    lookup_pandas.api.searches'."""
    from ..api import functions as api
    from ..api import searches

    function: Callable[..., pd.DataFrame] = getattr(api, name, None) or getattr(searches, name)
    return function


def pair(text: str, *own: str) -> tuple[str, str]:
    """``KEY=VALUE`` as a pair; a KEY the command sets itself (its argument, ``own``) is refused.

    Example: ``pair("geo_country_code=DE", "title") == ("geo_country_code", "DE")``; whether
    KEY is a filter of the endpoint is the API function's check (lookup_pandas.identifiers.queries).
    """
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise InputError(f"--filter takes KEY=VALUE, not {text!r}")
    if key in _OWN_KEYWORDS or key in own:
        raise InputError(
            f"--filter {key}=... is not a filter; use the command's own argument "
            "or option for it (see --help)"
        )
    return key, value
