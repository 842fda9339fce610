"""One handle's call in an enrichment: its cached answer, or its fetch, as an Outcome.

Example::

    cached_outcome(client, "ada")                    # Outcome("ok", {...}) or None (no network)
    fetch_one(client, "ada", False, threading.Event())   # (Outcome("ok", {...}), from_cache)

A record that is forbidden (opted out, premium-gated) is its own outcome, not billed; a
rejected key, a configuration that cannot work, or a balance that cannot pay ends the job.
"""

from __future__ import annotations

import threading
import time

from ..client.client import Client
from ..errors import (
    AuthenticationError,
    ConfigurationError,
    InsufficientCreditsError,
    NotCachedError,
    NotFoundError,
    PermissionDeniedError,
    ServiceError,
)
from ..identifiers.kinds import PEOPLE, Kind
from ..store import DONE_SECONDS
from ..store.pacing import Cancelled
from .results import ERROR, FORBIDDEN, NOT_CACHED, NOT_FOUND, OK, Outcome

__all__ = [
    "FRESH_MISS_SECONDS",
    "cached_outcome",
    "fetch_one",
    "in_cache",
    "not_cached_outcome",
    "window_size",
]

#: Errors that end an enrichment at once: every further call would fail the same way.
_FATAL = (AuthenticationError, ConfigurationError, InsufficientCreditsError)
#: How long a miss read ahead of the run spares the call its own cache lookup: well inside the
#: time a claim let go of after a purchase says "read the cache first" (store.DONE_SECONDS).
FRESH_MISS_SECONDS = DONE_SECONDS / 2


def cached_outcome(client: Client, handle: str, kind: Kind = PEOPLE) -> Outcome | None:
    """The stored answer for ``handle`` (no network), or None when it must be fetched.

    Example: ``cached_outcome(client, "ada")`` -> ``Outcome("ok", {...})`` after a lookup;
    ``cached_outcome(client, "acme", COMPANIES)`` reads a company's.
    """
    try:
        env = client.cached(kind.endpoint.path, kind.params(handle))
    except NotFoundError as exc:
        return Outcome(NOT_FOUND, error=exc.message, exc=exc)
    except ServiceError:
        return None  # an unreadable stored answer is fetched anew
    if env is not None and isinstance(env.data, dict):
        return Outcome(OK, env.data)
    return None


def not_cached_outcome() -> Outcome:
    """Offline, a value the cache does not hold: ``not_cached``, nothing sent.

    Example: ``not_cached_outcome().error`` -> ``"not in the cache, and offline: nothing was
    sent"``; ``errors="raise"`` raises its NotCachedError.
    """
    message = "not in the cache, and offline: nothing was sent"
    return Outcome(NOT_CACHED, error=message, exc=NotCachedError(message))


def fetch_one(
    client: Client,
    handle: str,
    refresh: bool,
    stop: threading.Event,
    missed_at: float | None = None,
    held: str | None = None,
    kind: Kind = PEOPLE,
) -> tuple[Outcome, bool] | None:
    """One handle's answer in a pool thread: (outcome, from_cache); None when the run stopped
    first (nothing sent). ``held``: the run's claim window holds its claim (MINE or RECHECK).

    Example: ``fetch_one(client, "ada", False, threading.Event())`` -> ``(Outcome("ok", ...),
    False)``. The call looks the cache up once, right before it waits for its slot and sends.
    ``stop`` is the Client's cancel event: a thread still waiting for its slot or a back-off
    when the run stops (Ctrl-C, an error to raise, a rejected key) sends nothing.
    """
    # Read ahead a moment ago and missed: claim at once. Within FRESH_MISS_SECONDS an answer
    # another process stored since then still shows in its claim (RECHECK), so nothing is
    # bought twice; an older miss is looked up again.
    known_miss = missed_at is not None and time.monotonic() - missed_at < FRESH_MISS_SECONDS
    try:
        env = client.lookup_answer(
            handle, kind, refresh=refresh, cancel=stop, known_miss=known_miss, held=held
        )
        return Outcome(OK, env.data), env.from_cache
    except Cancelled:
        return None
    except NotFoundError as exc:
        # A not-found read from the cache was paid for earlier: it counts as cached.
        return Outcome(NOT_FOUND, error=exc.message, exc=exc), exc.from_cache
    except PermissionDeniedError as exc:  # this record only: not billed, not cached
        return Outcome(FORBIDDEN, error=exc.message, exc=exc), False
    except _FATAL:
        stop.set()  # every further call would fail the same way
        raise
    except ServiceError as exc:
        return Outcome(ERROR, error=str(exc), exc=exc), False


def window_size(workers: int) -> int:
    """How many claims an enrichment takes at once: ``window_size(4)`` -> 8.

    Small: a window's requests are prepared and keyed in one go on the main thread, and a
    lump of that work delays the workers' sends, which then reach the service in bursts (a
    window of 32 drew twice the 429s under faults, and 20% more time, `bench_chaos`)."""
    return max(8, workers)


def in_cache(result: tuple[Outcome, bool] | None) -> bool:
    """Whether a call's answer is in the cache now (found there, or bought: a record, or a
    billed not-found). Example: ``in_cache((Outcome("ok", {...}), False))`` -> True."""
    if result is None:
        return False
    outcome, from_cache = result
    if outcome.status == OK or from_cache:
        return True
    exc = outcome.exc
    return outcome.status == NOT_FOUND and isinstance(exc, ServiceError) and exc.status_code == 200
