"""One handle's call in an enrichment: its cached answer, or its fetch, as an Outcome.

>>> import lookup_pandas as lp
>>> from lookup_pandas.identifiers.kinds import PEOPLE
>>> from lookup_pandas.testing import MockTransport, people_service
>>> transport = MockTransport(people_service({"id": "prsn_1", "handle": "ada"}))
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com",
...                    transport=transport, cache=False)
>>> cached_outcomes(client, client.parts.cache.keys(["ada"], PEOPLE), PEOPLE)  # no cache: none
{}
>>> outcome, from_cache = fetch_one(SingleCalls(client.parts.sender.request, PEOPLE), "ada")
>>> outcome.status, outcome.record["handle"], from_cache
('ok', 'ada', False)
>>> in_cache((outcome, from_cache))
True

A forbidden record (opted out, premium-gated) is its own outcome, not billed. A rejected key,
a configuration that cannot work, or a balance that cannot pay ends the job.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

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
from ..http.decisions import Call, Requester
from ..http.stats import ClientStats
from ..identifiers.kinds import Kind
from ..service.endpoints import checked_data
from ..store.pacing import Cancelled
from .results import ERROR, FORBIDDEN, NOT_CACHED, NOT_FOUND, OK, UNSUPPORTED, Outcome

__all__ = [
    "SingleCalls",
    "cached_outcomes",
    "fetch_one",
    "in_cache",
    "not_cached_outcome",
    "window_size",
]

#: Errors that end an enrichment at once: every further call would fail the same way.
_FATAL = (AuthenticationError, ConfigurationError, InsufficientCreditsError)


def cached_outcomes(
    client: Client, keys: Mapping[str, str], kind: Kind, tally: ClientStats | None = None
) -> dict[str, Outcome]:
    """Each value's stored outcome (a record, a billed not-found), read by its cache key in
    ``keys`` in one batched read, no network. A value missing (or unreadable) must be fetched.
    Hits count in ``tally``, if given.

    Example: ``cached_outcomes(client, client.parts.cache.keys(["acme"], COMPANIES), COMPANIES)``
    """
    found: dict[str, Outcome] = {}
    for value, answer in client.parts.cache.read_ahead(keys, kind, tally).items():
        if isinstance(answer, NotFoundError):
            found[value] = Outcome(NOT_FOUND, error=answer.message, exc=answer)
        elif isinstance(answer, ServiceError):  # a stored 422: the service takes no such value
            found[value] = Outcome(UNSUPPORTED, error=answer.message, exc=answer)
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


@dataclass(frozen=True)
class SingleCalls:
    """What every single call of a run shares, made once per run: it turns a value into its Call.

    ``request`` is the send chain's. ``stop`` is the run's cancel event: a thread still waiting
    for its slot or a back-off when the run stops sends nothing. ``fresh_after``: a stored answer
    counts only if stored since then (seconds since the epoch), else it is bought anew, once
    among the processes (:class:`~lookup_pandas.http.decisions.Call`). ``tally``: the run's own
    counts, which every call counts in.

    >>> from lookup_pandas.identifiers.kinds import PEOPLE
    >>> SingleCalls(print, PEOPLE, refresh=True).call("ada", held=("k", "mine")).params
    {'handle': 'ada'}
    """

    request: Requester
    kind: Kind
    stop: threading.Event = field(default_factory=threading.Event)
    refresh: bool = False
    fresh_after: float | None = None
    tally: ClientStats | None = None

    def call(self, value: str, held: tuple[str, str] | None = None) -> Call:
        """``value``'s Call, holding the claim ``held`` (its cache key, and MINE or RECHECK),
        if any: the call then works out no key."""
        kind = self.kind
        key, claim = held if held is not None else (None, None)
        return Call(
            kind.endpoint.path,
            kind.params(value),
            refresh=self.refresh,
            cancel=self.stop,
            held=claim,
            key=key,
            fresh_after=self.fresh_after,
            tally=self.tally,
        )


def fetch_one(
    calls: SingleCalls, handle: str, held: tuple[str, str] | None = None
) -> tuple[Outcome, bool] | None:
    """One handle's answer in a pool thread: (outcome, from_cache), or None if the run stopped.

    The call reads the cache once, right before it waits for its slot and sends. ``held`` is
    the claim the run's window holds (its key, and MINE or RECHECK). See the module's example.
    """
    try:
        env = calls.request(calls.call(handle, held))
        checked_data(env, calls.kind.endpoint.path)
        return Outcome(OK, env.data), env.from_cache
    except Cancelled:
        return None
    except NotFoundError as exc:
        # A not-found read from the cache was paid for earlier: it counts as cached.
        return Outcome(NOT_FOUND, error=exc.message, exc=exc), exc.from_cache
    except PermissionDeniedError as exc:  # this record only: not billed, not cached
        return Outcome(FORBIDDEN, error=exc.message, exc=exc), False
    except _FATAL:
        calls.stop.set()  # every further call would fail the same way
        raise
    except ServiceError as exc:
        if exc.status_code == 422:  # the service takes no such value (reverse: a gmail.com...)
            return Outcome(UNSUPPORTED, error=exc.message, exc=exc), exc.from_cache
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
    if outcome.status in (OK, UNSUPPORTED) or from_cache:  # a 422 is kept as an answer
        return True
    exc = outcome.exc
    return outcome.status == NOT_FOUND and isinstance(exc, ServiceError) and exc.status_code == 200
