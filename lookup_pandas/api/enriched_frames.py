"""A lookup's result as frames: the work behind ``get_*`` and ``enrich_*`` (and ``background``).

>>> import lookup_pandas as lp
>>> from lookup_pandas.identifiers.kinds import PEOPLE
>>> from lookup_pandas.testing import MockTransport, people_service
>>> ada = {"id": "prsn_1", "handle": "ada", "headline": "Engineer"}
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
...                    transport=MockTransport(people_service(ada, balance=100)))
>>> options = Options(progress=False)
>>> get_frame(["ada", ""], client=client, kind=PEOPLE, options=options)[["id", "lookup_status"]]
       id lookup_status
0  prsn_1            ok
1     NaN       invalid
>>> leads = pd.DataFrame({"handle": ["ada"]})
>>> request = EnrichRequest(leads, column="handle", prefix="profile_", client=client,
...                         kind=PEOPLE, options=options)
>>> enriched_leads = enrich_or_start(request, background=False)
>>> enriched_leads[["handle", "profile_headline"]]
  handle profile_headline
0    ada         Engineer
>>> summary_of(enriched_leads).fetched  # what ``enriched_leads.lookup.summary`` gives
1
>>> enriched_leads.attrs["lookup_summary"]["fetched"]  # plain values: the frame saves anywhere
1

The public functions in :mod:`lookup_pandas.api.functions` build these from their keywords.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..client.client import Client, resolve_client
from ..display.facts import RefreshCounts
from ..enrichment.background import EnrichmentJob, Watch
from ..enrichment.lookup import lookup_values
from ..enrichment.plan import Options
from ..enrichment.results import JobSummary
from ..frames.records import prefixed_names
from ..identifiers.kinds import Kind
from .columns import Columns, check_columns, column_values, looked_up, with_status

__all__ = [
    "SUMMARY_ATTR",
    "EnrichRequest",
    "enrich_or_start",
    "enriched",
    "get_frame",
    "summary_of",
    "with_summary",
]

#: Where an enriched frame keeps its run's summary (plain values): ``out.attrs["lookup_summary"]``.
SUMMARY_ATTR = "lookup_summary"


@dataclass(frozen=True)
class EnrichRequest:
    """What an ``enrich_*`` call asks: the frame and column, the prefix, Client, kind and options.

    ``client=None`` stands for the default Client.

    >>> from lookup_pandas.identifiers.kinds import PEOPLE
    >>> leads = pd.DataFrame({"handle": ["ada"], "profile_id": ["x"]})
    >>> request = EnrichRequest(leads, column="handle", prefix="profile_", client=None,
    ...                         kind=PEOPLE, options=Options(max_calls=5))
    >>> request.check()  # before anything is sent
    Traceback (most recent call last):
    lookup_pandas.errors.ColumnError: ...
    """

    frame: pd.DataFrame
    column: Columns  # a find by name reads three columns, one value a row
    prefix: str
    client: Client | None
    kind: Kind
    options: Options

    def check(self) -> str:
        """Refuse, before anything is sent, what the frame cannot take (ColumnError).

        Returns the prefix of the run's status columns (:func:`.columns.check_columns`).
        """
        return check_columns(self.frame, self.column, self.prefix, self.options.provenance)


def get_frame(
    values: Iterable[Any] | str, *, client: Client | None, kind: Kind, options: Options
) -> pd.DataFrame:
    """``get_profiles`` and ``get_companies``: one row per value (a Series keeps its index)."""
    index = values.index if isinstance(values, pd.Series) else None
    if isinstance(values, str):  # one value, a UsageError when it is none
        kind.checked(values, options.fold_case)
        values = [values]
    result = lookup_values(list(values), client=resolve_client(client), options=options, kind=kind)
    frame = with_status(looked_up(result, kind), result)
    if index is not None:
        frame.index = index
    return with_summary(frame, result.summary)


def enrich_or_start(request: EnrichRequest, background: bool) -> pd.DataFrame | EnrichmentJob:
    """The enriched frame, or with ``background=True`` the job that makes it, started.

    A job's arguments are checked before it returns.
    """
    if not background:
        return enriched(request)[0]
    client = resolve_client(request.client)
    request.check()
    started = dataclasses.replace(request, client=client)
    return EnrichmentJob(lambda watch: enriched(started, watch), client)


def enriched(request: EnrichRequest, watch: Watch | None = None) -> tuple[pd.DataFrame, JobSummary]:
    """``enrich_*`` of ``request``: the frame, and the run's JobSummary."""
    own = request.check()
    frame = request.frame
    values = column_values(frame, request.column)  # each distinct value normalised once
    client = resolve_client(request.client)
    result = lookup_values(
        values, client=client, options=request.options, kind=request.kind, watch=watch
    )
    fields = result.fields
    named = fields.rename(columns=prefixed_names(fields.columns, request.prefix))
    new = with_status(named, result, own)
    out = pd.concat([frame.reset_index(drop=True), new], axis=1)
    out.index = frame.index
    return with_summary(out, result.summary), result.summary


def with_summary(frame: pd.DataFrame, summary: JobSummary) -> pd.DataFrame:
    """``frame`` (made here, never the caller's) with the summary in ``attrs["lookup_summary"]``.

    It is kept as a dict of plain values, which every format that keeps ``attrs`` can write
    (parquet and feather as JSON): :func:`summary_of` makes the JobSummary again.
    """
    frame.attrs = {**frame.attrs, SUMMARY_ATTR: dataclasses.asdict(summary)}
    return frame


def summary_of(frame: pd.DataFrame) -> JobSummary | None:
    """The JobSummary ``frame`` keeps in ``attrs["lookup_summary"]``, or None when it keeps none.

    It works on a frame read back from parquet, feather or a pickle, and on one filtered or
    concatenated from enriched frames (pandas keeps ``attrs`` when every input has the same).

    >>> summary_of(pd.DataFrame()) is None
    True
    """
    kept = frame.attrs.get(SUMMARY_ATTR)
    if isinstance(kept, JobSummary):  # a frame of an older lookup_pandas, unpickled
        return kept
    if not isinstance(kept, dict):
        return None
    known = {f.name for f in dataclasses.fields(JobSummary)}
    values = {k: v for k, v in kept.items() if k in known}
    if isinstance(values.get("refresh"), dict):
        values["refresh"] = RefreshCounts(**values["refresh"])
    return JobSummary(**values)
