"""One handle's call in an enrichment: its cached answer, or its fetch, as an Outcome.

>>> import lookup_pandas as lp
>>> from lookup_pandas.testing import MockTransport, people_service
>>> transport = MockTransport(people_service({"id": "prsn_1", "handle": "ada"}))
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com",
...                    transport=transport, cache=False)
>>> cached_outcomes(client, ["ada"])  # no cache: it must be fetched
{}
>>> outcome, from_cache = fetch_one(client, "ada", False, threading.Event())
>>> outcome.status, outcome.record["handle"], from_cache
('ok', 'ada', False)
>>> in_cache((outcome, from_cache))
True

A forbidden record (opted out, premium-gated) is its own outcome, not billed. A rejected key,
a configuration that cannot work, or a balance that cannot pay ends the job.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

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
from ..store.pacing import Cancelled
from .results import ERROR, FORBIDDEN, NOT_CACHED, NOT_FOUND, OK, Outcome

__all__ = [
    "cached_outcomes",
    "fetch_one",
    "in_cache",
    "not_cached_outcome",
    "window_size",
]

#: Errors that end an enrichment at once: every further call would fail the same way.
_FATAL = (AuthenticationError, ConfigurationError, InsufficientCreditsError)


def cached_outcomes(
    client: Client, values: Iterable[str], kind: Kind = PEOPLE
) -> dict[str, Outcome]:
    """Each value's stored outcome (a record, a billed not-found), read in one batched read, no
    network. A value missing (or unreadable) must be fetched.

    Example: ``cached_outcomes(client, ["acme"], COMPANIES)`` reads a company's (see the module).
    """
    found: dict[str, Outcome] = {}
    for value, answer in client._parts.cache.read_ahead(values, kind).items():
        if isinstance(answer, NotFoundError):
            found[value] = Outcome(NOT_FOUND, error=answer.message, exc=answer)
        elif isinstance(answer.data, dict):
            found[value] = Outcome(OK, answer.data)
    return found


def not_cached_outcome() -> Outcome:
    """Offline, a value the cache does not hold: ``not_cached``, nothing sent.

    >>> outcome = not_cached_outcome()
    >>> outcome.status, type(outcome.exc).__name__  # errors="raise" raises its exc
    ('not_cached', 'NotCachedError')
    """
    message = "not in the cache, and offline: nothing was sent"
    return Outcome(NOT_CACHED, error=message, exc=NotCachedError(message))


def fetch_one(
    client: Client,
    handle: str,
    refresh: bool,
    stop: threading.Event,
    held: str | None = None,
    kind: Kind = PEOPLE,
    fresh_after: float | None = None,
) -> tuple[Outcome, bool] | None:
    """One handle's answer in a pool thread: (outcome, from_cache), or None if the run stopped.

    The call reads the cache once, right before it waits for its slot and sends. ``stop`` is
    the Client's cancel event. A thread still waiting for its slot or a back-off when the run
    stops sends nothing. ``held`` is the claim the run's window holds (MINE or RECHECK).
    ``fresh_after``: a stored answer counts only if stored since then (seconds since the epoch),
    else it is bought anew, once among the processes (:class:`~lookup_pandas.http.decisions.Call`).
    See the module's example.
    """
    try:
        env = client.lookup_answer(
            handle,
            kind,
            refresh=refresh,
            cancel=stop,
            held=held,
            fresh_after=fresh_after,
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
    """How many claims an enrichment takes at once. Small on purpose: see docs/decisions.md.

    >>> window_size(4), window_size(16)
    (8, 16)
    """
    return max(8, workers)


def in_cache(result: tuple[Outcome, bool] | None) -> bool:
    """Whether a call's answer is in the cache now: found there, or bought (a billed not-found too).

    >>> in_cache(None), in_cache((Outcome("error", error="timeout"), False))
    (False, False)
    """
    if result is None:
        return False
    outcome, from_cache = result
    if outcome.status == OK or from_cache:
        return True
    exc = outcome.exc
    return outcome.status == NOT_FOUND and isinstance(exc, ServiceError) and exc.status_code == 200
