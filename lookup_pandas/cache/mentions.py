"""Whom an erasure is about, and which stored answers mention them (decisions, no I/O).

Example::

    wanted_handles(["Ada", "https://www.example.com/in/ada/", "grace"])   # ("ada", "grace")
    mentioned(["https://api/people/profile?handle=Ada"], b"{}", frozenset({"ada"}))  # {"ada"}
    mentioned(["https://api/people/profile?id=prsn_1a"], b"{}", frozenset({"prsn_1a"}))
    kind_of("https://api/people/profile?handle=ada")                       # "profile"

A person is named by a handle (or profile URL) or by their ``prsn_`` id (issue 24: both are
lookups of their own); an answer mentions them when a request asked for either, or when any JSON
object in it has that ``"handle"`` or that ``"id"``. So forgetting a handle also erases the
answer bought by the person's id (its record holds the handle), and forgetting an id the answers
bought by handle.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from ..errors import UsageError
from ..identifiers.handles import invalid_reason, normalise_handle
from ..service.endpoints import ENDPOINTS, PROFILE_PATH

__all__ = ["handles_in", "kind_of", "mentioned", "wanted_handles"]

#: What a person's id starts with (``prsn_``): the profile endpoint's id prefixes.
PERSON_ID_PREFIXES = tuple(prefix for prefix, _ in ENDPOINTS["profile"].ids)


def wanted_handles(values: str | Iterable[object], *, fold_case: bool = True) -> tuple[str, ...]:
    """The people to forget (handles, profile URLs or ``prsn_`` ids), normalised as enrichment
    normalises them, each once, in order.

    Example: ``wanted_handles(["Ada", "https://www.example.com/in/ada/", "grace"])`` ->
    ``("ada", "grace")``. A single string is one handle. A value that is no handle (blank,
    ``N/A``, a URL without ``/in/<handle>``) is a UsageError naming it, before anything is
    erased: a typo must not pass for an erasure.
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
    """Every ``"handle"`` string of every JSON object in ``body`` (a decoded JSON value), and
    every ``"id"`` that is a person's (``prsn_…``).

    Example: ``list(handles_in({"data": [{"handle": "ada"}, {"handle": "grace"}]}))`` ->
    ``["ada", "grace"]``; ``{"id": "prsn_1a", "handle": "ada"}`` gives both.
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
    """Which of ``forgotten`` (normalised handles and ids) an answer mentions: in a request
    URL's ``handle`` or ``id`` parameter, or as the ``"handle"`` or person ``"id"`` of any
    object in its JSON body.

    Example: ``mentioned(["https://api/people/profile?handle=Ada"], b"{}", frozenset({"ada"}))``
    -> ``{"ada"}``
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
    """A profile answer (``GET /people/profile``), or a page of a list."""
    return "profile" if urlsplit(url).path.endswith(PROFILE_PATH) else "page"
