"""Cache keys: requests-cache's own, worked out once per request instead of three times.

Example::

    CachedSession(..., key_fn=remembered_key)     # the same keys as requests-cache's default
    remembered_key(request=prepared, ignored_parameters=IGNORED_PARAMETERS)  # -> 'a1b2c3d4e5f6a7b8'

A miss asks for its key three times (the lookup, the claim among processes, the send that
stores), and requests-cache's ``create_key`` normalises the URL (IDNA, percent-encoding) each
time. The key of a prepared request is a function of its method, URL, body and the session's
key settings, so it is remembered on exactly those; requests that match headers are not
remembered (their headers are part of the key).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

import requests
from requests_cache import create_key

__all__ = ["remembered_key"]

#: Keys remembered at most; past that the memory starts over (a key costs ~0.2 ms to redo).
REMEMBERED_MAX = 8192

_keys: dict[tuple[Any, ...], str] = {}
_lock = threading.Lock()


def remembered_key(
    request: Any,
    ignored_parameters: Iterable[str] | None = None,
    match_headers: Iterable[str] | bool | None = False,
    serializer: Any = None,
    content_root_key: str | None = None,
    **request_kwargs: Any,
) -> str:
    """requests-cache's :func:`~requests_cache.create_key`, remembered for prepared requests.

    Example: ``remembered_key(request=s.prepare_request(r))`` == ``create_key(request=...)``
    """
    options: dict[str, Any] = {
        "ignored_parameters": ignored_parameters,
        "match_headers": match_headers,
        "serializer": serializer,
        "content_root_key": content_root_key,
        **request_kwargs,
    }
    if match_headers or not isinstance(request, requests.PreparedRequest):
        return create_key(request, **options)
    memo = (
        request.method,
        request.url,
        request.body,
        bool(request_kwargs.get("verify", True)),
        tuple(ignored_parameters or ()),
        str(serializer),
        content_root_key,
    )
    key = _keys.get(memo)
    if key is None:
        key = create_key(request, **options)
        with _lock:
            if len(_keys) >= REMEMBERED_MAX:
                _keys.clear()
            _keys[memo] = key
    return key
