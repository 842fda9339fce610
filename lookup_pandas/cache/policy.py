"""What an answer is worth keeping: the save policy of every backend, and what keys leave out.

Example:
    >>> import requests
    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> session = requests.Session()
    >>> session.mount("http://", MockTransport(lambda request: (503, "busy")))
    >>> should_cache(session.get("http://service.test/api/data/v1/people/profile?handle=ada"))
    False
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import requests
from requests_cache import DEFAULT_IGNORED_PARAMS
from requests_cache.backends.base import BaseCache
from requests_cache.cache_keys import redact_response
from requests_cache.models.response import CachedResponse

from ..errors import ConfigurationError, NotFoundError, ServiceError, ValidationError
from ..service.answers import read_answer
from ..service.endpoints import is_batch, is_panel
from ..service.envelope import NOT_FOUND_CODES, Envelope
from ..service.paths import EMAIL_REVERSE_PATH
from .aliases import alias_keys, leads_here
from .journal import Journal

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


def should_cache(
    response: requests.Response, answer: Envelope | ServiceError | None = None
) -> bool:
    """Whether to keep an answer: what the Client would accept, and billed not-founds.

    ``answer``: the response as :func:`~lookup_pandas.service.answers.read_answer` read it
    (read here when not given).

    Kept: a 200 envelope with ``success: true`` and ``data`` of the endpoint's kind, a 200
    not-found (``error_code: "1010"``), which is billed, or the 422 of an address the reverse
    lookup does not take (free, but an answer: asked again, it is the same). Not kept: any other
    failure, data of the wrong kind, a malformed ``pagination``, any other status, the panel
    endpoint, a batch poll.

    Example:
        >>> import requests
        >>> from lookup_pandas.testing import MockTransport, envelope
        >>> session = requests.Session()
        >>> ada = envelope({"id": "prsn_1", "handle": "ada"})
        >>> session.mount("http://", MockTransport(lambda request: (200, ada)))
        >>> should_cache(session.get("http://service.test/api/data/v1/people/profile?handle=ada"))
        True
    """
    path = urlsplit(response.url or "").path
    if response.status_code == 422 and path.endswith(EMAIL_REVERSE_PATH):
        return isinstance(answer or read_answer(response, path), ValidationError)
    if response.status_code != 200 or is_panel(path) or is_batch(path):
        return False
    if answer is None:
        answer = read_answer(response, path)
    if isinstance(answer, NotFoundError):
        return answer.status_code == 200 and answer.error_code in NOT_FOUND_CODES
    return isinstance(answer, Envelope)


class PaidAnswersOnly(BaseCache):
    """The save policy of every backend: only what :func:`should_cache` accepts is stored.

    A record's answer is found under its other names too (:mod:`.aliases`): each one's key
    leads to it, and leads there only while the answer names it.

    An answer the backend fails to write (a StorageError, or a Redis gone) goes to its
    ``journal`` (:mod:`.journal`), and the error says where; the journal is folded in before
    the next read or write.

    Example: ``class PaidAnswersCache(PaidAnswersOnly, SQLiteCache)``
    """

    #: Where answers the backend could not write are kept (None: nowhere, they are lost).
    journal: Journal | None = None

    def save_response(
        self,
        response: requests.Response,
        cache_key: str | None = None,
        expires: datetime | None = None,
        answer: Envelope | ServiceError | None = None,
        verify: bool | None = None,
    ) -> None:
        """requests-cache's save, of what :func:`should_cache` accepts (``answer`` as there),
        with its aliases (``verify``: the one ``cache_key`` was made with, if known)."""
        path = urlsplit(response.url or "").path
        if answer is None:
            answer = read_answer(response, path)
        if not should_cache(response, answer):
            logger.debug("not caching HTTP %s for %s", response.status_code, path)
            return
        key = cache_key or self.create_key(response.request)
        try:
            self.fold_journal()  # what an earlier failure kept goes first
            self.write_answer(response, key, expires, answer, verify)
        except ConfigurationError as exc:  # StorageError, or a Redis gone
            if self.journal is None:
                raise
            cached = CachedResponse.from_response(response, expires=expires)
            self.journal.keep(key, redact_response(cached, self._settings.ignored_parameters))
            exc.hint = self.journal.told()
            raise

    def write_answer(
        self,
        response: requests.Response,
        key: str,
        expires: datetime | None,
        answer: Envelope | ServiceError,
        verify: bool | None,
    ) -> None:
        """Write the answer and its aliases. The backends do it in one transaction, and raise
        a failure as a ConfigurationError (a StorageError for a file)."""
        if isinstance(response, CachedResponse) and key not in self.responses:
            key = self.redirects.get(key, key)  # a kept answer renewed by an alias: the answer
        super().save_response(response, key, expires)
        self.save_aliases(alias_keys(self, response, key, answer, verify), key)

    def fold_journal(self) -> None:
        """Write what the journal keeps, if anything, before this backend is read or written:
        a StorageError when the backend still fails (the journal is kept)."""
        journal = self.journal
        if journal is None or not journal.due:
            return

        def store(key: str, response: CachedResponse) -> None:
            path = urlsplit(response.url or "").path
            self.write_answer(response, key, response.expires, read_answer(response, path), None)

        journal.fold(store)

    def save_aliases(self, aliases: Iterable[str], key: str) -> None:
        """Let each of ``aliases`` lead to the answer stored under ``key``."""
        for alias in aliases:
            self.redirects[alias] = key

    def get_response(self, key: str, default: Any = None) -> Any:
        """The answer stored under ``key``, or under the key an alias ``key`` leads to, while
        that answer names it; else ``default``."""
        return self.get_responses([key]).get(key, default)

    def get_responses(self, keys: Sequence[str]) -> dict[str, Any]:
        """:meth:`get_response` for many keys in a few reads (:meth:`read_many`): each key's
        answer, its own or the one its alias leads to while that answer names it. Misses are left
        out."""
        self.fold_journal()
        found = self.read_many(self.responses, keys)
        targets = self.read_many(self.redirects, [k for k in keys if k not in found])
        answers = self.read_many(self.responses, sorted(set(targets.values())))
        for alias, target in targets.items():
            response = answers.get(target)
            if response is not None and leads_here(self, alias, response, target):
                found[alias] = response
        return found

    def read_many(self, table: Any, keys: Sequence[str]) -> dict[str, Any]:
        """The values ``table`` (``responses`` or ``redirects``) holds under ``keys``, one
        read each; the backends read them in bulk."""
        return {k: v for k in keys if (v := table.get(k)) is not None}
