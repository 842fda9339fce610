"""The emulator's Email API routes (``/api/emails/v1``), in production's dialect (``email-api.md``).

Example::

    reply = ROUTES_BY_NAME["email_verify"](state, Request("GET", EMAIL_VERIFY_PATH,
                                                          (("email", "x@acme.example"),), {}))
    json.loads(reply.body)["data"]["reason"]      # a verdict; reply.billed is True

Each route is named as its endpoint in :data:`lookup_pandas.service.endpoints.ENDPOINTS`; the
answers are :mod:`.mailboxes`'. Billing, as production's reference has it (the costs are the
``route_costs`` knob's, :data:`.state.ROUTE_COSTS` by default):

- ``/verify`` and ``/find``, ``/find/linkedin``: per call, whatever the verdict, found or not.
- ``/reverse``: the route's cost when a person or a company is returned; ``PARTIAL_REVERSE``
  (3, at most the route's cost) when discovery found nothing. Unsupported addresses (public
  providers, role accounts, disposable, relay, invalid) answer **422** before any work: free, no
  credit headers. Production documents the 422 but not its body; ours is the envelope with
  ``success`` false, a message, and ``errors: {"email": <why>}``, why one of public_provider,
  role_account, disposable, relay, invalid.
- ``/prospects``: per address returned: the route's cost each for ``kind=full`` (1),
  twice that for ``verified_only``; an empty page costs 0 (``X-Credits-Consumed: 0``, as a
  free repeat); a page the balance cannot cover is a 402 ``1080`` (nothing billed). Pages of 20
  by an opaque ``cursor`` bound to the domain and kind; ``next_cursor`` is "" on the last.
- Batch jobs (``/verify/batch``, ``/find/batch``): the Data API's machinery
  (:func:`.data_routes.submit_job`, :func:`.data_routes.job_page`): 1 to 1,000 items once
  duplicates, blanks and incomplete queries (a part missing, a domain that is no bare host)
  are dropped; the submit's pre-check refuses (402) a balance below the items times the single
  call's cost; each item bills that cost as it resolves. Polls say ``status``, ``error`` (null,
  or why a job stopped: ours), ``total``, ``resolved``, ``errors``, ``next_cursor`` and
  ``results``: verify's a map ``email -> {email, deliverable, reason, catch_all}``, find's a list of
  ``{query: {first_name, last_name, domain}, found, email}``.

A missing or blank parameter, a ``domain`` that is no bare host with a dot, a ``kind`` other
than full or verified_only: 400 ``VALIDATION_ERROR`` naming the field, not billed. Opt-outs (the
``opted_out`` knob: handles, ``prsn_`` ids, addresses) answer 403 with no error_code, not
billed, on ``/find`` (when the address found is that person's, or is listed itself),
``/find/linkedin`` and ``/reverse``; a find batch's opted-out query ends in ``errors``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..service.endpoints import ENDPOINTS, PART_SEPARATOR
from . import mailboxes
from .batch import MAX_ITEMS
from .data_routes import job_page, submit_job
from .replies import (
    BadRequest,
    Reply,
    Request,
    _required,
    _scope,
    decode_cursor,
    encode_cursor,
    fail,
    ok,
)
from .state import ServiceState

__all__ = ["PAGE_SIZE", "PARTIAL_REVERSE", "ROUTES_BY_NAME"]

Route = Callable[[ServiceState, Request], Reply]
#: What a reverse that found nothing costs (production: 3), at most the route's cost.
PARTIAL_REVERSE = 3.0
#: Prospects a page.
PAGE_SIZE = 20
FIND_PARTS = ENDPOINTS["email_find"].parts
KINDS = ("full", "verified_only")


def _billed(reply: Reply, cost: float | None = None) -> Reply:
    reply.billed, reply.cost = True, cost
    return reply


def _host(value: str, name: str = "domain") -> str:
    domain = value.strip().lower()
    if not mailboxes.is_host(domain):
        raise BadRequest(name, "must be a bare host with a dot, such as acme.com")
    return domain


def _opted_out(state: ServiceState, *names: str | None) -> Reply | None:
    """The 403 for an answer about someone the ``opted_out`` knob names, else None."""
    listed = state.knobs.opted_out
    if any(n in listed or n.lower() in listed for n in names if n):
        return fail(403, "This person has opted out of data sharing")
    return None


def _names(record: dict[str, Any] | None) -> tuple[str | None, str | None]:
    return (record or {}).get("id"), (record or {}).get("handle")


def _verify(state: ServiceState, req: Request) -> Reply:
    email = _required(req, "email")
    return _billed(ok(mailboxes.verify(email), "Email verified successfully"))


def _query(get: Callable[[str], Any]) -> tuple[str, str, str]:
    """A find query's first name, last name and domain, each required; BadRequest otherwise."""
    parts = []
    for name in FIND_PARTS:
        value = get(name)
        if not isinstance(value, str) or not value.strip():
            raise BadRequest(name, "is required")
        parts.append(" ".join(value.split()))
    first, last, domain = parts
    return first, last, _host(domain)


def _find_refused(state: ServiceState, first: str, last: str, domain: str) -> Reply | None:
    """A 403 when the person this query resolves to opted out (or the address itself did)."""
    mailbox = mailboxes.address(first, last, domain)
    if mailbox is None:
        return None
    return _opted_out(state, mailbox, *_names(mailboxes.owner(mailbox, state.world)))


def _find(state: ServiceState, req: Request) -> Reply:
    first, last, domain = _query(req.param)
    refused = _find_refused(state, first, last, domain)
    if refused is not None:
        return refused
    return _billed(ok(mailboxes.find(first, last, domain), "Email search completed"))


