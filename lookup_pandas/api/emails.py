"""The Email API as DataFrame columns: ``find_emails``, ``verify_emails``, ``reverse_emails``.

A lead list as a CRM exports it (names, company domains, addresses) becomes work emails found,
addresses verified, and the people and companies behind them, each distinct input bought once
and cached as every enrichment is. docs/emails.md has the rules in full.

Example::

    leads = pd.DataFrame({"first_name": ["Jane"], "last_name": ["Doe"],
                          "domain": ["https://www.acme.com/about"]})
    found = leads.lookup.find_emails()            # email_address, email_found...
    checked = found.lookup.verify_emails("email_address")
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import pandas as pd

from ..client.client import Client, resolve_client
from ..client.pagination import Page, PagePlan, check_max_records, walk
from ..enrichment.lookup import estimate_values
from ..enrichment.plan import Options
from ..enrichment.results import Errors, Estimate, Method, Refresh
from ..errors import UsageError
from ..frames.records import records_to_frame
from ..http.decisions import Call, Requester
from ..identifiers import emails
from ..identifiers.handles import refused
from ..identifiers.kinds import FIND, FIND_BY_PROFILE, REVERSE, VERIFY, Kind
from ..service.endpoints import checked_data
from ..service.paths import EMAIL_PROSPECTS_PATH
from .columns import Columns, check_columns, column_values
from .enriched_frames import EnrichRequest, enriched, get_frame

__all__ = [
    "PROSPECT_KINDS",
    "email_prospects",
    "estimate_find_emails",
    "estimate_reverse_emails",
    "estimate_verify_emails",
    "find_emails",
    "find_kind",
    "get_email_owners",
    "get_email_verdicts",
    "get_work_emails",
    "read_columns",
    "reverse_emails",
    "verify_emails",
]

#: The columns of a find by name, in the order the service takes them.
_BY_NAME = ("first_name", "last_name", "domain")


def find_kind(given: Mapping[str, Any]) -> tuple[Kind, Columns]:
    """What a find reads, by its arguments' names: a ``profile`` column (``/find/linkedin``),
    else the three name columns (``/find``).

    >>> find_kind({"first_name": "first", "last_name": "last", "domain": "website"})[1]
    ('first', 'last', 'website')
    >>> find_kind({**dict(zip(_BY_NAME, _BY_NAME)), "profile": "url"})[1]
    'url'
    """
    names = tuple(given[name] for name in _BY_NAME)
    profile = given.get("profile")
    if profile is None:
        return FIND, names
    if names != _BY_NAME:
        raise UsageError(
            "find_emails takes a profile column or the name and domain columns, not both. "
            "Nothing was sent."
        )
    return FIND_BY_PROFILE, profile


def read_columns(given: Mapping[str, Any]) -> Columns:
    """The column or columns a call of an enrichment or an estimate reads, by its arguments'
    names: ``column``, or a find's (:func:`find_kind`).

    >>> read_columns({"column": "email"})
    'email'
    """
    return given["column"] if "column" in given else find_kind(given)[1]


def find_emails(
    frame: pd.DataFrame,
    first_name: str = "first_name",
    last_name: str = "last_name",
    domain: str = "domain",
    *,
    profile: str | None = None,
    prefix: str = "email_",
    errors: Errors = "coerce",
    max_calls: int | None = None,
    max_credits: float | None = None,
    refresh: Refresh = False,
    method: Method = "auto",
    client: Client | None = None,
    progress: bool | None = None,
    provenance: bool = False,
) -> pd.DataFrame:
    """A new frame: each row's work email joined on. The input frame is not modified.

    Example: ``leads.lookup.find_emails("first", "last", "website")`` or
    ``leads.lookup.find_emails(profile="linkedin_url")``

    By name (``/api/emails/v1/find``): ``first_name`` and ``last_name`` are trimmed, inner spaces
    made one and compared case-blind; ``domain`` may hold a bare host, a website URL or an
    address, and is sent as the bare host without ``www.`` (``https://www.acme.com/about`` and
    ``jane@acme.com`` are ``acme.com``). By ``profile`` (``/find/linkedin``): a profile URL or
    handle, read as ``enrich_profiles`` reads handles. A row with a part missing or garbage (a
    domain without a dot) is ``invalid`` and never sent.

    Each distinct query is bought once (found or not: the service bills both) and cached. The
    columns added, prefixed: ``address`` ("" when none was found), ``found``, ``confidence``
    (high, low), ``catch_all``; by profile also the ``first_name``, ``last_name``, ``domain``,
    ``company`` and ``url`` it resolved. Then ``lookup_status`` (``ok`` whether found or not,
    ``forbidden`` for a person who opted out, ``invalid``, ``error``) and ``lookup_error``. The
    other keywords are ``enrich_profiles``' (``refresh="changed"`` is a UsageError here).
    """
    kind, columns = find_kind(locals())
    options = Options.of(locals())
    return enriched(EnrichRequest(frame, columns, prefix, client, kind, options))[0]


def verify_emails(
    frame: pd.DataFrame,
    column: str = "email",
    *,
    prefix: str = "verify_",
    errors: Errors = "coerce",
    max_calls: int | None = None,
    max_credits: float | None = None,
    refresh: Refresh = False,
    method: Method = "auto",
    client: Client | None = None,
    progress: bool | None = None,
    provenance: bool = False,
) -> pd.DataFrame:
    """A new frame: each row's address verified (``/api/emails/v1/verify``).

    Example: ``leads.lookup.verify_emails("email")``

    Addresses are trimmed and their domain lower-cased (the mailbox keeps its case); what
    cannot be an address (no ``@``, a space, no domain) is ``invalid`` and never sent. Each
    distinct address is bought once, whatever the verdict, and cached. The columns added,
    prefixed: ``address`` (the one checked), ``deliverable``, ``reason`` (mailbox_accepts,
    mailbox_rejected, catch_all, risky, invalid_syntax, disposable, relay, no_mx),
    ``catch_all``, ``mx_hosts``; then ``lookup_status`` and ``lookup_error``. The other keywords
    are ``enrich_profiles``'.
    """
    options = Options.of(locals())
    return enriched(EnrichRequest(frame, column, prefix, client, VERIFY, options))[0]


def reverse_emails(
    frame: pd.DataFrame,
    column: str = "email",
    *,
    prefix: str = "reverse_",
    errors: Errors = "coerce",
    max_calls: int | None = None,
    max_credits: float | None = None,
    refresh: Refresh = False,
    client: Client | None = None,
    progress: bool | None = None,
    provenance: bool = False,
) -> pd.DataFrame:
    """A new frame: the person and company behind each row's business address
    (``/api/emails/v1/reverse``).

    Example: ``leads.lookup.reverse_emails("email")``

    Addresses are read as ``verify_emails`` reads them. The columns added, prefixed:
    ``address``, ``found``, ``confidence`` (high, medium, low, none), then ``person`` and
    ``current_company`` flattened as profiles are (``reverse_person.full_name``,
    ``reverse_current_company.name``...). An address the service takes no reverse lookup of (a
    public provider's, a role account, a disposable or relay address) is ``unsupported``: free,
    not an error, and cached like any answer (a re-run does not ask again). The credits are the
    service's: the route's cost when a person or a company is returned, less when nothing was
    (the summary counts what was billed; an estimate counts the most). The other keywords are
    ``enrich_profiles``'.
    """
    options = Options.of(locals())
    return enriched(EnrichRequest(frame, column, prefix, client, REVERSE, options))[0]


def _estimate(
    frame: pd.DataFrame, columns: Columns, kind: Kind, client: Client | None, method: Method
) -> Estimate:
    check_columns(frame, columns)
    values = column_values(frame, columns)
    return estimate_values(values, client=resolve_client(client), method=method, kind=kind)


def estimate_find_emails(
    frame: pd.DataFrame,
    first_name: str = "first_name",
    last_name: str = "last_name",
    domain: str = "domain",
    *,
    profile: str | None = None,
    method: Method = "auto",
    client: Client | None = None,
) -> Estimate:
    """What ``find_emails`` would do and spend, without sending anything billable.

    Example: ``leads.lookup.estimate_find_emails(profile="linkedin_url").credits``
    """
    kind, columns = find_kind(locals())
    return _estimate(frame, columns, kind, client, method)


def estimate_verify_emails(
    frame: pd.DataFrame,
    column: str = "email",
    *,
    method: Method = "auto",
    client: Client | None = None,
) -> Estimate:
    """What ``verify_emails`` would do and spend, without sending anything billable.

    Example: ``leads.lookup.estimate_verify_emails("email").credits``
    """
    return _estimate(frame, column, VERIFY, client, method)


def estimate_reverse_emails(
    frame: pd.DataFrame, column: str = "email", *, client: Client | None = None
) -> Estimate:
    """What ``reverse_emails`` would do and spend at most, without sending anything billable.

    Example: ``leads.lookup.estimate_reverse_emails("email").credits`` (each at the route's
    full cost: one that finds nothing costs less)
    """
    return _estimate(frame, column, REVERSE, client, "single")


def get_email_verdicts(
    addresses: Iterable[Any] | str,
    *,
    errors: Errors = "coerce",
    method: Method = "auto",
    max_credits: float | None = None,
    refresh: Refresh = False,
    client: Client | None = None,
    progress: bool | None = None,
    provenance: bool = False,
) -> pd.DataFrame:
    """One row per input address (same order, a Series keeps its index), with its verdict.

    Example: ``lp.get_email_verdicts(["jane@acme.com", " Jane@ACME.com", "no-at-sign"])``

    The addresses are read and bought as in ``verify_emails``. The columns: ``email``, the address
    as sent, then ``address``, ``deliverable``, ``reason``, ``catch_all``, ``mx_hosts``, then
    ``lookup_status`` and ``lookup_error``. A single string is one address (a UsageError, before
    anything is sent, when it cannot be one). The keywords are ``get_profiles``'.
    """
    return get_frame(addresses, client=client, kind=VERIFY, options=Options.of(locals()))


def get_email_owners(
    addresses: Iterable[Any] | str,
    *,
    errors: Errors = "coerce",
    max_credits: float | None = None,
    refresh: Refresh = False,
    client: Client | None = None,
    progress: bool | None = None,
    provenance: bool = False,
) -> pd.DataFrame:
    """One row per input address (same order, a Series keeps its index), with the person and
    company behind it.

    Example: ``lp.get_email_owners(["jane@acme.com", "info@acme.com"])``

    The addresses are read and bought as in ``reverse_emails`` (an unsupported one is a free
    ``unsupported`` row). The columns: ``email``, the address as sent, then ``address``,
    ``found``, ``confidence``, ``person.*`` and ``current_company.*``, then ``lookup_status``
    and ``lookup_error``. The keywords are ``get_profiles``'.
    """
    return get_frame(addresses, client=client, kind=REVERSE, options=Options.of(locals()))


def get_work_emails(
    queries: Iterable[tuple[Any, Any, Any]] | pd.DataFrame | None = None,
    *,
    profiles: Iterable[Any] | str | None = None,
    errors: Errors = "coerce",
    method: Method = "auto",
    max_credits: float | None = None,
    refresh: Refresh = False,
    client: Client | None = None,
    progress: bool | None = None,
    provenance: bool = False,
) -> pd.DataFrame:
    """One row per query (same order, a DataFrame or Series keeps its index), with the work
    email found.

    Example: ``lp.get_work_emails([("Jane", "Doe", "https://www.acme.com/about")])``, or
    ``lp.get_work_emails(profiles=["https://www.linkedin.com/in/jane-doe/"])``

    ``queries``: ``(first_name, last_name, domain)`` tuples, or a DataFrame with those columns;
    ``profiles``: profile URLs or handles. Each is read and bought as in ``find_emails``. The
    columns: the query as sent (``first_name``, ``last_name``, ``domain``; by profile ``url``,
    the handle), then the find's fields (``address``, ``found``, ``confidence``, ``catch_all``;
    by profile also whom it resolved), then ``lookup_status`` and ``lookup_error``. Given both
    or neither: a UsageError. The keywords are ``get_profiles``'.
    """
    if (queries is None) == (profiles is None):
        raise UsageError("get_work_emails takes queries or profiles=, not both. Nothing was sent.")
    options = Options.of(locals())
    if profiles is not None:
        return get_frame(profiles, client=client, kind=FIND_BY_PROFILE, options=options)
    assert queries is not None
    if isinstance(queries, pd.DataFrame):
        check_columns(queries, _BY_NAME)
        queries = column_values(queries, _BY_NAME)
    return get_frame(queries, client=client, kind=FIND, options=options)


#: What ``email_prospects`` lists: every known address (1 credit each), or the deliverable ones
#: only (2 each).
PROSPECT_KINDS = ("full", "verified_only")


def email_prospects(
    domain: str,
    *,
    kind: Literal["full", "verified_only"] = "full",
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """The addresses the service knows at a company's domain, every page read
    (``/api/emails/v1/prospects``): one row each, ``email``, ``first_name``, ``last_name``.

    Example: ``lp.email_prospects("https://www.acme.com", kind="verified_only")``

    ``domain`` is read as ``find_emails`` reads domains (a URL or an address gives its host).
    ``kind="verified_only"`` keeps the deliverable addresses. Billed per address returned, 1
    each (``full``) or 2 (``verified_only``); an empty page is free; each page is cached, so a
    re-run is free. ``max_records`` stops before reading another page (the last page read is
    billed whole). Refused before anything is sent (UsageError): a domain that is none, a kind
    not in :data:`PROSPECT_KINDS`.
    """
    host, reason = emails.domain(domain)
    if host is None:
        raise refused(domain, "a company domain", reason)
    if kind not in PROSPECT_KINDS:
        raise UsageError(f"kind must be 'full' or 'verified_only', not {kind!r}. Nothing was sent.")
    check_max_records(max_records)
    request = resolve_client(client).parts.sender.request
    pages = functools.partial(_prospects_page, request)
    query = {"domain": host, "kind": kind}
    records = walk(
        pages,
        EMAIL_PROSPECTS_PATH,
        query,
        functools.partial(PagePlan, "cursor"),
        max_records=max_records,
        progress=progress,
    )
    return records_to_frame(records)


def _prospects_page(request: Requester, params: Mapping[str, Any], plan: PagePlan) -> Page:
    """One page of prospects: they and their cursor are under ``data`` (not the Data API's
    list and ``pagination``); the last page's ``next_cursor`` is empty."""
    env = request(Call(EMAIL_PROSPECTS_PATH, dict(params)))
    data = checked_data(env, EMAIL_PROSPECTS_PATH, dict)
    records = data.get("prospects") or []
    cursor = data.get("next_cursor") or None
    pagination = {"has_more": cursor is not None, "next_cursor": cursor}
    plan.check(params, pagination, records)
    return records, pagination
