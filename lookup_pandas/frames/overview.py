"""What people usually want to see of a person: name, headline, current company, city, handle.

Example::

    lp.overview(lp.search_people("data scientist"))
    #            name                         headline  company    city          handle
    # 0  Ada Lovelace  Data Scientist at Acme           Acme     Berlin  ada-lovelace-042
    lp.overview(enriched, prefix="profile_")     # the same, from an enrichment's columns

Production promises only ``id`` and ``handle`` on every record, so everything here is built
from whatever a record has: a missing field gives a blank, never a KeyError. ``name`` joins
``first_name`` and ``last_name``; ``company`` is the organization of the current position
(the first one marked ``is_current``, else the first listed); ``city`` is ``geo.city``.
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
    """``"Ada Lovelace"`` from whichever of the two parts there is; None when neither.

    Example: ``full_name("Ada", None) == "Ada"``
    """
    parts = [p for p in (_text(first), _text(last)) if p]
    return " ".join(parts) or None


def current_position(positions: Any) -> Mapping[str, Any] | None:
    """The position marked ``is_current`` (else the first listed); None when there is none.

    Example: ``current_position([{"title": "CTO", "is_current": True}])["title"] == "CTO"``
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
    """The overview of one (nested) record: ``{"name", "headline", "company", "city",
    "handle"}``, None where the record has nothing.

    Example: ``summary({"id": "prsn_1", "handle": "ada"})["name"] is None``
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

    ``prefix`` is the enrichment prefix (``"profile_"`` for ``enrich_profiles``' output);
    leave it empty for ``search_people``, ``company_employees`` and ``get_profiles``. Columns
    the frame lacks give blanks (the default string dtype, NaN for missing).
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
