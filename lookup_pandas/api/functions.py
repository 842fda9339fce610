"""The lookup functions: ``get_profiles``, ``get_companies``, and the enrichment of ``df.lookup``.

Each takes ``client=None`` (the default client, see ``lp.configure``) and returns a new frame.
The listings (:mod:`lookup_pandas.api.listings`), the searches
(:mod:`lookup_pandas.api.searches`) and the credits facts (``balance``, ``tiers``,
``route_costs``) are importable from here too. docs/enriching.md has the rules in full.

Example: ``lp.get_profiles(["ada", ""])`` or ``leads.lookup.enrich_profiles("handle")``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal, TypedDict, Unpack, overload

import pandas as pd

from ..client.client import Client, resolve_client
from ..enrichment.background import EnrichmentJob
from ..enrichment.lookup import estimate_values
from ..enrichment.plan import Options
from ..enrichment.results import Errors, Estimate, JobSummary, Method, Refresh
from ..errors import UsageError
from ..identifiers.kinds import COMPANIES, PEOPLE
from .adapters import delegates_to
from .columns import check_columns
from .enriched_frames import EnrichRequest, enrich_or_start, get_frame, summary_of

__all__ = [
    "enrich_companies",
    "enrich_companies_with_summary",
    "enrich_profiles",
    "enrich_with_summary",
    "estimate_companies",
    "estimate_profiles",
    "get_companies",
    "get_profiles",
]


class EnrichKeywords(TypedDict, total=False):
    """The keywords ``enrich_profiles`` and ``enrich_companies`` share, for their overloads.

    Their implementations spell each keyword out, with its default and meaning; each is a field of
    :class:`~lookup_pandas.enrichment.plan.Options` but ``prefix`` and ``client``
    (tests/unit/api/test_functions.py checks them against it).
    """

    prefix: str
    errors: Errors
    max_calls: int | None
    max_credits: float | None
    refresh: Refresh
    client: Client | None
    progress: bool | None
    fold_case: bool
    method: Method
    provenance: bool


def get_profiles(
    handles: Iterable[Any] | str,
    *,
    errors: Errors = "coerce",
    client: Client | None = None,
    progress: bool | None = None,
    fold_case: bool = True,
    method: Method = "auto",
    max_credits: float | None = None,
    provenance: bool = False,
    refresh: Refresh = False,
) -> pd.DataFrame:
    """One row per input handle (same order, a Series keeps its index), with the record's fields.

    Example: ``lp.get_profiles(["ada", "https://www.example.com/in/grace/", "", "unknown-x"])``
    gives the statuses ``ok``, ``ok``, ``invalid`` and ``not_found``.

    ``handle`` is the normalised handle that was looked up. The normalisation, ``errors``,
    ``method``, ``max_credits``, ``fold_case``, ``provenance`` and ``refresh`` are those of
    ``enrich_profiles``. A value that cannot be a handle (an e-mail address, ``"0"``, markup, a
    path...) is an ``invalid`` row with the reason, never sent
    (:mod:`lookup_pandas.identifiers.handles` has the grammar). A single string is one value, not
    its characters. A single string that is no handle is a UsageError naming why, before anything
    is sent, as ``client.profile`` does. Each distinct handle is requested at most once, and cached
    answers cost nothing. The columns are those of
    :data:`lookup_pandas.frames.records.PERSON_FIELDS`, then any other field the records carry,
    then ``lookup_status`` and ``lookup_error``.
    """
    return get_frame(handles, client=client, kind=PEOPLE, options=Options.of(locals()))


@overload
def enrich_profiles(
    frame: pd.DataFrame,
    column: str = ...,
    *,
    background: Literal[False] = ...,
    **options: Unpack[EnrichKeywords],
) -> pd.DataFrame: ...
@overload
def enrich_profiles(
    frame: pd.DataFrame,
    column: str = ...,
    *,
    background: Literal[True],
    **options: Unpack[EnrichKeywords],
) -> EnrichmentJob: ...
@overload
def enrich_profiles(
    frame: pd.DataFrame, column: str = ..., *, background: bool, **options: Unpack[EnrichKeywords]
) -> pd.DataFrame | EnrichmentJob: ...
def enrich_profiles(
    frame: pd.DataFrame,
    column: str = "handle",
    *,
    prefix: str = "profile_",
    errors: Errors = "coerce",
    max_calls: int | None = None,
    max_credits: float | None = None,
    refresh: Refresh = False,
    client: Client | None = None,
    progress: bool | None = None,
    fold_case: bool = True,
    method: Method = "auto",
    provenance: bool = False,
    background: bool = False,
) -> pd.DataFrame | EnrichmentJob:
    """A new frame: each row's profile joined on. The input frame is not modified.

    Example: ``leads.lookup.enrich_profiles("handle", max_calls=500)``

    Parameters:

    ``column``
        The column of handles or profile URLs. Values are normalised: surrounding
        whitespace, a profile URL (``.../in/<handle>``), trailing slashes, percent-encoding
        and a leading ``@`` go. Missing values, blanks and pandas' missing-value strings
        (``NA``, ``N/A``, ``null``...) are ``invalid`` and never sent.
    ``prefix``
        Put before every profile field (``profile_`` + ``geo.city``). Nested objects are
        flattened with ".". A field that already starts with the prefix is not prefixed
        again (``profile_url`` stays ``profile_url``). Must not be empty.
    ``errors``
        ``"coerce"`` (default) records a failure in its row and goes on. ``"raise"`` raises
        on the first failure met (NotFoundError for a not-found). Invalid rows never raise.
    ``max_calls``
        Raise BudgetExceededError, before sending anything, when more billable calls than
        this would be needed. Cached answers are free (see ``estimate_profiles``).
    ``max_credits``
        Raise BudgetExceededError, before anything billable is sent, when the job would spend
        more credits than this (``estimate_profiles(...).credits``). Single calls cost the
        profile route's cost, batch items 1 each. Whatever it is, a job the balance cannot pay
        is refused with InsufficientCreditsError, naming both numbers (when the service tells
        the balance).
    ``refresh``
        ``False`` (default) uses the cached answers while they keep (``expire_after``).
        ``True`` buys every handle anew. ``"changed"`` checks every cached answer, expired or
        not, through production's job-change feed: only the people with a job change since
        their answer was bought (or last checked) are bought anew, the others are kept, marked
        checked and kept another ``expire_after``. It never costs more than buying the checked
        answers anew, plus one feed page per group of organisations
        (:mod:`lookup_pandas.enrichment.refresh_run`; docs/decisions.md, *Refreshing what
        changed*). Answers the feed cannot check (a not-found, no current organisation, older
        than 365 days) are kept as they are until they expire, then bought anew. The summary
        says what was checked, kept and bought. Offline it is a UsageError.
    ``client``
        The Client to use. Default ``lp.default_client()``.
    ``progress``
        ``False`` hides the progress bar (distinct handles, with cached / fetched / failed
        counts and credits).
    ``fold_case``
        Public handles are case-insensitive: ``Ada`` and ``ada`` are one person, requested
        (and paid for) once, sent in lower case. ``False`` keeps case as written.
    ``method``
        ``"auto"`` (default) uses the service's batch jobs when more than 20 handles
        (``lookup_pandas.enrichment.batch_plan.AUTO_THRESHOLD``) must be fetched and the
        service has them, else single calls. ``"batch"`` insists on batch jobs
        (BatchUnavailableError, a ConfigurationError, if the service has none). ``"single"``
        makes one call per handle. Jobs take up to 1,000 handles each, and every result is
        cached as a single answer would be. A job is stored when submitted, so a run after
        Ctrl-C or a crash polls it instead of paying again. Handles a job could not resolve
        are fetched singly.
    ``provenance``
        ``True`` adds ``lookup_source`` (``cache``, ``single``, ``batch``, or ``checked`` when
        ``refresh="changed"`` kept it), ``lookup_fetched_at`` (the UTC time the answer was
        bought), ``lookup_expired`` (used offline past its keep time), and after
        ``refresh="changed"`` ``lookup_checked_at`` (when the feed last checked it). Invalid
        and not_cached rows hold missing values. See
        :mod:`lookup_pandas.enrichment.provenance`.
    ``background``
        ``True`` returns an :class:`lookup_pandas.EnrichmentJob` at once and runs the job in a
        background thread. ``job.result()`` is this frame, and a cell's last line shows the job
        as a live view (:mod:`lookup_pandas.enrichment.background`). ``progress`` is then its
        view's.

    Returns the input columns untouched, then the profile columns (those of
    :data:`lookup_pandas.frames.records.PERSON_FIELDS`, empty where a record lacks the field,
    then any other field the records carry), then ``lookup_status`` (``ok``, ``not_found``,
    ``invalid`` or ``error``) and ``lookup_error`` (the reason, else missing).

    Each distinct handle is requested at most once and joined onto every row holding it.
    Refused before anything is sent (ColumnError): a missing ``column``, and any existing column
    that starts with ``prefix``. On a frame enriched before (``lookup_status`` taken), the
    statuses are ``prefix + "lookup_status"`` and ``prefix + "lookup_error"``. The run's
    JobSummary is ``out.lookup.summary``. An
    AuthenticationError or ConfigurationError (no service at the base URL) raises at once. So
    many transport failures in a row stop the job (docs/enriching.md, *The rules*).
    """
    request = EnrichRequest(frame, column, prefix, client, PEOPLE, Options.of(locals()))
    return enrich_or_start(request, background)


def get_companies(
    values: Iterable[Any] | str,
    *,
    errors: Errors = "coerce",
    method: Method = "auto",
    client: Client | None = None,
    progress: bool | None = None,
    fold_case: bool = True,
    max_credits: float | None = None,
    provenance: bool = False,
) -> pd.DataFrame:
    """One row per input company (same order, a Series keeps its index), with its firmographics.

    Example: ``lp.get_companies(["acme", "https://www.linkedin.com/company/Acme/", "org_1"])``

    Values are slugs, company page URLs (``.../company/<slug>``) or ``org_`` ids. An id is sent
    as ``id=``, kept exactly as written. Slugs fold case unless ``fold_case=False``. ``slug`` is
    the slug looked up (a record's own for an id). A not-found (1020) is billed once, cached, and
    a ``not_found`` row. ``errors``, ``method`` (batch jobs through ``companies/batch/enrich``),
    ``client``, ``progress``, ``max_credits`` and ``provenance`` are as in :func:`get_profiles`.
    The columns are those of :data:`lookup_pandas.frames.records.COMPANY_FIELDS`, then any other
    field, then ``lookup_status`` and ``lookup_error``.
    """
    return get_frame(values, client=client, kind=COMPANIES, options=Options.of(locals()))


@overload
def enrich_companies(
    frame: pd.DataFrame,
    column: str = ...,
    *,
    background: Literal[False] = ...,
    **options: Unpack[EnrichKeywords],
) -> pd.DataFrame: ...
@overload
def enrich_companies(
    frame: pd.DataFrame,
    column: str = ...,
    *,
    background: Literal[True],
    **options: Unpack[EnrichKeywords],
) -> EnrichmentJob: ...
@overload
def enrich_companies(
    frame: pd.DataFrame, column: str = ..., *, background: bool, **options: Unpack[EnrichKeywords]
) -> pd.DataFrame | EnrichmentJob: ...
def enrich_companies(
    frame: pd.DataFrame,
    column: str = "slug",
    *,
    prefix: str = "company_",
    errors: Errors = "coerce",
    max_calls: int | None = None,
    max_credits: float | None = None,
    refresh: Refresh = False,
    method: Method = "auto",
    client: Client | None = None,
    progress: bool | None = None,
    fold_case: bool = True,
    provenance: bool = False,
    background: bool = False,
) -> pd.DataFrame | EnrichmentJob:
    """A new frame: each row's company joined on. The input frame is not modified.

    Example: ``accounts.lookup.enrich_companies("slug", max_credits=500)``

    ``column`` holds slugs, company page URLs or ``org_`` ids (see :func:`get_companies`).
    Blanks and missing values are ``invalid`` and never sent. Each distinct company is bought
    once (single calls at the company route's cost, batch items at 1 each) and cached, a
    not-found (1020) too. A re-run is free, and an interrupted one resumes. The other keywords are
    :func:`enrich_profiles`' (``prefix``, ``errors``, ``max_calls``, ``max_credits``,
    ``refresh``, ``client``, ``progress``, ``fold_case``, ``provenance``, ``background``), but
    ``refresh="changed"``, which reads people's job changes: here a UsageError.
    ``method`` uses batch jobs through ``companies/batch/enrich`` when more than 20 are to buy.
    The columns added are :data:`lookup_pandas.frames.records.COMPANY_FIELDS` prefixed, any other
    field, then ``lookup_status`` (ok, not_found, forbidden, invalid, error) and ``lookup_error``.
    """
    request = EnrichRequest(frame, column, prefix, client, COMPANIES, Options.of(locals()))
    return enrich_or_start(request, background)


def estimate_companies(
    frame: pd.DataFrame,
    column: str = "slug",
    *,
    method: Method = "auto",
    client: Client | None = None,
    fold_case: bool = True,
) -> Estimate:
    """What ``enrich_companies`` would do and spend, without sending anything billable.

    Example: ``accounts.lookup.estimate_companies("slug").credits``

    The same Estimate as :func:`estimate_profiles`, at the company route's cost. ``column``,
    ``method``, ``client`` and ``fold_case`` are as there.
    """
    check_columns(frame, column)
    values, client = frame[column], resolve_client(client)
    return estimate_values(
        values, client=client, fold_case=fold_case, method=method, kind=COMPANIES
    )


@delegates_to(enrich_profiles)
def enrich_with_summary(
    frame: pd.DataFrame, *args: Any, **options: Any
) -> tuple[pd.DataFrame, JobSummary]:
    """``enrich_profiles``, and the JobSummary of the run (what its progress bar counted).

    Example: ``enriched, summary = enrich_with_summary(leads, "handle")``
    """
    return _summarised(enrich_profiles, frame, *args, **options)


@delegates_to(enrich_companies)
def enrich_companies_with_summary(
    frame: pd.DataFrame, *args: Any, **options: Any
) -> tuple[pd.DataFrame, JobSummary]:
    """``enrich_companies``, and the JobSummary of the run (what its progress bar counted).

    Example: ``enriched, summary = enrich_companies_with_summary(accounts, "slug")``
    """
    return _summarised(enrich_companies, frame, *args, **options)


def _summarised(
    enrich: Callable[..., pd.DataFrame | EnrichmentJob], *args: Any, **options: Any
) -> tuple[pd.DataFrame, JobSummary]:
    """``enrich(*args, **options)``'s frame and the JobSummary it keeps in its attrs."""
    if options.get("background"):
        raise UsageError("background=True is for enrich_profiles and enrich_companies.")
    out = enrich(*args, **options)
    assert isinstance(out, pd.DataFrame)
    summary = summary_of(out)
    assert summary is not None
    return out, summary


def estimate_profiles(
    frame: pd.DataFrame,
    column: str = "handle",
    *,
    client: Client | None = None,
    fold_case: bool = True,
    method: Method = "auto",
    refresh: Refresh = False,
) -> Estimate:
    """What ``enrich_profiles`` would do and spend, without sending anything billable.

    Example: ``leads.lookup.estimate_profiles("handle").to_fetch``

    ``column`` is normalised as in ``enrich_profiles``, with the same ``fold_case``. ``client`` is
    the Client whose cache is read (default ``lp.default_client()``). ``method`` is the method the
    job would use. The :class:`lookup_pandas.Estimate` tells:

    - ``to_fetch``: the billable items ``enrich_profiles`` would pay for now.
    - ``method``: how it would fetch them (``"batch"``, ``"single"`` or ``"none"``).
    - ``seconds``: about how long it would take at the Client's pace and the speed this
      service's batch jobs were seen to resolve (None only for single calls unmetered).
    - ``credits``: what the job would spend, ``balance``: the balance now.
    - ``tier_change``: None, or the tier the job would drop to
      (``"Developer (70/min) -> Hobby (30/min) after 51 credits"``).

    When anything is to fetch, free panel calls read the balance, the route costs and the tier
    ladder (the last two once per Client). A fully cached input sends nothing.

    ``refresh=True`` counts every handle as to fetch. ``refresh="changed"`` reads no feed page:
    ``refresh`` tells how many answers it would check, at how many organisations and in about
    how many feed calls, and the most and the least it can cost; ``to_fetch`` and ``credits``
    are then the most.
    """
    check_columns(frame, column)
    return estimate_values(
        frame[column],
        client=resolve_client(client),
        fold_case=fold_case,
        method=method,
        kind=PEOPLE,
        refresh=refresh,
    )


# -- the credits facts -----------------------------------------------------------------------
