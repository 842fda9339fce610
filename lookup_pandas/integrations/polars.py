"""``pl_df.lookup``: profile enrichment on polars DataFrames; the pandas -> polars converter.

Example::

    import polars as pl
    import lookup_pandas            # before or after polars: either order registers pl_df.lookup

    leads = pl.read_csv("leads.csv")
    leads.lookup.estimate_profiles("handle")        # Estimate(rows=..., to_fetch=...): free
    enriched = leads.lookup.enrich_profiles("handle", max_calls=500)
    enriched.filter(pl.col("lookup_status") == "ok").select("handle", "profile_geo.city")

    lp.search_people("engineer", frame="polars")    # the listing functions convert with to_polars

This module is imported by :mod:`lookup_pandas.integrations` the moment polars is (importing it
registers the namespace), and by nothing else: polars stays an optional dependency. The work is
done by the same engine as pandas' ``df.lookup`` (:func:`lookup_pandas.enrich.lookup_values`, on
the column's values: dedupe, cache, pace and batch jobs), so a polars run and a pandas run of
the same leads send the same requests and give the same columns and values.

**Flattened columns, not structs.** A record's nested objects become "."-named columns
(``profile_geo.city``), exactly as in pandas and in the CLI's CSV, so a column has one name in
every output and code moves between them unchanged. A struct column would also need one schema
for every row, and production promises no field but ``id`` and ``handle``: records whose nested
objects hold different keys would give conflicting or padded structs. Lists stay lists
(``List(String)``; a list of objects such as ``positions`` is ``List(Struct)``, where a key that
some elements lack is null in those, as a struct has one set of fields).

**Dtypes.** Text is ``String``, whole numbers ``Int64``, flags ``Boolean``; anything missing is
null (never NaN or the text "nan"). A column no row has a value for (``profile_positions`` when
nothing was found) is ``Null``. The conversion goes through pyarrow (``pl.from_pandas``), which
infers each list column's type from every value, not from the first rows only as polars' own
constructor does (that one silently drops a struct key first seen past row 100). A field whose
values have no common type (production's schema has none such) is kept as ``Object``, values
unchanged, rather than coerced. pyarrow is therefore needed (polars' own ``polars[pandas]``
extra needs it too); without it enrichment and ``frame="polars"`` raise ConfigurationError
before anything is sent, and ``pl_df.lookup`` is still registered.
"""

from __future__ import annotations

import polars as pl

from .. import api
from ..client import Client, resolve_client
from ..enrich import Errors, Estimate, Method, estimate_values, lookup_values
from ..frames import prefixed_names
from ..polars_frames import require_pyarrow, to_polars

__all__ = [
    "LookupNamespace",
    "enrich_profiles",
    "estimate_profiles",
    "require_pyarrow",
    "to_polars",
]


