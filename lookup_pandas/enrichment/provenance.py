"""Where each enriched row's answer came from, and when it was bought: ``provenance=True``.

>>> from datetime import UTC, datetime
>>> bought = datetime(2026, 11, 18, 9, 12, tzinfo=UTC)
>>> frame = provenance_frame(
...     ["ada", None], ["ok", "invalid"], {"ada": ("cache", None)}, lambda h: (bought, False)
... )
>>> frame
  lookup_source         lookup_fetched_at  lookup_expired
0         cache 2026-11-18 09:12:00+00:00           False
1           NaN                       NaT            <NA>

- ``lookup_source``: ``cache``, ``single`` (bought now by a single call), ``batch``, or
  ``checked`` (kept after ``refresh="changed"`` found no job change since it was bought).
- ``lookup_fetched_at``: when the answer was bought (UTC), read from its cache entry.
  Without a cache, when it arrived.
- ``lookup_expired``: True past the answer's keep time (``expire_after``). Only offline.
- ``lookup_checked_at``, only after ``refresh="changed"``: when the job-change feed last
  confirmed a kept answer (UTC); NaT for the answers bought in this run.

A row with no answer bought (invalid, not_cached, and forbidden: a 403 for that record is
never billed) has missing values. A failed call (error) has its source and no time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from .results import NOT_FOUND, OK

__all__ = [
    "CHECKED_AT_COLUMN",
    "EXPIRED_COLUMN",
    "FETCHED_AT_COLUMN",
    "PROVENANCE_COLUMNS",
    "SOURCE_COLUMN",
    "Source",
    "provenance_frame",
]

SOURCE_COLUMN = "lookup_source"
FETCHED_AT_COLUMN = "lookup_fetched_at"
EXPIRED_COLUMN = "lookup_expired"
CHECKED_AT_COLUMN = "lookup_checked_at"
PROVENANCE_COLUMNS = (SOURCE_COLUMN, FETCHED_AT_COLUMN, EXPIRED_COLUMN)

#: How a value's answer came: ("cache" | "single" | "batch", when it arrived, if bought now).
Source = tuple[str, datetime | None]
#: A cache entry's (created_at, is_expired), or None when the cache does not hold it.
StoredAt = Callable[[str], tuple[datetime, bool] | None]


def arrived(source: str) -> Source:
    """``source``, arrived now (UTC).

    >>> arrived("single")[0]
    'single'
    """
    return source, datetime.now(UTC)


def provenance_frame(
    handles: Sequence[str | None],
    statuses: Sequence[str],
    sources: Mapping[str, Source],
    stored_at: StoredAt,
    *,
    checked: Mapping[str, datetime | None] | None = None,
) -> pd.DataFrame:
    """The three provenance columns, one row per input row (RangeIndex): see the module's example.

    ``sources`` holds each distinct value's source, as the run recorded it. ``stored_at`` gives
    its cache entry's time and expiry, read once per distinct value with an answer. ``checked``
    (after ``refresh="changed"``) adds ``lookup_checked_at``: each kept value's check time.

    >>> when = datetime(2026, 11, 27, 8, tzinfo=UTC)
    >>> provenance_frame(["ada"], ["ok"], {"ada": ("checked", None)}, lambda h: (when, False),
    ...                  checked={"ada": when})[CHECKED_AT_COLUMN].tolist()
    [Timestamp('2026-11-27 08:00:00+0000', tz='UTC')]
    """
    codes, distinct = pd.factorize(np.asarray(handles, dtype=object))  # None: -1
    _, first = np.unique(codes, return_index=True)  # each code's first row
    if len(first) and codes[first[0]] < 0:
        first = first[1:]
    per_value: list[tuple[str | None, datetime | None, bool | None]] = []
    for handle, row in zip(distinct.tolist(), first.tolist(), strict=True):
        source, when = sources.get(handle, (None, None))
        expired: bool | None = None
        if source is not None and statuses[row] in (OK, NOT_FOUND):
            entry = stored_at(handle)
            if entry is not None:
                when, expired = entry
            else:
                expired = False if when is not None else None
        else:
            when = None  # nothing was bought: a failure, or not in the cache offline
        per_value.append((source, when, expired))
    per_value.append((None, None, None))  # code -1: a row without a handle
    columns = list(zip(*per_value, strict=True))
    data = {
        SOURCE_COLUMN: pd.Series(columns[0], dtype="str"),
        FETCHED_AT_COLUMN: pd.to_datetime(pd.Series(columns[1], dtype=object), utc=True),
        EXPIRED_COLUMN: pd.Series(columns[2], dtype="boolean"),
    }
    if checked is not None:
        times = [checked.get(h) for h in distinct.tolist()] + [None]
        data[CHECKED_AT_COLUMN] = pd.to_datetime(pd.Series(times, dtype=object), utc=True)
    return (
        pd.DataFrame(data)
        .take(np.where(codes < 0, len(per_value) - 1, codes))
        .reset_index(drop=True)
    )
