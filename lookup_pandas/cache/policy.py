"""What an answer is worth keeping: the save policy of every backend, and what keys leave out.

Example::

    should_cache(response)          # True: a success of the endpoint's kind, or a billed not-found
    class PaidAnswersCache(PaidAnswersOnly, SQLiteCache): ...   # a backend that applies it
    CachedSession(..., ignored_parameters=IGNORED_PARAMETERS)   # the key headers: out of keys

What is cached: the answers the Client would accept, as
:func:`lookup_pandas.service.answers.parsed_answer` reads them (a success whose ``data`` is of the
endpoint's kind), and billed not-founds (200 + success=false + a not-found error_code); never
errors, 429s, 5xx, the panel endpoint or a batch job's poll. The policy is applied where
responses are saved (:class:`PaidAnswersOnly`), not as requests-cache's ``filter_fn``. The key
headers are named in :data:`IGNORED_PARAMETERS` with the exact casing we send, which is what
makes requests-cache redact them from stored requests.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

import requests
from requests_cache import DEFAULT_IGNORED_PARAMS
from requests_cache.backends.base import BaseCache

from ..errors import NotFoundError
from ..service.answers import read_once
from ..service.endpoints import is_batch, is_panel
from ..service.envelope import NOT_FOUND_CODES, Envelope

logger = logging.getLogger(__name__)

__all__ = [
    "DATA_KEY_HEADER",
    "IGNORED_PARAMETERS",
    "PANEL_KEY_HEADER",
    "PaidAnswersOnly",
    "should_cache",
]

#: Header names exactly as sent (requests-cache redacts only exact-case matches).
DATA_KEY_HEADER = "X-service-apikey"
PANEL_KEY_HEADER = "X-AUTHAPI-Key"
#: What requests-cache leaves out of cache keys and redacts from stored requests.
IGNORED_PARAMETERS = (*DEFAULT_IGNORED_PARAMS, DATA_KEY_HEADER, PANEL_KEY_HEADER)


def should_cache(response: requests.Response) -> bool:
    """Keep what was paid for and is worth reusing: what the Client would accept.

    Example: a 200 envelope with ``success: true`` and ``data`` of the endpoint's kind ->
    True; a 200 with ``error_code: "1010"`` (not found, billed) -> True; success=false for any
    other reason, no ``data``, ``data`` of the wrong kind, a malformed ``pagination``, any
    status but 200, the panel endpoint or a batch job's poll -> False (a poll's results are
    cached one by one as profile answers).
    """
    path = urlsplit(response.url or "").path
    if response.status_code != 200 or is_panel(path) or is_batch(path):
        return False
    outcome = read_once(response, path)  # the Client reads this same outcome, not the body
    if isinstance(outcome, NotFoundError):
        return outcome.status_code == 200 and outcome.error_code in NOT_FOUND_CODES
    return isinstance(outcome, Envelope)


class PaidAnswersOnly(BaseCache):
    """The save policy of every backend, mixed in before it: only what :func:`should_cache`
    accepts is stored (``class PaidAnswersCache(PaidAnswersOnly, SQLiteCache)``)."""

    def save_response(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        if should_cache(response):
            super().save_response(response, *args, **kwargs)
        else:
            logger.debug(
                "not caching HTTP %s for %s",
                response.status_code,
                urlsplit(response.url or "").path,
            )