def enrich_profiles(
    frame: pl.DataFrame,
    column: str = "handle",
    *,
    prefix: str = "profile_",
    errors: Errors = "coerce",
    max_calls: int | None = None,
    refresh: bool = False,
    client: Client | None = None,
    progress: bool | None = None,
    fold_case: bool = True,
    method: Method = "auto",
) -> pl.DataFrame:
    """A new polars DataFrame: each row's profile joined on. The input frame is not modified.

    Example::

        leads = pl.DataFrame({"handle": ["ada", "https://www.example.com/in/grace/", None]})
        leads.lookup.enrich_profiles("handle", max_calls=500)
        # handle, profile_id, profile_handle, ..., profile_geo.city, ..., profile_positions
        # (list[struct]), ..., lookup_status ("ok", "ok", "invalid"), lookup_error

    Returns the input columns untouched (values, dtypes, order), then the profile columns
    (``prefix`` + field, nested objects flattened with "."; the same names and values as
    pandas' ``df.lookup.enrich_profiles``), then ``lookup_status`` (``ok``, ``not_found``,
    ``invalid`` or ``error``) and ``lookup_error`` (the reason, else null); one row per input
    row, in order. Dtypes: see :mod:`lookup_pandas.integrations.polars`.

    The keywords are those of pandas' accessor (``help(lookup_pandas.api.enrich_profiles)``
    has them in full): ``column`` of handles or profile URLs (normalised; blanks and nulls
    are ``invalid`` and never sent), ``prefix``, ``errors`` (``"coerce"`` records failures,
    ``"raise"`` raises the first), ``max_calls`` (BudgetExceededError before anything is sent
    when more billable calls are needed), ``refresh``, ``client``, ``progress``,
    ``fold_case`` and ``method`` (``"auto"``, ``"batch"``, ``"single"``).

    Each distinct handle is requested at most once; cached answers cost nothing. Refused
    before anything is sent (ColumnError): a missing ``column``, and any existing column that
    starts with ``prefix`` or is named ``lookup_status`` / ``lookup_error``.
    """
    api.check_columns(frame, column, prefix)
    require_pyarrow()  # before anything is paid for
    result = lookup_values(
        frame.get_column(column).to_list(),
        client=resolve_client(client),
        errors=errors,
        max_calls=max_calls,
        refresh=refresh,
        progress=progress,
        fold_case=fold_case,
        method=method,
    )
    fields = result.fields.rename(columns=prefixed_names(result.fields.columns, prefix))
    status = [
        pl.Series(api.STATUS_COLUMN, result.status, dtype=pl.String),
        pl.Series(api.ERROR_COLUMN, result.error, dtype=pl.String),
    ]
    return pl.concat([frame, to_polars(fields).with_columns(status)], how="horizontal")


def estimate_profiles(
    frame: pl.DataFrame,
    column: str = "handle",
    *,
    client: Client | None = None,
    fold_case: bool = True,
    method: Method = "auto",
) -> Estimate:
    """What ``enrich_profiles`` would do, without sending anything.

    Example: ``leads.lookup.estimate_profiles("handle")`` -> ``Estimate(rows=250, valid=231,
    unique=180, cached=60, to_fetch=120, method='batch', jobs=1, polls=3, seconds=4.7)``

    The same :class:`lookup_pandas.Estimate` as pandas' ``df.lookup.estimate_profiles``
    (``to_fetch`` is the number of billable items enrichment would pay for now); ``client`` is
    the Client whose cache is read. A missing ``column`` is a ColumnError.
    """
    api.check_columns(frame, column)
    return estimate_values(
        frame.get_column(column).to_list(),
        client=resolve_client(client),
        fold_case=fold_case,
        method=method,
    )


@pl.api.register_dataframe_namespace("lookup")
class LookupNamespace:
    """``pl_df.lookup.enrich_profiles(...)`` and ``pl_df.lookup.estimate_profiles(...)``.

    polars builds a new namespace object on every ``pl_df.lookup`` access: it holds nothing
    but the frame; the work is in this module's functions.
    """

    def __init__(self, frame: pl.DataFrame) -> None:
        self._frame = frame

    def enrich_profiles(
        self,
        column: str = "handle",
        *,
        prefix: str = "profile_",
        errors: Errors = "coerce",
        max_calls: int | None = None,
        refresh: bool = False,
        client: Client | None = None,
        progress: bool | None = None,
        fold_case: bool = True,
        method: Method = "auto",
    ) -> pl.DataFrame:
        return enrich_profiles(
            self._frame,
            column,
            prefix=prefix,
            errors=errors,
            max_calls=max_calls,
            refresh=refresh,
            client=client,
            progress=progress,
            fold_case=fold_case,
            method=method,
        )

    def estimate_profiles(
        self,
        column: str = "handle",
        *,
        client: Client | None = None,
        fold_case: bool = True,
        method: Method = "auto",
    ) -> Estimate:
        return estimate_profiles(
            self._frame, column, client=client, fold_case=fold_case, method=method
        )


# help(pl_df.lookup.enrich_profiles) shows the documentation, written once above.
LookupNamespace.enrich_profiles.__doc__ = enrich_profiles.__doc__
LookupNamespace.estimate_profiles.__doc__ = estimate_profiles.__doc__
