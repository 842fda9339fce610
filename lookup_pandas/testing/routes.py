"""The emulator's routes: one request in, one reply out, exactly as the spec shapes them.

Example::

    reply = handle(state, Request("GET", "/api/data/v1/people/profile",
                                  (("handle", "ada"),), {"x-service-apikey": key}))
    reply.status, json.loads(reply.body)["data"]["handle"]        # 200, "ada"
    reply.headers["X-Credits-Consumed"]                           # "1": the route's cost

Order of checks, as production does: the key (401 / 403), the rate limit (429; 403 "Rate
limit exceeded" with ``rate_limit_as_403``), a test override, an injected fault, then the
endpoint (400 on a bad parameter, 200 otherwise; a lookup that finds nothing is 200 +
success=false + error_code 1010 / 1020, and billed; an opted-out or premium-gated person is a
403 with no error_code, not billed), then credits: a billable answer costs its route's cost,
and one the balance cannot pay is a 402 ``1080`` "Insufficient credits" instead (a 403 with
``credits_403``), not billed. Public, no key, free: the health route, the route costs
(``ROUTE_COSTS_PATH``, the costs that are not 1) and the tier ladder (``TIERS_PATH``); with the
panel key, free: the tier (``TIER``) and the balance (``BALANCE_PATH``).

Filters take production's names (see :mod:`.data` for what each matches); parameters the
endpoint does not know are ignored, as production does. Search: ``title`` (required),
``first_name``, ``last_name``, ``headline``, ``summary``, ``geo_city``, ``geo_country_code``,
``organization_slugs`` and ``skills`` (comma-separated), ``skills_match`` (``all`` | ``any``),
``current_only`` (``false``). Employees: ``current_only`` (``true``), ``title``,
``geo_country_code``, ``geo_city``, ``start_year``, ``start_month``, ``sort`` (``newest`` |
``oldest`` | ``recently_left``). The names come from the one declaration per endpoint in
:mod:`lookup_pandas.endpoints` (the client checks requests against it too); a declared filter
the data store does not model is ignored like an unknown one. A free-text filter given with
fewer than 3 characters is a 400, as in production (a blank one filters nothing). A cursor is
bound to every parameter that shapes its list.
With the ``sparse_records`` knob every record sent is :func:`.data.thin`'s: lists are filtered
on the full records, then thinned.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import inspect
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..credits import BALANCE_PATH, ROUTE_COSTS_PATH, TIERS_PATH
from ..endpoints import EMPLOYEES as EMPLOYEES_LISTING
from ..endpoints import SEARCH as SEARCH_LISTING
from ..endpoints import Listing
from ..filters import MIN_TEXT
from . import data
from .batch import BATCH, MAX_ITEMS, BatchJob
from .state import RequestRecord, ServiceState, key_id, route_key

__all__ = [
    "BALANCE_PATH",
    "DROP",
    "ROUTE_COSTS_PATH",
    "Reply",
    "Request",
    "TIERS_PATH",
    "decode_cursor",
    "encode_cursor",
    "handle",
    "stats",
]

PROFILE = "/api/data/v1/people/profile"
EMPLOYEES = "/api/data/v1/companies/employees"
SEARCH = "/api/data/v1/people/search"
TIER = "/api/panel/credits/tier/k/"
#: Free, and answered without a key (production's liveness probe of the Data API).
HEALTH = "/api/data/v1/health"
#: The emulator's own counters as JSON: outside the API's namespace, no key, never billed or
#: counted (see :func:`stats`).
STATS = "/_emulator/stats"
DATA_HEADER = "x-service-apikey"
PANEL_HEADER = "x-authapi-key"
MAX_LIMIT, DEFAULT_LIMIT = 50, 20


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: tuple[tuple[str, str], ...]
    headers: Mapping[str, str]  # lower-cased names
    body: bytes = b""

    def param(self, name: str) -> str | None:
        for k, v in self.params:
            if k == name:
                return v
        return None


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    billed: bool = False
    fault: str | None = None


#: The reply that closes the connection without an answer.
DROP = Reply(0, b"", fault="drop")

#: A test hook: given the request, return a Reply (or a (status, body) pair) to send instead.
Override = Callable[[Request], "Reply | tuple[int, Any] | None"]


class BadRequest(Exception):
    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(reason)
        self.errors = {field_name: reason}


# -- envelopes ---------------------------------------------------------------------------------


def _json(status: int, body: Any, **headers: str) -> Reply:
    return Reply(status, json.dumps(body).encode(), {"Content-Type": "application/json", **headers})


def ok(
    payload: Any, message: str, pagination: dict[str, Any] | None = None, *, status: int = 200
) -> Reply:
    body: dict[str, Any] = {
        "success": True,
        "statusCode": status,
        "message": message,
        "errors": None,
        "data": payload,
    }
    if pagination is not None:
        body["pagination"] = pagination
    return _json(status, body)


def fail(
    status: int, message: str, *, errors: Any = None, error_code: str | None = None, **headers: str
) -> Reply:
    body: dict[str, Any] = {"success": False, "message": message, "errors": errors, "data": None}
    if error_code is not None:
        body["error_code"] = error_code
    return _json(status, body, **headers)


# -- cursors: opaque, and always holding characters that need URL-encoding (+ / =) ------------

_CURSOR_SECRET = b"lookup-pandas-emulator"
_CURSOR_PREFIX = b"\xfb\xff"  # base64 "+/": every cursor starts with two characters to escape


def encode_cursor(offset: int, scope: str) -> str:
    payload = f"{offset}|{scope}".encode()
    mac = hmac.new(_CURSOR_SECRET, payload, hashlib.sha256).digest()[:6]
    raw = _CURSOR_PREFIX + mac + payload
    if len(raw) % 3 == 0:
        raw += b"\x00"  # keep a "=" of padding in every cursor
    return base64.b64encode(raw).decode()


def decode_cursor(cursor: str, scope: str) -> int:
    """The offset in ``cursor``; BadRequest when it was altered or belongs to another query."""
    try:
        raw = base64.b64decode(cursor.encode(), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise BadRequest("cursor", "malformed cursor") from None
    if not raw.startswith(_CURSOR_PREFIX):
        raise BadRequest("cursor", "malformed cursor")
    mac, payload = raw[2:8], raw[8:].rstrip(b"\x00")
    expected = hmac.new(_CURSOR_SECRET, payload, hashlib.sha256).digest()[:6]
    if not hmac.compare_digest(mac, expected):
        raise BadRequest("cursor", "malformed cursor")
    offset_s, _, cursor_scope = payload.decode().partition("|")
    if cursor_scope != scope:
        raise BadRequest("cursor", "cursor does not belong to this query")
    return int(offset_s)


# -- parameters --------------------------------------------------------------------------------


def _int(req: Request, name: str, default: int, lo: int, hi: int | None = None) -> int:
    raw = req.param(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = lo - 1
    if value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
        raise BadRequest(name, f"must be an integer {bound}")
    return value


def _required(req: Request, name: str) -> str:
    value = req.param(name)
    if value is None or not value.strip():
        raise BadRequest(name, "is required")
    return value


def _given(req: Request, name: str) -> str | None:
    """The parameter's value, or None when absent or blank (a blank filter filters nothing)."""
    value = req.param(name)
    return value if value is not None and value.strip() else None


