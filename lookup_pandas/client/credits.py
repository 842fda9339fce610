"""Reading the credits facts through a Client: route costs and the tier ladder (public, read
once and kept for the Client's life) and the balance (with the key, read fresh each time).

Example::

    route_costs(client).cost_of(PROFILE_PATH)   # 1.0: read once; a route not listed costs 1
    ladder(client)                              # (Tier('Testing', 0.0, 99.0, 7.0), ...)
    balance(client)                             # 988.0: read now; None when unknown

Each is a free panel call (``endpoints.is_panel``: never cached, never paced). A service
without one of these routes (404) gives the defaults: every route costs 1, no ladder (``()``),
no balance (None). A public route is read only after the key is known to work
(``client.check_key``): any key gets a public answer, which must never count as proof of it.
:mod:`lookup_pandas.service.credits` is the pure part (parsing, tiers, how a job moves on them).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import AuthenticationError, ConfigurationError, ResponseError, ServiceError
from ..http.decisions import Call
from ..service.credits import (
    BALANCE_PATH,
    ROUTE_COSTS_PATH,
    TIERS_PATH,
    RouteCosts,
    Tier,
    parse_ladder,
)
from ..service.envelope import finite_number

if TYPE_CHECKING:
    from .client import Client

T = TypeVar("T")

__all__ = [
    "PublicFacts",
    "balance",
    "balance_for_job",
    "kept_costs",
    "kept_ladder",
    "ladder",
    "ladder_rows",
    "route_cost_rows",
    "route_costs",
    "unless_failing",
]

logger = logging.getLogger(__name__)

#: A 404 to a panel route is raised as it is (the route is missing), never taken for a wrong
#: base URL.
_MISSING = frozenset({404})


class PublicFacts:
    """The public credits facts one Client has read (route costs, the tier ladder), kept for
    its life on its :class:`~lookup_pandas.client.parts.ClientParts`: path -> the answer's
    ``data`` (None: the service has no such route).

    >>> facts = PublicFacts()
    >>> facts.has(TIERS_PATH)
    False
    >>> facts.keep(TIERS_PATH, None), facts.keep(TIERS_PATH, {"results": []})  # the first wins
    (None, None)
    >>> facts.has(TIERS_PATH), facts.get(TIERS_PATH)
    (True, None)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[str, Any] = {}

    def has(self, path: str) -> bool:
        """Whether ``path`` was read."""
        with self._lock:
            return path in self._data

    def get(self, path: str) -> Any:
        """What ``path`` answered (KeyError when it was not read)."""
        with self._lock:
            return self._data[path]

    def keep(self, path: str, data: Any) -> Any:
        """Keep what ``path`` answered; the first answer kept wins (two threads may read it)."""
        with self._lock:
            return self._data.setdefault(path, data)


def _facts(client: Client) -> PublicFacts:
    """The public facts ``client`` has read (on its parts)."""
    return client._parts.public_facts


def _read(client: Client, path: str) -> Any:
    """The ``data`` of a panel route, read now; None when the service has no such route."""
    try:
        return client._parts.sender.request(Call(path, final_statuses=_MISSING)).data
    except ServiceError as exc:
        if exc.status_code == 404:  # an old service, or one without credits
            return None
        raise


def _public(client: Client, path: str) -> Any:
    """The ``data`` of a public route, read once per Client (after the key is checked)."""
    facts = _facts(client)
    if facts.has(path):
        return facts.get(path)
    client.check_key()  # a public answer proves nothing about the key: ask it first
    return facts.keep(path, _read(client, path))


def route_costs(client: Client) -> RouteCosts:
    """What each route costs (read once per Client); every route 1 when the service has no
    costs route.

    Example: ``route_costs(client).cost_of("/api/data/v1/companies/company")`` -> ``2.0``
    """
    data = _public(client, ROUTE_COSTS_PATH)
    return RouteCosts() if data is None else RouteCosts.from_payload(data)


