"""One lookup by value (a person, a company) through the send chain: the Client's in a line.

The value is normalised by its kind's rules and sent as its endpoint's parameter for it (an
id prefix's, else the key). Anything else is a UsageError, and nothing is sent.

Example:
    >>> from lookup_pandas.identifiers.kinds import COMPANIES
    >>> def lookup(value, kind, refresh=False):  # stands for Client.lookup_answer
    ...     return Envelope({"id": "org_1", "slug": value}, "ok", None, None, {})
    >>> record(lookup, "https://www.linkedin.com/company/Acme/", COMPANIES)
    {'id': 'org_1', 'slug': 'acme'}
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..errors import NotFoundError
from ..http.decisions import Call, Requester
from ..identifiers.handles import checked_handle
from ..identifiers.kinds import Kind
from ..service.endpoints import checked_data
from ..service.envelope import Envelope

__all__ = ["answer", "fetched", "record"]


def answer(
    request: Requester,
    value: str,
    kind: Kind,
    *,
    refresh: bool = False,
    cancel: threading.Event | None = None,
    known_miss: bool = False,
    held: str | None = None,
) -> Envelope:
    """The whole answer to ``value``'s lookup, its case kept. NotFoundError if there is none.

    ``cancel``, ``known_miss`` and ``held`` are :class:`~lookup_pandas.http.decisions.Call`'s.

    Example:
        >>> from lookup_pandas.identifiers.kinds import PEOPLE
        >>> def request(call):  # stands for the Client's send chain
        ...     print(call.path, dict(call.params))
        ...     return Envelope({"id": "prsn_1a2b", "handle": "ada"}, "ok", None, None, {})
        >>> answer(request, "prsn_1a2b", PEOPLE).data["handle"]
        /api/data/v1/people/profile {'id': 'prsn_1a2b'}
        'ada'
    """
    sent = checked_handle(value, fold_case=False, rules=kind.rules)
    path = kind.endpoint.path
    call = Call(
        path, kind.params(sent), refresh=refresh, cancel=cancel, known_miss=known_miss, held=held
    )
    env = request(call)
    checked_data(env, path)
    return env


def record(
    lookup: Callable[..., Envelope],
    value: str,
    kind: Kind,
    *,
    refresh: bool = False,
    fold_case: bool = True,
) -> dict[str, Any] | None:
    """``value``'s record, normalised as enrichment does (ids never folded), or None if not found.

    Example:
        >>> from lookup_pandas.identifiers.kinds import COMPANIES
        >>> def lookup(value, kind, refresh=False):
        ...     return Envelope({"id": "org_1", "slug": value}, "ok", None, None, {})
        >>> record(lookup, "ACME", COMPANIES)["slug"]
        'acme'
    """
    try:
        return fetched(lookup, value, kind, refresh=refresh, fold_case=fold_case)
    except NotFoundError:
        return None


def fetched(
    lookup: Callable[..., Envelope],
    value: str,
    kind: Kind,
    *,
    refresh: bool = False,
    fold_case: bool = True,
) -> dict[str, Any]:
    """:func:`record`, raising NotFoundError with the server's message instead of None."""
    sent = checked_handle(value, fold_case=fold_case, rules=kind.rules)
    return dict(lookup(sent, kind, refresh=refresh).data)
