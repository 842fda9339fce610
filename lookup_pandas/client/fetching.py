"""One lookup by value (a person, a company) through the send chain: the Client's in a line.

Example::

    answer(sender.request, "prsn_1a2b", PEOPLE).data["handle"]   # sent as id=prsn_1a2b
    record(client.lookup_answer, "https://www.linkedin.com/company/Acme/", COMPANIES)
    # {"id": "org_...", "slug": "acme", ...}; None when the service does not know it

The value is normalised by its kind's rules (:class:`~lookup_pandas.identifiers.kinds.Kind`) and
sent as
its Endpoint's parameter for it (``param_for``: an id prefix's, else the key); anything else is
a UsageError and nothing is sent. A not-found (1010, 1020) is billed and cached like a record.
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
    """The whole answer to ``value``'s lookup, its case kept; NotFoundError if none.

    Example: ``answer(sender.request, "ada", PEOPLE).from_cache  # True the second time``.
    ``cancel``, ``known_miss``, ``held``: :class:`~lookup_pandas.http.decisions.Call`'s.
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
    """``value``'s record, normalised as enrichment does (``fold_case``; ids never folded);
    None when not found.

    Example: ``record(client.lookup_answer, "ACME", COMPANIES)["slug"]  # "acme"``
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
    """:func:`record`, raising NotFoundError (the server's message) instead of None."""
    sent = checked_handle(value, fold_case=fold_case, rules=kind.rules)
    return dict(lookup(sent, kind, refresh=refresh).data)