def ladder(client: Client) -> tuple[Tier, ...]:
    """The tier ladder, lowest first (read once per Client); ``()`` when the service has none.

    Example: ``ladder(client)[0].name`` -> ``'Testing'``
    """
    data = _public(client, TIERS_PATH)
    return () if data is None else parse_ladder(data)


def kept_costs(client: Client) -> RouteCosts | None:
    """The route costs this Client has read, if it has; sends nothing.

    Example: ``kept_costs(client)`` -> None before ``route_costs(client)``
    """
    return _kept_read(client, ROUTE_COSTS_PATH, RouteCosts.from_payload, RouteCosts)


def kept_ladder(client: Client) -> tuple[Tier, ...] | None:
    """The ladder this Client has read, if it has (``()``: the service has none); sends nothing.

    Example: ``kept_ladder(client)`` -> None before ``ladder(client)``
    """
    return _kept_read(client, TIERS_PATH, parse_ladder, tuple[Tier, ...])


def _kept_read(
    client: Client, path: str, parse: Callable[[Any], T], empty: Callable[[], T]
) -> T | None:
    """What this Client has read from ``path``, parsed; ``empty()`` when the service has none
    or it did not parse (said when it was read); None when it has not been read. Sends nothing."""
    facts = _facts(client)
    if not facts.has(path):
        return None
    data = facts.get(path)
    try:
        return empty() if data is None else parse(data)
    except ResponseError:
        return empty()


def route_cost_rows(client: Client) -> list[dict[str, Any]]:
    """The costs route's ``routes`` as they came (route, title, description, credits_cost).

    Example: ``route_cost_rows(client)[0]["credits_cost"]`` -> ``2``
    """
    route_costs(client)  # read, and checked
    data = _facts(client).get(ROUTE_COSTS_PATH)
    return [] if data is None else [dict(r) for r in data["routes"] if isinstance(r, Mapping)]


def ladder_rows(client: Client) -> list[dict[str, Any]]:
    """The tiers route's ``results`` as they came, lowest first.

    Example: ``ladder_rows(client)[0]["limit_per_minute"]`` -> ``7``
    """
    ladder(client)  # read, and checked
    data = _facts(client).get(TIERS_PATH)
    rows = [] if data is None else [dict(r) for r in data["results"]]
    return sorted(rows, key=lambda r: float(r["min_credits"]))


def balance(client: Client) -> float | None:
    """The balance in credits, read now (free, with the key); None when the service has no
    balance route.

    Example: ``balance(client)`` -> ``988.0``
    """
    data = _read(client, BALANCE_PATH)
    if data is None:
        return None
    value = finite_number(data.get("balance")) if isinstance(data, Mapping) else None
    if value is None:
        raise ResponseError(f"The balance answer has no number 'balance': {data!r}")
    return value


def unless_failing(read: Callable[[Client], T], client: Client, default: T) -> T:
    """``read(client)``, or ``default`` with a warning when the service fails to tell (an
    error, a malformed answer): a fact an estimate or a job's check can do without. A key the
    service refuses, or no service at the base URL, is raised.

    Example: ``unless_failing(route_costs, client, RouteCosts())``
    """
    try:
        return read(client)
    except (AuthenticationError, ConfigurationError):
        raise
    except ServiceError as exc:
        logger.warning("Could not read a credits fact (%s); going on without it.", exc)
        return default


def balance_for_job(client: Client, credits: float) -> float | None:
    """The balance a job that spends ``credits`` is checked against, read as cheaply as is
    safe: the last ``X-Credits-Balance`` seen when it covers them (nothing sent); else read
    now: the credits tier when the pace is still to learn (the read the job makes first
    anyway), else the balance route. None: unknown (the job goes on).

    Example: ``balance_for_job(client, 50)`` -> ``20.0`` (read now: 20 cannot pay 50)
    """
    seen = client.credits_balance
    if seen is not None and seen >= credits:
        return seen
    if not client.pace_known:
        tier = client.credits_tier()
        value = finite_number(tier.get("balance"))
        if value is not None:
            return value
    return balance(client)
