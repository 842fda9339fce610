"""The listing commands (``employees``, ``search``, ``alumni``, ...): one row each, and their run.

Example:
    >>> LIST_COMMANDS["alumni"].function
    'institution_alumni'

Example: ``listing(ListingOptions("search", "engineer", filters=("geo_country_code=DE",)))``
writes the engineers in Germany to stdout as CSV.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..service.endpoints import (
    ALUMNI,
    COMPANY_SEARCH,
    EMPLOYEES,
    INSTITUTION_SEARCH,
    JOB_CHANGES,
    SEARCH,
    SKILL_SEARCH,
    Listing,
)
from .arguments import Sub, add_common, add_errors, progress, service_command
from .exits import InputError
from .options import CompaniesOptions, ListingOptions

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LIST_COMMANDS", "ListCommand", "add_companies", "add_listings", "listing", "pair"]


@dataclass(frozen=True)
class ListCommand:
    """One listing command: its name, endpoint, argument, DataFrame function and help.

    Example:
        >>> LIST_COMMANDS["employees"].argument, LIST_COMMANDS["employees"].metavar
        ('slug', 'COMPANY')
    """

    name: str
    listing: Listing
    argument: str | None  # the query parameter the positional argument is; None: there is none
    function: str  # its name in lookup_pandas.api.listings or .searches
    helptext: str
    metavar: str = ""

    @property
    def filters(self) -> tuple[str, ...]:
        """The names ``--filter`` may set: the endpoint's, but not the argument nor ``one_of``.

        The companies search's ``website`` is an option of its own.
        """
        own = {self.argument, *self.listing.one_of}
        return tuple(f for f in self.listing.filters if f not in own)


LIST_COMMANDS: dict[str, ListCommand] = {
    c.name: c
    for c in (
        ListCommand("employees", EMPLOYEES, "slug", "company_employees",
                    "a company's employees (COMPANY: a slug, company page URL or org_ id)",
                    "COMPANY"),
        ListCommand("search", SEARCH, "title", "search_people",
                    "people whose title (and --filter's) match; every filter optional, one "
                    "needed", "TITLE"),
        ListCommand("search-companies", COMPANY_SEARCH, "name", "search_companies",
                    "companies whose name (or --website) matches", "NAME"),
        ListCommand("institutions", INSTITUTION_SEARCH, "name", "search_institutions",
                    "institutions whose name matches (their normalized_name is what alumni "
                    "takes)", "NAME"),
        ListCommand("alumni", ALUMNI, "normalized_name", "institution_alumni",
                    "an institution's alumni and students (by its normalized_name)", "NAME"),
        ListCommand("skills", SKILL_SEARCH, "name", "search_skills",
                    "skills whose name matches", "NAME"),
        ListCommand("job-changes", JOB_CHANGES, None, "job_changes",
                    "recent job changes: people who joined, left or changed title"),
    )
}  # fmt: skip


def add_listings(sub: Sub) -> None:
    """One command per row of LIST_COMMANDS: its argument, paging, and ``--filter``.

    The endpoint's other required parameter is an option (``search-companies --website``).
    """
    for c in LIST_COMMANDS.values():
        p = service_command(sub, c.name, c.helptext)
        if c.argument is not None:  # optional unless the endpoint requires it
            nargs = None if c.argument == c.listing.required else "?"
            p.add_argument("query", metavar=c.metavar or c.argument, nargs=nargs)
        for name in c.listing.one_of:
            if name != c.argument:
                p.add_argument(f"--{name}", default=None, help=f"the {name} to match (3+ chars)")
        p.add_argument("--limit", type=int, default=50, help="page size, 1-50 (50)")
        p.add_argument(
            "--max-records", type=int, default=None, help="stop after this many (0 or more)"
        )
        if c.filters:
            p.add_argument(
                "--filter",
                action="append",
                metavar="KEY=VALUE",
                help=f"a filter, repeatable: {', '.join(c.filters)}",
            )
        add_common(p)
        p.set_defaults(options=_listing_options)


def _listing_options(ns: argparse.Namespace) -> ListingOptions:
    return ListingOptions(
        command=ns.command,
        query=getattr(ns, "query", None),
        website=getattr(ns, "website", None),
        limit=ns.limit,
        max_records=ns.max_records,
        filters=tuple(getattr(ns, "filter", None) or ()),
        output=ns.output,
        progress=progress(ns),
        offline=ns.offline,
    )


def add_companies(sub: Sub) -> None:
    p = service_command(sub, "companies", "companies by slug, company page URL or org_ id")
    p.add_argument("values", nargs="+", metavar="SLUG_OR_ID", help="slugs, URLs or org_ ids")
    add_errors(p)
    p.add_argument(
        "--method",
        choices=("auto", "batch", "single"),
        default="auto",
        help="batch jobs when more than 20 are to fetch (auto), always, or one call each",
    )
    p.add_argument("--keep-case", action="store_true", help="send slugs as written")
    add_common(p)
    p.set_defaults(
        options=lambda ns: CompaniesOptions(
            values=tuple(ns.values),
            errors=ns.errors,
            method=ns.method,
            keep_case=ns.keep_case,
            output=ns.output,
            progress=progress(ns),
            offline=ns.offline,
        )
    )


#: Keywords of the listing functions themselves, which a --filter must not set (nor the
#: command's own argument: ``slug`` for employees, ``title`` for search, where it is one; nor
#: ``website``, search-companies' own option).
_OWN_KEYWORDS = {"limit", "max_records", "client", "progress", "frame"}


def listing(options: ListingOptions) -> int:
    """Every record of the listing, written as CSV, and ``N records`` on stderr.

    Filter names, the limit and their values are refused (exit 2) before a client is built.
    """
    from ..client.client import check_max_records
    from ..identifiers.queries import check_listing
    from .output import check_output, write_frame
    from .service_client import service_client

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
    """The DataFrame function of that name, in ``api.listings`` or ``api.searches``."""
    from ..api import listings, searches

    function: Callable[..., pd.DataFrame] = getattr(listings, name, None) or getattr(searches, name)
    return function


def pair(text: str, *own: str) -> tuple[str, str]:
    """``KEY=VALUE`` as a pair. A KEY the command sets itself (``own``) is refused.

    Whether KEY is a filter of the endpoint is checked by the API function.

    Example:
        >>> pair("geo_country_code=DE", "title")
        ('geo_country_code', 'DE')
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