def _find_profile(state: ServiceState, req: Request) -> Reply:
    handle = mailboxes.profile_handle(_required(req, "url"))
    if not handle:
        raise BadRequest("url", "must be a profile URL or its handle")
    answer, record = mailboxes.find_by_profile(handle, state.world)
    refused = _opted_out(state, handle, answer["email"], *_names(record))
    if refused is not None:
        return refused
    return _billed(ok(answer, "Email search completed"))


def _reverse(state: ServiceState, req: Request) -> Reply:
    email = _required(req, "email")
    why = mailboxes.unsupported(email)
    if why is not None:  # before any work: free, no credit headers
        return fail(422, "This address cannot be reversed: business mailboxes only",
                    errors={"email": why})  # fmt: skip
    answer = mailboxes.reverse(email, state.world)
    person = mailboxes.owner(email, state.world)
    refused = _opted_out(state, email.strip(), *_names(person))
    if refused is not None:
        return refused
    full = state.cost_of(req.path)
    cost = None if answer["found"] else min(PARTIAL_REVERSE, full)
    return _billed(ok(answer, "Reverse lookup completed"), cost)


def _prospects(state: ServiceState, req: Request) -> Reply:
    domain = _host(_required(req, "domain"))
    kind = _required(req, "kind").strip().lower()
    if kind not in KINDS:
        raise BadRequest("kind", "must be one of " + ", ".join(KINDS))
    everyone = mailboxes.prospects(domain, kind == "verified_only", state.world)
    scope = _scope("prospects", domain, kind)
    cursor = (req.param("cursor") or "").strip()
    start = decode_cursor(cursor, scope) if cursor else 0
    page = everyone[start : start + PAGE_SIZE]
    more = start + PAGE_SIZE < len(everyone)
    payload = {
        "domain": domain,
        "kind": kind,
        "count": len(page),
        "next_cursor": encode_cursor(start + PAGE_SIZE, scope) if more else "",
        "prospects": page,
    }
    price = state.cost_of(req.path) * (2 if kind == "verified_only" else 1)
    return _billed(ok(payload, "Prospects retrieved successfully"), len(page) * price)


# -- batch jobs --------------------------------------------------------------------------------


def _body_list(body: bytes, name: str) -> list[Any]:
    try:
        parsed = json.loads(body or b"null")
    except ValueError:
        raise BadRequest("body", "must be a JSON object") from None
    items = parsed.get(name) if isinstance(parsed, dict) else None
    if not isinstance(items, list):
        raise BadRequest(name, "must be a list")
    return items


def _unique(items: list[str], name: str) -> tuple[str, ...]:
    kept = tuple(dict.fromkeys(items))
    if not 1 <= len(kept) <= MAX_ITEMS:
        raise BadRequest(name, f"1 to {MAX_ITEMS} items once duplicates and blanks are dropped")
    return kept


def _verify_items(body: bytes) -> tuple[str, ...]:
    emails = _body_list(body, "emails")
    return _unique([e.strip() for e in emails if isinstance(e, str) and e.strip()], "emails")


def _find_items(body: bytes) -> tuple[str, ...]:
    """The queries, each as its parts joined by PART_SEPARATOR; incomplete ones dropped."""
    kept = []
    for query in _body_list(body, "queries"):
        if not isinstance(query, dict):
            continue
        try:
            kept.append(PART_SEPARATOR.join(_query(query.get)))
        except BadRequest:
            continue
    return _unique(kept, "queries")


def _verify_results(items: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    shown = ("email", "deliverable", "reason", "catch_all")  # email: the SDK's rows read it
    return {email: {k: answer[k] for k in shown} for email, answer in items}


def _find_results(items: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [
        {"query": dict(zip(FIND_PARTS, query.split(PART_SEPARATOR), strict=True)),
         "found": answer["found"], "email": answer["email"]}
        for query, answer in items
    ]  # fmt: skip


def _email_batch(
    read: Callable[[bytes], tuple[str, ...]],
    results: Callable[[list[tuple[str, dict[str, Any]]]], Any],
    finds: bool,
) -> Route:
    """The route of one Email API batch path: ``read`` a submit's items, shape a poll's
    ``results``; ``finds``: its items are find queries (an opted-out one ends in errors)."""

    def route(state: ServiceState, req: Request) -> Reply:
        if req.method == "POST":
            items = read(req.body)

            def refused(item: str, answer: dict[str, Any] | None) -> bool:
                return finds and _find_refused(state, *item.split(PART_SEPARATOR)) is not None

            need = len(items) * state.item_cost(req.path)
            return submit_job(state, req, items, need=need, refused=refused)
        page = job_page(state, req)
        if isinstance(page, Reply):
            return page
        job = page.job
        answers = [(i, job.record(index) or {}) for index, i, o in page.items if o == "ok"]
        stopped = job.stopped is not None
        payload = {
            "status": page.meta["status"],
            "error": "Insufficient credits: the job stopped" if stopped else None,
            **{k: page.meta[k] for k in ("total", "resolved", "errors", "next_cursor")},
            "results": results(answers),
        }
        return ok(payload, "Batch job status")

    return route


#: The routes here, by endpoint name (``ENDPOINTS``' keys); health is answered in :mod:`.routes`.
ROUTES_BY_NAME: dict[str, Route] = {
    "email_verify": _verify,
    "email_find": _find,
    "email_find_profile": _find_profile,
    "email_reverse": _reverse,
    "email_prospects": _prospects,
    "verify_batch": _email_batch(_verify_items, _verify_results, finds=False),
    "find_batch": _email_batch(_find_items, _find_results, finds=True),
}
