"""This process's claims on answers being bought: taken, kept alive while it works, let go.

Example:
    >>> from lookup_pandas.store import MemoryStore
    >>> claims = Claims(MemoryStore())
    >>> claims.take(["key-of-ada"])  # buy it (BUSY: another holder is buying it)
    {'key-of-ada': 'mine'}
    >>> claims.release(["key-of-ada"])  # bought: the next claimant reads the cache first
    >>> claims.close()
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from . import BUSY, MINE, RECHECK, Store
from .pacing import pause

__all__ = [
    "CLAIM_TTL_SECONDS",
    "HEARTBEAT_SECONDS",
    "ClaimWindow",
    "Claims",
    "claim_or_wait",
    "fresh_lookup",
]

T = TypeVar("T")

logger = logging.getLogger(__name__)

#: How long a claim lasts without renewal: the longest a stopped holder on another machine
#: can delay others (on this machine, a dead holder's claims are taken over at once).
CLAIM_TTL_SECONDS = 30.0
#: How often the claims held are renewed: a third of their lifetime, so two missed beats
#: (a busy machine) still do not lose them.
HEARTBEAT_SECONDS = CLAIM_TTL_SECONDS / 3
#: How often a call waiting for another process's claim looks at the cache again.
CLAIM_POLL_SECONDS = 0.1
#: Looks at the cache (and the pause between them) after another holder let go of a claim.
RECHECK_LOOKS, RECHECK_PAUSE_SECONDS = 5, 0.05


class Claims:
    """The claims one Client holds in its store, kept alive by a heartbeat while held.

    Example:
        >>> from lookup_pandas.store import MemoryStore
        >>> claims = Claims(MemoryStore())
        >>> claims.take(["k1", "k2"]), claims.held
        ({'k1': 'mine', 'k2': 'mine'}, 2)
        >>> claims.take(["k1"])  # held by this Client already: another caller waits
        {'k1': 'busy'}
        >>> claims.release(["k1", "k2"])
        >>> claims.close()
    """

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
        self._held: set[str] = set()  # the keys this Client holds (one taker each)
        self._beating: threading.Thread | None = None
        self._closed = threading.Event()

    @property
    def held(self) -> int:
        """How many claims are held now."""
        with self._lock:
            return len(self._held)

    def take(self, keys: list[str]) -> dict[str, str]:
        """Claim each of ``keys``: MINE (buy it), BUSY (another holder is), or RECHECK (read first).

        A key this Client holds already is BUSY, without asking the store.
        """
        with self._lock:
            ours = [k for k in keys if k in self._held]
            asked = [k for k in dict.fromkeys(keys) if k not in self._held]
            self._held.update(asked)  # taken, unless the store says another process holds it
        try:
            states = self.store.claim_many(asked, self.ttl) if asked else {}
        except BaseException:  # Ctrl-C as the store answered: what it may have given goes back
            self.release(asked, bought=False)
            raise
        with self._lock:
            for key, state in states.items():
                if state not in (MINE, RECHECK):
                    self._held.discard(key)
            states.update(dict.fromkeys(ours, BUSY))
            if self._held and self._beating is None and not self._closed.is_set():
                self._beating = threading.Thread(
                    target=self._beat, name="lookup-claims-heartbeat", daemon=True
                )
                self._beating.start()
        return states

    def release(self, keys: list[str], *, bought: bool = True) -> None:
        """Let go of ``keys``. ``bought``: their answers are in the cache now."""
        if not keys:
            return
        try:
            self.store.release_many(keys, bought=bought)
        except Exception:  # the store failed, and the run stops on it: none is renewed any
            with self._lock:  # more, so each expires by itself, even in a process that lives on
                self._held.clear()
            raise
        with self._lock:  # held until let go (Ctrl-C midway)
            self._held.difference_update(keys)

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


class ClaimWindow:
    """Claims taken ahead for a run of calls, one store call a window, let go in batches.

    Only the keys taken MINE or RECHECK are held. Their calls neither claim nor release them.
    Finished claims are let go when the next window is taken, when ``size`` wait
    (:meth:`due`, then :meth:`flush`), and at :meth:`close`. Thread-safe.

    Example:
        >>> from lookup_pandas.store import MemoryStore
        >>> window = ClaimWindow(Claims(MemoryStore()), size=32)
        >>> window.hold({"ada": "k1", "grace": "k2"})
        {'ada': ('k1', 'mine'), 'grace': ('k2', 'mine')}
        >>> window.finished("k1", bought=True)  # let go with the next batch
        >>> window.close()  # the rest let go, unfinished ones as not bought
        >>> window.claims.close()
    """

    def __init__(self, claims: Claims, size: int) -> None:
        self.claims = claims
        self.size = size
        self._lock = threading.Lock()
        self._holding: set[str] = set()  # held, call not finished
        self._finished: dict[bool, list[str]] = {True: [], False: []}

    def hold(self, keys: dict[str, str]) -> dict[str, tuple[str, str]]:
        """Let go of what is finished, then claim the key of each name in ``keys``, in one call.

        Returns the names held, with key and state. A key shared by several names is given to the
        first; a key held already, to none.

        Example:
            >>> from lookup_pandas.store import MemoryStore
            >>> window = ClaimWindow(Claims(MemoryStore()), size=32)
            >>> window.hold({"ada": "k1", "ada-lovelace": "k1", "grace": "k2"})
            {'ada': ('k1', 'mine'), 'grace': ('k2', 'mine')}
            >>> window.close()
            >>> window.claims.close()
        """
        self.flush()
        states = self.claims.take(list(keys.values()))  # a key held already is BUSY
        held: dict[str, tuple[str, str]] = {}
        with self._lock:
            for name, key in keys.items():
                if states.get(key) in (MINE, RECHECK) and key not in self._holding:
                    self._holding.add(key)
                    held[name] = (key, states[key])
        return held

    def finished(self, key: str, *, bought: bool) -> None:
        """The call holding ``key`` is over. ``bought``: its answer is in the cache now."""
        with self._lock:
            if key in self._holding:
                self._holding.discard(key)
                self._finished[bought].append(key)

    def due(self) -> bool:
        """Whether ``size`` finished claims wait to be let go."""
        with self._lock:
            return len(self._finished[True]) + len(self._finished[False]) >= self.size

    def flush(self) -> None:
        """Let go of every finished claim: one ``release_many`` per bought-flag."""
        with self._lock:
            groups, self._finished = self._finished, {True: [], False: []}
        try:
            for bought in (True, False):
                self.claims.release(groups[bought], bought=bought)
                groups[bought] = []
        except BaseException:  # Ctrl-C midway: what is not let go yet waits for close()
            with self._lock:
                for bought, keys in groups.items():
                    self._finished[bought].extend(keys)
            raise

    def close(self) -> None:
        """Let go of everything held. Unfinished claims go as not bought: the next claimant buys."""
        with self._lock:
            for key in self._holding:
                self._finished[False].append(key)
            self._holding.clear()
        self.flush()


def claim_or_wait(
    claims: Claims,
    key: str,
    lookup: Callable[[], T | None],
    cancel: threading.Event | None = None,
    on_wait: Callable[[int], None] = lambda n: None,
) -> tuple[str | None, T | None]:
    """Claim ``key`` before buying its answer: ``(key, None)`` to buy, or ``(None, answer)``.

    The answer is one another process bought meanwhile, as ``lookup`` reads it from the cache.
    While another live process holds the claim, this waits. ``on_wait(1)`` and ``on_wait(-1)``
    count the calls waiting.

    Example:
        >>> from lookup_pandas.store import MemoryStore
        >>> claims = Claims(MemoryStore())
        >>> claim_or_wait(claims, "k1", lookup=lambda: None)
        ('k1', None)
        >>> claims.release(["k1"])
        >>> claims.close()
    """
    waiting: float | None = None  # since when, once another holder is seen buying it
    try:
        while True:
            state = claims.take([key])[key]
            if state == MINE:
                if waiting is not None:
                    logger.debug("claim %s: let go of unbought, so bought here", key)
                return key, None
            if state == RECHECK:
                stored = fresh_lookup(lookup, cancel)
                if stored is None:
                    logger.debug("claim %s: let go of, nothing stored: bought here", key)
                    return key, None  # the other holder did not store it: buy it
                claims.release([key])
                _read_after(key, waiting)
                return None, stored
            if waiting is None:  # BUSY: another process is buying it
                waiting = time.monotonic()
                logger.debug("claim %s: waiting for the answer another holder is buying", key)
                on_wait(1)
            pause(CLAIM_POLL_SECONDS, cancel)
            stored = lookup()
            if stored is not None:
                _read_after(key, waiting)
                return None, stored
    finally:
        if waiting is not None:
            on_wait(-1)


def _read_after(key: str, waiting: float | None) -> None:
    """Log that the answer of ``key`` came from the holder waited on since ``waiting``."""
    if waiting is not None:
        elapsed = time.monotonic() - waiting
        logger.debug("claim %s: the other holder's answer read after %.1fs", key, elapsed)


def fresh_lookup(lookup: Callable[[], T | None], cancel: threading.Event | None = None) -> T | None:
    """The cache lookup after another holder let go: a few quick looks before giving up.

    Example:
        >>> fresh_lookup(lambda: {"handle": "ada"})
        {'handle': 'ada'}
    """
    for attempt in range(RECHECK_LOOKS):
        stored = lookup()
        if stored is not None or attempt == RECHECK_LOOKS - 1:
            return stored
        pause(RECHECK_PAUSE_SECONDS, cancel)
    return None
