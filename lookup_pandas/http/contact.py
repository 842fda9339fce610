"""First contact with the base URL, the key check, and the pace learned from the credits tier.

Example::

    contact = Contact(settings, pacer, store, cache_on=True, request=client._request)
    contact.learn_pace()      # 57.0 on a 60/min tier: read once, never billed
    contact.check_key()       # sends nothing when the key has worked before
    contact.pace(cancel)      # before each paced send: learn the pace once, then take a slot
"""

from __future__ import annotations

import copy
import logging
import math
import threading
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Protocol

from ..endpoints import HEALTH_PATH, TIER_PATH, checked_data
from ..envelope import Envelope
from ..errors import AuthenticationError, ConfigurationError, ServiceError, TransportError
from ..pacing import Pacer, pause
from ..settings import SAFE_DEFAULT_RATE_PER_MINUTE, Settings
from ..store import Store
from .decisions import proves_contact, proves_key, rate_from_tier

__all__ = ["Contact", "Requester"]

logger = logging.getLogger(__name__)


class Requester(Protocol):
    """The send chain, as the contact uses it (``Client._request``)."""

    def __call__(
        self,
        path: str,
        params: Mapping[str, Any] | None,
        *,
        cache: bool = True,
        paced: bool = True,
    ) -> Envelope: ...


@dataclass(eq=False, repr=False)
class Contact:
    """What one Client learned of the service: contacted yet, key proven, the pace."""

    settings: Settings
    pacer: Pacer
    store: Store
    _: KW_ONLY
    cache_on: bool
    request: Requester
    #: Has the base URL answered with the service's envelope yet?
    contacted: bool = field(default=False, init=False)
    #: Has an answer (here, or in the store's memory) accepted the key?
    key_proven: bool = field(default=False, init=False)
    _key_lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    #: What the key check was told.
    _key_rejected: AuthenticationError | None = field(default=None, init=False)
    _rate_lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    rate_known: bool = field(default=False, init=False)
    #: Failed attempts to learn it (each is retried by a later call).
    _rate_failures: int = field(default=0, init=False)
    _rate_error: BaseException | None = field(default=None, init=False)

    def note(self, outcome: object, path: str, *, from_cache: bool) -> None:
        """An attempt's outcome (an Envelope or the ServiceError it meant): first contact? the
        key proven? See :func:`~lookup_pandas.http.decisions.proves_contact`."""
        if self.contacted and self.key_proven:  # both only ever turn True: the fast path
            return
        if proves_contact(outcome, from_cache=from_cache):
            self.contacted = True
        if not self.key_proven and proves_key(outcome, path, from_cache=from_cache):
            self.prove_key()

    def prove_key(self) -> None:
        """An answer accepted the key: remember it here and in the store (once per Client)."""
        self.key_proven = True
        try:
            self.store.mark_key_seen()
        except ServiceError:  # a shared store that is down costs a later tier read, no more
            logger.debug("could not remember that the key works", exc_info=True)

    def check_key(self) -> None:
        """Make sure the key works, once per key and base URL (see ``Client.check_key``)."""
        if self.key_proven or not self.cache_on:  # no cache: every answer is the key's
            return
        with self._key_lock:  # one tier read, however many threads meet their first cache hit
            if self.key_proven:
                return
            if self._key_rejected is not None:  # told once: every thread gets a copy
                raise copy.copy(self._key_rejected)
            if self.store.key_seen():
                self.key_proven = True
                return
            try:
                self.credits_tier()
            except AuthenticationError as exc:
                self._key_rejected = exc
                raise
            except ServiceError as exc:
                self.key_proven = True  # not proven, but not asked again by this Client
                logger.warning("Could not check the API key (%s); answering from the cache.", exc)

    def credits_tier(self) -> dict[str, Any]:
        """The credits-tier payload; reading it teaches the pace, if it was not known yet."""
        tier: dict[str, Any] = checked_data(self.request(TIER_PATH, None), TIER_PATH)
        if not self.rate_known:
            with self._rate_lock:
                if not self.rate_known:
                    self._set_rate(self._rate_from(tier))
        return tier

    def learn_pace(self) -> float | None:
        """The pace in calls per minute (None: unpaced), learned now if it was not yet."""
        if not self.rate_known:
            self._learn_rate(None)
        return self.pacer.per_minute

    def pace(self, cancel: threading.Event | None) -> None:
        """Before a paced send: learn the pace (once), then wait for this caller's slot."""
        if not self.rate_known:
            self._learn_rate(cancel)
        self.pacer.wait(cancel)

    def _learn_rate(self, cancel: threading.Event | None) -> None:
        """Read the tier once; other threads wait for it. A failure is raised (every thread
        that waited for that attempt gets a copy, sending nothing), and the next call tries
        again: the key or the service may be fixed by then."""
        pause(0, cancel)  # a stopped job's thread does not start it
        failures = self._rate_failures
        with self._rate_lock:
            if self.rate_known:
                return
            if self._rate_failures != failures:
                assert self._rate_error is not None
                raise copy.copy(self._rate_error)
            try:
                rate = self._discover_rate()
            except BaseException as exc:
                self._rate_error = exc
                self._rate_failures += 1
                raise
            self._set_rate(rate)

    def _set_rate(self, rate: float) -> None:
        """Apply a learned pace (``math.inf``: unpaced); called with the rate lock held."""
        self.pacer.set_rate(None if rate == math.inf else rate)
        self.rate_known = True
        logger.debug("pacing at %s calls/min", "no limit" if rate == math.inf else f"{rate:.1f}")

    def _discover_rate(self) -> float:
        """The pace from the credits tier. An AuthenticationError or ConfigurationError (the
        first contact failed) is raised; a tier that cannot be read otherwise gives the
        configured pace, else the cheapest tier's 7/min, with a warning."""
        try:
            tier = checked_data(self.request(TIER_PATH, None), TIER_PATH)
        except (AuthenticationError, ConfigurationError):
            raise
        except ServiceError as exc:
            if not self.contacted and not isinstance(exc, TransportError):
                # Something answered, but not with a tier: is it the service at all? (A
                # transport failure says nothing more; the next call meets it again.)
                self._probe_health()
            rate = self.settings.rate_limit_per_minute or SAFE_DEFAULT_RATE_PER_MINUTE
            logger.warning(
                "Could not read the credits tier to learn the rate limit (%s); pacing at "
                "%.0f calls/min.",
                exc,
                rate,
            )
            return rate
        return self._rate_from(tier)

    def _probe_health(self) -> None:
        """Ask the Data API's free health probe (unpaced, no credits): a success proves the
        service; a 404 or an answer that is not the service's is a ConfigurationError (after
        one quick retry); the service's own error (a 503: it is down) is raised as it is."""
        self.request(HEALTH_PATH, None, cache=False, paced=False)

    def _rate_from(self, tier: Mapping[str, Any]) -> float:
        """The tier's pace (:func:`rate_from_tier`), or the fallback with a warning."""
        explicit = self.settings.rate_limit_per_minute
        rate = rate_from_tier(tier, explicit)
        if rate is None:
            rate = explicit or SAFE_DEFAULT_RATE_PER_MINUTE
            logger.warning(
                "The credits tier names no current tier; pacing at %.0f calls/min.", rate
            )
        return rate
