"""A lookup's result as frames: the work behind ``get_*`` and ``enrich_*`` (and ``background``).

Example: ``get_frame({"handles": ["ada"], "client": None, ...}, PEOPLE)``; each takes a public
function's arguments by name (``locals()`` there), so its keywords stand once, in :mod:`.api`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..client.client import resolve_client
from ..enrichment.background import EnrichmentJob, Watch
from ..enrichment.results import JobSummary
from ..enrichment.values import lookup_values
from ..errors import UsageError
from ..frames.records import prefixed_names
from ..identifiers.handles import checked_handle
from ..identifiers.kinds import PEOPLE, Kind
from .columns import check_columns, looked_up, with_status

__all__ = ["SUMMARY_ATTR", "enrich_or_start", "enriched", "get_frame", "with_summary"]

#: Where an enriched frame keeps its run's JobSummary: ``out.attrs["lookup_summary"]``.
SUMMARY_ATTR = "lookup_summary"


def get_frame(given: dict[str, Any], kind: Kind) -> pd.DataFrame:
    """``get_profiles`` / ``get_companies`` of their arguments by name."""
    options = dict(given)
    values = options.pop("handles" if kind is PEOPLE else "values")
    client = options.pop("client")
    index = values.index if isinstance(values, pd.Series) else None
    if isinstance(values, str):  # one value; a UsageError when it is none
        checked_handle(values, fold_case=options["fold_case"], rules=kind.rules)
        values = [values]
    result = lookup_values(list(values), client=resolve_client(client), kind=kind, **options)
    frame = with_status(looked_up(result, kind), result)
    if index is not None:
        frame.index = index
    return with_summary(frame, result.summary)


def enrich_or_start(given: dict[str, Any], kind: Kind) -> pd.DataFrame | EnrichmentJob:
    """The enriched frame, or (``background=True``) the job that makes it, started: its
    arguments are checked here, before it returns."""
    options = dict(given)
    if not options.pop("background"):
        return enriched(options, kind)[0]
    options["client"] = client = resolve_client(options["client"])
    check_columns(options["frame"], options["column"], options["prefix"], options["provenance"])
    return EnrichmentJob(lambda watch: enriched(options, kind, watch), client)


def enriched(
    given: dict[str, Any], kind: Kind = PEOPLE, watch: Watch | None = None
) -> tuple[pd.DataFrame, JobSummary]:
    """``enrich_*`` of their arguments by name: the frame, and the run's JobSummary."""
    options = dict(given)  # enrich_profiles' arguments by name
    if options.pop("background", False):  # enrich_with_summary's: it returns the frame
        raise UsageError("background=True is for enrich_profiles and enrich_companies.")
    frame, column, prefix, client = (
        options.pop(k) for k in ("frame", "column", "prefix", "client")
    )
    check_columns(frame, column, prefix, options["provenance"])
    values = frame[column]  # a Series: each distinct value normalised once
    result = lookup_values(values, client=resolve_client(client), kind=kind, watch=watch, **options)
    fields = result.fields
    new = with_status(fields.rename(columns=prefixed_names(fields.columns, prefix)), result)
    out = pd.concat([frame.reset_index(drop=True), new], axis=1)
    out.index = frame.index
    return with_summary(out, result.summary), result.summary


def with_summary(frame: pd.DataFrame, summary: JobSummary) -> pd.DataFrame:
    """``frame`` (made here, never the caller's) with the run's summary in its attrs, under
    ``"lookup_summary"``: ``out.attrs["lookup_summary"].credits``."""
    frame.attrs = {**frame.attrs, SUMMARY_ATTR: summary}
    return frame
