"""Pacing: evenly spaced send slots, so a Client stays under the per-minute limit.

Example:
    >>> pacer = Pacer(per_minute=120, clock=lambda: 0.0)  # one slot every 0.5 s
    >>> [pacer.reserve() for _ in range(3)]  # seconds each caller waits for its slot
    [0.0, 0.5, 1.0]
    >>> pacer.slow_down(7)  # a 429 that names no limit: half the pace, never below 7/min
    60.0
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import Store

__all__ = ["Cancelled", "Pacer", "pause"]

logger = logging.getLogger(__name__)


class Cancelled(Exception):
    """The caller's cancel event was set while it waited: send nothing."""


def check_cancel(event: threading.Event | None, message: str) -> None:
    """Raise Cancelled(``message``) once ``event`` is set (a background job's cancel).

    Example:
        >>> import threading
        >>> check_cancel(threading.Event(), "stopped")  # not set: nothing happens
    """
    if event is not None and event.is_set():
        raise Cancelled(message)


def pause(
    seconds: float,
    cancel: threading.Event | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Sleep ``seconds``, or raise Cancelled as soon as ``cancel`` is set (at once if it is).

    Example:
        >>> import threading
        >>> stop = threading.Event()
        >>> stop.set()
        >>> pause(2.0, stop)
        Traceback (most recent call last):
        ...
        lookup_pandas.store.pacing.Cancelled
    """
    if cancel is None:
        if seconds > 0:
            sleep(seconds)
    elif cancel.wait(seconds) if seconds > 0 else cancel.is_set():
        raise Cancelled()


class Pacer:
    """Thread-safe, evenly spaced send slots. ``per_minute=None`` means no pacing.

    It knows no HTTP: the Client learns the rate and sets it. One lock guards its schedule; it
    is never held while the shared store is asked (a SQLite transaction, a Redis round trip).

    Example:
        >>> now = [0.0]
        >>> pacer = Pacer(per_minute=60, clock=lambda: now[0])
        >>> pacer.reserve(), pacer.reserve()
        (0.0, 1.0)
        >>> pacer.defer(5.0)  # a 429 said Retry-After: 5
        >>> pacer.reserve()
        5.0
    """

    def __init__(
        self,
        per_minute: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        shared: Store | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._shared = shared
        self._clock = clock
        self._sleep = sleep
        self._interval = _interval(per_minute)
        self._next = float("-inf")  # when the next free slot starts
        self._deferred_until = float("-inf")  # no slot before this (Retry-After)
        #: The starts of the last slots handed out, the last one last.
        self._recent: deque[float] = deque(maxlen=_RECENT)
        self._slots = 0  # slots handed out so far
        self._slots_at_slow_down = -1  # self._slots when the pace was last slowed
        self._shared_due = float("-inf")  # unpaced: when to look at the shared schedule again

    @property
    def per_minute(self) -> float | None:
        """The rate currently paced at, in calls per minute (None: unpaced)."""
        return None if self._interval == 0 else 60.0 / self._interval

    def set_rate(self, per_minute: float | None, *, share: bool = False) -> None:
        """Change the rate. The next slot is re-based on the last one handed out.

        ``share``: every process of the shared store keeps to it too, for
        :data:`~lookup_pandas.store.SHARED_SLOWDOWN_SECONDS`.

        Example:
            >>> pacer = Pacer(clock=lambda: 0.0)
            >>> pacer.set_rate(30)
            >>> pacer.per_minute
            30.0
        """
        with self._lock:
            before, self._interval = self._interval, _interval(per_minute)
            if self._recent:
                # A deferral (Retry-After) still in force survives a rate change.
                self._next = max(self._deferred_until, self._recent[-1] + self._interval)
            interval = self._interval
        shared = self._shared if share and interval > 0 else None
        if interval != before:
            logger.debug(
                "pace %s (was %s)%s",
                shown_rate(interval),
                shown_rate(before),
                "; every process of the store keeps to it" if shared is not None else "",
            )
        if shared is not None:
            shared.slow_to(interval)

    def reserve(self) -> float:
        """Take the next slot. Returns how many seconds the caller must wait for it.

        With a shared store, the store hands the slot out, asked without this lock held.
        """
        with self._lock:
            now, interval, shared = self._clock(), self._interval, self._shared
            if shared is None or (interval == 0 and now < self._shared_due):
                return self._take(max(now, self._next), now)
        wait = shared.reserve(interval)  # its own transaction (or script) makes slots distinct
        with self._lock:
            if interval == 0:  # held back by another process: look at every slot
                self._shared_due = now if wait > 0 else now + UNPACED_LOOK_SECONDS
            return self._take(now + wait, now)

    def _take(self, slot: float, now: float) -> float:
        """Hand out ``slot`` (the lock held): the seconds from ``now`` to it."""
        self._next = slot + self._interval
        self._recent.append(slot)
        self._slots += 1
        return slot - now

    def slow_down(self, floor_per_minute: float) -> float:
        """Halve the pace after a 429 that names no limit. Returns the new rate per minute.

        Unpaced, half the rate of the last slots is taken. Never below ``floor_per_minute``.
        Several 429s for calls sent before the last slow-down slow it once.

        Example:
            >>> pacer = Pacer(per_minute=120, clock=lambda: 0.0)
            >>> pacer.slow_down(7), pacer.slow_down(7)  # no slot taken in between: once
            (60.0, 60.0)
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
        self.set_rate(per_minute, share=True)
        return per_minute

    def wait(self, cancel: threading.Event | None = None) -> None:
        """Block until this caller's slot. Once ``cancel`` is set: Cancelled, and no slot."""
        pause(0, cancel)  # a stopped job's thread takes no slot
        pause(self.reserve(), cancel, self._sleep)

    def defer(self, seconds: float) -> None:
        """Hand out no slot for ``seconds`` from now (a 429's Retry-After, for every thread)."""
        with self._lock:
            until = self._clock() + max(0.0, seconds)
            self._deferred_until = max(self._deferred_until, until)
            self._next = max(self._next, until)
        logger.debug("no send slot for %.2fs (Retry-After)", seconds)
        if self._shared is not None:
            self._shared.defer(seconds)


_RECENT = 32  # slots remembered to measure the rate an unpaced client sent at
#: Unpaced (the tier names no limit), the schedule shared with other processes is looked at
#: once in this many seconds, not at every slot: it can only hold calls back after a 429 one of
#: them saw, which it then does for every slot until it no longer holds any back.
UNPACED_LOOK_SECONDS = 0.25


def shown_rate(interval: float) -> str:
    """A slot interval as a log record shows it: calls per minute, or "unpaced".

    Example:
        >>> shown_rate(0.5), shown_rate(0.0)
        ('120.0/min', 'unpaced')
    """
    return f"{60.0 / interval:.1f}/min" if interval > 0 else "unpaced"


def _interval(per_minute: float | None) -> float:
    if per_minute is None or per_minute == float("inf"):
        return 0.0
    if per_minute <= 0:
        raise ValueError("per_minute must be positive")
    return 60.0 / per_minute
