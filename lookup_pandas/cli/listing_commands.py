"""The listing commands (``employees``, ``search``, ``alumni``, ...): one row each, and their run.

Example:
    >>> LIST_COMMANDS["alumni"].function
    'institution_alumni'

Example: ``listing(ListingOptions("search", "engineer", filters=("geo_country_code=DE",)))``
writes the engineers in Germany to stdout as CSV.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from ..service.listings import (
    ALUMNI,
    COMPANY_SEARCH,
    EMPLOYEES,
    INSTITUTION_SEARCH,
    JOB_CHANGES,
    SEARCH,
    SKILL_SEARCH,
    Listing,
)
from .exits import InputError
from .options import ListingOptions

__all__ = ["LIST_COMMANDS", "ListCommand", "listing", "pair"]


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


#: Keywords of the listing functions themselves, which a --filter must not set (nor the
#: command's own argument: ``slug`` for employees, ``title`` for search, where it is one; nor
#: ``website``, search-companies' own option).
_OWN_KEYWORDS = {"limit", "max_records", "client", "progress", "frame"}


def listing(options: ListingOptions) -> int:
    """Every record of the listing, written as CSV, and ``N records`` on stderr.

    Filter names, the limit and their values are refused (exit 2) before a client is built.
    """
    from ..api import listings, searches
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
    # the DataFrame function, in api.listings or api.searches
    function = getattr(listings, command.function, None) or getattr(searches, command.function)
    with service_client(o.offline) as client:
        frame = function(
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
