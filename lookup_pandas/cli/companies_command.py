"""``lookup-pandas companies SLUG_OR_ID...``: companies as CSV, one row per value.

``enrich --companies`` is :mod:`.enrich`'s, the same path as people's.

Example: ``companies(CompaniesOptions(("acme", "org_1a2b")))`` writes two rows to stdout.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .options import CompaniesOptions
from .output import check_output, target, write_frame
from .service_client import service_client

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["companies"]


def companies(options: CompaniesOptions) -> int:
    """``lp.get_companies(values)`` as CSV: one row per value, in order, with its status."""
    from ..api import functions as api

    o = options
    check_output(o.output)
    with service_client(o.offline) as client:
        frame = api.get_companies(list(o.values), client=client, **o.job)
    write_frame(frame, o.output)
    print(f"{len(frame)} companies: {_statuses(frame)}{target(o.output)}", file=sys.stderr)
    return 0


def _statuses(frame: pd.DataFrame) -> str:
    """The rows' lookup statuses, most common first.

    Example:
        >>> import pandas as pd
        >>> _statuses(pd.DataFrame({"lookup_status": ["ok", "not_found", "ok"]}))
        '2 ok, 1 not_found'
    """
    from ..api.columns import STATUS_COLUMN

    counts = frame[STATUS_COLUMN].value_counts()
    return ", ".join(f"{n} {status}" for status, n in counts.items()) or "none"
