"""What every emulator route is built from: requests, replies, envelopes, cursors, parameters.

Example::

    ok([...], "Search completed successfully", {"limit": 20, "has_more": False, "next_cursor": ""})
    fail(200, "Profile not found", error_code="1010")      # a billed not-found, once billed
    decode_cursor(encode_cursor(40, scope), scope)          # 40; BadRequest for another scope
    page_of(req, records)     # a page-based list's page and its pagination {page, limit, has_more}

Parameters are refused as production refuses them: :class:`BadRequest` becomes a 400
``VALIDATION_ERROR`` naming the field. A list route reads its filters in one parse, driven by
its endpoint's declaration (:func:`parse_query`).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..service.listings import Listing

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
    #: What a billable answer costs when not its route's cost (a partial reverse, a prospects
    #: page by the address); None: the route's.
    cost: float | None = None


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


def invalid_key() -> Reply:
    """How production refuses a key, whatever is wrong with it (unknown, rotated, revoked,
    another workspace's, a personal key on the enterprise route): 403, no error_code."""
    return fail(403, "Invalid API key")


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


def parse_query(req: Request, listing: Listing, *, year: int | None = None) -> dict[str, Any]:
    """The filters ``listing`` declares that ``req`` gives (blank ones are not given), each
    parsed by its kind (``Filter.parse``); a :class:`BadRequest` naming the first that
    production refuses, or the top of a ``listing.ranges`` pair below its bottom. ``year``:
    this year (default: the UTC clock's), the top of the year filters. Parameters the listing
    does not declare are ignored, as production ignores them.

    >>> from lookup_pandas.service.endpoints import ALUMNI
    >>> q = (("start_year_min", "2000"), ("current_only", "TRUE"), ("degree", " "), ("x", "y"))
    >>> parse_query(Request("GET", "/", q, {}), ALUMNI, year=2026)
    {'current_only': True, 'start_year_min': 2000}
    >>> parse_query(Request("GET", "/", (("end_year_max", "2037"),), {}), ALUMNI, year=2026)
    Traceback (most recent call last):
    ...
    lookup_pandas.testing.replies.BadRequest: must be an integer between 1900 and 2036
    """
    this_year = year or dt.datetime.now(dt.UTC).year
    out: dict[str, Any] = {}
    for declaration in listing.params:
        raw = _given(req, declaration.name)
        if raw is None:
            continue
        try:
            out[declaration.name] = declaration.parse(raw, this_year)
        except ValueError as exc:
            raise BadRequest(declaration.name, str(exc)) from None
    for low, high in listing.ranges:
        if low in out and high in out and out[high] < out[low]:
            raise BadRequest(high, f"must be at least {low}")
    return out


def _scope(kind: str, *parts: Any) -> str:
    """A cursor's scope: the endpoint and every parameter that shapes the list."""
    return f"{kind}:" + hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def _slice(records: Sequence[dict[str, Any]], start: int, limit: int) -> tuple[list[Any], bool]:
    page = list(records[start : start + limit])
    return page, start + limit < len(records)


def page_of(
    req: Request, records: Sequence[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A page-based list's page (``page`` from 1, ``limit`` 1-50) and its pagination block, as
    production describes it: ``{page, limit, has_more}``."""
    limit = _int(req, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    page_no = _int(req, "page", 1, 1)
    page, more = _slice(records, (page_no - 1) * limit, limit)
    return page, {"page": page_no, "limit": limit, "has_more": more}


def cursor_page_of(
    req: Request, records: Sequence[dict[str, Any]], scope: str, limit: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A cursor-based list's page and its pagination ``{limit, has_more, next_cursor}``; the
    cursor is bound to ``scope`` (every parameter that shapes the list)."""
    cursor = req.param("cursor")
    start = decode_cursor(cursor, scope) if cursor is not None else 0
    page, more = _slice(records, start, limit)
    next_cursor = encode_cursor(start + limit, scope) if more else ""
    return page, {"limit": limit, "has_more": more, "next_cursor": next_cursor}
