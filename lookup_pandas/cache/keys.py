"""Cache keys: requests-cache's own, worked out once per request instead of three times.

Example:
    >>> import requests
    >>> from requests_cache import create_key
    >>> request = requests.Request("GET", "https://api.example.com/p?handle=ada").prepare()
    >>> remembered_key(request=request) == create_key(request=request)
    True
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

    Example: ``CachedSession(..., key_fn=remembered_key)`` keeps requests-cache's keys.
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
