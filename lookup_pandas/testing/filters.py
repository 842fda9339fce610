"""How the emulator's data stores read a query's filters: production's names, as one mapping.

Example::

    given = declared({"geo_city": " Berlin "}, JOB_CHANGES)   # a TypeError for an unknown name
    lowered(given.get("geo_city"))                           # "berlin"; None when blank
    words("python, SQL"), flag("false", True, "current_only")  # ("python", "sql"), False

A route passes the filters its endpoint declares (:mod:`lookup_pandas.service.endpoints`), as
it parsed them. Tests call the stores with the same names as keywords. A store reads those it
models and ignores the others, as production ignores a parameter it does not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..service.endpoints import Listing

__all__ = ["declared", "flag", "lowered", "whole", "words"]


def declared(filters: Mapping[str, Any], listing: Listing) -> Mapping[str, Any]:
    """``filters``, when ``listing`` declares each of them; else a TypeError naming the first
    that it does not, as for an unexpected keyword argument."""
    unknown = [name for name in filters if name not in listing.filters]
    if unknown:
        raise TypeError(f"{listing.name} has no filter {unknown[0]!r}")
    return filters


def lowered(value: str | None) -> str | None:
    """A text filter: lower case, or None when not given or blank."""
    if value is None:
        return None
    stripped = value.strip().lower()
    return stripped or None


def words(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """``"a, b"`` or ``["a", "b"]`` -> ``("a", "b")``, lower case, blanks dropped."""
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else value
    return tuple(w for w in (str(i).strip().lower() for i in items) if w)


def flag(value: bool | str | None, default: bool, name: str) -> bool:
    """A true/false filter: a bool, ``"true"`` / ``"false"``, or ``default`` when not given."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = value.strip().lower()
    if text in ("true", "false"):
        return text == "true"
    if not text:
        return default
    raise ValueError(f"{name} must be true or false")


def whole(value: int | str | None) -> int | None:
    """A whole-number filter: an int, or its digits; None when not given or blank."""
    return None if value is None or value == "" else int(value)
