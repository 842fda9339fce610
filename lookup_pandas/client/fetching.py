"""One record by value (a person, a company) through the send chain: ``Client.profile``'s.

The value is normalised by its kind's rules and sent as its endpoint's parameter for it (an
id prefix's, else the key). Anything else is a UsageError, and nothing is sent.

Example:
    >>> from lookup_pandas.identifiers.kinds import COMPANIES
    >>> def request(call):  # stands for the Client's send chain
    ...     print(call.path, dict(call.params), call.refresh)
    ...     return Envelope({"id": "org_1", "slug": call.params["slug"]}, "ok", None, None, {})
    >>> record(request, "https://www.linkedin.com/company/Acme/", COMPANIES)
    /api/data/v1/companies/company {'slug': 'acme'} False
    {'id': 'org_1', 'slug': 'acme'}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from ..errors import NotFoundError
from ..http.decisions import Call, Requester
from ..identifiers.kinds import Kind
from ..service.endpoints import checked_data
from ..service.envelope import Envelope

__all__ = ["fetched", "or_none", "record"]

P = ParamSpec("P")
R = TypeVar("R")


def fetched(
    request: Requester, value: str, kind: Kind, *, refresh: bool = False, fold_case: bool = True
) -> dict[str, Any]:
    """``value``'s record, normalised as enrichment does (ids never folded). NotFoundError if none.

    :func:`record` gives None instead of the NotFoundError.

    Example:
        >>> from lookup_pandas.identifiers.kinds import COMPANIES
        >>> def request(call):
        ...     raise NotFoundError(f"No company {call.params['slug']!r}")
        >>> fetched(request, "ACME", COMPANIES)
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.NotFoundError: No company 'acme'
    """
    sent = kind.checked(value, fold_case)
    path = kind.endpoint.path
    env: Envelope = request(Call(path, kind.params(sent), refresh=refresh))
    checked_data(env, path)
    return dict(env.data)


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
