"""The send chain: cache lookup -> claim -> paced attempts -> one attempt.

:class:`~lookup_pandas.http.decisions.SendActions` decides what each call does, once.
docs/architecture.md (*One call*) walks through the steps.

Example:
    >>> from lookup_pandas.testing import MockService
    >>> with MockService({"id": "prsn_1", "handle": "ada"}) as service:
    ...     with service.client() as client:
    ...         first, again = client.profile("ada"), client.profile("ada")
    ...         stats = client.stats
    >>> first == again, service.count("/people/profile"), stats.cache_hits  # a hit sends nothing
    (True, 1, 1)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import requests
from requests_cache import CachedSession, get_expiration_datetime

from ..cache.journal import Journal
from ..cache.keys import get_keys
from ..cache.policy import DATA_KEY_HEADER, PANEL_KEY_HEADER, should_cache
from ..cache.requests_cache_internals import batched_writes
from ..config.settings import SAFE_DEFAULT_RATE_PER_MINUTE, Settings
from ..errors import (
    ConfigurationError,
    NotCachedError,
    NotFoundError,
    RateLimitError,
    ServiceError,
    TransportError,
)
from ..service.answers import parsed_answer, read_answer
from ..service.endpoints import is_batch, is_panel
from ..service.envelope import Envelope, finite_number
from ..service.retry import RetryPolicy
from ..store.claims import Claims, claim_or_wait, fresh_lookup
from ..store.pacing import Pacer, pause
from .contact import Contact
from .decisions import (
    Attempts,
    Call,
    SendActions,
    fresh_enough,
    next_step,
    slowdown,
)
from .stats import ClientStats, StatsCounter
from .translate import translated_errors

__all__ = ["Sender", "Wire"]

logger = logging.getLogger(__name__)
#: A call's cache lookup: the stored answer if it counts, else None (:meth:`Sender.lookup`).
CacheRead = Callable[[], requests.Response | None]


def not_cached(prepared: requests.PreparedRequest, *, cached: bool = True) -> NotCachedError:
    """The error of a request offline: not in the cache, or (``cached=False``) never cached.

    Example:
        >>> url = "https://api.example.com/api/data/v1/people/search"
        >>> prepared = requests.Request("GET", url, params={"title": "cto"}).prepare()
        >>> print(not_cached(prepared))
        Offline, and the cache holds no answer for GET
        https://api.example.com/api/data/v1/people/search?title=cto: run it online once to buy it
    """
    what = f"{prepared.method} {prepared.url}"  # the key is in a header, never in the URL
    if not cached:
        return NotCachedError(
            f"Offline, and {what} is never answered from the cache (batch jobs, the credits "
            "tier and the account's panel are asked anew each time): nothing was sent"
        )
    return NotCachedError(
        f"Offline, and the cache holds no answer for {what}: run it online once to buy it"
    )


class Wire:
    """One session: prepare a request once, send copies of it, read and keep answers by key.

    Example:
        >>> from lookup_pandas.testing import MockTransport, envelope
        >>> session = requests.Session()
        >>> session.mount("https://", MockTransport(lambda request: (200, envelope({"id": 1}))))
        >>> settings = Settings.build(
        ...     api_key="lk_example", base_url="https://api.example.com", cache=False, offline=False
        ... )
        >>> wire = Wire(session, settings)
        >>> prepared = wire.prepare("/api/data/v1/people/profile", {"handle": "ada"})
        >>> prepared.url
        'https://api.example.com/api/data/v1/people/profile?handle=ada'
        >>> wire.send(prepared).status_code
        200
        >>> path = "/api/data/v1/people/profile"
        >>> wire.cached(path, "a-key"), wire.renew(path, ["a-key"])  # no cache: none stored
        (None, 0)
    """

    def __init__(self, session: requests.Session, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.cache_on = isinstance(session, CachedSession)

    @property
    def journal(self) -> Journal | None:
        """Where the cache keeps the answers it failed to write (:mod:`..cache.journal`)."""
        cache = getattr(self.session, "cache", None)
        return getattr(cache, "journal", None)

    def url(self, path: str) -> str:
        """The URL of ``path`` at the base URL. A full URL is a ConfigurationError."""
        if path.startswith(("http://", "https://")):
            raise ConfigurationError("Pass a path such as '/api/data/v1/...', not a full URL.")
        return self.settings.base_url + "/" + path.lstrip("/")

    def prepare(
        self, path: str, params: Mapping[str, Any] | None, *, method: str = "GET", body: Any = None
    ) -> requests.PreparedRequest:
        """The request, prepared once by the session, its headers, hooks and cookies merged.

        Each send takes a copy. ``body`` is sent as JSON.
        """
        header = PANEL_KEY_HEADER if is_panel(path) else DATA_KEY_HEADER
        request = requests.Request(
            method,
            self.url(path),
            params=dict(params or {}),
            headers={header: self.settings.api_key},
            json=body,
        )
        return self.session.prepare_request(request)

    def send(self, prepared: requests.PreparedRequest) -> requests.Response:
        """Send a copy of ``prepared`` over the network, past the cache (docs/decisions.md,
        *One send path*). Offline, nothing is ever sent (NotCachedError)."""
        if self.settings.offline:  # Sender.request answers offline; this is the last guard
            raise not_cached(prepared)
        s = self.session
        return requests.Session.send(
            s,
            prepared.copy(),
            timeout=self.settings.timeout,
            allow_redirects=True,
            proxies=s.proxies,
            stream=False,
            verify=s.verify,
            cert=s.cert,
        )

    def save(self, response: requests.Response, key: str, answer: Envelope | ServiceError) -> None:
        """Keep ``response`` (read as ``answer``) under ``key`` for ``expire_after``, if
        :func:`~lookup_pandas.cache.policy.should_cache` takes it."""
        expires = get_expiration_datetime(self.settings.expire_after)
        cache = self.session.cache  # type: ignore[attr-defined]
        cache.save_response(response, key, expires, answer, verify=bool(self.session.verify))

    def cached(self, path: str, key: str) -> requests.Response | None:
        """The stored answer of ``key`` if it has not expired. None on a miss.

        Offline, an expired answer is used too (its ``is_expired`` tells).
        """
        response = self.stored(path, key)
        if response is not None and response.is_expired and not self.settings.offline:  # type: ignore[attr-defined]
            return None
        return response

    def stored(self, path: str, key: str) -> requests.Response | None:
        """The stored answer of ``key``, expired or not, online too. None when none is."""
        if not self.cache_on or is_panel(path):
            return None
        response: requests.Response | None = self.session.cache.get_response(key)  # type: ignore[attr-defined]
        return response

    def renew(self, path: str, keys: Iterable[str]) -> int:
        """Keep the stored answers of ``keys`` ``expire_after`` from now. Returns how many were
        stored.

        Each is stored again with its new expiry (on Redis, its TTL follows) and its own
        ``created_at``, so it still tells when it was bought. On SQLite they are written in
        one transaction.
        """
        if not self.cache_on or is_panel(path):
            return 0
        renewed = 0
        with batched_writes(self.session.cache):  # type: ignore[attr-defined]
            for key in keys:
                response = self.stored(path, key)
                if response is None:
                    continue
                answer = read_answer(response, path)
                if should_cache(response, answer):
                    self.save(response, key, answer)
                    renewed += 1
        return renewed

    def cache_key(self, prepared: requests.PreparedRequest) -> str:
        """The answer's name in the cache (and among the processes sharing the store):
        requests-cache's own key of the request."""
        cache = self.session.cache  # type: ignore[attr-defined]
        return str(cache.create_key(prepared, verify=self.session.verify))

    def cache_keys(self, path: str, many: Iterable[Mapping[str, Any] | None]) -> list[str]:
        """:meth:`cache_key` of a GET of ``path`` with each of ``many`` params, cheaply: each
        request is built for its key alone (:func:`~lookup_pandas.cache.keys.get_keys`).

        Example: ``wire.cache_keys(PROFILE_PATH, [{"handle": "ada"}, {"handle": "grace"}])``
        """
        cache = self.session.cache  # type: ignore[attr-defined]
        return get_keys(cache, self.url(path), many, verify=bool(self.session.verify))


