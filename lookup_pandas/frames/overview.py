"""What people usually want to see of a person: name, headline, current company, city, handle.

>>> from lookup_pandas.frames.records import records_to_frame
>>> ada = {"id": "prsn_1", "handle": "ada", "first_name": "Ada", "last_name": "Lovelace",
...        "headline": "Data Scientist", "geo": {"city": "Berlin"},
...        "positions": [{"organization": {"name": "Acme"}, "is_current": True}]}
>>> overview(records_to_frame([ada, {"id": "prsn_2", "handle": "bob"}]))
           name        headline company    city handle
0  Ada Lovelace  Data Scientist    Acme  Berlin    ada
1           NaN             NaN     NaN     NaN    bob
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = ["OVERVIEW_COLUMNS", "current_position", "full_name", "overview", "summary"]

OVERVIEW_COLUMNS = ("name", "headline", "company", "city", "handle")


def _text(value: Any) -> str | None:
    """Non-blank text, else None (NaN, None, "", lists and objects are not text)."""
    return (value.strip() or None) if isinstance(value, str) else None


def full_name(first: Any, last: Any) -> str | None:
    """The full name from whichever of the two parts there is, or None when neither.

    >>> full_name("Ada", "Lovelace"), full_name("Ada", None), full_name(" ", float("nan"))
    ('Ada Lovelace', 'Ada', None)
    """
    parts = [p for p in (_text(first), _text(last)) if p]
    return " ".join(parts) or None


def current_position(positions: Any) -> Mapping[str, Any] | None:
    """The position marked ``is_current``, else the first listed, or None when there is none.

    >>> current_position([{"title": "Intern"}, {"title": "CTO", "is_current": True}])
    {'title': 'CTO', 'is_current': True}
    """
    if not isinstance(positions, list):
        return None
    listed = [p for p in positions if isinstance(p, Mapping)]
    return next((p for p in listed if p.get("is_current") is True), listed[0] if listed else None)


def _company(positions: Any) -> str | None:
    position = current_position(positions)
    organization = position.get("organization") if position is not None else None
    return _text(organization.get("name")) if isinstance(organization, Mapping) else None


def summary(record: Mapping[str, Any]) -> dict[str, str | None]:
    """The overview of one nested record, None where the record has nothing.

    ``company`` is the organization of the current position. ``city`` is ``geo.city``.

    >>> summary({"id": "prsn_1", "handle": "ada", "first_name": "Ada"})
    {'name': 'Ada', 'headline': None, 'company': None, 'city': None, 'handle': 'ada'}
    """
    geo = record.get("geo")
    return {
        "name": full_name(record.get("first_name"), record.get("last_name")),
        "headline": _text(record.get("headline")),
        "company": _company(record.get("positions")),
        "city": _text(geo.get("city")) if isinstance(geo, Mapping) else None,
        "handle": _text(record.get("handle")),
    }


def overview(frame: pd.DataFrame, *, prefix: str = "") -> pd.DataFrame:
    """A new frame of OVERVIEW_COLUMNS (same index), from a frame of flattened records.

    Columns the frame lacks give blanks.

    Args:
        prefix: the enrichment prefix, ``"profile_"`` for ``enrich_profiles``' output. Leave
            it empty for ``search_people``, ``company_employees`` and ``get_profiles``.

    >>> enriched = pd.DataFrame({"lead": ["ada"], "profile_first_name": ["Ada"]}, index=[7])
    >>> overview(enriched, prefix="profile_")
      name headline company city handle
    7  Ada      NaN     NaN  NaN    NaN
    """

    def column(name: str) -> pd.Series:
        key = prefix + name
        if key in frame.columns:
            return frame[key]
        return pd.Series([None] * len(frame), index=frame.index, dtype=object)

    first, last, positions = column("first_name"), column("last_name"), column("positions")
    data = {
        "name": [full_name(f, la) for f, la in zip(first, last, strict=True)],
        "headline": [_text(v) for v in column("headline")],
        "company": [_company(p) for p in positions],
        "city": [_text(v) for v in column("geo.city")],
        "handle": [_text(v) for v in column("handle")],
    }
    return pd.DataFrame({k: pd.Series(v, index=frame.index, dtype="str") for k, v in data.items()})
