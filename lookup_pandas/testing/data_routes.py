"""The emulator's Data API routes: people, companies, batch jobs, institutions, skills, job changes.

Example::

    reply = ROUTES_BY_NAME["company"](state, Request("GET", COMPANY_PATH, (("slug", "acme"),), {}))
    json.loads(reply.body)["data"]["employee_count"]        # 137; reply.billed is True

Each route is named as its endpoint in :data:`lookup_pandas.service.endpoints.ENDPOINTS` (the route
table in :mod:`.routes` is keyed by those endpoints' paths) and reads its query by the endpoint's
:class:`~lookup_pandas.service.listings.Listing`: the required parameter, ``limit`` 1-50, and every
declared filter in one parse by its kind (:func:`.replies.parse_query`: free text of 3+ characters,
two-letter codes, true / false, whole numbers within bounds, choices; a lowest above its highest is
refused too), unknown parameters ignored, as production ignores them. The declared filters given go
to the data store as they were parsed (:mod:`.lists` and :mod:`.catalog` say what each matches).
Lookups take an id parameter (``id=org_…``) or the key (``handle=``, ``slug=``); one that finds
nothing is 200 + success=false + the endpoint's not-found code, billed; an opted-out or
premium-gated person is a 403 with no error_code, not billed. People search and companies search are
cursor lists (``{limit, has_more, next_cursor}``, the cursor bound to every parameter that shapes
the list); employees are page-based or cursor lists (``employees_style``; production documents no
offset, so ``start`` is ignored); the others page-based (``{page, limit, has_more}``). Batch jobs:
both batch paths, one machinery (:mod:`.batch`), results under the lookup endpoint's ``results``
key; :func:`submit_job` and :func:`job_page` are every kind's, the Email API's too
(:mod:`.email_routes`). People who moved (``state.world``, :mod:`.moves`) are shown as they are now
by every people route, and their events join the job-change feed (:func:`.catalog.job_feed`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..service.endpoints import ENDPOINTS, Endpoint
from ..service.listings import Listing
from . import catalog, data
from . import company_records as companies
from .batch import KINDS, MAX_ITEMS, BatchJob
from .moves import Moves
from .replies import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    BadRequest,
    Reply,
    Request,
    _given,
    _int,
    _required,
    _scope,
    _slice,
    cursor_page_of,
    decode_cursor,
    encode_cursor,
    fail,
    ok,
    page_of,
    parse_query,
)
from .state import ServiceState

__all__ = [
    "ROUTES_BY_NAME",
    "JobPage",
    "insufficient_credits",
    "job_page",
    "lookup_param",
    "shown",
    "submit_job",
]

DATA_HEADER = "x-service-apikey"
Route = Callable[[ServiceState, Request], Reply]


def shown(
    state: ServiceState, records: list[dict[str, Any]], keep: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """The records as sent: thinned in the sparse-records mode (``keep`` kept), else as they are."""
    if state.knobs.sparse_records:
        return [data.thin(r, keep) for r in records]
    return records


def insufficient_credits(state: ServiceState) -> Reply:
    """What a cost the balance cannot pay is answered: 402 ``1080``, or with ``credits_403``
    a 403 about credits (auth-layer: no error_code)."""
    if state.knobs.credits_403:
        return fail(403, "Insufficient credits to complete this request")
    return fail(402, "Insufficient credits", error_code="1080")


def lookup_param(req: Request, endpoint: Endpoint) -> tuple[str, str]:
    """(parameter, value) a lookup was asked by: an id parameter when given, else the key;
    400 naming the key (the id parameter when there is none) when neither is."""
    names = [param for _, param in endpoint.ids] + ([endpoint.key] if endpoint.key else [])
    for name in names:
        value = _given(req, name)
        if value is not None:
            return name, value
    raise BadRequest(endpoint.key or names[0], "is required")


def _billed(reply: Reply) -> Reply:
    reply.billed = True
    return reply


def _not_found(endpoint: Endpoint, what: str) -> Reply:
    return _billed(fail(200, f"{what} not found", error_code=endpoint.not_found))


def _listing(name: str) -> Listing:
    listing = ENDPOINTS[name].listing
    assert listing is not None, name
    return listing


# -- people ------------------------------------------------------------------------------------


def _profile(state: ServiceState, req: Request) -> Reply:
    endpoint = ENDPOINTS["profile"]
    param, value = lookup_param(req, endpoint)
    found = data.person(value) if param == "handle" else data.person_by_id(value)
    record = state.world.current(found)  # a mover's record as it is now
    names = (record["id"], record["handle"]) if record else ()
    refused = state.knobs.forbidden(value, *names)
    if refused is not None:
        return fail(403, refused)  # about this one record: no error_code, not billed
    if record is None:
        return _not_found(endpoint, "Profile")
    return _billed(ok(shown(state, [record])[0], "Profile retrieved successfully"))


def _employees(state: ServiceState, req: Request) -> Reply:
    """A company's employees, page-based or by cursor: the client's choice (a ``cursor``), or
    the ``employees_style`` knob's. Production documents no offset: ``start`` is ignored."""
    listing = _listing("employees")
    slug = _required(req, listing.required)
    limit = _int(req, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    filters = parse_query(req, listing)
    world = state.world
    records = data.employee_records(slug, moved=world.records, joined=world.joined(slug),
                                    **filters)  # fmt: skip
    if records is None:
        return _not_found(ENDPOINTS["company"], "Company")
    scope = f"employees:{slug}:{limit}:" + _scope("f", sorted(filters.items()))
    if state.knobs.employees_style == "cursor" or req.param("cursor") is not None:
        cursor = req.param("cursor")
        start = decode_cursor(cursor, scope) if cursor else 0
        page, more = _slice(records, start, limit)
        next_cursor = encode_cursor(start + limit, scope) if more else ""
        pagination: dict[str, Any] = {"limit": limit, "has_more": more, "next_cursor": next_cursor}
    else:
        page, pagination = page_of(req, records)
    return _billed(ok(shown(state, page), "Employees retrieved successfully", pagination))


def _people_search(state: ServiceState, req: Request) -> Reply:
    """People search: every filter optional (none: the whole population), cursor pages."""
    limit = _int(req, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    filters = parse_query(req, _listing("people_search"))
    scope = _scope("search", limit, sorted(filters.items()))
    world = state.world
    found = data.search_records(moved=world.records, events=world.events, **filters)
    page, pagination = cursor_page_of(req, found, scope, limit)
    return _billed(ok(shown(state, page), "Search completed successfully", pagination))


# -- companies ---------------------------------------------------------------------------------


def _company(state: ServiceState, req: Request) -> Reply:
    endpoint = ENDPOINTS["company"]
    param, value = lookup_param(req, endpoint)
    record = companies.company(value) if param == endpoint.key else companies.company_by_id(value)
    if record is None:
        return _not_found(endpoint, "Company")
    return _billed(ok(shown(state, [record])[0], "Company retrieved successfully"))


def _companies_search(state: ServiceState, req: Request) -> Reply:
    listing = _listing("companies_search")
    filters = parse_query(req, listing)
    if not any(filters.get(n) for n in listing.one_of):
        raise BadRequest(listing.one_of[0], " or ".join(listing.one_of) + " is required")
    limit = _int(req, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    scope = _scope("companies", limit, sorted(filters.items()))
    page, pagination = cursor_page_of(req, companies.search_companies(**filters), scope, limit)
    return _billed(ok(shown(state, page), "Search completed successfully", pagination))


# -- institutions, skills, job changes ---------------------------------------------------------


def _listed(state: ServiceState, req: Request, records: Sequence[dict[str, Any]], what: str,
            keep: tuple[str, ...] = ()) -> Reply:  # fmt: skip
    page, pagination = page_of(req, records)
    return _billed(ok(shown(state, page, keep), f"{what} retrieved successfully", pagination))


def _one_record(name: str, find: Callable[[str], dict[str, Any] | None], what: str) -> Route:
    """The route of endpoint ``name`` that answers one record: ``find(value)`` of its lookup
    parameter, or the endpoint's not-found answer (``_one_record("skill", ..., "Skill")``)."""
    endpoint = ENDPOINTS[name]

    def route(state: ServiceState, req: Request) -> Reply:
        _, value = lookup_param(req, endpoint)
        record = find(value)
        if record is None:
            return _not_found(endpoint, what)
        return _billed(ok(record, f"{what} retrieved successfully"))

    return route


def _by_name(name: str, search: Callable[[str], list[dict[str, Any]]], what: str) -> Route:
    """The route of list endpoint ``name`` whose one parameter is ``name`` (3+ characters):
    ``search(name)``, page by page (``_by_name("skills_search", ..., "Skills")``)."""
    listing = _listing(name)

    def route(state: ServiceState, req: Request) -> Reply:
        parse_query(req, listing)
        return _listed(state, req, search(_required(req, listing.required)), what)

    return route


def _alumni(state: ServiceState, req: Request) -> Reply:
    listing = _listing("alumni")
    name = _required(req, listing.required)
    records = catalog.alumni(name, **parse_query(req, listing))
    if records is None:
        return _not_found(ENDPOINTS["institution"], "Institution")
    return _listed(state, req, records, "Alumni", keep=("education",))


def _job_changes(state: ServiceState, req: Request) -> Reply:
    filters = parse_query(req, _listing("job_changes"))
    knobs = state.knobs
    feed = catalog.job_feed(filters, rate=knobs.job_change_rate, rates=knobs.job_change_rates,
                            others=state.world.events)  # fmt: skip
    return _listed(state, req, feed, "Job changes")  # the page's events only are built


# -- batch jobs (both kinds) -------------------------------------------------------------------


def submit_job(
    state: ServiceState,
    req: Request,
    handles: tuple[str, ...],
    *,
    need: float,
    ids: tuple[str, ...] = (),
    live: bool = False,
    refused: Callable[[str, dict[str, Any] | None], bool] | None = None,
) -> Reply:
    """Submit a job of any kind (the path's, ``KINDS``): 202 + ``job_id``, nothing billed yet;
    402 (nothing charged) when the balance is below ``need``, the submit's pre-check.
    ``refused(item, record)``: whether an item ends in ``errors`` (a 403 on its single call)."""
    with state.lock:
        if state.jobs:
            state.settle_jobs()
        broke = state.balance < need
    if broke:
        return insufficient_credits(state)
    submitted = BatchJob.submit(handles, ids=ids, key=req.headers.get(DATA_HEADER, ""),
                                now=time.monotonic(), error_rate=state.knobs.batch_error_rate,
                                forbidden=refused or (lambda item, record: False),
                                path=req.path, enrich_live=live)  # fmt: skip
    state.add_job(submitted)
    return ok({"job_id": submitted.job_id}, "Batch job accepted", status=202)


@dataclass(frozen=True)
class JobPage:
    """One poll of a job: the job, the page's items as (index, input, outcome), and what every
    kind's poll says of the job (``status``, ``total``, ``resolved``, ``errors``,
    ``next_cursor``)."""

    job: BatchJob
    items: list[tuple[int, str, str]]
    meta: dict[str, Any]


def job_page(state: ServiceState, req: Request) -> JobPage | Reply:
    """Track a job (GET ``job_id``, integer ``after``; free, never billed: its items are billed
    as they resolve, collected or not): a page of ``batch_page_size`` items, or 404 ``1090`` for
    a job this key did not submit on this path, or one expired. A job the balance ran out in is
    "error" from then on: what resolved before stays readable."""
    job_id = _required(req, "job_id")
    after = _int(req, "after", 0, 0)
    now = time.monotonic()
    state.settle_jobs(now)
    job = state.job(job_id, req.headers.get(DATA_HEADER, ""), now)
    if job is None or job.path != req.path:
        return fail(404, "Batch job not found or expired", error_code="1090")
    processed = job.processed(now, state.knobs.batch_resolve_rate)
    items, next_cursor = job.page(after, state.knobs.batch_page_size, processed)
    done = job.outcomes[:processed]
    meta = {
        "status": job.status(processed),
        "total": job.total,
        "resolved": sum(o != "error" for o in done),
        "errors": done.count("error"),
        "next_cursor": next_cursor,
    }
    return JobPage(job, [(after + n, i, o) for n, (i, o) in enumerate(items)], meta)


def _batch(state: ServiceState, req: Request) -> Reply:
    """The Data API's batch jobs (people, companies): POST submits, GET tracks
    (:func:`submit_job`, :func:`job_page`); results under the lookup endpoint's ``results``."""
    kind = KINDS[req.path]
    people = kind.lookup is ENDPOINTS["profile"]
    if req.method == "POST":
        handles, ids, live = _batch_inputs(req.body)
        knobs = state.knobs
        need = len(handles) + len(ids) if knobs.batch_precheck == "job" else 1.0

        def refused(item: str, record: dict[str, Any] | None) -> bool:
            names = (record or {}).get("id"), (record or {}).get("handle")
            return people and knobs.forbidden(item, *names) is not None

        return submit_job(state, req, handles, need=need, ids=ids, live=live, refused=refused)
    page = job_page(state, req)
    if isinstance(page, Reply):
        return page
    world = state.world if people else Moves()
    found = [(i, world.current(page.job.record(index)))
             for index, i, outcome in page.items if outcome == "ok"]  # fmt: skip
    records = shown(state, [r for _, r in found if r is not None])
    payload = {
        **page.meta,
        "not_found": [i for _, i, outcome in page.items if outcome == "not_found"],
        kind.lookup.results or "results": {i: r for (i, _), r in zip(found, records, strict=True)},
    }
    return ok(payload, "Batch job status")


def _batch_inputs(body: bytes) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """The ``handles``, ``ids`` and ``enrich_live`` of a submit body; BadRequest unless 1 to
    1,000 strings and ``enrich_live`` (when given) a JSON boolean."""
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
    live = parsed.get("enrich_live", False)
    if not isinstance(live, bool):
        raise BadRequest("enrich_live", "must be true or false")
    return tuple(lists["handles"]), tuple(lists["ids"]), live


#: The routes here, by endpoint name (``ENDPOINTS``' keys).
ROUTES_BY_NAME: dict[str, Route] = {
    "profile": _profile,
    "employees": _employees,
    "people_search": _people_search,
    "company": _company,
    "companies_search": _companies_search,
    "institution": _one_record("institution", catalog.institution, "Institution"),
    "institutions_search": _by_name(
        "institutions_search", catalog.search_institutions, "Institutions"
    ),
    "alumni": _alumni,
    "skill": _one_record("skill", catalog.skill_by_id, "Skill"),
    "skills_search": _by_name("skills_search", catalog.search_skills, "Skills"),
    "job_changes": _job_changes,
    "people_batch": _batch,
    "companies_batch": _batch,
}
