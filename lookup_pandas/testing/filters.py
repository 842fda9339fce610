"""How the emulator reads a query's filters: production's names, each parsed by its declared kind.

Example::

    parsed(SEARCH.filter("is_creator"), "True", 2026)        # True; ValueError for "maybe"
    given = declared({"geo_city": " Berlin "}, JOB_CHANGES)   # a TypeError for an unknown name
    lowered(given.get("geo_city"))                           # "berlin"; None when blank
    words("python, SQL"), flag("false", True, "current_only")  # ("python", "sql"), False
    read({"skills": "Python", "skill_count_min": "2"}, SEARCH)   # {"skills": ("python",), ...}

A route parses the filters its endpoint declares (:mod:`lookup_pandas.service.endpoints`) with
:func:`parsed` (:func:`~.replies.parse_query`) and passes them on. Tests call the stores with the
same names as keywords. A store reads those it models and ignores the others, as production
ignores a parameter it does not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..identifiers.queries import MIN_TEXT
from ..service.endpoints import Filter, Listing

__all__ = ["declared", "flag", "lowered", "parsed", "read", "whole", "words"]


def parsed(declaration: Filter, value: Any, year: int) -> Any:
    """``value`` of the filter ``declaration`` as production takes it, else a ValueError whose
    message is the reason (``year``: this year, the top of the year filters).

    text: as given, 3+ characters once stripped; word: as given; code: two letters, stripped;
    bool: a bool, or true / false in any case; int and year: a whole number within the bounds;
    choice: one of the choices, lower case.

    >>> from lookup_pandas.service.endpoints import EMPLOYEES
    >>> sort, year = EMPLOYEES.filter("sort"), EMPLOYEES.filter("start_year")
    >>> parsed(sort, " Newest", 2026), parsed(year, "2026", 2026)
    ('newest', 2026)
    >>> parsed(year, "2027", 2026)
    Traceback (most recent call last):
    ...
    ValueError: must be an integer between 1900 and 2026
    """
    kind = declaration.kind
    if kind == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text not in ("true", "false"):
            raise ValueError("must be true or false")
        return text == "true"
    if kind in ("int", "year"):
        return _number(declaration, value, year)
    if kind == "choice":
        choice = str(value).strip().lower()
        if choice not in declaration.choices:
            raise ValueError("must be one of " + ", ".join(declaration.choices))
        return choice
    if kind == "text" and len(str(value).strip()) < MIN_TEXT:
        raise ValueError(f"must be at least {MIN_TEXT} characters")
    if kind == "code":
        code = str(value).strip()
        if not (len(code) == 2 and code.isascii() and code.isalpha()):
            raise ValueError("must be a two-letter country code")
        return code
    return value


def _number(declaration: Filter, value: Any, year: int) -> int:
    low, high = declaration.bounds(year)
    bound = f"between {low} and {high}" if high is not None else f"at least {low}"
    try:
        number = int(str(value).strip()) if not isinstance(value, bool | float) else None
    except ValueError:
        number = None
    if number is None or (low is not None and number < low) or (high is not None and number > high):
        raise ValueError(f"must be an integer {bound}")
    return number


def read(filters: Mapping[str, Any], listing: Listing, year: int) -> dict[str, Any]:
    """The filters given (None and blank ones are not), as a store reads them: each parsed by
    its kind (:func:`parsed`; ValueError ``"<name> <reason>"``), then text and codes in lower
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
            value = parsed(declaration, value, year)
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
