"""Reading the credits facts through a Client: the route costs, the tier ladder and the balance.

>>> import lookup_pandas as lp
>>> from lookup_pandas.testing import MockTransport, envelope
>>> def answer(request):
...     if "/routes/costs/" in request.url:
...         costs = [{"route": "/api/data/v1/companies/company", "credits_cost": 2}]
...         return 200, envelope({"routes": costs})
...     if "/sub/tiers/" in request.url:
...         tier = {"name": "Testing", "min_credits": 0, "max_credits": 99, "limit_per_minute": 7}
...         return 200, envelope({"results": [tier]})
...     if "/balance/" in request.url:
...         return 200, envelope({"balance": 988})
...     return 200, envelope({"balance": 988, "current_tier": {"limit_per_minute": 600}})
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
...                    transport=MockTransport(answer))
>>> kept_costs(client) is None  # nothing read yet
True
>>> route_costs(client).cost_of("/api/data/v1/companies/company")  # read once, then kept
2.0
>>> ladder(client)[0].name, balance(client)  # the balance is read each time
('Testing', 988.0)
>>> route_cost_rows(client)[0]["credits_cost"], ladder_rows(client)[0]["limit_per_minute"]
(2, 7)

Each is a free panel call, never cached or paced. A service without one of these routes (404)
gives the defaults: every route costs 1, no ladder (``()``), no balance (None). A public route
is read only after the key is known to work, since any key gets a public answer.
:mod:`lookup_pandas.service.credits` is the pure part.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import AuthenticationError, ConfigurationError, ResponseError, ServiceError
from ..http.decisions import Call
from ..http.stats import ClientStats
from ..service.credits import (
    BALANCE_PATH,
    ENTERPRISE_BALANCE_PATH,
    ROUTE_COSTS_PATH,
    TIERS_PATH,
    RouteCosts,
    Tier,
    is_enterprise,
    parse_ladder,
)
from ..service.envelope import finite_number

if TYPE_CHECKING:
    from .client import Client
    from .parts import PublicFacts

T = TypeVar("T")

__all__ = [
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


def _facts(client: Client) -> PublicFacts:
    """The public facts ``client`` has read (on its parts)."""
    return client._parts.public_facts


def _read(client: Client, path: str, tally: ClientStats | None = None) -> Any:
    """The ``data`` of a panel route, read now, or None when the service has no such route.

    ``tally``: a run's own counts, which the read counts in too (as in every function here).
    """
    try:
        return client._parts.sender.request(Call(path, final_statuses=_MISSING, tally=tally)).data
    except ServiceError as exc:
        if exc.status_code == 404:  # an old service, or one without credits
            return None
        raise


def _public(client: Client, path: str, tally: ClientStats | None = None) -> Any:
    """The ``data`` of a public route, read once per Client (after the key is checked)."""
    facts = _facts(client)
    if facts.has(path):
        return facts.get(path)
    client.parts.contact.check_key(tally)  # a public answer proves nothing of the key: ask first
    return facts.keep(path, _read(client, path, tally))


def route_costs(client: Client, tally: ClientStats | None = None) -> RouteCosts:
    """What each route costs, read once per Client. Every route costs 1 without a costs route.

    See the module's example.
    """
    data = _public(client, ROUTE_COSTS_PATH, tally)
    return RouteCosts() if data is None else RouteCosts.from_payload(data)


def ladder(client: Client) -> tuple[Tier, ...]:
    """The tier ladder, lowest first, read once per Client. ``()`` when the service has none.

    See the module's example.
    """
    data = _public(client, TIERS_PATH)
    return () if data is None else parse_ladder(data)


def kept_costs(client: Client) -> RouteCosts | None:
    """The route costs this Client has read, or None. Sends nothing. See the module's example."""
    return _kept_read(client, ROUTE_COSTS_PATH, RouteCosts.from_payload, RouteCosts)


