"""MockTransport: a requests adapter that answers from a function, for tests without sockets.

Example::

    def handler(request):                       # a requests.PreparedRequest
        if "/api/panel/" in request.url:
            return 200, {"success": True, "message": "ok", "errors": None,
                         "data": {"current_tier": {"limit_per_minute": 600}}}
        return 503, {"success": False, "message": "busy", "errors": None, "data": None}

    client = lp.Client(api_key="k", base_url="http://service.test", cache=False,
                       transport=MockTransport(handler))

``handler`` returns ``(status, body)`` or ``(status, body, headers)``: a dict or list body is
sent as JSON, bytes or str as they are. It may raise a requests exception (``ConnectionError``,
``Timeout``...) to stand for a network failure. ``transport.requests`` lists what was sent.
Drives the Client's retry, pacing, discovery and stats the way httpx's ``MockTransport`` does;
the emulator (:class:`FakeService`) is for everything that needs real HTTP.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests
import urllib3
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

__all__ = ["Handler", "MockTransport", "envelope", "people_service"]

Handler = Callable[[requests.PreparedRequest], tuple[Any, ...]]


def envelope(
    data: Any = None, *, success: bool = True, message: str = "ok", **extra: Any
) -> dict[str, Any]:
    """The service's envelope around ``data``; ``extra`` adds fields (``error_code``...).

    Example: ``envelope({"id": "prsn_1", "handle": "ada"})``
    """
    body: dict[str, Any] = {"success": success, "message": message, "errors": None, "data": data}
    if success:
        body["statusCode"] = 200
    body.update(extra)
    return body


def people_service(
    *records: Mapping[str, Any], limit_per_minute: float = 60_000, balance: float | None = None
) -> Handler:
    """A handler that answers the credits tier and each person's profile by handle.

    Any other handle is production's billed not-found (200, code 1010). Any other path is a 404.

    Example:
        >>> import lookup_pandas as lp
        >>> transport = MockTransport(people_service({"id": "prsn_1", "handle": "ada"}))
        >>> with lp.Client(api_key="lk_example", base_url="https://api.example.com",
        ...                cache=False, transport=transport) as client:
        ...     client.profile("ada")["id"], client.profile("grace")
        ('prsn_1', None)
    """
    by_handle = {str(r["handle"]): dict(r) for r in records}
    tier: dict[str, Any] = {"current_tier": {"limit_per_minute": limit_per_minute}}
    if balance is not None:
        tier["balance"] = balance

    def answer(request: requests.PreparedRequest) -> tuple[Any, ...]:
        url = request.url or ""
        if "/credits/tier/" in url:
            return 200, envelope(tier)
        if "/people/profile" not in url:
            return 404, envelope(None, success=False, message="Not found")
        handle = parse_qs(urlsplit(url).query).get("handle", [""])[0]
        if handle in by_handle:
            return 200, envelope(by_handle[handle])
        return 200, envelope(None, success=False, message="Profile not found", error_code="1010")

    return answer


class MockTransport(BaseAdapter):
    """A requests adapter whose answers come from ``handler``; thread-safe."""

    def __init__(self, handler: Handler) -> None:
        super().__init__()
        self.handler = handler
        self.requests: list[requests.PreparedRequest] = []
        self._lock = threading.Lock()

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: Any = True,
        cert: Any = None,
        proxies: Any = None,
    ) -> requests.Response:
        with self._lock:
            self.requests.append(request)
        answer = self.handler(request)
        status, body = answer[0], answer[1]
        headers: Mapping[str, str] = answer[2] if len(answer) > 2 else {}
        if isinstance(body, bytes | str):
            content = body.encode() if isinstance(body, str) else body
            all_headers = dict(headers)
        else:
            content = json.dumps(body).encode()
            all_headers = {"Content-Type": "application/json", **headers}
        response = requests.Response()
        response.status_code = int(status)
        response.headers = CaseInsensitiveDict(all_headers)
        response.url = request.url or ""
        response.request = request
        response.reason = "OK" if response.status_code < 400 else "Error"
        response.encoding = "utf-8"
        # What urllib3 would have handed requests (requests-cache stores from it).
        response.raw = urllib3.HTTPResponse(
            body=io.BytesIO(content),
            headers=all_headers,
            status=response.status_code,
            preload_content=False,
            request_url=response.url,
        )
        response._content = content
        return response

    def close(self) -> None:
        pass

    def count(self, fragment: str = "") -> int:
        """Requests sent whose URL contains ``fragment``."""
        with self._lock:
            return sum(fragment in (r.url or "") for r in self.requests)
