"""The emulator's routes: one request in, one reply out, exactly as the spec shapes them.

The route table (``ROUTES``) is keyed by the paths of
:data:`lookup_pandas.service.endpoints.ENDPOINTS`: the Data API's routes are in
:mod:`.data_routes`, the Email API's in :mod:`.email_routes`, the panel's in
:mod:`.panel_routes`; here is what every request goes through.

Example::

    reply = handle(state, Request("GET", "/api/data/v1/people/profile",
                                  (("handle", "ada"),), {"x-service-apikey": key}))
    reply.status, json.loads(reply.body)["data"]["handle"]        # 200, "ada"
    reply.headers["X-Credits-Consumed"]                           # "1": the route's cost

Order of checks, as production does: a panel path without its trailing slash (403 "Invalid
session"), an Email API path when the ``emails`` knob is off (404, health too), the key (401
missing; 403 "Invalid API key" whatever is wrong with it), the rate limit (429 with the wait in
``Retry-After`` and in ``errors.retry_after``; 403 "Rate limit exceeded" with
``rate_limit_as_403``), a test override, an injected fault, then the endpoint (400 on a bad
parameter, 200 otherwise; a lookup that finds nothing is 200 + success=false + error_code 1010 /
1020 / 1030, and billed; an opted-out or premium-gated person is a 403 with no error_code, not
billed; an address reverse does not take is a 422, not billed), then credits: a billable answer
costs its route's cost (or the cost it says: ``Reply.cost``), and one the balance cannot pay is a
402 ``1080`` "Insufficient credits" instead (a 403 with ``credits_403``), not billed.
``X-Credits-Consumed`` / ``X-Credits-Balance`` are sent where production charges only: on the
answers of billable Data API and Email API routes (a success, a billed not-found, a free repeat or
an empty prospects page with 0 consumed), never on errors, batch submits and polls (their items bill
as they resolve), the panel, the public routes or health. Public, no key, free: the health routes
(both APIs'), the route costs (``ROUTE_COSTS_PATH``, the costs that are not 1) and the tier ladder
(``TIERS_PATH``); with the panel key, free: the tier (``TIER``) and the balance (``BALANCE_PATH``,
or ``ENTERPRISE_BALANCE_PATH`` for an enterprise workspace).

Filters take production's names, from the one declaration per endpoint in
:mod:`lookup_pandas.service.endpoints` (the client checks requests against it too); parameters
the endpoint does not know are ignored, as production does. A free-text filter given with
fewer than 3 characters is a 400, as in production (a blank one filters nothing).
With the ``sparse_records`` knob every record sent is :func:`.data.thin`'s: lists are filtered
on the full records, then thinned.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from ..service.credits import BALANCE_PATH, ROUTE_COSTS_PATH, TIERS_PATH
from ..service.endpoints import ENDPOINTS
from ..service.paths import (
    EMAILS_HEALTH_PATH,
    EMAILS_PREFIX,
    EMPLOYEES_PATH,
    HEALTH_PATH,
    PROFILE_PATH,
    SEARCH_PATH,
    TIER_PATH,
)
from . import email_routes, panel_routes
from .data_routes import ROUTES_BY_NAME, insufficient_credits
from .panel_routes import ENTERPRISE_BALANCE_PATH
from .replies import DROP, BadRequest, Reply, Request, _json, fail, invalid_key, ok
from .state import RequestRecord, ServiceState, as_number, key_id

__all__ = ["EMPLOYEES", "HEALTH", "PROFILE", "ROUTES", "SEARCH", "STATS", "TIER", "handle", "stats"]

PROFILE = PROFILE_PATH
EMPLOYEES = EMPLOYEES_PATH
SEARCH = SEARCH_PATH
TIER = TIER_PATH
#: Free, and answered without a key (production's liveness probe of the Data API).
HEALTH = HEALTH_PATH
#: The emulator's own counters as JSON: outside the API's namespace, no key, never billed or
#: counted (see :func:`stats`).
STATS = "/_emulator/stats"
DATA_HEADER = "x-service-apikey"
PANEL_HEADER = "x-authapi-key"


#: The Data API's and the Email API's routes, keyed by their endpoints' paths (``ENDPOINTS``),
#: and the panel's.
ROUTES: dict[str, Callable[[ServiceState, Request], Reply]] = {
    **{ENDPOINTS[name].path: route for name, route in ROUTES_BY_NAME.items()},
    **{ENDPOINTS[name].path: route for name, route in email_routes.ROUTES_BY_NAME.items()},
    TIER: panel_routes.tier,
    BALANCE_PATH: panel_routes.balance,
    ENTERPRISE_BALANCE_PATH: panel_routes.enterprise_balance,
}
#: The liveness probes: answered without a key, free (GET only; a test may script them).
HEALTH_PATHS = frozenset({HEALTH, EMAILS_HEALTH_PATH})
#: Answered without a key, free and not rate-limited (GET only).
PUBLIC: dict[str, Callable[[ServiceState, Request], Reply]] = {
    ROUTE_COSTS_PATH: panel_routes.route_costs,
    TIERS_PATH: panel_routes.tiers,
}
#: Routes that read the panel key header (``X-AUTHAPI-Key``).
PANEL_ROUTES = frozenset({TIER, BALANCE_PATH, ENTERPRISE_BALANCE_PATH})
#: The panel routes without their trailing slash: production answers them 403 "Invalid session".
NO_SLASH = frozenset(path.rstrip("/") for path in PANEL_ROUTES)
#: The methods each route answers (others: 405, as production answers them).
METHODS = {e.path: ("GET", "POST") for e in ENDPOINTS.values() if e.kind == "batch"}


# -- the pipeline ------------------------------------------------------------------------------


def _fault_reply(kind: str) -> Reply:
    if kind == "drop":
        return DROP
    if kind == "502":
        html = (
            b"<html><head><title>502 Bad Gateway</title></head><body><center>"
            b"<h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
        )
        return Reply(502, html, {"Content-Type": "text/html"})
    if kind == "503":
        return fail(503, "Service temporarily unavailable", error_code="1072")
    return fail(500, "Internal server error")


def _as_reply(value: Reply | tuple[int, Any]) -> Reply:
    if isinstance(value, Reply):
        return value
    status, body = value
    if isinstance(body, bytes | str):
        raw = body.encode() if isinstance(body, str) else body
        return Reply(status, raw, {"Content-Type": "text/plain"})
    return _json(status, body)


def _route(state: ServiceState, req: Request) -> Reply:
    if req.path in NO_SLASH:  # account-api.md: ".../balance/k (no slash) returns Invalid session"
        return fail(403, "Invalid session")
    if req.path.startswith(EMAILS_PREFIX + "/") and not state.knobs.emails:
        return fail(404, f"No endpoint at {req.path}")
    route = ROUTES.get(req.path)
    if req.path in HEALTH_PATHS and req.method == "GET":  # no key: production's liveness probe
        scripted = state.overrides.get(req.path)
        answer = scripted(req) if scripted is not None else None
        return _as_reply(answer) if answer is not None else ok({"status": "ok"}, "Healthy")
    public = PUBLIC.get(req.path)
    if public is not None:
        if req.method != "GET":
            return fail(405, f"Method {req.method} not allowed")
        return public(state, req)
    if route is None or (req.path in METHODS and not state.knobs.batch):
        return fail(404, f"No endpoint at {req.path}")
    if req.method not in METHODS.get(req.path, ("GET",)):
        return fail(405, f"Method {req.method} not allowed")
    panel = req.path in PANEL_ROUTES
    key = req.headers.get(PANEL_HEADER if panel else DATA_HEADER)
    if not key:
        return fail(401, "API key is required")
    if state.check_key(key) is not None:  # its reason stays the emulator's
        return invalid_key()
    # The tier's per-minute limit is the Data API's: the account routes are not counted
    # against it (the client reads its tier after a 429, which must not meet another).
    wait = 0.0 if panel else state.admit(key)
    if wait > 0:
        return _rate_limited(state, wait)
    override = state.overrides.get(req.path)
    if override is not None:
        scripted = override(req)
        if scripted is not None:
            return _as_reply(scripted)
    fault = state.draw_fault()
    if fault is not None:
        reply = _fault_reply(fault)
        reply.fault = fault
        return reply
    try:
        return route(state, req)
    except BadRequest as exc:
        return fail(400, "Validation failed", errors=exc.errors, error_code="VALIDATION_ERROR")


def _rate_limited(state: ServiceState, wait: float) -> Reply:
    """A 429 (a 403 with ``rate_limit_as_403``): the tier, its limit and the wait in whole
    seconds in ``errors``, the same wait in ``Retry-After``."""
    limit = state.limit_per_minute()
    seconds = state.retry_after(wait)
    as_403 = state.knobs.rate_limit_as_403
    errors = {
        "current_tier": state.tier_name(),
        "current_limit": None if limit is None else as_number(limit),
        "retry_after": seconds,
    }
    return fail(
        403 if as_403 else 429,
        "Rate limit exceeded" if as_403 else "Rate limit exceeded; slow down",
        errors=errors,
        **{"Retry-After": str(seconds)},
    )


def _repeat(req: Request, key: str | None) -> tuple[str, str, tuple[tuple[str, str], ...], str]:
    """What makes a request the same one again: method, path, query (in any order) and key."""
    return req.method, req.path, tuple(sorted(req.params)), key_id(key or "")


def stats(state: ServiceState) -> dict[str, Any]:
    """What the emulator saw and billed since its last reset, as ``serve`` prints it.

    Example: ``stats(state)["billed_calls"]`` is 1 after one profile lookup. ``requests``:
    requests answered (any status; not this route's); ``billed_calls``: billed requests;
    ``billed_batch_items``: batch items billed as they resolved; ``credits``: the balance spent;
    ``distinct_handles``: handles billed at least once; ``rate_limited``: answers 429.
    ``credits`` is what was paid (top-ups with ``configure(balance=)`` do not change it).
    """
    with state.lock:  # one consistent snapshot (the lock is re-entrant)
        state.settle_jobs()
        records = list(state.records)
        return {
            "requests": sum(not r.item for r in records),
            "billed_calls": sum(r.billed and not r.item for r in records),
            "billed_batch_items": sum(r.billed and r.item for r in records),
            "credits": float(sum(r.credits for r in records)),
            "distinct_handles": len(state.billed_handles()),
            "rate_limited": sum(r.status == 429 and not r.item for r in records),
            "balance": state.balance,
        }


def handle(state: ServiceState, req: Request) -> Reply:
    """Answer ``req``: route it, bill it (its route's cost, 0 for a free repeat; 402 when the
    balance cannot pay), stamp the headers (the credits' on billable answers only), and count
    it (with the time and the short hash of the key it carried: the header its endpoint reads,
    else the other).
    ``GET /_emulator/stats`` answers :func:`stats` as JSON, unbilled and uncounted."""
    if req.path == STATS:
        if req.method not in ("GET", "HEAD"):
            return _json(405, {"error": f"Method {req.method} not allowed"})
        return _json(200, stats(state), **{"Cache-Control": "no-store"})
    at = time.monotonic()
    panel = req.path in PANEL_ROUTES
    header = (PANEL_HEADER, DATA_HEADER) if panel else (DATA_HEADER, PANEL_HEADER)
    sent = req.headers.get(header[0]) or req.headers.get(header[1])
    reply = _route(state, req)
    cost = 0.0
    if reply is not DROP:
        if reply.billed:  # a billable Data API answer: it carries the credits' headers
            paid = state.pay(req.path, _repeat(req, sent), at, cost=reply.cost)
            if paid is None:  # the balance cannot pay this route's cost
                reply = insufficient_credits(state)
            else:
                cost, balance = paid
                reply.billed = cost > 0  # a free route, or a free repeat: nothing billed
                reply.headers["X-Credits-Consumed"] = f"{cost:g}"
                reply.headers["X-Credits-Balance"] = f"{balance:g}"
        reply.headers.setdefault("X-Request-Id", "req_" + uuid.uuid4().hex[:16])
    state.record(
        RequestRecord(
            req.path,
            req.params,
            reply.status,
            reply.billed,
            reply.fault,
            method=req.method,
            key_id=key_id(sent) if sent else None,
            at=at,
            credits=cost,
        )
    )
    return reply
