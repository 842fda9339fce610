"""First contact with the base URL, the key check, and the pace learned from the credits tier.

Example:
    >>> from lookup_pandas.service.envelope import Envelope
    >>> from lookup_pandas.store import MemoryStore
    >>> settings = Settings.build(api_key="lk_example", base_url="https://api.example.com")
    >>> def request(call):  # stands for the Client's send chain
    ...     print("GET", call.path)
    ...     return Envelope({"current_tier": {"limit_per_minute": 60}}, "ok", None, None, {})
    >>> contact = Contact(settings, Pacer(7), MemoryStore(), cache_on=False, request=request)
    >>> contact.learn_pace()  # 95% of the tier's limit
    GET /api/panel/credits/tier/k/
    57.0
    >>> contact.learn_pace()  # learned once
    57.0
"""

from __future__ import annotations

import copy
import logging
import math
import threading
import time
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from ..config.settings import SAFE_DEFAULT_RATE_PER_MINUTE, Settings
from ..errors import (
    AuthenticationError,
    ConfigurationError,
    PermissionDeniedError,
    ServiceError,
    TransportError,
)
from ..service.endpoints import checked_data, is_panel
from ..service.paths import HEALTH_PATH, TIER_PATH
from ..store import Store
from ..store.pacing import Pacer, pause
from .decisions import (
    Call,
    Requester,
    proves_contact,
    proves_key,
    rate_from_tier,
    tier_action,
    tier_floor,
)
from .stats import ClientStats

__all__ = ["KEY_GOOD_SECONDS", "Contact"]

#: After the tier endpoint accepted the key, ambiguous 403s this soon after are taken as about
#: their record without asking again (a revoked key says so in its own 403s).
KEY_GOOD_SECONDS = 30.0

logger = logging.getLogger(__name__)


