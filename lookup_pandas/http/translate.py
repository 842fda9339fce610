"""The one place requests' exceptions become ours (httpx's ``map_httpcore_exceptions``).

Example::

    with translated_errors(url, path, timeout=30.0):
        response = session.send(prepared)
    # a refused connection -> TransportError("127.0.0.1:9 cannot be reached: connection refused")

The error raised carries no ``__context__``: the requests exception (whose ``.request`` holds
the key header) never travels with ours, not even when tblib pickles a traceback.
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

    Example: ``translate(requests.ReadTimeout(), url, "/p", 30)`` -> RequestTimeoutError.
    A connection never made is a TransportError with ``before_connecting``; a timeout (also a
    stall while reading the body) a RequestTimeoutError; another transient failure a
    TransportError; anything else a ServiceError ("could not be sent").
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

    Example: ``with translated_errors(url, path, timeout): response = session.send(prepared)``
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

    Example: ``connect_failure(requests.exceptions.SSLError())`` -> "the TLS handshake failed"
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
