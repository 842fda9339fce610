"""A lookup's result as frames: the work behind ``get_*`` and ``enrich_*`` (and ``background``).

Example::

    get_frame(["ada", ""], client=None, kind=PEOPLE, options=Options())   # one row per value
    request = EnrichRequest(leads, column="handle", prefix="profile_", client=None,
                            kind=PEOPLE, options=Options(max_calls=500))
    enrich_or_start(request, background=False)    # leads with the profile columns joined on

The public functions in :mod:`lookup_pandas.api.functions` build these from their keywords,
each once; everything here reads them by attribute.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..client.client import Client, resolve_client
from ..enrichment.background import EnrichmentJob, Watch
from ..enrichment.plan import Options
from ..enrichment.results import JobSummary
from ..enrichment.values import lookup_values
from ..frames.records import prefixed_names
from ..identifiers.handles import checked_handle
from ..identifiers.kinds import Kind
from .columns import check_columns, looked_up, with_status

__all__ = [
    "SUMMARY_ATTR",
    "EnrichRequest",
    "enrich_or_start",
    "enriched",
    "get_frame",
    "with_summary",
]

#: Where an enriched frame keeps its run's JobSummary: ``out.attrs["lookup_summary"]``.
SUMMARY_ATTR = "lookup_summary"


@dataclass(frozen=True)
class EnrichRequest:
    """What an ``enrich_*`` call asks: the frame and its column of values, the prefix of the
    columns added, the Client (None: the default one), whose records, and the job's options.

    >>> from lookup_pandas.identifiers.kinds import PEOPLE
    >>> leads = pd.DataFrame({"handle": ["ada"], "profile_id": ["x"]})
    >>> request = EnrichRequest(leads, column="handle", prefix="profile_", client=None,
    ...                         kind=PEOPLE, options=Options(max_calls=5))
    >>> request.check()  # before anything is sent
    Traceback (most recent call last):
    lookup_pandas.errors.ColumnError: ...
    """

    frame: pd.DataFrame
    column: str
    prefix: str
    client: Client | None
    kind: Kind
    options: Options

    def check(self) -> None:
        """Refuse, before anything is sent, what the frame cannot take (ColumnError)."""
        check_columns(self.frame, self.column, self.prefix, self.options.provenance)


def get_frame(
    values: Iterable[Any] | str, *, client: Client | None, kind: Kind, options: Options
) -> pd.DataFrame:
    """``get_profiles`` / ``get_companies``: one row per value (a Series keeps its index)."""
    index = values.index if isinstance(values, pd.Series) else None
    if isinstance(values, str):  # one value; a UsageError when it is none
        checked_handle(values, fold_case=options.fold_case, rules=kind.rules)
        values = [values]
    result = lookup_values(list(values), client=resolve_client(client), options=options, kind=kind)
    frame = with_status(looked_up(result, kind), result)
    if index is not None:
        frame.index = index
    return with_summary(frame, result.summary)


def enrich_or_start(request: EnrichRequest, background: bool) -> pd.DataFrame | EnrichmentJob:
    """The enriched frame, or (``background=True``) the job that makes it, started: its
    arguments are checked here, before it returns."""
    if not background:
        return enriched(request)[0]
    client = resolve_client(request.client)
    request.check()
    started = dataclasses.replace(request, client=client)
    return EnrichmentJob(lambda watch: enriched(started, watch), client)


def enriched(request: EnrichRequest, watch: Watch | None = None) -> tuple[pd.DataFrame, JobSummary]:
    """``enrich_*`` of ``request``: the frame, and the run's JobSummary."""
    request.check()
    frame = request.frame
    values = frame[request.column]  # a Series: each distinct value normalised once
    client = resolve_client(request.client)
    result = lookup_values(
        values, client=client, options=request.options, kind=request.kind, watch=watch
    )
    fields = result.fields
    new = with_status(fields.rename(columns=prefixed_names(fields.columns, request.prefix)), result)
    out = pd.concat([frame.reset_index(drop=True), new], axis=1)
    out.index = frame.index
    return with_summary(out, result.summary), result.summary


def with_summary(frame: pd.DataFrame, summary: JobSummary) -> pd.DataFrame:
    """``frame`` (made here, never the caller's) with the run's summary in its attrs, under
    ``"lookup_summary"``: ``out.attrs["lookup_summary"].credits``."""
    frame.attrs = {**frame.attrs, SUMMARY_ATTR: summary}
    return frame