def _bool(req: Request, name: str, default: bool) -> bool:
    value = _given(req, name)
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered not in ("true", "false"):
        raise BadRequest(name, "must be true or false")
    return lowered == "true"


def _choice(req: Request, name: str, choices: tuple[str, ...]) -> str | None:
    value = _given(req, name)
    if value is None:
        return None
    if value.strip().lower() not in choices:
        raise BadRequest(name, "must be one of " + ", ".join(choices))
    return value.strip().lower()


def _scope(kind: str, *parts: Any) -> str:
    """A cursor's scope: the endpoint and every parameter that shapes the list."""
    return f"{kind}:" + hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def _shown(state: ServiceState, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records as sent: thinned in the sparse-records mode, else as they are."""
    if state.knobs.sparse_records:
        return [data.thin(r) for r in records]
    return records


# -- endpoints ---------------------------------------------------------------------------------


def _profile(state: ServiceState, req: Request) -> Reply:
    handle_ = _required(req, "handle")
    record = data.person(handle_)
    refused = state.knobs.forbidden(handle_, record["id"] if record else None)
    if refused is not None:
        return fail(403, refused)  # about this one record: no error_code, not billed
    if record is None:
        reply = fail(200, "Profile not found", error_code="1010")
    else:
        reply = ok(_shown(state, [record])[0], "Profile retrieved successfully")
    reply.billed = True
    return reply


def _slice(records: Sequence[dict[str, Any]], start: int, limit: int) -> tuple[list[Any], bool]:
    page = list(records[start : start + limit])
    return page, start + limit < len(records)


#: Filters parsed by type below; every other declared filter the data store models is text.
_TYPED = frozenset({"current_only", "start_year", "start_month", "sort", "skills_match"})


def _passed_as_text(listing: Listing, store: Callable[..., Any]) -> tuple[str, ...]:
    """The filters of ``listing`` (declared once, in lookup_pandas.endpoints) that the data
    store's ``store`` function models and that are passed to it as given: no second list.
    A declared filter the store does not model is ignored, as any unknown parameter is."""
    keywords = inspect.signature(store).parameters
    return tuple(
        n for n in listing.filters if n in keywords and n not in _TYPED and n != listing.required
    )


def _texts(req: Request, listing: Listing, names: tuple[str, ...]) -> dict[str, str]:
    """The ``names`` given (blank ones are not), each free-text one 3+ characters, else 400."""
    given = {k: v for k in names if (v := _given(req, k))}
    for name in (listing.required, *given):
        value = req.param(name)
        if name in listing.text and value and 0 < len(value.strip()) < MIN_TEXT:
            raise BadRequest(name, f"must be at least {MIN_TEXT} characters")
    return given


def _query(
    req: Request, listing: Listing, names: tuple[str, ...]
) -> tuple[str, int, dict[str, Any]]:
    """What every listing reads first: its required parameter, ``limit`` (1-50) and the text
    filters given among ``names``; each refused with a 400 as production refuses it."""
    required = _required(req, listing.required)
    return required, _int(req, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT), _texts(req, listing, names)


#: The employees endpoint's text filters (production's names); unknown parameters are ignored.
_EMPLOYEE_TEXT_FILTERS = _passed_as_text(EMPLOYEES_LISTING, data.employee_records)


def _employees(state: ServiceState, req: Request) -> Reply:
    slug, limit, filters = _query(req, EMPLOYEES_LISTING, _EMPLOYEE_TEXT_FILTERS)
    filters["current_only"] = _bool(req, "current_only", True)
    if _given(req, "start_year") is not None:
        filters["start_year"] = _int(req, "start_year", 0, 1900, 2100)
    if _given(req, "start_month") is not None:
        filters["start_month"] = _int(req, "start_month", 0, 1, 12)
    filters["sort"] = _choice(req, "sort", data.EMPLOYEE_SORTS)
    records = data.employee_records(slug, **filters)
    if records is None:
        reply = fail(200, "Company not found", error_code="1020")
        reply.billed = True
        return reply
    scope = f"employees:{slug}:{limit}:" + _scope("f", sorted(filters.items()))
    if req.param("start") is not None:
        start = _int(req, "start", 0, 0)
        page, more = _slice(records, start, limit)
        pagination: dict[str, Any] = {"start": start, "limit": limit, "has_more": more}
    elif state.knobs.employees_style == "cursor" or req.param("cursor") is not None:
        cursor = req.param("cursor")
        start = decode_cursor(cursor, scope) if cursor else 0
        page, more = _slice(records, start, limit)
        pagination = {
            "limit": limit,
            "has_more": more,
            "next_cursor": encode_cursor(start + limit, scope) if more else "",
        }
    else:
        page_no = _int(req, "page", 1, 1)
        page, more = _slice(records, (page_no - 1) * limit, limit)
        pagination = {"page": page_no, "limit": limit, "has_more": more}
    reply = ok(_shown(state, page), "Employees retrieved successfully", pagination)
    reply.billed = True
    return reply


#: The search endpoint's text filters besides ``title`` (production's names).
_SEARCH_TEXT_FILTERS = _passed_as_text(SEARCH_LISTING, data.search_records)


def _search(state: ServiceState, req: Request) -> Reply:
    title, limit, filters = _query(req, SEARCH_LISTING, _SEARCH_TEXT_FILTERS)
    filters["skills_match"] = _choice(req, "skills_match", data.SKILLS_MATCH) or "all"
    filters["current_only"] = _bool(req, "current_only", False)
    scope = _scope("search", title, limit, sorted(filters.items()))
    cursor = req.param("cursor")
    start = decode_cursor(cursor, scope) if cursor is not None else 0
    page, more = _slice(data.search_records(title, **filters), start, limit)
    pagination = {
        "limit": limit,
        "has_more": more,
        "next_cursor": encode_cursor(start + limit, scope) if more else "",
    }
    reply = ok(_shown(state, page), "Search completed successfully", pagination)
    reply.billed = True
    return reply


def _tier(state: ServiceState, req: Request) -> Reply:
    return ok(state.tier(), "Credits tier retrieved successfully")


def _balance(state: ServiceState, req: Request) -> Reply:
    with state.lock:
        if state.jobs:
            state.settle_jobs()
        balance = state.balance
    return ok({"balance": balance}, "Credit balance retrieved successfully")


#: Titles of the routes the default costs list (others are titled by their path).
_ROUTE_TITLES = {
    "api/data/v1/companies/company": ("Company lookup", "One company's firmographics"),
    route_key(BATCH): ("People batch enrich", "Submit is free; each resolved item costs 1"),
    "api/data/v1/companies/batch/enrich": (
        "Companies batch enrich",
        "Submit is free; each resolved item costs 1",
    ),
    route_key(HEALTH): ("Data API health", "Liveness probe, free"),
    "api/data/v1/skills/skill": ("Skill lookup", "One skill by id"),
    "api/data/v1/skills/search": ("Skills search", "Skills by name"),
}


def _route_costs(state: ServiceState, req: Request) -> Reply:
    """Public: the routes whose cost is not 1 (any route not listed costs 1)."""
    routes = []
    for route, cost in state.knobs.route_costs.items():
        if cost == 1:
            continue
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


def _tiers(state: ServiceState, req: Request) -> Reply:
    """Public: the tier ladder, lowest first."""
    results = [
        {"id": n, **t.payload(), "credits_per_dollar": t.credits_per_dollar}
        for n, t in enumerate(state.knobs.ladder, start=1)
    ]
    return ok({"results": results}, "Tiers retrieved successfully")


def insufficient_credits(state: ServiceState) -> Reply:
    """What a cost the balance cannot pay is answered: 402 ``1080``, or with ``credits_403``
    a 403 about credits (auth-layer: no error_code)."""
    if state.knobs.credits_403:
        return fail(403, "Insufficient credits to complete this request")
    return fail(402, "Insufficient credits", error_code="1080")


def _batch(state: ServiceState, req: Request) -> Reply:
    """POST submits a job (202, nothing billed yet); GET tracks one, a page of results at a
    time (never billed: its items are billed as they resolve, collected or not)."""
    key = req.headers.get(DATA_HEADER, "")
    if req.method == "POST":
        handles, ids = _batch_inputs(req.body)
        with state.lock:
            if state.jobs:
                state.settle_jobs()
            broke = state.balance < 1.0
        if broke:  # the pre-check: not even one item can be paid
            return insufficient_credits(state)
        knobs = state.knobs
        submitted = BatchJob.submit(
            handles,
            ids=ids,
            key=key,
            now=time.monotonic(),
            error_rate=knobs.batch_error_rate,
            forbidden=lambda item, person_id: knobs.forbidden(item, person_id) is not None,
        )
        state.add_job(submitted)
        return ok({"job_id": submitted.job_id}, "Batch job accepted", status=202)
    job_id = _required(req, "job_id")
    after = _int(req, "after", 0, 0)
    now = time.monotonic()
    state.settle_jobs(now)
    job = state.job(job_id, key, now)
    if job is None:
        return fail(404, "Batch job not found or expired", error_code="1090")
    processed = job.processed(now, state.knobs.batch_resolve_rate)
    items, next_cursor = job.page(after, state.knobs.batch_page_size, processed)
    found = [(i, data.person(i)) for i, outcome in items if outcome == "ok"]
    records = _shown(state, [r for _, r in found if r is not None])
    done = job.outcomes[:processed]
    payload = {
        "status": "completed" if processed == job.total else "processing",
        "total": job.total,
        "resolved": sum(o != "error" for o in done),
        "errors": done.count("error"),
        "next_cursor": next_cursor,
        "not_found": [i for i, outcome in items if outcome == "not_found"],
        "profiles": {i: r for (i, _), r in zip(found, records, strict=True)},
    }
    return ok(payload, "Batch job status")


def _batch_inputs(body: bytes) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``handles`` and ``ids`` of a submit body; BadRequest unless 1 to 1,000 strings."""
    try:
        parsed = json.loads(body or b"null")
    except ValueError:
        raise BadRequest("body", "must be a JSON object") from None
    if not isinstance(parsed, dict):
        raise BadRequest("body", "must be a JSON object")
    lists = {name: parsed.get(name) or [] for name in ("handles", "ids")}
    for name, items in lists.items():
        if not isinstance(items, list) or not all(isinstance(i, str) and i.strip() for i in items):
            raise BadRequest(name, "must be a list of non-empty strings")
    total = len(lists["handles"]) + len(lists["ids"])
    if not 1 <= total <= MAX_ITEMS:
        raise BadRequest("handles", f"1 to {MAX_ITEMS} items in all (ids and handles)")
    return tuple(lists["handles"]), tuple(lists["ids"])


ROUTES: dict[str, Callable[[ServiceState, Request], Reply]] = {
    PROFILE: _profile,
    EMPLOYEES: _employees,
    SEARCH: _search,
    TIER: _tier,
    BALANCE_PATH: _balance,
    BATCH: _batch,
}
#: Answered without a key, free and not rate-limited (GET only).
PUBLIC: dict[str, Callable[[ServiceState, Request], Reply]] = {
    ROUTE_COSTS_PATH: _route_costs,
    TIERS_PATH: _tiers,
}
#: Routes that read the panel key header (``X-AUTHAPI-Key``).
PANEL_ROUTES = frozenset({TIER, BALANCE_PATH})
#: The methods each route answers (others: 405, as production answers them).
METHODS = {BATCH: ("GET", "POST")}


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
    route = ROUTES.get(req.path)
    if req.path == HEALTH and req.method == "GET":  # no key: production's liveness probe
        scripted = state.overrides.get(HEALTH)
        answer = scripted(req) if scripted is not None else None
        return _as_reply(answer) if answer is not None else ok({"status": "ok"}, "Healthy")
    public = PUBLIC.get(req.path)
    if public is not None:
        if req.method != "GET":
            return fail(405, f"Method {req.method} not allowed")
        return public(state, req)
    if route is None or (route is _batch and not state.knobs.batch):
        return fail(404, f"No endpoint at {req.path}")
    if req.method not in METHODS.get(req.path, ("GET",)):
        return fail(405, f"Method {req.method} not allowed")
    panel = req.path in PANEL_ROUTES
    key = req.headers.get(PANEL_HEADER if panel else DATA_HEADER)
    if not key:
        return fail(401, "API key is required")
    reason = state.check_key(key)
    if reason is not None:
        return fail(403, reason)
    # The tier's per-minute limit is the Data API's: the account routes are not counted
    # against it (the client reads its tier after a 429, which must not meet another).
    wait = 0.0 if panel else state.admit(key)
    if wait > 0:
        limit = state.limit_per_minute()
        as_403 = state.knobs.rate_limit_as_403
        return fail(
            403 if as_403 else 429,
            "Rate limit exceeded" if as_403 else "Rate limit exceeded; slow down",
            errors={"current_tier": state.tier()["current_tier"]["name"], "current_limit": limit},
            **{"Retry-After": str(state.retry_after(wait))},
        )
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
    """Answer ``req``: route it, bill it (its route's cost; 402 when the balance cannot pay),
    stamp the headers, and count it (with the time and the short hash of the key it carried:
    the header its endpoint reads, else the other).
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
        balance: float | None = state.balance
        if reply.billed:
            cost = state.cost_of(req.path)
            balance = state.charge(cost) if cost > 0 else state.balance
            if balance is None:  # the balance cannot pay this route's cost
                reply, cost, balance = insufficient_credits(state), 0.0, state.balance
            elif cost <= 0:
                reply.billed = False  # a free route: nothing to bill
        reply.headers.setdefault("X-Request-Id", "req_" + uuid.uuid4().hex[:16])
        reply.headers["X-Credits-Consumed"] = f"{cost:g}"
        reply.headers["X-Credits-Balance"] = f"{balance:g}"
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
