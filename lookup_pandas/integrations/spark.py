"""``lookup_pandas.spark``: a PySpark DataFrame enriched lazily, each distinct value bought once.

``enrich_profiles(sdf, "linkedin_url")`` returns a new DataFrame and sends nothing; an action
(``count``, ``write``, ``show``...) runs it. The distinct normalised values of the whole column
are fetched once, spread over the executors with ``mapInPandas``, under the key's one pace and
claims (the Client's cache and store), and joined back onto every row: rows, their order within
partitions and the input columns are kept. Invalid values are never sent.

The key never travels: the driver ships a key-less :class:`~lookup_pandas.client.spec.ClientSpec`,
and each executor reads ``LOOKUP_API_KEY`` from its environment (``spark.executorEnv``). Executors
on several machines must share a Redis cache (``cache="redis://..."``); a cache file is refused
unless the master is ``local[...]``.

The added columns, known before the run (:func:`output_schema`): ``{prefix}id`` and the record's
key (``{prefix}handle``, or ``{prefix}slug`` for companies) as strings (for the Email API's
lookups, every field of theirs: ``verify_address``, ``verify_deliverable``...), the ``fields=``
asked for, the whole record as JSON text (``{prefix}json``), then ``lookup_status`` and
``lookup_error`` (and the provenance columns with ``provenance=True``).
Any other field is one ``get_json_object`` away:
``F.get_json_object("profile_json", "$.geo.city")``.

Example: ``sdf.transform(lambda d: lp.spark.enrich_profiles(d, "linkedin_url"))``
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pandas as pd

try:
    import pyspark  # noqa: F401  here first: without it, the one line that says what to install
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        "lookup_pandas.spark needs pyspark: pip install 'lookup-pandas[spark]' "
        "(and Java 17 or newer for Spark itself)",
        name=missing.name,
    ) from missing
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T
from pyspark.sql.pandas.functions import pandas_udf

from ..api import emails
from ..api import functions as api
from ..api.adapters import arguments, delegates_to, extends
from ..api.columns import ERROR_COLUMN, STATUS_COLUMN, check_columns, column_names, column_values
from ..client.client import Client, resolve_client
from ..client.spec import ClientSpec
from ..enrichment.provenance import (
    CHECKED_AT_COLUMN,
    EXPIRED_COLUMN,
    FETCHED_AT_COLUMN,
    SOURCE_COLUMN,
)
from ..enrichment.results import Estimate, Refresh
from ..errors import ColumnError, ConfigurationError, UsageError
from ..frames.records import flatten, prefixed_names
from ..identifiers.distinct import HandleMap
from ..identifiers.kinds import COMPANIES, PEOPLE, REVERSE, VERIFY, Kind
from .lazy import LazyRun, checked_fields, worker_spec

__all__ = [
    "enrich_companies",
    "enrich_profiles",
    "estimate_companies",
    "estimate_find_emails",
    "estimate_profiles",
    "estimate_reverse_emails",
    "estimate_verify_emails",
    "find_emails",
    "output_schema",
    "reverse_emails",
    "verify_emails",
]

#: The internal columns of the plan (dropped from the result).
_KEY = "__lookup_key"
_HANDLE = "__lookup_handle"
#: Each row's normalised value and, when invalid, the reason.
_KEY_TYPE = T.StructType(
    [T.StructField("handle", T.StringType()), T.StructField("reason", T.StringType())]
)
#: The Spark type of a field's pandas dtype (the record facts); any other is a string.
_SPARK_TYPES: dict[str, T.DataType] = {
    "str": T.StringType(),
    "Int64": T.LongType(),
    "boolean": T.BooleanType(),
}


@contextlib.contextmanager
def _tested_on_pandas_3() -> Iterator[None]:
    """pyspark 4's FutureWarning that it "does not yet fully support pandas >= 3.0.0", left out
    of this module's own calls only: they are tested on pandas 3 with pyspark 4 and 3.5 (CI runs
    both). A user's own pandas calls of pyspark (``toPandas``) still show it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)
        yield


