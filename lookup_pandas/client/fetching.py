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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ParamSpec, Protocol, TypeVar

from ..errors import NotFoundError
from ..http.decisions import Call, Requester
from ..identifiers.handles import checked_handle
from ..identifiers.kinds import Kind
from ..service.endpoints import checked_data
from ..service.envelope import Envelope

__all__ = ["LookupAnswer", "LookupFlags", "answer", "fetched", "or_none", "record"]

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class LookupFlags:
    """What the caller of one lookup asks of its send: the :class:`Call` flags it may set.

    Each means what it means on :class:`Call`.

    >>> LookupFlags(refresh=True).call("/api/data/v1/people/profile", {"handle": "ada"}).refresh
    True
    """

    refresh: bool = False
    cancel: threading.Event | None = None
    held: str | None = None
    fresh_after: float | None = None

    def call(self, path: str, params: Mapping[str, Any]) -> Call:
        """The :class:`Call` of a lookup at ``path`` with ``params``, sent as these flags ask.

        >>> LookupFlags(fresh_after=1700000000.0).call("/p", {"handle": "ada"}).fresh_after
        1700000000.0
        """
        return Call(
            path,
            params,
            refresh=self.refresh,
            cancel=self.cancel,
            held=self.held,
            fresh_after=self.fresh_after,
        )


class LookupAnswer(Protocol):
    """What answers one value's lookup, its case kept: ``Client.lookup_answer``."""

    def __call__(self, value: str, kind: Kind, *, refresh: bool = False) -> Envelope: ...


def answer(
    request: Requester, value: str, kind: Kind, flags: LookupFlags = LookupFlags()
) -> Envelope:
    """The whole answer to ``value``'s lookup, its case kept. NotFoundError if there is none.

    Example:
        >>> from lookup_pandas.identifiers.kinds import PEOPLE
        >>> def request(call):  # stands for the Client's send chain
        ...     print(call.path, dict(call.params), call.refresh)
        ...     return Envelope({"id": "prsn_1a2b", "handle": "ada"}, "ok", None, None, {})
        >>> answer(request, "prsn_1a2b", PEOPLE, LookupFlags(refresh=True)).data["handle"]
        /api/data/v1/people/profile {'id': 'prsn_1a2b'} True
        'ada'
    """
    sent = checked_handle(value, fold_case=False, rules=kind.rules)
    path = kind.endpoint.path
    env = request(flags.call(path, kind.params(sent)))
    checked_data(env, path)
    return env


def fetched(
    lookup: LookupAnswer, value: str, kind: Kind, *, refresh: bool = False, fold_case: bool = True
) -> dict[str, Any]:
    """``value``'s record, normalised as enrichment does (ids never folded). NotFoundError if none.

    :func:`record` gives None instead of the NotFoundError.

    Example:
        >>> from lookup_pandas.identifiers.kinds import COMPANIES
        >>> def lookup(value, kind, refresh=False):
        ...     raise NotFoundError(f"No company {value!r}")
        >>> fetched(lookup, "ACME", COMPANIES)
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.NotFoundError: No company 'acme'
    """
    sent = checked_handle(value, fold_case=fold_case, rules=kind.rules)
    return dict(lookup(sent, kind, refresh=refresh).data)


def or_none(fetch: Callable[P, R]) -> Callable[P, R | None]:
    """``fetch``, answering None where it raises NotFoundError.

    >>> def fetch(handle):
    ...     raise NotFoundError(f"No {handle}")
    >>> print(or_none(fetch)("ada"))
    None
    """

    def found_or_none(*args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return fetch(*args, **kwargs)
        except NotFoundError:
            return None

    return found_or_none


#: :func:`fetched`, None when not found: ``Client.profile`` and ``Client.company``.
record = or_none(fetched)
