"""This process's claims on answers being bought: taken, kept alive while it works, let go.

Example::

    claims = Claims(store)
    claims.take(["key-of-ada"])       # {"key-of-ada": MINE}: buy it (BUSY: another process is)
    ...                               # a heartbeat renews every held claim while it is held
    claims.release(["key-of-ada"])    # the next claimant is told RECHECK: read the cache

A claim says "this answer is being bought: wait, then read the cache", so two processes sharing
a cache never pay for one answer twice. A claim must not outlive its holder: one left by a
process that was killed froze the next run for up to 9 minutes (issue 21). So a claim is short
(:data:`CLAIM_TTL_SECONDS`) and renewed every :data:`HEARTBEAT_SECONDS` by one thread while this
process holds any; a holder that stops (killed, frozen, its machine gone) loses its claims
within ``CLAIM_TTL_SECONDS``. On the same machine, it loses them at once: the store sees that
the process named on the claim no longer runs (:mod:`lookup_pandas.store.holders`).

The heartbeat is a daemon thread, started with the first claim held and ending when none is
held; a renewal that fails (a shared Redis that is briefly away) is logged and tried again at
the next beat.
"""

from __future__ import annotations

import logging
import threading

from .store import MINE, RECHECK, Store

__all__ = ["CLAIM_TTL_SECONDS", "HEARTBEAT_SECONDS", "Claims"]

logger = logging.getLogger(__name__)

#: How long a claim lasts without renewal: the longest a stopped holder on another machine
#: can delay others (on this machine, a dead holder's claims are taken over at once).
CLAIM_TTL_SECONDS = 30.0
#: How often the claims held are renewed: a third of their lifetime, so two missed beats
#: (a busy machine) still do not lose them.
HEARTBEAT_SECONDS = CLAIM_TTL_SECONDS / 3


class Claims:
    """The claims one Client holds in its store, kept alive by a heartbeat while held."""

    def __init__(
        self,
        store: Store,
        *,
        ttl: float = CLAIM_TTL_SECONDS,
        heartbeat: float = HEARTBEAT_SECONDS,
    ) -> None:
        self.store = store
        self.ttl = ttl
        self._heartbeat = heartbeat
        self._lock = threading.Lock()
        self._held: dict[str, int] = {}  # key -> how many takers in this Client hold it
        self._beating: threading.Thread | None = None
        self._closed = threading.Event()

    @property
    def held(self) -> int:
        """How many claims are held now."""
        with self._lock:
            return len(self._held)

    def take(self, keys: list[str]) -> dict[str, str]:
        """Claim each of ``keys``: MINE (buy it), BUSY (another holder is), or RECHECK (held
        now, but another holder just let go: read the cache first). See ``Store.claim_many``."""
        states = self.store.claim_many(keys, self.ttl)
        with self._lock:
            for key, state in states.items():
                if state in (MINE, RECHECK):
                    self._held[key] = self._held.get(key, 0) + 1
            if self._held and self._beating is None and not self._closed.is_set():
                self._beating = threading.Thread(
                    target=self._beat, name="lookup-claims-heartbeat", daemon=True
                )
                self._beating.start()
        return states

    def release(self, keys: list[str], *, bought: bool = True) -> None:
        """Let go of ``keys`` (those held). ``bought``: their answers are in the cache, so the
        next claimants read it first; else (nothing was bought) the next claimant buys at once,
        without looking at the cache again and again for an answer that is not coming."""
        if not keys:
            return
        with self._lock:
            for key in keys:
                n = self._held.get(key, 0)
                if n <= 1:
                    self._held.pop(key, None)
                else:
                    self._held[key] = n - 1
        self.store.release_many(keys, bought=bought)

    def close(self) -> None:
        """Stop the heartbeat (the claims still held expire by themselves)."""
        self._closed.set()

    def _beat(self) -> None:
        while not self._closed.wait(self._heartbeat):
            with self._lock:
                keys = list(self._held)
                if not keys:
                    self._beating = None  # the next take() starts another
                    return
            try:
                self.store.renew(keys, self.ttl)
            except Exception:  # a store briefly away: the next beat tries again
                logger.debug("could not renew %d claims", len(keys), exc_info=True)
        with self._lock:
            self._beating = None