def output_schema(
    fields: Sequence[str] | None,
    prefix: str,
    kind: Kind,
    *,
    provenance: bool = False,
    refresh: Refresh = False,
) -> list[T.StructField]:
    """The columns enrichment adds, in order, with their Spark types.

    A field of the kind's records (``PERSON_FIELDS``) has its type (text, whole number, flag);
    a list, an object or any other field is a string (text as is, others as JSON). With
    ``provenance``, pandas' provenance columns follow (``lookup_checked_at`` after
    ``refresh="changed"``).

    Example:
        >>> [(f.name, f.dataType.simpleString()) for f in output_schema(["geo.city"], "p_", PEOPLE)]
        ... # doctest: +NORMALIZE_WHITESPACE
        [('p_id', 'string'), ('p_handle', 'string'), ('p_geo.city', 'string'),
         ('p_json', 'string'), ('lookup_status', 'string'), ('lookup_error', 'string')]
    """
    names = _named(fields, prefix, kind)
    known = kind.fields
    columns = [
        T.StructField(name, _SPARK_TYPES.get(known.get(field, ""), T.StringType()))
        for field, name in names.items()
    ]
    status = [
        T.StructField(STATUS_COLUMN, T.StringType()),
        T.StructField(ERROR_COLUMN, T.StringType()),
    ]
    return [*columns, *status, *(_provenance_fields(refresh) if provenance else [])]


def _provenance_fields(refresh: Refresh) -> list[T.StructField]:
    """The provenance columns (:mod:`lookup_pandas.enrichment.provenance`) as Spark's."""
    fields = [
        T.StructField(SOURCE_COLUMN, T.StringType()),
        T.StructField(FETCHED_AT_COLUMN, T.TimestampType()),
        T.StructField(EXPIRED_COLUMN, T.BooleanType()),
    ]
    if refresh == "changed":
        fields.append(T.StructField(CHECKED_AT_COLUMN, T.TimestampType()))
    return fields


def _named(fields: Sequence[str] | None, prefix: str, kind: Kind) -> dict[str, str]:
    """Each record field put in a column -> its name: the fields that name every record (``id``
    and the handle, a company's ``slug``; a kind without ids, the Email API's, has few and flat
    fields: all of them), ``fields`` once each, then the JSON."""
    first = list(kind.fields)[:2] if kind.endpoint.ids else list(kind.fields)
    chosen = [] if fields is None else checked_fields(fields)
    rest = [f for f in chosen if f not in {*first, "id", "handle", "slug", "json"}]
    return prefixed_names([*first, *rest, "json"], prefix)


