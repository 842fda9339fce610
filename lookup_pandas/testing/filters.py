"""How the emulator reads a query's filters: production's names, each parsed by its declared kind.

Example::

    SEARCH.filter("is_creator").parse("True", 2026)          # True; ValueError for "maybe"
    given = declared({"geo_city": " Berlin "}, JOB_CHANGES)   # a TypeError for an unknown name
    lowered(given.get("geo_city"))                           # "berlin"; None when blank
    words("python, SQL"), flag("false", True, "current_only")  # ("python", "sql"), False
    read({"skills": "Python", "skill_count_min": "2"}, SEARCH)   # {"skills": ("python",), ...}

A route parses the filters its endpoint declares (:mod:`lookup_pandas.service.endpoints`) with
:meth:`~lookup_pandas.service.listings.Filter.parse` (:func:`~.replies.parse_query`) and
passes them on. Tests call the stores with the
same names as keywords. A store reads those it models and ignores the others, as production
ignores a parameter it does not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..service.listings import Listing

__all__ = ["declared", "flag", "lowered", "read", "whole", "words"]


def read(filters: Mapping[str, Any], listing: Listing, year: int) -> dict[str, Any]:
    """The filters given (None and blank ones are not), as a store reads them: each parsed by
    its kind (``Filter.parse``; ValueError ``"<name> <reason>"``), then text and codes in lower
    case and keywords as a tuple of lower-case words (:func:`words`). TypeError for a name
    ``listing`` does not declare.

    >>> from lookup_pandas.service.endpoints import SEARCH
    >>> read({"title": " Data ", "skills": ["SQL", ""], "is_creator": "TRUE", "degree": " "},
    ...      SEARCH, 2026)
    {'title': 'data', 'skills': ('sql',), 'is_creator': True}
    """
    out: dict[str, Any] = {}
    for name, value in declared(filters, listing).items():
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        declaration = listing.filter(name)
        assert declaration is not None  # declared() let through only declared names
        try:
            value = declaration.parse(value, year)
        except ValueError as exc:
            raise ValueError(f"{name} {exc}") from None
        if declaration.kind in ("text", "code"):
            value = str(value).strip().lower()
        elif declaration.kind == "word":
            value = words(value)
        if value != ():
            out[name] = value
    return out


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
