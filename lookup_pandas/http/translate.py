"""The one place requests' exceptions become ours (httpx's ``map_httpcore_exceptions``).

The error raised carries no ``__context__``, so the requests exception never travels with it
(docs/decisions.md says why).

Example:
    >>> import requests
    >>> with translated_errors("https://api.example.com/p", "/p", timeout=30.0):
    ...     raise requests.exceptions.ChunkedEncodingError()
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.TransportError: Request to api.example.com for /p: the answer was cut
    short (ChunkedEncodingError).
"""

from __future__ import annotations

import re
from types import TracebackType
from urllib.parse import urlsplit

import requests
import urllib3

from ..errors import RequestTimeoutError, ServiceError, TransportError

__all__ = ["TRANSIENT_REQUEST_ERRORS", "connect_failure", "translate", "translated_errors"]

#: requests' exceptions that mean the connection failed or stalled (worth a retry).
TRANSIENT_REQUEST_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)


def translate(exc: requests.RequestException, url: str, path: str, timeout: float) -> ServiceError:
    """Our error for ``exc``, raised while sending ``path`` to ``url``.

    A connection never made is a TransportError with ``before_connecting`` set. A timeout, or a
    stall while reading the body, is a RequestTimeoutError. Another transient failure is a
    TransportError, and anything else a ServiceError.

    Example:
        >>> url = "https://api.example.com/p"
        >>> print(translate(requests.ReadTimeout(), url, "/p", 30))
        No answer from api.example.com within 30s (ReadTimeout) for /p.
        >>> translate(requests.exceptions.ConnectTimeout(), url, "/p", 30).before_connecting
        True
        >>> print(translate(requests.exceptions.InvalidURL(), url, "/p", 30))
        Request for /p could not be sent (InvalidURL).
    """
    if not isinstance(exc, TRANSIENT_REQUEST_ERRORS):
        return ServiceError(f"Request for {path} could not be sent ({type(exc).__name__}).")
    host = urlsplit(url).netloc
    unreachable = connect_failure(exc)
    if unreachable is not None:
        error = TransportError(f"{host} cannot be reached: {unreachable}", url=path)
        error.before_connecting = True
        return error
    if isinstance(exc, requests.Timeout) or _wraps_read_timeout(exc):
        return RequestTimeoutError(
            f"No answer from {host} within {timeout:g}s ({type(exc).__name__}) for {path}.",
            url=path,
        )
    what = (
        "the answer was cut short"
        if isinstance(exc, requests.exceptions.ChunkedEncodingError)
        else "the connection failed"
    )
    return TransportError(f"Request to {host} for {path}: {what} ({type(exc).__name__}).", url=path)


class translated_errors:  # noqa: N801 - used as a function, like contextlib's
    """Within it, a requests exception is raised as :func:`translate`'s error, without context.

    Example:
        >>> try:
        ...     with translated_errors("https://api.example.com/p", "/p", timeout=30.0):
        ...         raise requests.ReadTimeout()
        ... except RequestTimeoutError as exc:
        ...     print(exc.__context__)
        None
    """

    def __init__(self, url: str, path: str, timeout: float) -> None:
        self.url, self.path, self.timeout = url, path, timeout

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not isinstance(exc, requests.RequestException):
            return
        error = translate(exc, self.url, self.path, self.timeout)
        try:
            raise error
        finally:
            error.__context__ = None  # `from None` only hides it; tblib would still pickle it


def _wraps_read_timeout(exc: BaseException) -> bool:
    """A stall while reading the body: a ConnectionError around urllib3's ReadTimeoutError."""
    return any(isinstance(arg, urllib3.exceptions.ReadTimeoutError) for arg in exc.args)


def connect_failure(exc: BaseException) -> str | None:
    """Why no connection was made at all (refused, unknown host, TLS, proxy), else None.

    Example:
        >>> connect_failure(requests.exceptions.SSLError())
        'the TLS handshake failed'
        >>> connect_failure(requests.ReadTimeout()) is None
        True
    """
    if isinstance(exc, requests.exceptions.SSLError):
        return "the TLS handshake failed"
    if isinstance(exc, requests.exceptions.ProxyError):
        return "the proxy could not be reached"
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return "no connection within the timeout"
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    if isinstance(reason, urllib3.exceptions.NameResolutionError):
        return "the host name does not resolve"
    if isinstance(reason, urllib3.exceptions.NewConnectionError):
        errno = re.search(r"\[Errno -?\d+\] ([^')\]]+)", str(reason))
        return errno.group(1).strip().lower() if errno else "no connection could be made"
    return None
