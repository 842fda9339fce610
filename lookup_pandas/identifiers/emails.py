"""The Email API's values as a CRM exports them: people's names, company domains, addresses.

Each is read by a :class:`~lookup_pandas.identifiers.kinds.Normaliser`: ``(the value to send,
None)``, else ``(None, why it is invalid)``, so garbage is never sent (issue 41).

>>> domain("https://www.Acme.com/about"), domain("jane@acme.com"), domain(" acme.com ")
(('acme.com', None), ('acme.com', None), ('acme.com', None))
>>> domain("localhost"), domain("")
((None, 'a domain without a dot'), (None, 'empty'))
>>> address(" Jane.Doe@ACME.com "), address("jane@")
(('Jane.Doe@acme.com', None), (None, 'no domain after the @'))
>>> name("  Jane   Marie "), name("Jane", fold_case=False)
(('jane marie', None), ('Jane', None))
>>> query(("Jane", "Doe", "https://www.acme.com/about"))
('jane\\tdoe\\tacme.com', None)
>>> profile("https://www.linkedin.com/in/Jane-Doe/"), profile("prsn_1a2b")
(('jane-doe', None), (None, 'a person id, not a profile URL or handle'))
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..service.endpoints import PART_SEPARATOR
from .handles import PERSON_RULES, cleaned, is_missing

__all__ = ["QUERY_PARTS", "address", "domain", "name", "profile", "query"]


#: One label of a host name: letters, digits and inner hyphens, at most 63 (RFC 1035); an IDN's
#: Unicode letters too, as CRMs export them unencoded.
_LABEL = re.compile(r"[^\W_](?:(?:[^\W_]|-){0,61}[^\W_])?\Z")


def _text(value: object) -> tuple[str, str | None]:
    """``value`` stripped, and why it is no value: ``empty`` (a gap: None, NaN, pandas' NA, a
    blank) or ``not text`` (a number, a list...)."""
    if isinstance(value, str):
        text = value.strip()
        return text, None if text else "empty"
    return "", "empty" if is_missing(value) else "not text"


def _ascii(host: str) -> tuple[str | None, str | None]:
    """``host`` as DNS and the service take it: an IDN's labels in their ASCII form (``xn--``),
    so that ``müller.de`` and ``xn--mller-kva.de`` are one domain; (None, why) when it cannot be.

    >>> _ascii("müller.de"), _ascii("acme.com")
    (('xn--mller-kva.de', None), ('acme.com', None))
    """
    reason = _host_reason(host)
    if reason or host.isascii():
        return (None, reason) if reason else (host, None)
    try:
        return host.encode("idna").decode("ascii"), None
    except UnicodeError:
        return None, "not a host name"


def _host_reason(host: str) -> str | None:
    """Why ``host`` (lower-cased, no ``www.``) cannot be a mail domain; None when it can."""
    if "." not in host:
        return "a domain without a dot"
    if len(host) > 253 or not all(_LABEL.match(label) for label in host.split(".")):
        return "not a host name"
    return None


def domain(value: object, *, fold_case: bool = True) -> tuple[str | None, str | None]:
    """A company's mail domain: a bare host, a website URL or an address, as its bare host.

    Lower-cased, a leading ``www.`` dropped (no mailbox lives at www), a trailing dot, a port
    and a path dropped; an international domain in its ASCII form (``xn--``), as DNS takes it.
    Host names are case-blind, so ``fold_case`` changes nothing here.

    >>> domain("http://www.acme.co.uk:8080/contact?x=1"), domain("acme.com/jobs")
    (('acme.co.uk', None), ('acme.com', None))
    >>> domain("acme .com"), domain("-acme.com")
    ((None, 'not a host name'), (None, 'not a host name'))
    """
    text, gap = _text(value)
    if gap:
        return None, gap
    if "@" in text and "/" not in text:  # an address: its domain
        text = text.rpartition("@")[2]
    elif "/" in text or ":" in text:  # a URL, with its scheme or without
        text = urlsplit(text if "//" in text else f"//{text}").hostname or ""
    host = text.lower().rstrip(".")
    host = host[4:] if host.startswith("www.") else host
    if not host:
        return None, "empty"
    return _ascii(host)


def address(value: object, *, fold_case: bool = True) -> tuple[str | None, str | None]:
    """An email address, trimmed, its domain lower-cased (its local part is the mailbox's own).

    Only what cannot be an address is refused: the service itself judges the rest
    (``verify_reason`` ``invalid_syntax``).

    >>> address("jane doe@acme.com"), address("jane.acme.com"), address("a@b@acme.com")
    ((None, 'a space in the address'), (None, 'no @'), (None, 'more than one @'))
    >>> address("jane@localhost")
    (None, 'a domain without a dot')
    """
    text, gap = _text(value)
    if gap:
        return None, gap
    if any(ch.isspace() for ch in text):
        return None, "a space in the address"
    local, at, host = text.rpartition("@")
    if not at:
        return None, "no @"
    if "@" in local:
        return None, "more than one @"
    if not local:
        return None, "nothing before the @"
    if not host:
        return None, "no domain after the @"
    sent, reason = _ascii(host.lower())
    return (None, reason) if sent is None else (f"{local}@{sent}", None)


def name(value: object, *, fold_case: bool = True) -> tuple[str | None, str | None]:
    """A first or last name: trimmed, inner runs of spaces made one, compared case-blind
    (``fold_case``: sent lower-cased, so "Jane" and "JANE" are one lookup).

    >>> name("O'Brien"), name("  "), name(None), name(42)
    (("o'brien", None), (None, 'empty'), (None, 'empty'), (None, 'not text'))
    """
    text, gap = _text(value)
    if gap:
        return None, gap
    text = " ".join(text.split())
    return (text.casefold() if fold_case else text), None


#: A find's query, part by part: how a refusal names each part, and its rule.
QUERY_PARTS = (("first name", name), ("last name", name), ("domain", domain))


def query(value: object, *, fold_case: bool = True) -> tuple[str | None, str | None]:
    """A find's query, ``(first name, last name, domain)`` as one row holds it, as one value:
    each part read by its rule, joined by
    :data:`~lookup_pandas.service.endpoints.PART_SEPARATOR` (``Endpoint.query`` splits it).

    A refusal names the part: ``last name: empty``. A query as sent reads as itself (the Dask
    and Spark workers look up the values normalised on the driver).

    >>> query(("Jane", " ", "acme.com")), query(("Jane", "Doe", "localhost"))
    ((None, 'last name: empty'), (None, 'domain: a domain without a dot'))
    >>> query("jane@acme.com"), query(query(("Jane", "Doe", "www.acme.com"))[0])
    ((None, 'not a first name, last name and domain'), ('jane\\tdoe\\tacme.com', None))
    """
    if isinstance(value, str) and value.count(PART_SEPARATOR) == len(QUERY_PARTS) - 1:
        value = tuple(value.split(PART_SEPARATOR))
    if not isinstance(value, tuple) or len(value) != len(QUERY_PARTS):
        return None, "not a first name, last name and domain"
    sent = []
    for (part, read), given in zip(QUERY_PARTS, value, strict=True):
        text, reason = read(given, fold_case=fold_case)
        if text is None:
            return None, f"{part}: {reason}"
        sent.append(text)
    return PART_SEPARATOR.join(sent), None


def profile(value: object, *, fold_case: bool = True) -> tuple[str | None, str | None]:
    """A person's profile as ``/find/linkedin`` takes it: a profile URL or a handle, read as
    people's handles are (so a URL and its handle are one lookup), sent as the bare handle.
    A ``prsn_`` id names a person but no profile page: refused.
    """
    sent, reason = cleaned(value, fold_case=fold_case, rules=PERSON_RULES)
    if sent is not None and sent.startswith(PERSON_RULES.ids):
        return None, "a person id, not a profile URL or handle"
    return sent, reason
