"""The emulator's panel and public routes: the tier, the balances, route costs, the tier ladder.

Example::

    route_costs(state, req)   # {"count": 6, "routes": [{"route", "title", "description",
                              #  "credits_cost"}, ...]}: the routes whose cost is not 1

All free; the tier and the balances read the panel key, the costs and the ladder need none.
Which balance route answers depends on the workspace (``enterprise_limit_per_minute``): a
personal one reads ``BALANCE_PATH``, an enterprise one ``ENTERPRISE_BALANCE_PATH``; the other
answers 403 "Invalid API key".
"""

from __future__ import annotations

from ..service.credits import BALANCE_PATH
from ..service.endpoints import ENDPOINTS, is_batch
from ..service.paths import EMAILS_PREFIX
from .replies import Reply, Request, invalid_key, ok
from .state import ServiceState, route_key

__all__ = [
    "ENTERPRISE_BALANCE_PATH",
    "balance",
    "enterprise_balance",
    "route_costs",
    "tier",
    "tiers",
]

#: An enterprise workspace's balance (account-api.md), with the panel key header.
ENTERPRISE_BALANCE_PATH = BALANCE_PATH + "enterprise/"


def tier(state: ServiceState, req: Request) -> Reply:
    return ok(state.tier(), "Credits tier retrieved successfully")


def _balance(state: ServiceState) -> Reply:
    with state.lock:
        if state.jobs:
            state.settle_jobs()
        balance = state.balance
    return ok({"balance": balance}, "Credit balance retrieved successfully")


def balance(state: ServiceState, req: Request) -> Reply:
    """A personal workspace's balance; an enterprise key is refused here (see ``Knobs``)."""
    if state.knobs.enterprise_limit_per_minute is not None:
        return invalid_key()
    return _balance(state)


def enterprise_balance(state: ServiceState, req: Request) -> Reply:
    """An enterprise workspace's balance; a personal key is refused here (account-api.md)."""
    if state.knobs.enterprise_limit_per_minute is None:
        return invalid_key()
    return _balance(state)


#: Titles of the routes the default costs list (others are titled by their path).
_BATCH_NOTE = "Submit is free; each resolved item costs 1"
_ROUTE_TITLES = {
    route_key(ENDPOINTS[name].path): titles
    for name, titles in {
        "company": ("Company lookup", "One company's firmographics"),
        "people_batch": ("People batch enrich", _BATCH_NOTE),
        "companies_batch": ("Companies batch enrich", _BATCH_NOTE),
        "health": ("Data API health", "Liveness probe, free"),
        "skill": ("Skill lookup", "One skill by id"),
        "skills_search": ("Skills search", "Skills by name"),
        "email_verify": ("Email verify", "One address's deliverability, any verdict"),
        "email_find": ("Email find", "A work email from name and domain, found or not"),
        "email_find_profile": ("Email find by profile", "A work email from a profile URL"),
        "email_reverse": (
            "Email reverse",
            "The person and company behind an address; 3 when "
            "nothing is found, free when unsupported (422)",
        ),
        "verify_batch": ("Email verify batch", "Submit is free; each address costs a verify"),
        "find_batch": ("Email find batch", "Submit is free; each query costs a find"),
        "emails_health": ("Email API health", "Liveness probe, free"),
    }.items()
}


def route_costs(state: ServiceState, req: Request) -> Reply:
    """Public: the routes whose cost is not 1 (any route not listed costs 1)."""
    routes = []
    for route, cost in state.knobs.route_costs.items():
        if cost == 1 or (not state.knobs.batch and is_batch("/" + route)):
            continue  # a service without batch jobs does not list their routes
        if not state.knobs.emails and ("/" + route).startswith(EMAILS_PREFIX + "/"):
            continue  # nor one without the Email API its routes
        title, description = _ROUTE_TITLES.get(route, (route.rsplit("/", 1)[-1], ""))
        credits = int(cost) if float(cost).is_integer() else cost
        routes.append(
            {
                "route": "/" + route,
                "title": title,
                "description": description,
                "credits_cost": credits,
            }
        )
    return ok({"count": len(routes), "routes": routes}, "Route costs retrieved successfully")


def tiers(state: ServiceState, req: Request) -> Reply:
    """Public: the tier ladder, lowest first."""
    results = [
        {"id": n, **t.payload(), "credits_per_dollar": t.credits_per_dollar}
        for n, t in enumerate(state.knobs.ladder, start=1)
    ]
    return ok({"results": results}, "Tiers retrieved successfully")
