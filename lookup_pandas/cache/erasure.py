"""Whom an erasure is about, and which stored answers mention them (decisions, no I/O).

People are named by handle, profile URL or ``prsn_`` id, and their Email API answers by address
or by name and domain (issue 41): an address (``"Jane@acme.com"``) and a find's query
(``("Jane", "Doe", "acme.com")``, kept as its one value) are names too.

Example:
    >>> wanted_handles(["Ada", "https://www.example.com/in/ada/", "grace"])
    ('ada', 'grace')
    >>> wanted_handles([" Jane@ACME.com", ("Jane", "Doe", "www.acme.com")])
    ('Jane@acme.com', 'jane\\tdoe\\tacme.com')
    >>> mentioned(["https://api/people/profile?id=prsn_1a"], b"{}", frozenset({"prsn_1a"}))
    {'prsn_1a'}
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from ..errors import UsageError
from ..identifiers import emails
from ..identifiers.handles import invalid_reason, normalise_handle
from ..service.endpoints import ENDPOINTS
from ..service.paths import EMAIL_PROSPECTS_PATH, EMAILS_PREFIX, PROFILE_PATH

__all__ = ["handles_in", "kind_of", "mentioned", "wanted_handles"]

#: What a person's id starts with (``prsn_``): the profile endpoint's id prefixes.
PERSON_ID_PREFIXES = tuple(prefix for prefix, _ in ENDPOINTS["profile"].ids)


def wanted_handles(values: str | Iterable[object], *, fold_case: bool = True) -> tuple[str, ...]:
    """The people to forget, normalised as enrichment normalises them, each once, in order.

    People are named by handle, profile URL or ``prsn_`` id; their Email API answers by address
    or by ``(first name, last name, domain)``, kept as the lookups send them. A single string is
    one value. A value that is none of these is a UsageError naming it, before anything is
    erased.

    Example:
        >>> wanted_handles(["Ada", "https://www.example.com/in/ada/", "grace"])
        ('ada', 'grace')
        >>> wanted_handles(["N/A"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.UsageError: Not a handle, person id, profile URL, email address or ...
    """
    items: Iterable[object] = [values] if isinstance(values, str) else values
    handles: list[str] = []
    bad: list[str] = []
    for value in items:
        handle, reason = _name(value, fold_case)
        if handle is None:
            bad.append(f"{value!r} ({reason})")
        else:
            handles.append(handle)
    if bad:
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        raise UsageError(
            "Not a handle, person id, profile URL, email address or (first name, last name, "
            f"domain): {', '.join(bad[:3])}{more}. "
            "Nothing was erased."
        )
    return tuple(dict.fromkeys(handles))


def _name(value: object, fold_case: bool) -> tuple[str | None, str | None]:
    """One value to forget as :func:`wanted_handles` keeps it, else (None, why not)."""
    if isinstance(value, tuple):
        return emails.query(value, fold_case=fold_case)
    if isinstance(value, str) and "@" in value.strip().lstrip("@"):  # a handle's @ leads it
        return emails.address(value)
    handle = normalise_handle(value, fold_case=fold_case)
    return (handle, None) if handle else (None, invalid_reason(value, fold_case=fold_case))


def _query_of(params: dict[str, Any], fold_case: bool) -> str | None:
    """A find's query as :func:`wanted_handles` keeps it, from its three parameters."""
    parts = tuple(params.get(name) for name in ENDPOINTS["email_find"].parts)
    return emails.query(parts, fold_case=fold_case)[0] if all(parts) else None


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

    def check_address(value: object) -> None:
        sent = emails.address(value)[0]
        if sent is not None and sent in forgotten:
            found.add(sent)

    def check_query(params: dict[str, Any]) -> None:
        sent = _query_of(params, fold_case)
        if sent is not None and sent in forgotten:
            found.add(sent)

    domain: str | None = None
    for url in urls:
        query = parse_qs(urlsplit(url).query)
        ids = [v for v in query.get("id", []) if v.lower().startswith(PERSON_ID_PREFIXES)]
        for value in query.get("handle", []) + query.get("url", []) + ids:
            check(value)
        for value in query.get("email", []):
            check_address(value)
        check_query({k: v[0] for k, v in query.items()})
        domain = domain or next(iter(query.get("domain", [])), None)
    try:
        body = json.loads(content) if content else None
    except ValueError:  # not JSON (UnicodeDecodeError is a ValueError): the URL is all there is
        body = None
    for value in handles_in(body):
        check(value)
    if EMAILS_PREFIX in "".join(urls):  # an Email API answer: addresses, people by profile
        for record in _objects(body):
            check_address(record.get("email"))
            check(record.get("profile_url"))
            check_query({**record, "domain": domain, **record.get("query", {})})
    return found


def _objects(body: Any) -> Iterator[dict[str, Any]]:
    """Every object in a decoded JSON ``body``."""
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            yield value
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def kind_of(url: str) -> Literal["profile", "page", "email"]:
    """A profile answer (``GET /people/profile``), an Email API answer (a find, a verdict, a
    reversal), or a page of a list (prospects' too).

    Example:
        >>> kind_of("https://api.example.com/api/data/v1/people/profile?handle=ada")
        'profile'
        >>> kind_of("https://api.example.com/api/emails/v1/verify?email=ada%40acme.com")
        'email'
    """
    path = urlsplit(url).path
    if path.endswith(PROFILE_PATH):
        return "profile"
    return "email" if EMAILS_PREFIX in path and not path.endswith(EMAIL_PROSPECTS_PATH) else "page"
