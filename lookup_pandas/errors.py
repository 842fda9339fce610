"""The exception tree of lookup_pandas: every failure the library raises on purpose.

Example::

    try:
        client.profile("ada")
    except lp.errors.AuthenticationError as exc:
        print(exc.status_code, exc.message)   # 403 "Invalid API key"

Hierarchy::

    ServiceError                     base: status_code, message, request_id
    ├── AuthenticationError          401 missing key, 403 invalid / rotated / wrong-workspace key
    ├── RateLimitError               429 after the retries ran out (retry_after, errors)
    ├── NotFoundError                404, or 200 with success=false and error_code 1010 / 1020
    ├── ValidationError              400 (errors: {field: reason})
    ├── ServerError                  5xx after the retries ran out
    ├── TransportError               connection dropped, refused or timed out, after the retries
    │   └── RequestTimeoutError      no answer within the timeout, after the retries
    ├── ResponseError                not JSON, no envelope, or an envelope of the wrong shape
    ├── PaginationError              a cursor that repeats, has_more with no way forward
    ├── BudgetExceededError          a job would make more billable calls than max_calls
    └── ConfigurationError           no base URL or API key, or an unusable setting

None of them derives from the builtin ``LookupError``; every message is built from the
server's text and our own, never from request headers, so the API key cannot appear in one.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AuthenticationError",
    "BudgetExceededError",
    "ConfigurationError",
    "NotFoundError",
    "PaginationError",
    "RateLimitError",
    "RequestTimeoutError",
    "ResponseError",
    "ServerError",
    "ServiceError",
    "TransportError",
    "ValidationError",
]


class ServiceError(Exception):
    """Base of every error lookup_pandas raises.

    Example::

        str(ServiceError("boom", status_code=500, request_id="req_1"))
        # -> "boom (HTTP 500, request req_1)"
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        request_id: str | None = None,
        error_code: str | None = None,
        errors: Any = None,
        url: str | None = None,
    ) -> None:
        self.message = message
        self.status_code = status_code
        self.request_id = request_id
        self.error_code = error_code
        self.errors = errors
        self.url = url
        super().__init__(message)

    def __str__(self) -> str:
        details = []
        if self.status_code is not None:
            details.append(f"HTTP {self.status_code}")
        if self.error_code:
            details.append(f"code {self.error_code}")
        if self.request_id:
            details.append(f"request {self.request_id}")
        return f"{self.message} ({', '.join(details)})" if details else self.message

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only arguments survive pickling (multiprocessing, joblib) this way.
        return (_rebuild, (type(self), self.message, self.__dict__))


def _rebuild(cls: type[ServiceError], message: str, state: dict[str, Any]) -> ServiceError:
    exc = cls.__new__(cls)
    Exception.__init__(exc, message)
    exc.__dict__.update(state)
    return exc


class AuthenticationError(ServiceError):
    """401 (no key sent) or 403 (key invalid, rotated out, or from another workspace)."""


class RateLimitError(ServiceError):
    """429 that persisted through every retry; ``retry_after`` is the server's hint in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class NotFoundError(ServiceError):
    """The record does not exist (HTTP 404, or 200 with error_code 1010 / 1020, which is billed)."""


class ValidationError(ServiceError):
    """400: a parameter was rejected; ``errors`` maps each field to its reason."""


class ServerError(ServiceError):
    """5xx that persisted through every retry."""


class TransportError(ServiceError):
    """The connection failed (dropped, refused, reset) through every retry."""


class RequestTimeoutError(TransportError):
    """No answer within ``timeout`` seconds, through every retry."""


class ResponseError(ServiceError):
    """The answer is not the service's JSON envelope (HTML, truncated, wrong shape)."""


class PaginationError(ServiceError):
    """A list cannot be walked safely: a cursor repeats, or has_more gives no way forward."""


class BudgetExceededError(ServiceError):
    """A job would make more billable calls than ``max_calls`` allows; nothing was sent."""

    def __init__(self, message: str, *, needed: int, allowed: int, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.needed = needed
        self.allowed = allowed


class ConfigurationError(ServiceError):
    """A setting is missing or unusable; the message names the variable or argument to set."""