@extends(api.enrich_profiles)
def enrich_profiles(
    sdf: DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> DataFrame:
    """On a Spark DataFrame: a lazy Spark DataFrame (see :mod:`lookup_pandas.integrations.spark`).

    ``fields`` are the profile fields (dotted names such as ``"geo.city"``) put in columns of
    their own, ``prefix`` + field; a record without one holds null there. ``client`` gives the
    settings executors build their own Client from (its key stays here). ``max_calls`` and
    ``max_credits`` run one Spark job at once that counts what is billable (the cache is read,
    nothing is sent), and raise BudgetExceededError here before anything is sent.
    ``errors="raise"`` fails the action. ``provenance`` adds pandas' columns (times as
    timestamps). ``progress`` is ignored (Spark's UI shows the tasks); ``background`` is refused.

    Example: ``lp.spark.enrich_profiles(sdf, "handle", fields=["headline", "geo.city"])``
    """
    given = arguments(api.enrich_profiles, sdf, *args, **options)
    return _enrich(sdf, given, fields, PEOPLE)


@extends(api.enrich_companies)
def enrich_companies(
    sdf: DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> DataFrame:
    """On a Spark DataFrame: a lazy Spark DataFrame, as ``enrich_profiles`` there.

    ``fields``: company fields put in columns of their own (``["name", "hq.city"]``).

    Example: ``lp.spark.enrich_companies(sdf, "slug", fields=["name", "industry"])``
    """
    given = arguments(api.enrich_companies, sdf, *args, **options)
    return _enrich(sdf, given, fields, COMPANIES)


@extends(emails.find_emails)
def find_emails(
    sdf: DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> DataFrame:
    """On a Spark DataFrame: a lazy Spark DataFrame, as ``enrich_profiles`` there.

    The find's fields are columns of their own (``email_address``, ``email_found``...);
    ``fields`` adds others.

    Example: ``lp.spark.find_emails(sdf, "first", "last", "website")``
    """
    given = arguments(emails.find_emails, sdf, *args, **options)
    return _enrich(sdf, given, fields, emails.find_kind(given)[0])


@extends(emails.verify_emails)
def verify_emails(
    sdf: DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> DataFrame:
    """On a Spark DataFrame: a lazy Spark DataFrame, as ``enrich_profiles`` there.

    The verdict's fields are columns of their own (``verify_deliverable``...; ``mx_hosts`` as
    JSON).

    Example: ``lp.spark.verify_emails(sdf, "email")``
    """
    given = arguments(emails.verify_emails, sdf, *args, **options)
    return _enrich(sdf, given, fields, VERIFY)


@extends(emails.reverse_emails)
def reverse_emails(
    sdf: DataFrame, /, *args: Any, fields: Sequence[str] | None = None, **options: Any
) -> DataFrame:
    """On a Spark DataFrame: a lazy Spark DataFrame, as ``enrich_profiles`` there.

    The fields of REVERSE_FIELDS are columns of their own (``reverse_person.full_name``...);
    ``fields`` adds others (``["person.experience"]``).

    Example: ``lp.spark.reverse_emails(sdf, "email")``
    """
    given = arguments(emails.reverse_emails, sdf, *args, **options)
    return _enrich(sdf, given, fields, REVERSE)


@_tested_on_pandas_3()
def _enrich(
    sdf: DataFrame, given: dict[str, Any], fields: Sequence[str] | None, kind: Kind
) -> DataFrame:
    """The lazy enrichment of ``sdf`` by ``given`` (api's arguments by name)."""
    if given.get("background"):
        raise UsageError(
            "background=True is for pandas frames: a Spark DataFrame is lazy already (an action "
            "runs it, where and when you like)."
        )
    if {_KEY, _HANDLE} & set(sdf.columns):
        raise ColumnError(f"{_KEY} and {_HANDLE} are lookup_pandas' own columns: rename them.")
    run = LazyRun.of(given, kind, sdf, lambda client: _spec(client, _master(sdf)))
    own = run.own
    added = output_schema(
        fields, run.prefix, kind, provenance=run.options.provenance, refresh=run.options.refresh
    )

    read = [F.col(_ref(name)).alias(f"c{i}") for i, name in enumerate(column_names(run.column))]
    keyed = sdf.withColumn(_KEY, _normaliser(run)(F.struct(*read)))
    distinct = (
        keyed.select(F.col(f"{_KEY}.handle").alias(_HANDLE))
        .where(F.col(_HANDLE).isNotNull())
        .distinct()
    )
    if run.budgeted:
        _check_budgets(distinct, run, resolve_client(given["client"]))
    fetched = T.StructType([T.StructField(_HANDLE, T.StringType()), *added])
    named = _named(fields, run.prefix, kind)
    # pyspark 3.5's types refuse a function of pandas frames here; 4's take it
    fetch = _fetcher(run, named)
    table = distinct.mapInPandas(fetch, fetched)  # type: ignore[arg-type, unused-ignore]
    if own:  # a later enrichment's statuses (and provenance) take its prefix
        table = table.withColumnsRenamed({f.name: own + f.name for f in added[len(named) :]})
    # The table is broadcast: each input partition is streamed through the join as it is, so
    # rows keep their partition and order.
    joined = keyed.join(F.broadcast(table), F.col(f"{_KEY}.handle") == table[_HANDLE], "left")
    invalid = F.col(f"{_KEY}.handle").isNull()
    status = F.when(invalid, F.lit("invalid")).otherwise(table[own + STATUS_COLUMN])
    error = F.when(invalid, F.col(f"{_KEY}.reason")).otherwise(table[own + ERROR_COLUMN])
    return joined.select(
        *(F.col(_ref(c)) for c in sdf.columns),
        *(table[_ref(name)] for name in named.values()),
        status.alias(own + STATUS_COLUMN),
        error.alias(own + ERROR_COLUMN),
        *(table[own + f.name] for f in added[len(named) + 2 :]),  # provenance: null when invalid
    )


def _ref(name: str) -> str:
    """A column's name as Spark reads it literally (a dot is not a field of a struct)."""
    return "`" + name.replace("`", "``") + "`"


def _master(sdf: DataFrame) -> str:
    """The session's master URL (``local[2]``, ``yarn``, ``spark://...``), or ``""`` if unknown."""
    try:
        return str(sdf.sparkSession.conf.get("spark.master", "") or "")
    except Exception:  # a session whose conf cannot tell (Spark Connect)
        return ""


def _spec(client: Client, master: str) -> ClientSpec:
    """The Client's key-less spec for executors. Refused when executors cannot share answers.

    Example:
        >>> import lookup_pandas as lp
        >>> client = lp.Client(api_key="lk_example", base_url="https://api.example.com",
        ...                    cache="/tmp/lookup-cache.sqlite")
        >>> _spec(client, "local[2]").settings.api_key
        ''
        >>> _spec(client, "yarn")
        Traceback (most recent call last):
        lookup_pandas.errors.ConfigurationError: The cache is a file ...
        >>> client.close()
    """
    settings = client.settings
    how = "pass a cache file (master local[...]) or cache='redis://...'"
    spec = worker_spec(client, "Spark executors", how)
    if settings.cache_url is None and not master.startswith("local"):
        raise ConfigurationError(
            f"The cache is a file ({settings.cache_path}) and the Spark master is "
            f"{master or 'not local'!r}: executors on several machines must share a Redis cache "
            "(cache='redis://...'), or each would pay for the same values again. "
            "Nothing was sent."
        )
    return spec


def _normaliser(run: LazyRun) -> Callable[[Column], Column]:
    """A pandas UDF of a struct of the columns read, in order: each row's normalised value, or
    None and the reason it is invalid."""

    def normalise(read: pd.DataFrame) -> pd.DataFrame:
        handles, reasons = run.normalised(read.set_axis(column_names(run.column), axis=1))
        return pd.DataFrame({"handle": handles, "reason": reasons}, dtype=object)

    udf: Callable[[Column], Column] = pandas_udf(normalise, _KEY_TYPE)  # type: ignore[call-overload]
    return udf


def _check_budgets(distinct: DataFrame, run: LazyRun, client: Client) -> None:
    """Raise BudgetExceededError here when the billable handles pass ``max_calls`` or
    ``max_credits``. One Spark job counts them; the cache is read, nothing is sent."""

    def count(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        yield run.counted([h for batch in batches for h in batch[_HANDLE]])

    schema = "needed long, total long"
    counts = distinct.mapInPandas(count, schema)  # type: ignore[arg-type, unused-ignore]
    row = counts.agg(F.sum("needed"), F.sum("total")).collect()[0]
    run.check_budgets(client, int(row[0] or 0), int(row[1] or 0))


def _fetcher(
    run: LazyRun, named: dict[str, str]
) -> Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]:
    """For ``mapInPandas``: a partition of the distinct handles fetched (or read) on an executor.

    One row per handle: the record's fields in the columns ``named`` (field -> column; the
    ``json`` one holds the whole record), its status and error.
    """
    *fields, _ = named  # the last is the JSON

    def fetch(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        handles = [h for batch in batches for h in batch[_HANDLE]]
        if not handles:
            return
        records: dict[str, dict[str, Any]] = {}
        result = run.lookup(handles, on_record=lambda h, record: records.__setitem__(h, record))
        rows: dict[str, Any] = {_HANDLE: pd.Series(result.handles, dtype=object)}
        flat = {h: flatten(r) for h, r in records.items()}
        for field in fields:
            values = [flat.get(h, {}).get(field) for h in result.handles]  # type: ignore[arg-type]
            rows[named[field]] = _typed(values, run.kind.fields.get(field, ""))
        whole = [_text(records.get(h)) for h in result.handles]  # type: ignore[arg-type]
        rows[named["json"]] = pd.Series(whole, dtype=object)
        rows[STATUS_COLUMN] = pd.Series(result.status, dtype=object)
        rows[ERROR_COLUMN] = pd.Series(result.error, dtype=object)
        if result.provenance is not None:
            for name, column in result.provenance.items():
                rows[str(name)] = column.astype(object) if name == SOURCE_COLUMN else column
        yield pd.DataFrame(rows)

    return fetch


def _typed(values: list[Any], dtype: str) -> pd.Series:
    """A field's values in its column's type: a value of another type is null, never an error."""
    if dtype == "Int64":
        whole = [v if isinstance(v, int) and not isinstance(v, bool) else None for v in values]
        return pd.Series(whole, dtype="Int64")
    if dtype == "boolean":
        return pd.Series([v if isinstance(v, bool) else None for v in values], dtype="boolean")
    return pd.Series([_text(v) for v in values], dtype=object)


def _text(value: Any) -> str | None:
    """A field as text: a string as is, a list or an object as JSON, missing as None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


@delegates_to(api.estimate_profiles)
def estimate_profiles(sdf: DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a Spark DataFrame: one Spark job counts each distinct raw value, then the cache is read
    here (nothing billable is sent).

    Example: ``lp.spark.estimate_profiles(sdf, "handle").to_fetch``
    """
    return _estimate(api.estimate_profiles, PEOPLE, sdf, *args, **options)


@delegates_to(api.estimate_companies)
def estimate_companies(sdf: DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a Spark DataFrame: as ``estimate_profiles`` there, for companies.

    Example: ``lp.spark.estimate_companies(sdf, "slug").to_fetch``
    """
    return _estimate(api.estimate_companies, COMPANIES, sdf, *args, **options)


@delegates_to(emails.estimate_find_emails)
def estimate_find_emails(sdf: DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a Spark DataFrame: as ``estimate_profiles`` there, for a find's queries.

    Example: ``lp.spark.estimate_find_emails(sdf, "first", "last", "website").credits``
    """
    kind = emails.find_kind(arguments(emails.estimate_find_emails, sdf, *args, **options))[0]
    return _estimate(emails.estimate_find_emails, kind, sdf, *args, **options)


@delegates_to(emails.estimate_verify_emails)
def estimate_verify_emails(sdf: DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a Spark DataFrame: as ``estimate_profiles`` there, for addresses verified.

    Example: ``lp.spark.estimate_verify_emails(sdf, "email").credits``
    """
    return _estimate(emails.estimate_verify_emails, VERIFY, sdf, *args, **options)


@delegates_to(emails.estimate_reverse_emails)
def estimate_reverse_emails(sdf: DataFrame, *args: Any, **options: Any) -> Estimate:
    """On a Spark DataFrame: as ``estimate_profiles`` there, for addresses reversed.

    Example: ``lp.spark.estimate_reverse_emails(sdf, "email").credits``
    """
    return _estimate(emails.estimate_reverse_emails, REVERSE, sdf, *args, **options)


@_tested_on_pandas_3()
def _estimate(
    estimate: Callable[..., Estimate], kind: Kind, sdf: DataFrame, *args: Any, **options: Any
) -> Estimate:
    """``estimate`` run here on the distinct raw values of the columns read (of ``kind``), its
    row counts the input's."""
    given = arguments(estimate, sdf, *args, **options)
    columns = emails.read_columns(given)
    check_columns(sdf, columns)
    names = column_names(columns)
    read = [F.col(_ref(name)).alias(f"c{i}") for i, name in enumerate(names)]
    counts = sdf.groupBy(*read).count().toPandas()
    values = counts.iloc[:, : len(names)].astype(object).set_axis(names, axis=1)
    result = estimate(values, *args, **options)
    fold_case = given.get("fold_case", True)
    mapped = HandleMap(fold_case=fold_case, kind=kind).map(column_values(values, columns))
    valid = [h is not None for h in mapped.rows()]
    return dataclasses.replace(
        result, rows=int(counts["count"].sum()), valid=int(counts["count"][valid].sum())
    )
