"""``ddf.lookup.enrich_profiles(column, ...)`` on ``dask.dataframe``: lazy, one bill per handle.

Example::

    import dask.dataframe as dd
    import lookup_pandas  # noqa: F401  registers ddf.lookup (dask before or after: either order)

    leads = dd.read_csv("crm-export-*.csv", dtype=str)
    enriched = leads.lookup.enrich_profiles("linkedin_url", max_calls=50_000)  # nothing sent
    enriched.to_parquet("enriched/")                                           # now it runs

The result is a dask DataFrame: the input's columns, index, order and partitions, plus the
profile columns and ``lookup_status`` / ``lookup_error`` (see :func:`output_columns`). Building
it sends nothing and computes nothing; the graph it builds, run by ``compute()`` (or any write),
does, on whatever scheduler is in use (a ``distributed`` cluster included):

1. each input partition's distinct valid handles, normalised as pandas enrichment normalises
   them; ``drop_duplicates`` across partitions, so a handle in many partitions is one handle;
2. with ``max_calls`` (or ``refresh``): the billable count of those, read from the cache
   without the network, summed over the whole input; every fetch task gets the sum and raises
   BudgetExceededError before sending anything when it is over the budget (a per-partition
   budget would not add up);
3. the fetch: each partition of distinct handles is enriched by the engine on a worker (cache,
   the shared pace, claims, batch jobs: exactly as in one process), so each handle is paid once;
4. once every fetch is done, each input partition is enriched from the cache (no further
   billable call) and reindexed to the fixed output columns, so every partition has the same
   columns and dtypes as the ``meta`` given to ``map_partitions``; Dask never runs our
   function on a made-up partition (``"foo"`` handles would be paid lookups).

Workers share what they fetch through the cache, so the Client's cache must be one every worker
reaches: the default file on one machine (a LocalCluster), or ``cache="redis://..."`` across
machines. The key is never in the graph: each worker builds its Client from a
:class:`~lookup_pandas.client_spec.ClientSpec` and reads ``LOOKUP_API_KEY`` from its own
environment (a ConfigurationError from ``compute()`` says so when it is missing).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import dask.dataframe as dd
import pandas as pd
from dask.dataframe.extensions import register_dataframe_accessor
from dask.delayed import delayed

from .. import api
from ..client import PROFILE_PATH, Client, resolve_client
from ..client_spec import ClientSpec
from ..enrich import (
    Errors,
    Estimate,
    Method,
    check_method,
    check_options,
    estimate_values,
    lookup_values,
)
from ..errors import BudgetExceededError, ConfigurationError, UsageError
from ..frames import PERSON_FIELDS, prefixed_names
from ..stream import HandleMap

__all__ = ["DaskLookupAccessor", "output_columns"]


def output_columns(fields: Sequence[str] | None, prefix: str) -> dict[str, str]:
    """The columns enrichment adds, each with its dtype: the profile ``fields`` (default: every
    field of :data:`lookup_pandas.frames.PERSON_FIELDS`, in that order), prefixed, then
    ``lookup_status`` and ``lookup_error``.

    Example: ``output_columns(["first_name", "geo.city"], "profile_")`` ->
    ``{"profile_first_name": "str", "profile_geo.city": "str", "lookup_status": "str",
    "lookup_error": "str"}``. A field not in PERSON_FIELDS (``"geo.region"``) is ``object``:
    its values are whatever JSON the records carry. Fields the records carry beyond these are
    left out: a partition cannot add columns the others lack.
    """
    chosen = list(PERSON_FIELDS) if fields is None else _checked_fields(fields)
    names = prefixed_names(chosen, prefix)
    columns = {names[f]: PERSON_FIELDS.get(f, "object") for f in chosen}
    return {**columns, api.STATUS_COLUMN: "str", api.ERROR_COLUMN: "str"}


def _checked_fields(fields: Sequence[str]) -> list[str]:
    if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
        raise UsageError(f"fields must be a list of field names, not {fields!r}")
    chosen = list(dict.fromkeys(fields))
    if not chosen:
        raise UsageError("fields must name at least one field (e.g. ['id', 'handle'])")
    return chosen


def _empty(columns: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in columns.items()})


@register_dataframe_accessor("lookup")
class DaskLookupAccessor:
    """``ddf.lookup.enrich_profiles(...)`` and ``ddf.lookup.estimate_profiles(...)``."""

    def __init__(self, frame: dd.DataFrame) -> None:
        self._frame = frame

    def enrich_profiles(
        self,
        column: str = "handle",
        *,
        fields: Sequence[str] | None = None,
        prefix: str = "profile_",
        errors: Errors = "coerce",
        max_calls: int | None = None,
        refresh: bool = False,
        client: Client | None = None,
        progress: bool | None = None,
        fold_case: bool = True,
        method: Method = "auto",
    ) -> dd.DataFrame:
        """A lazy dask DataFrame: each row's profile joined on (see the module doc).

        Example: ``ddf.lookup.enrich_profiles("handle", fields=["first_name", "headline"])``

        The keywords are those of pandas' ``df.lookup.enrich_profiles``, plus ``fields``: the
        profile fields to add (flattened names such as ``"geo.city"``; default every field of
        PERSON_FIELDS), fixed before anything runs because every partition must have the same
        columns. ``client`` gives the settings (base URL, cache, pace, retries) workers build
        their own Client from; its key stays here. ``progress`` is not drawn by workers:
        follow the job on Dask's dashboard or with ``distributed.progress``. ``max_calls``
        and ``errors="raise"`` raise from ``compute()``, ``max_calls`` before anything is sent.
        """
        del progress  # workers draw no bars: Dask's dashboard shows the tasks
        check_options(errors, max_calls)
        check_method(method)
        frame = self._frame
        api.check_columns(frame._meta, column, prefix)
        spec = _spec(resolve_client(client))
        columns = output_columns(fields, prefix)
        meta = pd.concat([frame._meta, _empty(columns)], axis=1)

        handles = frame[column].map_partitions(
            _distinct_handles, fold_case, meta=pd.Series(dtype=object, name="handle")
        )
        distinct = handles.drop_duplicates(
            split_out=max(1, min(frame.npartitions, 16)), shuffle_method="tasks"
        )
        needed: Any = None
        total: Any = None
        if max_calls is not None:
            counts = distinct.map_partitions(
                _billable, spec, refresh, meta=pd.DataFrame({"needed": [0], "distinct": [0]})[:0]
            )
            needed, total = counts["needed"].sum(), counts["distinct"].sum()
        profiles = distinct.map_partitions(
            _fetch,
            spec,
            {"errors": errors, "refresh": refresh, "method": method},
            prefix,
            max_calls,
            needed,  # dask collections as arguments of their own: dask computes them first
            total,
            columns,
            meta=_empty(columns).rename_axis("handle"),
        )
        # One table of every distinct handle's columns, moved once to each worker that needs
        # it; each input partition is then a reindex on it, with no cache read.
        table = delayed(pd.concat)(profiles.to_delayed())
        return frame.map_partitions(
            _join, table, column, fold_case, list(columns), meta=meta, align_dataframes=False
        )

    def estimate_profiles(
        self,
        column: str = "handle",
        *,
        client: Client | None = None,
        fold_case: bool = True,
        method: Method = "auto",
    ) -> Estimate:
        """What ``enrich_profiles`` would do, without sending anything: computes the column
        (reads the input; no billable request) and reads the cache here.

        Example: ``ddf.lookup.estimate_profiles("handle").to_fetch``
        """
        api.check_columns(self._frame._meta, column)
        values = self._frame[column].compute()
        return estimate_values(
            values.tolist(), client=resolve_client(client), fold_case=fold_case, method=method
        )


def _spec(client: Client) -> ClientSpec:
    """The Client's spec for workers; refused when its answers cannot be shared."""
    if client.settings.cache_path is None and client.settings.cache_url is None:
        raise ConfigurationError(
            "Dask workers share what they fetch through the cache, and this Client has none "
            "(cache=False): pass a cache file every worker reaches (one machine), or "
            "cache='redis://...' for several machines. Nothing was sent."
        )
    return ClientSpec.from_client(client)


