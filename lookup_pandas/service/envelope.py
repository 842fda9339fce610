"""The response envelope: one answer checked, and every failure mapped to lookup_pandas.errors.

>>> env = parse_envelope(200, {"X-Request-Id": "req_1"}, b'{"success": true, "data": {"id": "p1"}}')
>>> env.data, env.request_id
({'id': 'p1'}, 'req_1')
>>> parse_envelope(200, {}, b'{"success": false, "message": "Not found", "error_code": 1010}')
Traceback (most recent call last):
...
lookup_pandas.errors.NotFoundError: Not found (HTTP 200, code 1010)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from ..errors import (
    AuthenticationError,
    ConfigurationError,
    InsufficientCreditsError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ResponseError,
    ServerError,
    ServiceError,
    ValidationError,
)
from .retry import parse_retry_after

__all__ = [
    "CREDITS_CODE",
    "JOB_NOT_FOUND_CODE",
    "NOT_FOUND_CODES",
    "Envelope",
    "finite_number",
    "forbidden_kind",
    "parse_envelope",
    "told_wait",
]

#: error_code values of a billed lookup that found nothing (200, success false).
#: 1010 is a person, 1020 a company, 1030 a skill, 1040 an institution (the official SDK's
#: transport maps all four to not found; the endpoint table declares each).
NOT_FOUND_CODES = frozenset({"1010", "1020", "1030", "1040"})
#: error_code of production's only 404: a batch job not found or expired.
JOB_NOT_FOUND_CODE = "1090"
_SNIPPET = 120


@dataclass(frozen=True)
class Envelope:
    """A successful, checked answer.

    >>> env = Envelope(data={"id": "p1"}, message="ok", pagination=None, request_id=None, body={})
    >>> env.status_code, env.from_cache  # from_cache: nothing was sent or paid for
    (200, False)
    """

    data: Any
    message: str
    pagination: Mapping[str, Any] | None
    request_id: str | None
    body: Mapping[str, Any]
    status_code: int = 200
    from_cache: bool = False  # read from the on-disk cache: nothing was sent or paid for


def finite_number(value: Any) -> float | None:
    """``value`` as a finite float (a header's or a field's text), else None.

    >>> finite_number("1.5"), finite_number("nan"), finite_number(None)
    (1.5, None, None)
    """
    try:
        n = float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond any float
        return None
    return n if math.isfinite(n) else None


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "HTTP error"


def _snippet(content: bytes) -> str:
    text = content[:_SNIPPET].decode("utf-8", "replace")
    text = " ".join(text.split())
    return text + ("…" if len(content) > _SNIPPET else "")


def _decode(content: bytes) -> Any:
    """JSON body, or a sentinel ``_NOT_JSON`` when it is not JSON."""
    if not content:
        return _NOT_JSON
    try:
        return json.loads(content)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return _NOT_JSON


_NOT_JSON = object()


#: error_code of "insufficient credits" (on a 402, and on whatever status carries it).
CREDITS_CODE = "1080"
#: Words of a 403 about one record (not the key, credits or the pace).
_RECORD_WORDS = (
    "opted out",
    "opted-out",
    "opt-out",
    "opt out",
    "premium",
    "profile",
    "person",
    "record",
    "private",
    "restricted",
)


def forbidden_kind(message: str) -> str:
    """What a 403 is about, read from its message: credits, rate, key, record or ambiguous.

    >>> forbidden_kind("API key has been revoked")
    'key'
    >>> forbidden_kind("This person has opted out")
    'record'
    >>> forbidden_kind("Premium profiles need an upgraded API key")
    'record'
    >>> forbidden_kind("Forbidden")
    'ambiguous'
    """
    text = message.lower()
    if "credit" in text:
        return "credits"
    if "rate limit" in text or "rate-limit" in text or "too many requests" in text:
        return "rate"
    if "key" in text and any(word in text for word in _KEY_FAULTS):
        return "key"
    if any(word in text for word in _RECORD_WORDS):
        return "record"
    return "ambiguous"


#: What a 403 says is wrong with the key itself (with the word "key").
_KEY_FAULTS = ("invalid", "revoked", "rotated", "expired", "workspace", "does not belong")


_FORBIDDEN: dict[str, type[ServiceError]] = {
    "credits": InsufficientCreditsError,
    "rate": RateLimitError,
    "key": AuthenticationError,
    "record": PermissionDeniedError,
    "ambiguous": PermissionDeniedError,
}
_BY_STATUS: dict[int, type[ServiceError]] = {
    400: ValidationError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    404: NotFoundError,
    422: ValidationError,
    429: RateLimitError,
}
#: A failure's error codes under a status below 400.
_BY_CODE = {"VALIDATION_ERROR": ValidationError} | dict.fromkeys(NOT_FOUND_CODES, NotFoundError)
#: The error codes of a 404 that is an answer of the service, not a wrong URL.
_ANSWERED_404 = NOT_FOUND_CODES | {JOB_NOT_FOUND_CODE, CREDITS_CODE}


def _error(
    status: int, message: str, retry_after: float | None, common: dict[str, Any]
) -> ServiceError:
    """The error ``status`` and the ``error_code`` in ``common`` mean (a 200 failure's too).

    A RateLimitError carries the answer's Retry-After.
    """
    code, kind = common.get("error_code"), forbidden_kind(message) if status == 403 else None
    if code == CREDITS_CODE:
        cls: type[ServiceError] = InsufficientCreditsError
    elif status < 400:
        cls = _BY_CODE.get(code or "", ServiceError)
    elif kind is not None:
        cls = _FORBIDDEN[kind]
    else:
        cls = _BY_STATUS.get(status, ServerError if status >= 500 else ServiceError)
    exc = cls(message, status_code=status, **common)
    if isinstance(exc, PermissionDeniedError):
        exc.ambiguous = kind == "ambiguous"
    if isinstance(exc, RateLimitError):
        exc.retry_after = retry_after
    return exc


def _no_endpoint(message: str, common: dict[str, Any]) -> ConfigurationError:
    """An enveloped 404 without a not-found code: the URL is no endpoint of the service."""
    exc = ConfigurationError(
        f"No such endpoint: {common['url'] or 'the path'} answered HTTP 404 without a not-found "
        f"code ({message})",
        status_code=404,
        **common,
    )
    exc.server_message = message
    return exc


def _not_the_envelope(
    status: int, headers: Mapping[str, str], content: bytes, body: Any, common: dict[str, Any]
) -> ServiceError:
    """The error for an answer that is not the envelope (``enveloped = False``): a ResponseError,
    unless its status says more (a 401, a 429, a 5xx...)."""
    kind = "a JSON value without the envelope" if body is not _NOT_JSON else "not JSON"
    ctype = headers.get("Content-Type", "no content type")
    text = (
        f"Not the service's answer: HTTP {status} ({_reason(status)}) with {kind} "
        f"({ctype}, {len(content)} bytes): {_snippet(content)!r}"
    )
    exc = _error(status, text, told_wait(headers, body), common)
    if status < 400 or isinstance(exc, NotFoundError) or exc.__class__ is ServiceError:
        exc = ResponseError(text, status_code=status, **common)
    exc.enveloped = False
    return exc


def told_wait(headers: Mapping[str, str], body: Any) -> float | None:
    """A 429's wait in seconds: the larger of the ``Retry-After`` header and the body's
    ``errors.retry_after`` (the official SDK reads the body; production's reference does not say
    which it sends), None when neither tells.

    >>> told_wait({"Retry-After": "2"}, {"errors": {"retry_after": 5}})
    5.0
    >>> told_wait({}, {"errors": None}) is None
    True
    """
    waits = [parse_retry_after(headers.get("Retry-After"))]
    errors = body.get("errors") if isinstance(body, dict) else None
    if isinstance(errors, Mapping):
        waits.append(finite_number(errors.get("retry_after")))
    told = [max(0.0, w) for w in waits if w is not None]
    return max(told) if told else None


def parse_envelope(
    status: int,
    headers: Mapping[str, str],
    content: bytes,
    *,
    url: str | None = None,
    from_cache: bool = False,
) -> Envelope:
    """One answer checked: its Envelope, or the ServiceError it means, raised.

    >>> parse_envelope(429, {"Retry-After": "3"}, b'{"success": false, "message": "Slow down"}')
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.RateLimitError: Slow down (HTTP 429)
    >>> parse_envelope(404, {"Content-Type": "text/html"}, b"<html>Not Found</html>")
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.ResponseError: Not the service's answer: HTTP 404 (Not Found) ...
    """
    request_id = headers.get("X-Request-Id") or None
    body = _decode(content)
    common: dict[str, Any] = {"request_id": request_id, "url": url}
    if not (isinstance(body, dict) and isinstance(body.get("success"), bool)):
        raise _not_the_envelope(status, headers, content, body, common)

    message = body.get("message")
    message = message if isinstance(message, str) and message else _reason(status)
    error_code = body.get("error_code")
    error_code = str(error_code) if error_code is not None else None
    common.update(error_code=error_code, errors=body.get("errors"))
    if status == 404 and error_code not in _ANSWERED_404:
        raise _no_endpoint(message, common)
    if body["success"] is False or status >= 400:
        raise _error(status, message, told_wait(headers, body), common)

    if "data" not in body:
        raise ResponseError(
            "The envelope says success but has no 'data' field.", status_code=status, **common
        )
    pagination = body.get("pagination")
    if pagination is not None and not isinstance(pagination, dict):
        raise ResponseError(
            "The 'pagination' block is not an object.", status_code=status, **common
        )
    return Envelope(
        data=body["data"],
        message=message,
        pagination=pagination,
        request_id=request_id,
        body=body,
        status_code=status,
        from_cache=from_cache,
    )
