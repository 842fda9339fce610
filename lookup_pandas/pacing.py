"""Pacing: hands out evenly spaced send slots so a Client stays under the per-minute limit.

Example::

    pacer = Pacer(per_minute=120)      # one slot every 0.5 s, shared by every thread
    pacer.wait()                       # blocks until this caller's slot comes
    pacer.defer(2.0)                   # a 429 said Retry-After: 2 -> nobody sends for 2 s
    pacer.slow_down()                  # a 429 named no limit: half the pace (or of what was sent)

Why this is written here rather than taken from requests-ratelimiter / pyrate-limiter: measured
against a server that enforces its limit smoothly (DESIGN.md, "Dependencies"), that stack let calls
out in bursts (8 of 20 calls got 429 while pacing at 2.5/s), a ``per_minute`` rate let the whole
minute go at once, and after a 429 it stalled for the rest of its window. Production limits are
per minute but enforced continuously, so what is needed is the simplest thing that cannot burst:
each call gets the next free slot, ``interval`` after the previous one, and waits for it.

The pacer only decides *when*; it knows nothing about HTTP. It is used by
:class:`lookup_pandas.transport.PacedAdapter`, below the cache, so cache hits never take a slot
and every retry takes one.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Cancelled", "Pacer", "cancel_when", "pause"]


class Cancelled(Exception):
    """The stop event of :func:`cancel_when` was set while this thread waited: send nothing."""


_cancel = threading.local()


@contextmanager
def cancel_when(event: threading.Event) -> Iterator[None]:
    """While inside, waits for a slot (and back-off pauses) end in Cancelled once ``event``
    is set, so a stopping job's threads leave without sending.

    Example::

        with cancel_when(stop):
            client.fetch_profile("ada")     # raises Cancelled if stop is set while it waits
    """
    previous = getattr(_cancel, "event", None)
    _cancel.event = event
    try:
        yield
    finally:
        _cancel.event = previous


def pause(seconds: float, sleep: Callable[[float], None] = time.sleep) -> None:
    """Sleep ``seconds``, or raise Cancelled as soon as this thread's stop event is set."""
    event: threading.Event | None = getattr(_cancel, "event", None)
    if event is None:
        if seconds > 0:
            sleep(seconds)
    elif event.wait(seconds) if seconds > 0 else event.is_set():
        raise Cancelled()


class Pacer:
    """Thread-safe evenly spaced slots; ``per_minute=None`` means no pacing.

    ``resolve`` (optional) is called once, lazily, before the first slot is handed out, and
    may return a better rate (for instance read from the service's tier endpoint; ``math.inf``
    for none: unpaced). Calls
    made *by* ``resolve`` itself pass straight through, so it may use the same session.
    """

    def __init__(
        self,
        per_minute: float | None = None,
        *,
        resolve: Callable[[], float | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._sleep = sleep
        self._interval = _interval(per_minute)
        self._next = float("-inf")  # when the next free slot starts
        self._last: float | None = None  # when the last slot handed out started
        self._deferred_until = float("-inf")  # no slot before this (Retry-After)
        self._recent: deque[float] = deque(maxlen=_RECENT)  # starts of the last slots
        self._slots = 0  # slots handed out so far
        self._slots_at_slow_down = -1  # self._slots when the pace was last slowed
        self._resolve = resolve
        self._resolve_lock = threading.Lock()
        self._resolved = threading.Event()  # set once the rate is settled
        self._resolve_error: BaseException | None = None  # what the last failed attempt raised
        self._attempts = 0  # failed attempts so far
        if resolve is None:
            self._resolved.set()
        self._local = threading.local()

    @property
    def per_minute(self) -> float | None:
        """The rate currently paced at, in calls per minute (None: unpaced)."""
        return None if self._interval == 0 else 60.0 / self._interval

    def set_rate(self, per_minute: float | None) -> None:
        """Change the rate; the next slot is re-based on the last one handed out."""
        with self._lock:
            self._interval = _interval(per_minute)
            if self._last is not None:
                # A deferral (Retry-After) still in force survives a rate change.
                self._next = max(self._deferred_until, self._last + self._interval)

    def reserve(self) -> float:
        """Take the next slot; return how many seconds the caller must wait for it."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next)
            self._next = slot + self._interval
            self._last = slot
            self._recent.append(slot)
            self._slots += 1
            return slot - now

    def slow_down(self, floor_per_minute: float) -> float:
        """Halve the pace (a 429 that names no limit); return the new rate per minute.

        Unpaced, there is no pace to halve: half the rate the last slots went out at is taken
        instead. Never below ``floor_per_minute``. Several 429s for calls sent before the last
        slow-down (threads that were in flight together) slow it once, not once each.
        """
        with self._lock:
            if self._slots == self._slots_at_slow_down:
                return 60.0 / self._interval if self._interval > 0 else floor_per_minute
            self._slots_at_slow_down = self._slots
            if self._interval > 0:
                per_minute = 60.0 / self._interval / 2
            elif len(self._recent) >= 2 and self._recent[-1] > self._recent[0]:
                sent_rate = (len(self._recent) - 1) / (self._recent[-1] - self._recent[0])
                per_minute = 60.0 * sent_rate / 2
            else:
                per_minute = floor_per_minute
        per_minute = max(per_minute, floor_per_minute)
        self.set_rate(per_minute)
        return per_minute

    @property
    def resolved(self) -> bool:
        """True once the rate is settled (``resolve`` ran, or there was none)."""
        return self._resolved.is_set()

    def ensure_resolved(self) -> None:
        """Run ``resolve`` now if it has not run (other threads wait for it)."""
        if not self._resolved.is_set() and not getattr(self._local, "resolving", False):
            self._resolve_once()

    def wait(self) -> None:
        """Block until this caller's slot (resolving the rate first, once)."""
        if getattr(self._local, "resolving", False):
            return  # the resolver's own request (the tier look-up) takes no slot
        pause(0)  # a stopped job's thread neither learns the rate nor takes a slot
        self.ensure_resolved()  # every other thread waits here until the rate is known
        pause(0)
        delay = self.reserve()
        pause(delay, self._sleep)

    def defer(self, seconds: float) -> None:
        """Hand out no slot for ``seconds`` from now (a 429's Retry-After, for every thread)."""
        with self._lock:
            until = self._clock() + max(0.0, seconds)
            self._deferred_until = max(self._deferred_until, until)
            self._next = max(self._next, until)

    def _resolve_once(self) -> None:
        attempt = self._attempts
        with self._resolve_lock:
            if self._resolved.is_set():
                return
            if self._attempts != attempt:
                # This thread waited while another's attempt failed (a rejected key): fail the
                # same way instead of sending a request certain to fail too.
                assert self._resolve_error is not None
                raise copy.copy(self._resolve_error)
            self._local.resolving = True  # the resolver's own requests pass straight through
            try:
                rate = self._resolve() if self._resolve is not None else None
            except BaseException as exc:
                # Not settled: the next caller tries again (the key may work by then).
                self._resolve_error = exc
                self._attempts += 1
                raise
            finally:
                self._local.resolving = False
            if rate:
                self.set_rate(rate)
            self._resolved.set()


_RECENT = 32  # slots remembered to measure the rate an unpaced client sent at


def _interval(per_minute: float | None) -> float:
    if per_minute is None or per_minute == float("inf"):
        return 0.0
    if per_minute <= 0:
        raise ValueError("per_minute must be positive")
    return 60.0 / per_minute