def kept_ladder(client: Client) -> tuple[Tier, ...] | None:
    """The ladder this Client's key climbs, as read (``()``: none), or None. Sends nothing.

    An enterprise account (its tier says so) is on no ladder: spending never changes its limit.

    Example: ``kept_ladder(client)`` is None before ``ladder(client)``.
    """
    tier = client._parts.contact.tier
    if tier is not None and is_enterprise(tier):
        return ()
    return _kept_read(client, TIERS_PATH, parse_ladder, tuple[Tier, ...])


def _kept_read(
    client: Client, path: str, parse: Callable[[Any], T], empty: Callable[[], T]
) -> T | None:
    """What this Client has read from ``path``, parsed, or None when it has not read it.

    ``empty()`` stands for a service without the route, or an answer that did not parse (said
    when it was read). Sends nothing.
    """
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

    See the module's example.
    """
    route_costs(client)  # read, and checked
    data = _facts(client).get(ROUTE_COSTS_PATH)
    return [] if data is None else [dict(r) for r in data["routes"] if isinstance(r, Mapping)]


def ladder_rows(client: Client) -> list[dict[str, Any]]:
    """The tiers route's ``results`` as they came, lowest first. See the module's example."""
    ladder(client)  # read, and checked
    data = _facts(client).get(TIERS_PATH)
    rows = [] if data is None else [dict(r) for r in data["results"]]
    return sorted(rows, key=lambda r: float(r["min_credits"]))


def balance(client: Client, tally: ClientStats | None = None) -> float | None:
    """The balance in credits, read now (free, with the key), or None without a balance route.

    An enterprise account's is read from its own route (:data:`ENTERPRISE_BALANCE_PATH`): the
    credits tier says which account this is, read first when it was not yet (free, and what
    the pace is learnt from anyway). See the module's example.
    """
    tier = client._parts.contact.tier
    if tier is None:
        try:
            tier = client.parts.contact.credits_tier(tally)
        except (AuthenticationError, ConfigurationError):
            raise
        except ServiceError:  # no tier to tell: the balance route alone
            tier = {}
    data = _read(client, ENTERPRISE_BALANCE_PATH if is_enterprise(tier) else BALANCE_PATH, tally)
    if data is None:
        return None
    value = finite_number(data.get("balance")) if isinstance(data, Mapping) else None
    if value is None:
        raise ResponseError(f"The balance answer has no number 'balance': {data!r}")
    return value


def unless_failing(read: Callable[[Client], T], client: Client, default: T) -> T:
    """``read(client)``, or ``default`` with a warning when the service fails to tell.

    For a fact an estimate or a job's check can do without (an error, a malformed answer). A key
    the service refuses, or no service at the base URL, is raised.

    Example: ``unless_failing(route_costs, client, RouteCosts())``
    """
    try:
        return read(client)
    except (AuthenticationError, ConfigurationError):
        raise
    except ServiceError as exc:
        logger.warning("Could not read a credits fact (%s); going on without it.", exc)
        return default


def balance_for_job(
    client: Client, credits: float, tally: ClientStats | None = None
) -> float | None:
    """The balance a job that spends ``credits`` is checked against, read as cheaply as is safe.

    The last ``X-Credits-Balance`` seen (else the balance of the tier read last) serves when it
    covers them (nothing sent). Else it is read now: through the credits tier while the pace is
    still to learn (the read a job makes first anyway; an enterprise account's tier tells no
    balance of its workspace), else through the balance route (:func:`balance`). None means
    unknown, and the job goes on.

    Example: ``balance_for_job(client, 50)`` reads the balance when the last one seen was 20.
    """
    seen = client.stats.credits_balance
    tier = client._parts.contact.tier
    if seen is None and tier is not None and not is_enterprise(tier):
        seen = finite_number(tier.get("balance"))  # no answer told it: the tier read last did
    if seen is not None and seen >= credits:
        return seen
    if not client.parts.contact.rate_known:
        tier = client.parts.contact.credits_tier(tally)
        value = finite_number(tier.get("balance"))
        if value is not None and not is_enterprise(tier):
            return value
    return balance(client, tally)
