"""Aliases: a person's or a company's answer found again under its record's other names.

A record bought by handle names its ``prsn_`` id, and one bought by id names its handle (a
company: ``org_`` id and slug). The answer is stored once, under the key it was bought by; each
other name's key leads to it through requests-cache's ``redirects`` (cache key to cache key,
nothing else). What the cache promises, and for how long: docs/credits.md.

Example:
    >>> import requests
    >>> from requests_cache.backends.base import BaseCache
    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> session = requests.Session()
    >>> ada = envelope({"id": "prsn_1", "handle": "ada"})
    >>> session.mount("http://", MockTransport(lambda request: (200, ada)))
    >>> url = "http://service.test/api/data/v1/people/profile"
    >>> response = session.get(url, params={"handle": "ada"})
    >>> cache = BaseCache()
    >>> key = cache.create_key(response.request)
    >>> by_id = requests.Request("GET", url, params={"id": "prsn_1"}).prepare()
    >>> alias_keys(cache, response, key) == {cache.create_key(by_id)}
    True
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit, urlunsplit

import requests
from requests_cache.backends.base import BaseCache

from ..errors import ServiceError
from ..identifiers.kinds import BY_PATH, Kind
from ..service.answers import read_answer
from ..service.envelope import Envelope
from .keys import get_keys

__all__ = ["alias_keys", "kind_of", "leads_here"]


def kind_of(response: requests.Response) -> Kind | None:
    """The kind of record bought by value that ``response`` answers, or None for any other.

    Example:
        >>> from requests_cache import CachedResponse
        >>> kind_of(CachedResponse(url="https://h/api/data/v1/companies/company?slug=acme")).noun
        'company'
    """
    path = urlsplit(response.url or "").path
    return next((k for p, k in BY_PATH.items() if path.endswith(p)), None)


def alias_keys(
    cache: BaseCache,
    response: requests.Response,
    key: str,
    answer: Envelope | ServiceError | None = None,
    verify: bool | None = None,
) -> set[str]:
    """The keys, other than ``key``, of the lookups that name the record ``response`` holds.

    ``answer``: the response read (``read_answer``); ``verify``: the one ``key`` was made with.
    Each is found out here when not given. Empty for a not-found, an answer of any other kind,
    or a key ``cache`` did not make from the response's request. See the module's example.
    """
    kind, request = kind_of(response), response.request
    if kind is None or request is None or not request.url:
        return set()
    if answer is None:
        answer = read_answer(response, kind.endpoint.path)
    if isinstance(answer, ServiceError) or not isinstance(answer.data, dict):
        return set()  # a billed not-found names nobody
    if verify is None:  # the key holds it: the one that remakes ``key`` makes the aliases' too
        verify = next(
            (v for v in (True, False) if cache.create_key(request, verify=v) == key), None
        )
        if verify is None:
            return set()
    scheme, netloc, path, query, _ = urlsplit(request.url)
    bought = dict(parse_qsl(query))
    others = [p for p in map(kind.params, kind.names(answer.data)) if p != bought]
    base = urlunsplit((scheme, netloc, path, "", ""))
    return set(get_keys(cache, base, others, verify=verify)) - {key}


def leads_here(cache: BaseCache, alias: str, response: requests.Response, key: str) -> bool:
    """Whether the answer stored under ``key``, reached from ``alias``, still names the alias.

    A handle given to someone else, and that person's answer bought anew under the key, leaves
    the alias leading to a record it does not name: a miss. Redirects of other answers (an HTTP
    redirect) lead where they did.
    """
    return kind_of(response) is None or alias in alias_keys(cache, response, key)
