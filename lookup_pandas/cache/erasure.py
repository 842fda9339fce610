"""Whom an erasure is about, and which stored answers mention them (decisions, no I/O).

Example:
    >>> wanted_handles(["Ada", "https://www.example.com/in/ada/", "grace"])
    ('ada', 'grace')
    >>> mentioned(["https://api/people/profile?id=prsn_1a"], b"{}", frozenset({"prsn_1a"}))
    {'prsn_1a'}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from ..errors import UsageError
from ..identifiers.handles import invalid_reason, normalise_handle
from ..service.endpoints import ENDPOINTS
from ..service.paths import PROFILE_PATH

__all__ = ["handles_in", "kind_of", "mentioned", "wanted_handles"]

#: What a person's id starts with (``prsn_``): the profile endpoint's id prefixes.
PERSON_ID_PREFIXES = tuple(prefix for prefix, _ in ENDPOINTS["profile"].ids)


def wanted_handles(values: str | Iterable[object], *, fold_case: bool = True) -> tuple[str, ...]:
    """The people to forget, normalised as enrichment normalises them, each once, in order.

    People are named by handle, profile URL or ``prsn_`` id. A single string is one handle. A value
    that is no handle is a UsageError naming it, before anything is erased.

    Example:
        >>> wanted_handles(["Ada", "https://www.example.com/in/ada/", "grace"])
        ('ada', 'grace')
        >>> wanted_handles(["N/A"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.UsageError: Not a handle, person id or profile URL: 'N/A' ...
    """
    items: Iterable[object] = [values] if isinstance(values, str) else values
    handles: list[str] = []
    bad: list[str] = []
    for value in items:
        handle = normalise_handle(value, fold_case=fold_case)
        if handle is None:
            bad.append(f"{value!r} ({invalid_reason(value, fold_case=fold_case)})")
        else:
            handles.append(handle)
    if bad:
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        raise UsageError(
            f"Not a handle, person id or profile URL: {', '.join(bad[:3])}{more}. "
            "Nothing was erased."
        )
    return tuple(dict.fromkeys(handles))


def handles_in(body: Any) -> Iterator[str]:
    """Every ``"handle"`` and every person's ``"id"`` of every object in a decoded JSON ``body``.

    Example:
        >>> sorted(handles_in({"data": [{"handle": "ada"}, {"id": "prsn_1a", "handle": "grace"}]}))
        ['ada', 'grace', 'prsn_1a']
    """
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            handle, ident = value.get("handle"), value.get("id")
            if isinstance(handle, str):
                yield handle
            if isinstance(ident, str) and ident.startswith(PERSON_ID_PREFIXES):
                yield ident
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def mentioned(
    urls: Iterable[str], content: bytes, forgotten: frozenset[str], *, fold_case: bool = True
) -> set[str]:
    """Which of ``forgotten`` (normalised handles and ids) an answer mentions.

    It looks at the ``handle`` and ``id`` parameters of the request URLs, and at the ``"handle"``
    and person ``"id"`` of every object in the JSON body.

    Example:
        >>> mentioned(["https://api/people/profile?handle=Ada"], b"{}", frozenset({"ada"}))
        {'ada'}
        >>> mentioned([], b'{"data": [{"handle": "grace"}]}', frozenset({"ada", "grace"}))
        {'grace'}
    """
    found: set[str] = set()

    def check(value: object) -> None:
        handle = normalise_handle(value, fold_case=fold_case)
        if handle is not None and handle in forgotten:
            found.add(handle)

    for url in urls:
        query = parse_qs(urlsplit(url).query)
        ids = [v for v in query.get("id", []) if v.lower().startswith(PERSON_ID_PREFIXES)]
        for value in query.get("handle", []) + ids:
            check(value)
    try:
        body = json.loads(content) if content else None
    except ValueError:  # not JSON (UnicodeDecodeError is a ValueError): the URL is all there is
        body = None
    for value in handles_in(body):
        check(value)
    return found


def kind_of(url: str) -> Literal["profile", "page"]:
    """A profile answer (``GET /people/profile``), or a page of a list.

    Example:
        >>> kind_of("https://api.example.com/api/data/v1/people/profile?handle=ada")
        'profile'
    """
    return "profile" if urlsplit(url).path.endswith(PROFILE_PATH) else "page"
