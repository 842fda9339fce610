"""The DataFrame functions: profiles, a company's employees, people search, credits tier.

Example::

    lp.search_people("data scientist", max_records=100)   # one row per person, flattened
    lp.company_employees("acme")                          # every employee, page by page
    lp.get_profiles(["ada", "grace", ""])                 # one row per input, with statuses

Each takes ``client=None`` (the default client, see ``lp.configure``) and returns a new frame:
nested objects flattened with ".", ``id`` and ``handle`` first, lists kept as lists. An empty
answer is an empty frame. Extra keyword filters are passed through as query parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from .client import EMPLOYEES_PATH, SEARCH_PATH, Client, resolve_client
from .enrich import Errors, Estimate, estimate_values, lookup_values
from .frames import records_to_frame

__all__ = [
    "company_employees",
    "credits_tier",
    "enrich_profiles",
    "estimate_profiles",
    "get_profiles",
    "search_people",
]

STATUS_COLUMN, ERROR_COLUMN = "lookup_status", "lookup_error"

DEFAULT_LIMIT = 50  # the service's maximum page size: fewer billed pages


def get_profiles(
    handles: Iterable[Any],
    *,
    errors: Errors = "coerce",
    client: Client | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """One row per input handle (same order; a Series keeps its index), with the record's fields.

    Example::

        lp.get_profiles(["ada", "https://www.example.com/in/grace/", "", "unknown-x"])
        #    id        handle  ...  lookup_status  lookup_error
        # 0  prsn_...  ada     ...  ok             NaN
        # 1  prsn_...  grace   ...  ok             NaN
        # 2  NaN       NaN     ...  invalid        invalid handle: empty
        # 3  NaN       unknown-x ... not_found     Profile not found

    ``handle`` is the normalised handle that was looked up. Each distinct handle is requested
    at most once; cached answers cost nothing. ``errors="raise"`` raises on the first failure.
    """
    index = handles.index if isinstance(handles, pd.Series) else None
    values = list(handles)
    result = lookup_values(values, client=resolve_client(client), errors=errors,
                           progress=progress)
    frame = result.fields.drop(columns="handle", errors="ignore")
    frame.insert(int("id" in frame.columns), "handle", pd.Series(result.handles, dtype="str"))
    frame["lookup_status"] = pd.Series(result.status, dtype="str")
    frame["lookup_error"] = pd.Series(result.error, dtype="str")
    if index is not None:
        frame.index = index
    return frame


def enrich_profiles(
    frame: pd.DataFrame,
    column: str = "handle",
    *,
    prefix: str = "profile_",
    errors: Errors = "coerce",
    max_calls: int | None = None,
    refresh: bool = False,
    client: Client | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """A new frame: ``frame`` with each row's profile joined on (``frame`` is not modified).

    Example::

        leads.lookup.enrich_profiles("handle")      # same index, order and input columns, plus
        # profile_id, profile_full_name, profile_geo.city, ..., lookup_status, lookup_error

    Values in ``column`` are normalised (whitespace, trailing slashes, profile URLs,
    percent-encoding); missing or blank ones are ``invalid`` and never sent. Each distinct handle
    is requested at most once and joined back onto every row holding it. ``lookup_status`` is
    ``ok``, ``not_found``, ``invalid`` or ``error``; ``lookup_error`` the reason (else missing).

    ``errors="raise"`` raises on the first failure met (NotFoundError for a not-found; invalid
    rows do not raise); ``"coerce"`` records it and goes on. An AuthenticationError always
    raises at once. ``max_calls`` raises BudgetExceededError before sending anything when more
    billable calls would be needed; ``refresh=True`` fetches every handle anew.

    New column names never overwrite: if ``prefix + field``, ``lookup_status`` or
    ``lookup_error`` already exists in ``frame``, a ValueError names them; pass another
    ``prefix`` or drop those columns first.
    """
    if column not in frame.columns:
        raise KeyError(f"No column {column!r} in the frame; columns are {list(frame.columns)}")
    _refuse_overwrite(frame, [STATUS_COLUMN, ERROR_COLUMN])  # before paying for anything
    result = lookup_values(frame[column].tolist(), client=resolve_client(client), errors=errors,
                           max_calls=max_calls, refresh=refresh, progress=progress)
    new = result.fields.add_prefix(prefix)
    new[STATUS_COLUMN] = pd.Series(result.status, dtype="str")
    new[ERROR_COLUMN] = pd.Series(result.error, dtype="str")
    _refuse_overwrite(frame, new.columns)
    out = pd.concat([frame.reset_index(drop=True), new], axis=1)
    out.index = frame.index
    return out


def _refuse_overwrite(frame: pd.DataFrame, names: Iterable[Any]) -> None:
    clash = [c for c in names if c in frame.columns]
    if clash:
        raise ValueError(
            f"Enrichment would overwrite existing columns {clash}; pass another prefix= "
            "or drop them first (nothing was overwritten; answers fetched so far are cached)."
        )


def estimate_profiles(
    frame: pd.DataFrame, column: str = "handle", *, client: Client | None = None
) -> Estimate:
    """What ``enrich_profiles`` would do, without sending anything.

    Example: ``leads.lookup.estimate_profiles("handle")``
    -> ``Estimate(rows=250, valid=231, unique=180, cached=60, to_fetch=120)``
    """
    if column not in frame.columns:
        raise KeyError(f"No column {column!r} in the frame; columns are {list(frame.columns)}")
    return estimate_values(frame[column].tolist(), client=resolve_client(client))


def _listing(
    path: str,
    params: dict[str, Any],
    *,
    max_records: int | None,
    client: Client | None,
    progress: bool | None,
) -> pd.DataFrame:
    records = resolve_client(client).paginate(
        path, params, max_records=max_records, progress=progress
    )
    return records_to_frame(records)


def company_employees(
    slug: str,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
    **filters: Any,
) -> pd.DataFrame:
    """Every employee of company ``slug``, one row each (page- or cursor-paged, detected).

    Example: ``lp.company_employees("acme", max_records=100)``. An unknown company raises
    NotFoundError; a company with no employees gives an empty frame.
    """
    return _listing(EMPLOYEES_PATH, {"slug": slug, "limit": limit, **filters},
                    max_records=max_records, client=client, progress=progress)


def search_people(
    title: str,
    *,
    limit: int = DEFAULT_LIMIT,
    max_records: int | None = None,
    client: Client | None = None,
    progress: bool | None = None,
    **filters: Any,
) -> pd.DataFrame:
    """People whose title matches ``title``, one row each, walking the cursor pages.

    Example: ``lp.search_people("engineer", country_code="DE", max_records=200)``
    """
    return _listing(SEARCH_PATH, {"title": title, "limit": limit, **filters},
                    max_records=max_records, client=client, progress=progress)


def credits_tier(*, client: Client | None = None) -> pd.DataFrame:
    """The credits tier as a one-row frame (``balance``, ``current_tier.name``, ...); not cached.

    Example: ``lp.credits_tier()["current_tier.limit_per_minute"].item()``
    """
    return records_to_frame([resolve_client(client).credits_tier()])
