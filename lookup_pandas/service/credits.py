"""Credits: what each route costs, the tier ladder, and where a balance sits on it (pure).

>>> ladder = parse_ladder({"results": [
...     {"name": "Hobby", "min_credits": 0, "max_credits": 9999, "limit_per_minute": 30},
...     {"name": "Developer", "min_credits": 10000, "max_credits": None, "limit_per_minute": 70},
... ]})
>>> tier_for(10_000, ladder).name, tier_for(9_999, ladder).name
('Developer', 'Hobby')
>>> tier_change(ladder, balance=10_050, spend=100)
'Developer (70/min) -> Hobby (30/min) after 51 credits'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ResponseError

if TYPE_CHECKING:
    from .endpoints import Endpoint

__all__ = [
    "BALANCE_PATH",
    "ENTERPRISE_BALANCE_PATH",
    "ROUTE_COSTS_PATH",
    "TIERS_PATH",
    "RouteCosts",
    "Tier",
    "paced_seconds",
    "parse_ladder",
    "tier_change",
    "tier_for",
    "is_enterprise",
]

#: Public (no key): ``data.routes[]`` of ``{route, title, description, credits_cost}``.
ROUTE_COSTS_PATH = "/api/panel/credits/routes/costs/"
#: Public (no key): ``data.results[]`` of ``{id, name, min_credits, max_credits, limit_per_minute,
#: credits_per_dollar}``.
TIERS_PATH = "/api/panel/user/sub/tiers/"
#: With the key (``X-AUTHAPI-Key``): ``data.balance``.
BALANCE_PATH = "/api/panel/credits/balance/k/"
#: An enterprise workspace's balance, with its key (``account-api.md``; a personal key there is
#: refused as "Invalid API key").
ENTERPRISE_BALANCE_PATH = "/api/panel/credits/balance/k/enterprise/"


def is_enterprise(tier: Mapping[str, Any]) -> bool:
    """Whether a credits-tier answer is an enterprise account's: no ``current_tier``, and a fixed
    ``limit_per_minute`` of its own (the official SDK's CHANGELOG, 0.2.1).

    >>> is_enterprise({"current_tier": None, "limit_per_minute": 3000})
    True
    >>> is_enterprise({"current_tier": {"name": "Hobby", "limit_per_minute": 30}})
    False
    """
    return not isinstance(tier.get("current_tier"), Mapping) and "limit_per_minute" in tier


def _route(path: str) -> str:
    return path.split("?", 1)[0].strip("/")


@dataclass(frozen=True)
class RouteCosts:
    """Credits per call of each listed route. A route not listed costs 1.

    >>> RouteCosts({"people/batch/enrich": 0.0}).cost_of("/people/batch/enrich/")
    0.0
    """

    costs: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_payload(cls, data: Any) -> RouteCosts:
        """From the costs endpoint's ``data``.

        >>> RouteCosts.from_payload({"routes": [{"route": "/a/", "credits_cost": 2}]})
        RouteCosts(costs={'a': 2.0})
        """
        routes = data.get("routes") if isinstance(data, Mapping) else None
        if not isinstance(routes, list):
            raise ResponseError("The route costs answer has no 'routes' list.")
        costs: dict[str, float] = {}
        for item in routes:
            if not isinstance(item, Mapping) or not isinstance(item.get("route"), str):
                continue
            cost = item.get("credits_cost")
            if isinstance(cost, int | float) and not isinstance(cost, bool) and cost >= 0:
                costs[_route(item["route"])] = float(cost)
        return cls(costs)

    def lists(self, path: str) -> bool:
        """Whether the costs name ``path``, matched as :meth:`cost_of` matches it.

        >>> RouteCosts({"a/b": 0}).lists("/a/b/"), RouteCosts({"a/b": 0}).lists("/a/c")
        (True, False)
        """
        return self._listed(path) is not None

    def cost_of(self, path: str) -> float:
        """Credits one call of ``path`` costs: its listed cost, else 1.

        A listed route matches the whole path or its end, such as ``organization/enrich``.

        >>> costs = RouteCosts({"companies/company": 2.0})
        >>> costs.cost_of("/api/data/v1/companies/company"), costs.cost_of("/people/profile")
        (2.0, 1.0)
        """
        route = self._listed(path)
        return 1.0 if route is None else self.costs[route]

    def item_cost(self, lookup: Endpoint) -> float:
        """Credits one item of ``lookup``'s batch jobs costs as it resolves: its single call's
        for the Email API's (``batch_priced``), 1 for the Data API's.

        >>> from lookup_pandas.service.endpoints import ENDPOINTS
        >>> costs = RouteCosts({"emails/v1/verify": 2.0, "people/profile": 3.0})
        >>> costs.item_cost(ENDPOINTS["email_verify"]), costs.item_cost(ENDPOINTS["profile"])
        (2.0, 1.0)
        """
        return self.cost_of(lookup.path) if lookup.batch_priced else 1.0

    def _listed(self, path: str) -> str | None:
        """The listed route ``path`` matches (the whole path, else its end), or None."""
        wanted = _route(path)
        if wanted in self.costs:
            return wanted
        return next((r for r in self.costs if r and wanted.endswith("/" + r)), None)


@dataclass(frozen=True)
class Tier:
    """One rung of the ladder: ``min_credits`` to ``max_credits`` (None: no top).

    >>> str(Tier("Hobby", 0, 9999, 30))
    'Hobby (30/min)'
    """

    name: str
    min_credits: float
    max_credits: float | None
    limit_per_minute: float

    def __str__(self) -> str:
        return f"{self.name} ({self.limit_per_minute:g}/min)"


def parse_ladder(data: Any) -> tuple[Tier, ...]:
    """The tiers of the tiers endpoint's ``data``, lowest first.

    >>> tier = {"name": "Testing", "min_credits": 0, "max_credits": 99, "limit_per_minute": 7}
    >>> parse_ladder({"results": [tier]})
    (Tier(name='Testing', min_credits=0.0, max_credits=99.0, limit_per_minute=7.0),)
    """
    results = data.get("results") if isinstance(data, Mapping) else None
    if not isinstance(results, list):
        raise ResponseError("The tiers answer has no 'results' list.")
    tiers = []
    for item in results:
        try:
            top = item.get("max_credits")
            tiers.append(
                Tier(
                    name=str(item["name"]),
                    min_credits=float(item["min_credits"]),
                    max_credits=None if top is None else float(top),
                    limit_per_minute=float(item["limit_per_minute"]),
                )
            )
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ResponseError(f"A tier in the tiers answer is malformed: {item!r}") from None
    return tuple(sorted(tiers, key=lambda t: t.min_credits))


def tier_for(balance: float, ladder: Sequence[Tier]) -> Tier | None:
    """The tier a balance sits on: the highest whose ``min_credits`` it reaches.

    A balance below every tier sits on the lowest. No ladder gives None.

    >>> ladder = (Tier("Hobby", 0, 9999, 30), Tier("Developer", 10_000, None, 70))
    >>> tier_for(9_999.5, ladder).name, tier_for(-5, ladder).name, tier_for(1, ())
    ('Hobby', 'Hobby', None)
    """
    if not ladder:
        return None
    reached = [t for t in ladder if balance >= t.min_credits]
    return reached[-1] if reached else ladder[0]


def tier_change(ladder: Sequence[Tier], balance: float, spend: float) -> str | None:
    """Which tier a job that spends ``spend`` ends on, and after how many credits.

    None when the job stays on one tier.

    >>> ladder = (Tier("Hobby", 0, 9999, 30), Tier("Developer", 10_000, None, 70))
    >>> tier_change(ladder, 10_050, 100)
    'Developer (70/min) -> Hobby (30/min) after 51 credits'
    >>> tier_change(ladder, 10_050, 10) is None
    True
    """
    start, end = tier_for(balance, ladder), tier_for(balance - spend, ladder)
    if start is None or end is None or start == end:
        return None
    after = balance - start.min_credits + 1  # the first credit below the tier's floor
    return f"{start} -> {end} after {after:,.0f} credit{'s' * (after != 1)}"


def paced_seconds(
    calls: int,
    per_minute: float,
    *,
    cost: float = 1.0,
    balance: float | None = None,
    ladder: Sequence[Tier] = (),
    share: float = 0.95,
) -> float:
    """Seconds ``calls`` paced calls take at ``per_minute``.

    With the balance and ladder known, calls spent on a lower tier go at ``share`` of its limit.

    >>> paced_seconds(60, 60.0)
    60.0
    >>> ladder = (Tier("Hobby", 0, 9999, 30), Tier("Developer", 10_000, None, 70))
    >>> seconds = paced_seconds(100, 66.5, balance=10_050, ladder=ladder)
    >>> seconds == 51 * 60 / 66.5 + 49 * 60 / 28.5  # 51 calls on Developer, 49 on Hobby
    True
    """
    if balance is None or not ladder or cost <= 0:
        return calls * 60.0 / per_minute
    seconds, left, first = 0.0, calls, True
    while left > 0:
        tier = tier_for(balance, ladder)
        if tier is None:
            break
        # the tier the key is on now is paced at per_minute (learned); a lower one at its limit
        rate = per_minute if first else min(per_minute, share * tier.limit_per_minute) or per_minute
        first = False
        lowest = tier.min_credits <= ladder[0].min_credits
        here = (
            left
            if lowest
            else min(left, max(1, math.ceil((balance - tier.min_credits + 1) / cost)))
        )
        seconds += here * 60.0 / rate
        left -= here
        balance -= here * cost
    return seconds + left * 60.0 / per_minute