@dataclass(eq=False, repr=False)
class Contact:
    """What one Client learned of the service: contacted yet, key proven, the pace.

    Example:
        >>> from lookup_pandas.service.endpoints import PROFILE_PATH
        >>> from lookup_pandas.service.envelope import Envelope
        >>> from lookup_pandas.store import MemoryStore
        >>> settings = Settings.build(api_key="lk_example", base_url="https://api.example.com")
        >>> send = print  # stands for the send chain: nothing is sent here
        >>> contact = Contact(settings, Pacer(7), MemoryStore(), cache_on=False, request=send)
        >>> contact.contacted, contact.key_proven
        (False, False)
        >>> ada = Envelope({"id": "prsn_1"}, "ok", None, None, {})
        >>> contact.note(ada, PROFILE_PATH)  # a success from the network
        >>> contact.contacted, contact.key_proven
        (True, True)
    """

    settings: Settings
    pacer: Pacer
    store: Store
    _: KW_ONLY
    cache_on: bool
    request: Requester
    #: Has the base URL answered with the service's envelope yet? The three flags only ever
    #: turn True: a read without the lock can only be late (as ``threading.Event.is_set``).
    contacted: bool = field(default=False, init=False)
    #: Has an answer (here, or in the store's memory) accepted the key?
    key_proven: bool = field(default=False, init=False)
    #: Is the pace known (from the tier, or the fallback)?
    rate_known: bool = field(default=False, init=False)
    #: What the key check was told.
    _key_rejected: AuthenticationError | None = field(default=None, init=False)
    #: Failed attempts to learn the pace (each is retried by a later call), and the last one's.
    _rate_failures: int = field(default=0, init=False)
    _rate_error: BaseException | None = field(default=None, init=False)
    #: When the tier endpoint last accepted the key after an ambiguous 403 (monotonic).
    _key_good_at: float | None = field(default=None, init=False)
    #: The tier as last read, and when (monotonic): the pace follows it down as credits go.
    _tier: Mapping[str, Any] | None = field(default=None, init=False)
    _tier_read_at: float | None = field(default=None, init=False)
    #: The pace already dropped to the lower tier's, just before the balance crosses the floor.
    _dropped_early: bool = field(default=False, init=False)
    #: A tier read in flight: the key check's, the first one (the pace), a later one.
    _checking: bool = field(default=False, init=False)
    _learning: bool = field(default=False, init=False)
    _rereading: bool = field(default=False, init=False)
    #: The one lock over all of the above, never held while a request is sent or the store is
    #: asked; a thread waits on it for a tier read in flight.
    _lock: threading.Condition = field(
        default_factory=lambda: threading.Condition(threading.Lock()), init=False
    )

    def note(self, outcome: object, path: str) -> None:
        """Note an attempt's outcome (an Envelope or its ServiceError, from the network): contact
        made, key proven.

        :func:`~lookup_pandas.http.decisions.proves_contact` and
        :func:`~lookup_pandas.http.decisions.proves_key` decide.
        """
        if self.contacted and self.key_proven:  # both only ever turn True: the fast path
            return
        if proves_contact(outcome):
            with self._lock:
                self.contacted = True
        if not self.key_proven and proves_key(outcome, path):
            with self._lock:  # remembered here, and in the store once per Client
                if self.key_proven:
                    return
                self.key_proven = True
            try:
                self.store.mark_key_seen()
            except ServiceError:  # a shared store that is down costs a later tier read, no more
                logger.debug("could not remember that the key works", exc_info=True)

    def check_key(self, tally: ClientStats | None = None) -> None:
        """Make sure the key works, once per key and base URL (see ``Client.check_key``).

        Example:
            >>> from lookup_pandas.testing import MockService
            >>> tier_reads = []
            >>> with MockService({"id": "prsn_1", "handle": "ada"}) as service:
            ...     for key in ["lk_example", "lk_example", "lk_rotated"]:
            ...         with service.client(key) as client:  # one cache for all three
            ...             _ = client.profile("ada")  # bought once, then read from the cache
            ...         tier_reads.append(service.count("/credits/tier/"))
            >>> tier_reads  # the store remembers a key that worked, a new key is checked once
            [1, 1, 2]
        """
        if self.key_proven or not self.cache_on:  # no cache: every answer is the key's
            return
        with self._lock:  # one check, however many threads meet their first cache hit
            self._lock.wait_for(lambda: not self._checking)
            if self.key_proven:
                return
            if self._key_rejected is not None:  # told once: every thread gets a copy
                raise copy.copy(self._key_rejected)
            self._checking = True
        proven, rejected = False, None
        try:
            if not self.store.key_seen():
                self.credits_tier(tally)  # its answer proves the key
            proven = True
        except AuthenticationError as exc:
            rejected = exc
            raise
        except ServiceError as exc:
            proven = True  # not proven, but not asked again by this Client
            logger.warning("Could not check the API key (%s); answering from the cache.", exc)
        finally:
            with self._lock:
                self._checking, self._key_rejected = False, rejected
                self.key_proven = self.key_proven or proven
                self._lock.notify_all()

    def resolve_forbidden(
        self, exc: ServiceError, path: str, tally: ClientStats | None = None
    ) -> ServiceError:
        """A 403 told apart: a PermissionDeniedError about one record, or an AuthenticationError.

        A 403 on a panel path is the key's. An ambiguous one is decided by the free tier endpoint.

        Example:
            >>> from lookup_pandas.service.endpoints import PROFILE_PATH
            >>> from lookup_pandas.store import MemoryStore
            >>> settings = Settings.build(api_key="lk_example", base_url="https://api.example.com")
            >>> def send(call):  # stands for the send chain: the tier reads, the key works
            ...     print("GET", call.path)
            >>> contact = Contact(settings, Pacer(7), MemoryStore(), cache_on=False, request=send)
            >>> forbidden = PermissionDeniedError("Forbidden", status_code=403)
            >>> forbidden.ambiguous = True
            >>> contact.resolve_forbidden(forbidden, PROFILE_PATH) is forbidden
            GET /api/panel/credits/tier/k/
            True
            >>> contact.resolve_forbidden(forbidden, TIER_PATH)
            AuthenticationError('Forbidden')
        """
        if not isinstance(exc, PermissionDeniedError):
            return exc
        if is_panel(path):
            auth = AuthenticationError(exc.message, status_code=exc.status_code)
            auth.request_id, auth.url, auth.enveloped = exc.request_id, exc.url, exc.enveloped
            return auth
        if not exc.ambiguous:
            return exc
        now = time.monotonic()
        with self._lock:
            good_at = self._key_good_at
        if good_at is not None and now - good_at < KEY_GOOD_SECONDS:
            return exc
        try:
            self.request(Call(TIER_PATH, cache=False, paced=False, tally=tally))
        except AuthenticationError as rejected:
            return rejected
        except ServiceError:
            return exc  # could not tell: this record is forbidden; the next such 403 asks again
        with self._lock:
            self._key_good_at = now
        return exc

    def seen_balance(self, balance: float | None, tally: ClientStats | None = None) -> None:
        """Follow the tier down as the balance that answers name falls (:func:`.tier_action`).

        Example:
            >>> from lookup_pandas.service.envelope import Envelope
            >>> from lookup_pandas.store import MemoryStore
            >>> tier = {"current_tier": {"limit_per_minute": 600, "min_credits": 100},
            ...         "previous_tier": {"limit_per_minute": 60}}
            >>> def send(call):  # stands for the send chain
            ...     return Envelope(tier, "ok", None, None, {})
            >>> settings = Settings.build(api_key="lk_example", base_url="https://api.example.com")
            >>> contact = Contact(settings, Pacer(7), MemoryStore(), cache_on=False, request=send)
            >>> contact.learn_pace()
            570.0
            >>> contact.seen_balance(104)  # a few credits above the floor: the lower tier's pace
            >>> contact.pacer.per_minute
            57.0
        """
        with self._lock:
            tier = self._tier
            if tier is None or not self.rate_known:
                return
            action = tier_action(
                balance,
                tier_floor(tier),
                margin=2 * self.settings.max_workers + 4,
                dropped_early=self._dropped_early,
                read_at=self._tier_read_at,
                now=time.monotonic(),
            )
            self._dropped_early = self._dropped_early or action == "drop"
        if action == "drop":
            lower = rate_from_tier(
                {"current_tier": tier.get("previous_tier")}, self.settings.rate_limit_per_minute
            )
            if lower is not None and lower != math.inf:
                logger.info("the balance nears the tier's floor: pacing at %.1f/min", lower)
                self.pacer.set_rate(lower, share=True)
        elif action == "reread":
            self.reread_tier(tally=tally)

    def reread_tier(self, *, after_429: bool = False, tally: ClientStats | None = None) -> None:
        """Read the tier again (free, unpaced) and pace by it.

        After a 429 (``after_429``) the pace only ever slows down.
        """
        with self._lock:
            if not self.rate_known or self._rereading:
                return  # another thread is reading it
            self._rereading = True
        try:
            # Advisory: a 429 here (a limiter that counts the account routes) is not waited
            # out in the caller's thread; the pace stays as it is until the next read.
            answer = self.request(Call(TIER_PATH, final_statuses=frozenset({429}), tally=tally))
            tier = checked_data(answer, TIER_PATH)
        except ServiceError as exc:
            with self._lock:
                self._tier_read_at = time.monotonic()  # try again later, pace unchanged
            logger.info("could not read the credits tier again (%s)", exc)
            return
        finally:
            with self._lock:
                self._rereading = False
        rate = rate_from_tier(tier, self.settings.rate_limit_per_minute)
        current = self.pacer.per_minute or math.inf
        if rate is not None and (rate < current or not after_429):
            if rate != current:
                logger.info("the credits tier says %s/min: pacing by it", f"{rate:.1f}")
            self.pacer.set_rate(None if rate == math.inf else rate, share=rate < current)
        self._note_tier(tier)

    def _note_tier(self, tier: Mapping[str, Any]) -> None:
        with self._lock:
            self._tier, self._tier_read_at, self._dropped_early = tier, time.monotonic(), False

    @property
    def tier(self) -> Mapping[str, Any] | None:
        """The credits tier as last read (None: not read yet). Sends nothing."""
        with self._lock:
            return self._tier

    def credits_tier(self, tally: ClientStats | None = None) -> dict[str, Any]:
        """The credits-tier payload. Reading it teaches the pace, if it was not known yet.

        A tier that names no current tier gives the configured pace, else the cheapest tier's.
        """
        tier: dict[str, Any] = checked_data(self.request(Call(TIER_PATH, tally=tally)), TIER_PATH)
        self._note_tier(tier)
        if not self.rate_known:
            explicit = self.settings.rate_limit_per_minute
            rate = rate_from_tier(tier, explicit)
            if rate is None:
                rate = explicit or SAFE_DEFAULT_RATE_PER_MINUTE
                logger.warning(
                    "The credits tier names no current tier; pacing at %.0f calls/min.", rate
                )
            self._set_rate(rate)
        return tier

    def learn_pace(
        self, cancel: threading.Event | None = None, tally: ClientStats | None = None
    ) -> float | None:
        """The pace in calls per minute (None: unpaced), learned now if it was not yet."""
        if not self.rate_known:
            self._learn_rate(cancel, tally)
        return self.pacer.per_minute

    def pace(self, cancel: threading.Event | None, tally: ClientStats | None = None) -> None:
        """Before a paced send: learn the pace (once), then wait for this caller's slot."""
        self.learn_pace(cancel, tally)
        self.pacer.wait(cancel)

    def _learn_rate(self, cancel: threading.Event | None, tally: ClientStats | None) -> None:
        """Read the tier once, while other threads wait for it.

        A failure is raised in every thread that waited, and the next call tries again.
        """
        pause(0, cancel)  # a stopped job's thread does not start it
        with self._lock:
            failures = self._rate_failures
            self._lock.wait_for(lambda: not self._learning)
            if self.rate_known:
                return
            if self._rate_failures != failures:
                assert self._rate_error is not None
                raise copy.copy(self._rate_error)
            self._learning = True
        try:
            self._discover_rate(tally)
        except BaseException as exc:
            with self._lock:
                self._rate_error = exc
                self._rate_failures += 1
            raise
        finally:
            with self._lock:
                self._learning = False
                self._lock.notify_all()

    def _set_rate(self, rate: float) -> None:
        """Apply a learned pace (``math.inf``: unpaced), then tell it is known."""
        self.pacer.set_rate(None if rate == math.inf else rate)
        with self._lock:
            self.rate_known = True
        logger.info("pace learnt: %s", "no limit" if rate == math.inf else f"{rate:.1f} calls/min")

    def _discover_rate(self, tally: ClientStats | None) -> None:
        """Pace by the credits tier (:meth:`credits_tier`).

        An AuthenticationError or a ConfigurationError is raised. A tier that cannot be read
        otherwise gives the configured pace, else the cheapest tier's 7/min, with a warning.
        """
        try:
            self.credits_tier(tally)
        except (AuthenticationError, ConfigurationError):
            raise
        except ServiceError as exc:
            if not self.contacted and not isinstance(exc, TransportError):
                # Something answered, but not with a tier: is it the service at all? (A
                # transport failure says nothing more; the next call meets it again.)
                self.request(Call(HEALTH_PATH, cache=False, paced=False, tally=tally))  # free
            rate = self.settings.rate_limit_per_minute or SAFE_DEFAULT_RATE_PER_MINUTE
            logger.warning(
                "Could not read the credits tier to learn the rate limit (%s); pacing at "
                "%.0f calls/min.",
                exc,
                rate,
            )
            self._set_rate(rate)
