"""``lookup-pandas companies SLUG_OR_ID...`` and ``enrich --companies``: companies as CSV.

Example: ``companies(CompaniesOptions(("acme", "org_1a2b")))`` writes one row per value to
stdout; ``enrich_companies(EnrichOptions("accounts.csv", companies=True, column="slug"))``
writes the file with its ``company_*`` columns joined on.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from typing import TYPE_CHECKING

from .estimate import describe_estimate
from .exits import InputError
from .options import CompaniesOptions, EnrichOptions
from .output import check_output, target, write_frame
from .reading import read_csv
from .service import service_client

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["companies", "enrich_companies"]


def companies(options: CompaniesOptions) -> int:
    """``lp.get_companies(values)`` as CSV: one row per value, in order, with its status."""
    from .. import api

    o = options
    check_output(o.output)
    with service_client() as client:
        frame = api.get_companies(
            list(o.values),
            errors=o.errors,
            method=o.method,
            client=client,
            progress=o.progress,
            fold_case=o.fold_case,
        )
    write_frame(frame, o.output)
    print(f"{len(frame)} companies: {_statuses(frame)}{target(o.output)}", file=sys.stderr)
    return 0


def enrich_companies(options: EnrichOptions) -> int:
    """``enrich IN.csv --companies``: the file read whole, its column of companies enriched
    (``api.enrich_companies``), the estimate before on stderr and the statuses after."""
    from .. import api

    o = options
    if o.chunksize:
        raise InputError("--chunksize is for people; with --companies the file is read whole")
    accounts = read_csv(o.input, o.encoding)
    api.check_columns(accounts, o.column, o.prefix)
    check_output(o.output)
    with service_client() as client:
        est = api.estimate_companies(
            accounts, o.column, method=o.method, client=client, fold_case=o.fold_case
        )
        if o.refresh:  # every company is fetched anew
            est = dataclasses.replace(est, cached=0, to_fetch=est.unique)
        if o.max_calls is None or est.to_fetch <= o.max_calls:  # else only the refusal
            line = describe_estimate(est, client.rate_limit_per_minute)
            print(f"lookup-pandas: {line.replace(' handles', ' companies')}", file=sys.stderr)
        enriched = api.enrich_companies(accounts, o.column, prefix=o.prefix, client=client, **o.job)
    write_frame(enriched, o.output)
    print(
        f"enriched {len(enriched)} rows: {_statuses(enriched)}{target(o.output)}", file=sys.stderr
    )
    return 0


def _statuses(frame: pd.DataFrame) -> str:
    """``3 ok, 1 not_found``: the rows' lookup statuses, most common first."""
    from ..columns import STATUS_COLUMN

    if STATUS_COLUMN not in frame.columns:
        return "no status"
    counts = Counter(str(s) for s in frame[STATUS_COLUMN])
    return ", ".join(f"{n} {status}" for status, n in counts.most_common()) or "none"