@dataclass(eq=False)
class Sender:
    """The chain for one request: cache lookup -> claim -> paced attempts -> one attempt."""

    wire: Wire
    policy: RetryPolicy
    pacer: Pacer
    claims: Claims
    stats: StatsCounter
    contact: Contact

    def _paced(
        self,
        prepared: requests.PreparedRequest,
        call: Call,
        actions: SendActions,
        store_as: str | None = None,
    ) -> Envelope:
        """Paced attempts of ``call``, retried as :func:`~.decisions.next_step` says: its answer,
        or the error the decision raises.

        The answer is stored under the cache key ``store_as``, if given.

        Example:
            >>> import lookup_pandas as lp
            >>> from lookup_pandas.testing import MockTransport, envelope
            >>> statuses = iter([503, 200])
            >>> def answer(request):
            ...     if "/credits/tier/" in request.url:
            ...         return 200, envelope({"current_tier": {"limit_per_minute": 60000}})
            ...     status = next(statuses)
            ...     return status, envelope({"id": "prsn_1"}, success=status == 200)
            >>> transport = MockTransport(answer)
            >>> with lp.Client(api_key="lk_example", base_url="https://api.example.com",
            ...                cache=False, backoff_base=0, transport=transport) as client:
            ...     record = client.profile("ada")
            ...     stats = client.stats
            >>> record["id"], stats.retries
            ('prsn_1', 1)
        """
        unpaced, path, tally = not actions.paced, call.path, call.tally
        attempts = Attempts()
        while True:
            try:
                if not unpaced:
                    self.contact.pace(call.cancel, tally)
                return self._attempt(prepared, path, store_as, tally)
            except ServiceError as failed:
                exc = self.contact.resolve_forbidden(failed, path, tally)
                contacted = self.contact.contacted
                step = next_step(exc, attempts, call, contacted, self.policy, self.wire.settings)
                if step.error is not None:
                    raise step.error  # noqa: B904 - its cause is the decision's
                failure = exc
            attempts = step.attempts
            self._wait(failure, step.delay, attempts, call, unpaced)

    def _wait(
        self, failure: ServiceError, delay: float, attempts: Attempts, call: Call, unpaced: bool
    ) -> None:
        """Before a retry: count it, slow the pace after a 429, and wait ``delay``."""
        self.stats.count(call.tally, retries=1)
        logger.info(
            "retrying %s after %s%s in %.2fs (retry %d of %d)",
            call.path,
            type(failure).__name__,
            f" (HTTP {failure.status_code})" if failure.status_code is not None else "",
            delay,
            attempts.retries,
            self.policy.max_retries,
        )
        if isinstance(failure, RateLimitError):  # it always slows the pace (:func:`.slowdown`)
            change = slowdown(failure, self.pacer.per_minute)
            if change.action == "set":
                logger.info("rate limited: pacing at %.1f/min", change.per_minute)
                self.pacer.set_rate(change.per_minute, share=True)
            elif change.action == "halve":
                rate = self.pacer.slow_down(SAFE_DEFAULT_RATE_PER_MINUTE)
                logger.info("rate limited (no limit named): pacing at %.1f/min", rate)
            self.contact.reread_tier(after_429=True, tally=call.tally)  # it may drop, as credits
            self.pacer.defer(delay)  # every thread waits, and the retry takes a new slot
        if unpaced or not isinstance(failure, RateLimitError):
            # The panel endpoint takes no slot, so it waits out a Retry-After itself.
            pause(delay, call.cancel)  # ends early, sending nothing, if the job is stopping

    def _attempt(
        self,
        prepared: requests.PreparedRequest,
        path: str,
        store_as: str | None = None,
        tally: ClientStats | None = None,
    ) -> Envelope:
        """One send: its failure translated, its answer counted (in ``tally`` too), read once,
        stored under the cache key ``store_as`` (if given) and noted."""
        started = time.perf_counter()
        try:
            with translated_errors(prepared.url or "", path, self.wire.settings.timeout):
                response = self.wire.send(prepared)
        except TransportError:
            self.stats.count(tally, sent=1)
            raise
        self.stats.account(response, tally, batch=is_batch(path))
        balance = response.headers.get("X-Credits-Balance")
        if balance is not None and not is_panel(path):
            self.contact.seen_balance(finite_number(balance), tally)
        logger.debug(
            "%s %s -> %s in %.1f ms",
            prepared.method,
            prepared.path_url,  # the path and query: the key is only ever in a header
            response.status_code,
            1000 * (time.perf_counter() - started),
        )
        answer = read_answer(response, path)
        if store_as is not None:
            self.wire.save(response, store_as, answer)
        self.contact.note(answer, path)
        if isinstance(answer, ServiceError):
            raise answer
        return answer

    def request(self, call: Call) -> Envelope:
        """The one place requests are sent: the call's :class:`SendActions`, carried out.

        Order of operations:

        1. Decide the actions once, prepare the request and work its cache key out (once).
        2. Read the cache (``actions.read``). With ``actions.fresh_after``, an answer stored
           earlier is a miss.
        3. On a miss, claim the answer among the processes sharing the store (``actions.claim``).
        4. Return a stored answer. Online, a key never proven is checked once first.
        5. Offline, a miss is a NotCachedError.
        6. Send it in paced attempts, then let go of the claim.

        Example:
            >>> import tempfile
            >>> from pathlib import Path
            >>> import lookup_pandas as lp
            >>> from lookup_pandas.testing import MockTransport
            >>> transport = MockTransport(lambda request: (500, "never asked"))
            >>> with tempfile.TemporaryDirectory() as tmp:
            ...     with lp.Client(api_key="lk_example", base_url="https://api.example.com",
            ...                    cache=Path(tmp, "c.sqlite"), offline=True,
            ...                    transport=transport) as client:
            ...         client.profile("ada")
            Traceback (most recent call last):
            ...
            lookup_pandas.errors.NotCachedError: Offline, and the cache holds no answer for GET
            https://api.example.com/api/data/v1/people/profile?handle=ada: run it online once to
            buy it
            >>> len(transport.requests)
            0
        """
        wire = self.wire
        actions = SendActions.from_call(call, wire.settings, cache_on=wire.cache_on)
        if actions.error is not None:
            raise actions.error
        path, cancel = call.path, call.cancel
        prepared = wire.prepare(path, call.params, method=call.method, body=call.body)
        keyed = wire.cache_on and (actions.read != "skip" or actions.claim or actions.store)
        key = (call.key or wire.cache_key(prepared)) if keyed else None  # once, for all three
        lookup = self.lookup(path, key, actions.fresh_after)
        stored = None
        if actions.read == "once":
            stored = lookup()
        elif actions.read == "afresh":  # a claim let go of lately: until the answer shows
            stored = fresh_lookup(lookup, cancel)
        claimed: str | None = None
        if stored is None and actions.claim and key is not None:  # or another process buys it
            claimed, stored = claim_or_wait(
                self.claims, key, lookup, cancel, self.stats.count_waiting
            )
        if stored is not None:
            if actions.send and not self.contact.key_proven:
                self.contact.check_key(call.tally)
            self.stats.count(call.tally, cache_hits=1)
            return parsed_answer(stored, path, from_cache=True)
        if not actions.send:  # offline: only a call that is never cached skips the read
            raise not_cached(prepared, cached=actions.read != "skip")
        bought = False  # is the answer in the cache now (a record, or a billed not-found)?
        store_as = key if actions.store else None
        try:
            env = self._paced(prepared, call, actions, store_as)
            bought = True
            return env
        except NotFoundError as exc:
            bought = exc.status_code == 200
            raise
        finally:
            if claimed is not None:
                self.claims.release([claimed], bought=bought)

    def lookup(self, path: str, key: str | None, fresh_after: float | None) -> CacheRead:
        """The call's cache lookup of ``key`` (None: no cache): the stored answer if it counts,
        else None.

        It counts when it has not expired and, with ``fresh_after``, was stored at or after it
        (:func:`~.decisions.fresh_enough`).
        """

        def look() -> requests.Response | None:
            stored = None if key is None else self.wire.cached(path, key)
            if stored is None or fresh_after is None:
                return stored
            return (
                stored if fresh_enough(getattr(stored, "created_at", None), fresh_after) else None
            )

        return look
