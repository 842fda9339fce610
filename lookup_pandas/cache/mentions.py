"""Whom an erasure is about, and which stored answers mention them (decisions, no I/O).

Example::

    wanted_handles(["Ada", "https://www.example.com/in/ada/", "grace"])   # ("ada", "grace")
    mentioned(["https://api/people/profile?handle=Ada"], b"{}", frozenset({"ada"}))  # {"ada"}
    kind_of("https://api/people/profile?handle=ada")                       # "profile"
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from ..endpoints import PROFILE_PATH
from ..errors import UsageError
from ..handles import invalid_reason, normalise_handle

__all__ = ["handles_in", "kind_of", "mentioned", "wanted_handles"]


def wanted_handles(values: str | Iterable[object], *, fold_case: bool = True) -> tuple[str, ...]:
    """The handles to forget, normalised as enrichment normalises them, each once, in order.

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
            f"Not a handle or profile URL: {', '.join(bad[:3])}{more}. Nothing was erased."
        )
    return tuple(dict.fromkeys(handles))


def handles_in(body: Any) -> Iterator[str]:
    """Every ``"handle"`` string of every JSON object in ``body`` (a decoded JSON value).

    Example: ``list(handles_in({"data": [{"handle": "ada"}, {"handle": "grace"}]}))`` ->
    ``["ada", "grace"]``
    """
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            handle = value.get("handle")
            if isinstance(handle, str):
                yield handle
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def mentioned(
    urls: Iterable[str], content: bytes, forgotten: frozenset[str], *, fold_case: bool = True
) -> set[str]:
    """Which of ``forgotten`` (normalised handles) an answer mentions: in a request URL's
    ``handle`` parameter, or as the ``"handle"`` of any object in its JSON body.

    Example: ``mentioned(["https://api/people/profile?handle=Ada"], b"{}", frozenset({"ada"}))``
    -> ``{"ada"}``
    """
    found: set[str] = set()

    def check(value: object) -> None:
        handle = normalise_handle(value, fold_case=fold_case)
        if handle is not None and handle in forgotten:
            found.add(handle)

    for url in urls:
        for value in parse_qs(urlsplit(url).query).get("handle", []):
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
