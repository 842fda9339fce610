"""``ddf.lookup.enrich_profiles(column, ...)`` on ``dask.dataframe``: lazy, one bill per handle.

The result keeps the input's columns, index, order and partitions, and adds the columns of
:func:`output_columns`. The Client's cache must be one every worker reaches: a file on one
machine, or ``cache="redis://..."`` across machines. Workers read ``LOOKUP_API_KEY`` from
their own environment: the key is never in the graph.

Example: ``leads.lookup.enrich_profiles("linkedin_url", max_calls=50_000)`` sends nothing,
then ``enriched.to_parquet("enriched/")`` runs it. The nested columns (``profile_positions``,
``profile_skills``...) hold lists as in pandas; the lazy frame declares their arrow types
(:mod:`lookup_pandas.frames.arrow`), which is the schema ``to_parquet`` writes. The computed
frame keeps the run's summary: ``enriched.compute().lookup.summary`` (its ``rows`` and
``statuses`` count the distinct values looked up, not the input's rows).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import dask.dataframe as dd
import pandas as pd
from dask.dataframe.extensions import register_dataframe_accessor
from dask.delayed import delayed

from ..api import emails
from ..api import functions as api
from ..api.adapters import FrameAccessor, arguments, delegates_to, extends, frame_method
from ..api.columns import ERROR_COLUMN, STATUS_COLUMN, check_columns, column_names, with_status
from ..api.enriched_frames import SUMMARY_ATTR, with_summary
from ..enrichment.results import Estimate
from ..errors import UsageError
from ..frames.arrow import nested_types
from ..frames.records import prefixed_names
from ..identifiers.kinds import COMPANIES, PEOPLE, REVERSE, VERIFY, Kind
from .lazy import LazyRun, checked_fields, worker_spec

__all__ = [
    "DaskLookupAccessor",
    "enrich_companies",
    "enrich_profiles",
    "estimate_companies",
    "estimate_find_emails",
    "estimate_profiles",
    "estimate_reverse_emails",
    "estimate_verify_emails",
    "find_emails",
    "output_columns",
    "reverse_emails",
    "verify_emails",
]


def output_columns(
    fields: Sequence[str] | None, prefix: str, kind: Kind, own: str = ""
) -> dict[str, str]:
    """The columns enrichment adds, with their dtypes: the ``fields``, prefixed, then the status.

    ``fields`` defaults to every field of the kind's records. A field not among them is
    ``object``. Fields beyond these are left out: a partition cannot add columns the others lack.
    ``own`` prefixes the status columns of an enrichment chained after another (``check_columns``).

    Example:
        >>> columns = output_columns(["first_name", "geo.region"], "p_", PEOPLE)
        >>> columns  # doctest: +NORMALIZE_WHITESPACE
        {'p_first_name': 'str', 'p_geo.region': 'object', 'lookup_status': 'str',
         'lookup_error': 'str'}
    """
    known = kind.fields
    chosen = list(known) if fields is None else checked_fields(fields)
    if not chosen:
        raise UsageError("fields must name at least one field (e.g. ['id', 'handle'])")
    names = prefixed_names(chosen, prefix)
    columns = {names[f]: known.get(f, "object") for f in chosen}
    return {**columns, own + STATUS_COLUMN: "str", own + ERROR_COLUMN: "str"}


def _empty(columns: dict[str, str], types: dict[str, Any] | None = None) -> pd.DataFrame:
    """No rows of ``columns``; a column in ``types`` declares that arrow type (for parquet)."""
    declared = types or {}
    return pd.DataFrame(
        {
            name: pd.Series(dtype=pd.ArrowDtype(declared[name]) if name in declared else dtype)
            for name, dtype in columns.items()
        }
    )


@extends(api.enrich_profiles)
def enrich_profiles(
    frame: dd.DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> dd.DataFrame:
    """On a dask DataFrame: a lazy dask DataFrame (see :mod:`lookup_pandas.integrations.dask`).

    ``fields`` are the profile fields to add (flattened names such as ``"geo.city"``), fixed before
    anything runs. ``client`` gives the settings workers build their own Client from: its key stays
    here. Workers draw no ``progress`` bar. ``max_calls`` and ``errors="raise"`` raise from
    ``compute()``, ``max_calls`` before anything is sent.

    Example: ``ddf.lookup.enrich_profiles("handle", fields=["first_name", "headline"])``
    """
    given = arguments(api.enrich_profiles, frame, *args, **options)
    return _enrich(frame, given, fields, PEOPLE)


@extends(api.enrich_companies)
def enrich_companies(
    frame: dd.DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> dd.DataFrame:
    """On a dask DataFrame: a lazy dask DataFrame, as ``enrich_profiles`` there.

    Example: ``ddf.lookup.enrich_companies("slug", fields=["name", "industry"])``

    ``fields``: the company fields to add (default every field of COMPANY_FIELDS).
    """
    given = arguments(api.enrich_companies, frame, *args, **options)
    return _enrich(frame, given, fields, COMPANIES)


@extends(emails.find_emails)
def find_emails(
    frame: dd.DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> dd.DataFrame:
    """On a dask DataFrame: a lazy dask DataFrame, as ``enrich_profiles`` there.

    Example: ``ddf.lookup.find_emails("first", "last", "website")``

    ``fields``: the find's fields to add (default every field of FIND_FIELDS, by profile
    FIND_PROFILE_FIELDS).
    """
    given = arguments(emails.find_emails, frame, *args, **options)
    return _enrich(frame, given, fields, emails.find_kind(given)[0])


@extends(emails.verify_emails)
def verify_emails(
    frame: dd.DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> dd.DataFrame:
    """On a dask DataFrame: a lazy dask DataFrame, as ``enrich_profiles`` there.

    Example: ``ddf.lookup.verify_emails("email")``

    ``fields``: the verdict's fields to add (default every field of VERIFY_FIELDS).
    """
    given = arguments(emails.verify_emails, frame, *args, **options)
    return _enrich(frame, given, fields, VERIFY)


@extends(emails.reverse_emails)
def reverse_emails(
    frame: dd.DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> dd.DataFrame:
    """On a dask DataFrame: a lazy dask DataFrame, as ``enrich_profiles`` there.

    Example: ``ddf.lookup.reverse_emails("email", fields=["found", "person.full_name"])``

    ``fields``: the reversal's fields to add (default every field of REVERSE_FIELDS).
    """
    given = arguments(emails.reverse_emails, frame, *args, **options)
    return _enrich(frame, given, fields, REVERSE)


def _enrich(
    frame: dd.DataFrame, given: dict[str, Any], fields: Sequence[str] | None, kind: Kind
) -> dd.DataFrame:
    """The lazy enrichment of ``frame`` by ``given`` (api's arguments by name)."""
    if given.get("background") or given["provenance"]:
        raise UsageError(_REFUSED)
    spec = functools.partial(worker_spec, workers="Dask workers", how=_SHARED)
    run = LazyRun.of(given, kind, frame._meta, spec)
    columns = output_columns(fields, run.prefix, kind, run.own)

    handles = frame[column_names(run.column)].map_partitions(
        _distinct_handles, run, meta=pd.Series(dtype=object, name="handle")
    )
    distinct = handles.drop_duplicates(
        split_out=max(1, min(frame.npartitions, 16)), shuffle_method="tasks"
    )
    needed: Any = None
    total: Any = None
    if run.budgeted:
        meta = pd.DataFrame({"needed": [0], "total": [0]})[:0]
        counts = distinct.map_partitions(run.counted, meta=meta)
        needed, total = counts["needed"].sum(), counts["total"].sum()
    profiles = distinct.map_partitions(
        _fetch,
        run,
        needed,  # dask collections as arguments of their own: dask computes them first
        total,
        columns,
        meta=_empty(columns).rename_axis("handle"),
    )
    # One table of every distinct handle's columns, moved once to each worker that needs
    # it; each input partition is then a reindex on it, with no cache read.
    table = delayed(_table)(profiles.to_delayed())
    meta = pd.concat([frame._meta, _empty(columns, nested_types(kind.fields, run.prefix))], axis=1)
    return frame.map_partitions(_join, table, run, list(columns), meta=meta, align_dataframes=False)


@delegates_to(api.estimate_profiles)
def estimate_profiles(frame: dd.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a dask DataFrame: computes the column (nothing billable) and reads the cache here.

    Example: ``ddf.lookup.estimate_profiles("handle").to_fetch``
    """
    return _estimate(api.estimate_profiles, frame, *args, **options)


@delegates_to(api.estimate_companies)
def estimate_companies(frame: dd.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a dask DataFrame: computes the column and reads the cache here (nothing billable).

    Example: ``ddf.lookup.estimate_companies("slug").to_fetch``
    """
    return _estimate(api.estimate_companies, frame, *args, **options)


@delegates_to(emails.estimate_find_emails)
def estimate_find_emails(frame: dd.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a dask DataFrame: computes the columns read and reads the cache here.

    Example: ``ddf.lookup.estimate_find_emails("first", "last", "website").credits``
    """
    return _estimate(emails.estimate_find_emails, frame, *args, **options)


@delegates_to(emails.estimate_verify_emails)
def estimate_verify_emails(frame: dd.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a dask DataFrame: computes the column and reads the cache here.

    Example: ``ddf.lookup.estimate_verify_emails("email").credits``
    """
    return _estimate(emails.estimate_verify_emails, frame, *args, **options)


@delegates_to(emails.estimate_reverse_emails)
def estimate_reverse_emails(frame: dd.DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a dask DataFrame: computes the column and reads the cache here.

    Example: ``ddf.lookup.estimate_reverse_emails("email").credits``
    """
    return _estimate(emails.estimate_reverse_emails, frame, *args, **options)


def _estimate(
    estimate: Callable[..., Estimate], frame: dd.DataFrame, *args: Any, **options: Any
) -> Estimate:
    """``estimate`` run here on the computed columns read alone (checked first on the meta)."""
    columns = emails.read_columns(arguments(estimate, frame, *args, **options))
    check_columns(frame._meta, columns)
    return estimate(frame[column_names(columns)].compute(), *args, **options)


@register_dataframe_accessor("lookup")
class DaskLookupAccessor(FrameAccessor[dd.DataFrame]):
    """``ddf.lookup.enrich_profiles(...)``, ``ddf.lookup.verify_emails(...)``... and their
    estimates: the pandas accessor's methods, lazy."""

    enrich_profiles = frame_method(enrich_profiles)
    estimate_profiles = frame_method(estimate_profiles)
    enrich_companies = frame_method(enrich_companies)
    estimate_companies = frame_method(estimate_companies)
    find_emails = frame_method(find_emails)
    estimate_find_emails = frame_method(estimate_find_emails)
    verify_emails = frame_method(verify_emails)
    estimate_verify_emails = frame_method(estimate_verify_emails)
    reverse_emails = frame_method(reverse_emails)
    estimate_reverse_emails = frame_method(estimate_reverse_emails)


_REFUSED = (
    "background= is for pandas frames and provenance= for pandas and polars ones: a dask "
    "DataFrame is lazy already (compute it where you like), and its workers keep no sources."
)
_SHARED = (
    "pass a cache file every worker reaches (one machine), or cache='redis://...' for several "
    "machines"
)


def _distinct_handles(part: pd.DataFrame, run: LazyRun) -> pd.Series:
    """One partition's distinct valid handles, normalised (each distinct raw value once)."""
    handles, _ = run.normalised(part)
    return pd.Series(sorted({h for h in handles if h is not None}), dtype=object, name="handle")


def _fetch(
    handles: pd.Series,
    run: LazyRun,
    needed: int | None,
    total: int | None,
    columns: dict[str, str],
) -> pd.DataFrame:
    """Fetch, or read, one partition of the distinct handles on a worker.

    It runs once the whole input's billable count (``needed`` of ``total``), when counted, is
    known to fit the run's budgets. Returns one row per handle, indexed by it, with the fixed,
    typed output ``columns``, and the partition's summary in its attrs.
    """
    result = run.lookup(handles.tolist(), needed, total)
    fields = result.fields.rename(columns=prefixed_names(result.fields.columns, run.prefix))
    added = with_status(fields, result, run.own).reindex(columns=list(columns))
    typed = {name: _as(added[name], dtype) for name, dtype in columns.items()}
    table = pd.DataFrame(typed).set_axis(pd.Index(result.handles, name="handle"))
    return with_summary(table, result.summary)


def _table(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The fetched partitions as one table, with the run's summary: the sum of theirs."""
    kept = [p.attrs[SUMMARY_ATTR] for p in parts if isinstance(p.attrs.get(SUMMARY_ATTR), dict)]
    table = pd.concat(parts)
    table.attrs = {SUMMARY_ATTR: _sum(kept)} if kept else {}
    return table


def _sum(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """One summary of the partitions' (as ``with_summary`` keeps them): counts added up,
    ``seconds`` the longest."""
    return {name: _added(name, [s[name] for s in summaries]) for name in summaries[0]}


def _added(name: str, values: list[Any]) -> Any:
    """One field of the run's summary from the partitions' ``values`` of it."""
    if name == "seconds":
        return max(values)
    if name in ("statuses", "refresh"):  # dicts of counts (refresh: or None)
        counts = [v for v in values if v is not None]
        names = dict.fromkeys(k for c in counts for k in c)
        return {k: sum(c.get(k, 0) for c in counts) for k in names} if counts else None
    return sum(values)


def _join(
    part: pd.DataFrame, table: pd.DataFrame, run: LazyRun, columns: list[str]
) -> pd.DataFrame:
    """One input partition with each row's columns from ``table``, once every fetch is done.

    An invalid value gets ``invalid`` and its reason, as in pandas. Every partition carries
    the run's summary, so the computed frame keeps it.
    """
    handles, errors = run.normalised(part)  # as the values were normalised
    added = table.reindex(pd.Index(handles, dtype=object))
    added.index = part.index
    invalid = pd.isna(handles)
    if invalid.any():
        added.loc[invalid, run.own + STATUS_COLUMN] = "invalid"
        added.loc[invalid, run.own + ERROR_COLUMN] = errors[invalid]
    out = pd.concat([part, added[columns]], axis=1)
    out.attrs = {**part.attrs, SUMMARY_ATTR: table.attrs.get(SUMMARY_ATTR)}
    return out


def _as(values: pd.Series, dtype: str) -> pd.Series:
    """``values`` in the output dtype. A column no record had is all missing, of that dtype."""
    if values.isna().all() and dtype == "object":
        return pd.Series(math.nan, index=values.index, dtype=object)
    typed: pd.Series = values.astype(dtype)  # type: ignore[call-overload]
    return typed
