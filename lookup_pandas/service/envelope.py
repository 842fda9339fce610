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


def _error_for_status(status: int, message: str, **kw: Any) -> ServiceError:
    if status == 402 or kw.get("error_code") == CREDITS_CODE:
        return InsufficientCreditsError(message, status_code=status, **kw)
    if status == 401:
        return AuthenticationError(message, status_code=status, **kw)
    if status == 403:
        kind = forbidden_kind(message)
        exc = _FORBIDDEN[kind](message, status_code=status, **kw)
        if isinstance(exc, PermissionDeniedError):
            exc.ambiguous = kind == "ambiguous"
        return exc
    if status == 404:
        return NotFoundError(message, status_code=status, **kw)
    if status == 429:
        return RateLimitError(message, status_code=status, **kw)
    if status in (400, 422):
        return ValidationError(message, status_code=status, **kw)
    if status >= 500:
        return ServerError(message, status_code=status, **kw)
    return ServiceError(message, status_code=status, **kw)


@dataclass(frozen=True)
class _Answer:
    """One answer being checked, as the error it may mean needs it."""

    status: int
    headers: Mapping[str, str]
    content: bytes
    body: Any  # the decoded JSON, or _NOT_JSON
    retry_after: float | None
    #: Every error's keywords: request_id and url, then error_code and errors once read.
    common: dict[str, Any]

    def error_for_status(self, message: str) -> ServiceError:
        """The error the status means, a RateLimitError carrying the answer's Retry-After."""
        exc = _error_for_status(self.status, message, **self.common)
        if isinstance(exc, RateLimitError):
            exc.retry_after = self.retry_after
        return exc


def _no_endpoint(message: str, url: str | None, common: dict[str, Any]) -> ConfigurationError:
    """An enveloped 404 without a not-found code: the URL is no endpoint of the service."""
    exc = ConfigurationError(
        f"No such endpoint: {url or 'the path'} answered HTTP 404 without a not-found code "
        f"({message})",
        status_code=404,
        **common,
    )
    exc.server_message = message
    return exc


def _not_the_envelope(answer: _Answer) -> ServiceError:
    """The error for an answer that is not the envelope (``enveloped = False``)."""
    status, content = answer.status, answer.content
    kind = "a JSON value without the envelope" if answer.body is not _NOT_JSON else "not JSON"
    ctype = answer.headers.get("Content-Type", "no content type")
    text = (
        f"Not the service's answer: HTTP {status} ({_reason(status)}) with {kind} "
        f"({ctype}, {len(content)} bytes): {_snippet(content)!r}"
    )
    exc = answer.error_for_status(text) if status >= 400 else None
    if exc is None or isinstance(exc, NotFoundError) or exc.__class__ is ServiceError:
        exc = ResponseError(text, status_code=status, **answer.common)
    exc.enveloped = False
    return exc


def _failure(answer: _Answer, message: str, error_code: str | None) -> ServiceError:
    """The error an envelope with ``success: false`` (or a status >= 400) means."""
    status, common = answer.status, answer.common
    if error_code == CREDITS_CODE:
        return InsufficientCreditsError(message, status_code=status, **common)
    if status < 400:
        if error_code in NOT_FOUND_CODES:
            return NotFoundError(message, status_code=status, **common)
        if error_code == "VALIDATION_ERROR":
            return ValidationError(message, status_code=status, **common)
        return ServiceError(message, status_code=status, **common)
    if status == 404 and error_code not in NOT_FOUND_CODES | {JOB_NOT_FOUND_CODE}:
        return _no_endpoint(message, common["url"], common)
    return answer.error_for_status(message)


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
    retry_after = told_wait(headers, body)
    common: dict[str, Any] = {"request_id": request_id, "url": url}
    answer = _Answer(status, headers, content, body, retry_after, common)

    is_envelope = isinstance(body, dict) and isinstance(body.get("success"), bool)
    if not is_envelope:
        raise _not_the_envelope(answer)

    message = body.get("message")
    message = message if isinstance(message, str) and message else _reason(status)
    error_code = body.get("error_code")
    error_code = str(error_code) if error_code is not None else None
    errors = body.get("errors")
    common.update(error_code=error_code, errors=errors)

    if body["success"] is False or status >= 400:
        raise _failure(answer, message, error_code)

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