def _distinct_handles(values: pd.Series, fold_case: bool) -> pd.Series:
    """One partition's distinct valid handles, normalised (each distinct raw value once)."""
    mapped = HandleMap(fold_case=fold_case).map(values)
    handles = {h for h in mapped.handles if h is not None}
    return pd.Series(sorted(handles), dtype=object, name="handle")


def _billable(handles: pd.Series, spec: ClientSpec, refresh: bool) -> pd.DataFrame:
    """How many of these distinct handles must be paid for: all with refresh, else those the
    cache does not hold (read without the network)."""
    distinct = len(handles)
    if refresh:
        needed = distinct
    else:
        client = spec.client()
        needed = sum(not client.is_cached(PROFILE_PATH, {"handle": h}) for h in handles)
    return pd.DataFrame({"needed": [needed], "distinct": [distinct]})


def _fetch(
    handles: pd.Series,
    spec: ClientSpec,
    options: dict[str, Any],
    prefix: str,
    max_calls: int | None,
    needed: int | None,
    total: int | None,
    columns: dict[str, str],
) -> pd.DataFrame:
    """Fetch (or read) one partition of the distinct handles on a worker, once the whole
    input's billable count is known to fit ``max_calls``; one row per handle, indexed by it,
    with the output columns (fixed, typed) and its status."""
    if max_calls is not None and needed is not None and needed > max_calls:
        raise BudgetExceededError(
            f"This enrichment needs {needed} billable calls ({(total or 0) - needed} of "
            f"{total} distinct handles are cached), more than max_calls={max_calls}. "
            "Nothing was sent.",
            needed=int(needed),
            allowed=max_calls,
        )
    result = lookup_values(
        handles.tolist(),
        client=spec.client(),
        progress=False,
        fold_case=False,  # already normalised (and folded, if asked) by _distinct_handles
        **options,
    )
    fields = result.fields.rename(columns=prefixed_names(result.fields.columns, prefix))
    status = {
        api.STATUS_COLUMN: pd.Series(result.status, index=fields.index, dtype="str"),
        api.ERROR_COLUMN: pd.Series(result.error, index=fields.index, dtype="str"),
    }
    rows = fields.assign(**status)
    added = rows.reindex(columns=list(columns))
    typed = {name: _as(added[name], dtype) for name, dtype in columns.items()}
    return pd.DataFrame(typed).set_axis(pd.Index(result.handles, name="handle"))


def _join(
    part: pd.DataFrame, table: pd.DataFrame, column: str, fold_case: bool, columns: list[str]
) -> pd.DataFrame:
    """One input partition with each row's columns from ``table`` (every distinct handle's,
    once every fetch is done); an invalid value gets ``invalid`` and its reason, as in pandas."""
    mapped = HandleMap(fold_case=fold_case).map(part[column])  # each distinct raw value once
    handles, errors = mapped.handles[mapped.codes], mapped.errors[mapped.codes]
    added = table.reindex(pd.Index(handles, dtype=object))
    added.index = part.index
    invalid = pd.isna(handles)
    if invalid.any():
        added.loc[invalid, api.STATUS_COLUMN] = "invalid"
        added.loc[invalid, api.ERROR_COLUMN] = errors[invalid]
    return pd.concat([part, added[columns]], axis=1)


def _as(values: pd.Series, dtype: str) -> pd.Series:
    """``values`` in the output dtype; a column no record had is all missing, of that dtype."""
    if values.isna().all() and dtype == "object":
        return pd.Series(math.nan, index=values.index, dtype=object)
    typed: pd.Series = values.astype(dtype)  # type: ignore[call-overload]
    return typed
