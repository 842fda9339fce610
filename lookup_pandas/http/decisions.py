"""The send chain's decisions as data: what one call does, retry or not, the pace after a 429.

>>> from lookup_pandas.service.endpoints import PROFILE_PATH
>>> settings = Settings.build(api_key="lk_doc", base_url="http://127.0.0.1:9", offline=False)
>>> SendActions.from_call(Call(PROFILE_PATH, refresh=True), settings, cache_on=True).read
'skip'
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from ..config.settings import ENV_BASE_URL, RATE_SAFETY_MARGIN, Settings
from ..errors import (
    AuthenticationError,
    ConfigurationError,
    NotFoundError,
    RateLimitError,
    ServiceError,
    UsageError,
)
from ..service.credits import ROUTE_COSTS_PATH, TIERS_PATH, is_enterprise
from ..service.endpoints import is_panel
from ..service.envelope import Envelope, finite_number
from ..service.paths import EMAILS_PREFIX, HEALTH_PATH
from ..service.retry import RetryPolicy, is_retryable
from ..store import RECHECK
from .stats import ClientStats

__all__ = [
    "FIRST_CONTACT_RETRY_DELAY",
    "Attempts",
    "Call",
    "Read",
    "Requester",
    "SendActions",
    "Slowdown",
    "Step",
    "fresh_enough",
    "misconfigured",
    "next_step",
    "no_endpoint",
    "not_the_service",
    "proves_contact",
    "proves_key",
    "rate_from_tier",
    "slowdown",
    "tier_action",
    "tier_floor",
]

#: Seconds before the one retry of a first contact that met no service.
FIRST_CONTACT_RETRY_DELAY = 0.5
_NO_TIME = timedelta(0)  # a cache that keeps answers for no time keeps none


@dataclass(frozen=True, slots=True)
class Call:
    """One request as its caller asks for it; :class:`SendActions` decides the rest.

    >>> Call("/api/panel/credits/tier/k/", cache=False, paced=False).method
    'GET'
    """

    path: str
    params: Mapping[str, Any] | None = None
    _: KW_ONLY
    method: str = "GET"
    #: Sent as JSON.
    body: Any = None
    #: Buy the answer again, past the cache (it is stored anew).
    refresh: bool = False
    #: False: neither looked up nor stored (batch jobs).
    cache: bool = True
    #: The claim the caller holds (MINE, or RECHECK): the call neither claims nor lets go of it.
    held: str | None = None
    #: The request's cache key, when the caller has it already (``Wire.cache_keys``, read
    #: ahead): the call then works none out. It must be the key of ``path`` and ``params``.
    key: str | None = None
    #: False: a free probe sent while the pace is being learned.
    paced: bool = True
    #: Statuses raised as they are: never retried, never taken for a wrong base URL.
    final_statuses: frozenset[int] = frozenset()
    #: Once set, a call still waiting for its slot or a back-off raises Cancelled.
    cancel: threading.Event | None = None
    #: A stored answer counts only if stored at or after this time (seconds since the epoch):
    #: an older one is bought anew, claimed as a miss is, so processes buy it once between them.
    fresh_after: float | None = None
    #: The run's own counts, kept beside the Client's (its summary's traffic): this call's,
    #: and those of the tier reads it sets off.
    tally: ClientStats | None = None


#: What sends a :class:`Call`: ``Sender.request``.
Requester = Callable[[Call], Envelope]

#: How a call reads the cache before it sends: not at all, once, or until the answer shows
#: (the claim's last holder let go of it lately).
Read = Literal["skip", "once", "afresh"]


@dataclass(frozen=True, slots=True)
class SendActions:
    """What one call does, decided once before it is sent (requests-cache's ``CacheActions``).

    >>> settings = Settings.build(api_key="lk_doc", base_url="http://127.0.0.1:9", offline=False)
    >>> call = Call("/api/data/v1/people/profile", {"handle": "ada"})
    >>> actions = SendActions.from_call(call, settings, cache_on=True)
    >>> actions.read, actions.claim, actions.store, actions.paced
    ('once', True, True, True)
    """

    #: The cache lookup before sending.
    read: Read = "skip"
    #: On a miss, claim the answer among the processes sharing the store.
    claim: bool = False
    #: On a miss, send (False offline: NotCachedError).
    send: bool = True
    #: Keep the answer that comes back in the cache.
    store: bool = False
    #: Take a pacing slot before each attempt.
    paced: bool = True
    #: Raise this, sending nothing and reading nothing.
    error: UsageError | None = None
    #: A stored answer counts only if stored at or after this time (:func:`fresh_enough`).
    fresh_after: float | None = None

    @classmethod
    def from_call(cls, call: Call, settings: Settings, *, cache_on: bool) -> SendActions:
        """The actions for ``call`` on a Client with ``settings`` (``cache_on``: it has a cache).

        >>> offline = Settings.build(api_key="lk_doc", base_url="http://127.0.0.1:9", offline=True)
        >>> actions = SendActions.from_call(Call("/api/x", {"q": 1}), offline, cache_on=True)
        >>> actions.read, actions.send
        ('once', False)
        """
        panel = is_panel(call.path)
        cacheable = call.cache and call.method == "GET" and not panel
        paced = call.paced and not panel
        if settings.offline:
            if call.refresh:
                refused = "refresh=True buys answers again: it needs the network, not offline."
            else:
                refused = "fresh_after buys older answers anew: it needs the network, not offline."
            error = UsageError(refused) if call.refresh or call.fresh_after is not None else None
            read: Read = "once" if cacheable else "skip"
            return cls(read, send=False, paced=paced, error=error)
        looked = cacheable and cache_on and not call.refresh
        read = "skip"
        if looked:
            read = "afresh" if call.held == RECHECK else "once"
        return cls(
            read,
            claim=looked and call.held is None,
            store=cacheable and cache_on and settings.expire_after > _NO_TIME,
            paced=paced,
            fresh_after=call.fresh_after if looked else None,
        )


def fresh_enough(stored_at: datetime | None, fresh_after: float | None) -> bool:
    """Whether an answer stored at ``stored_at`` counts for a call asking ``fresh_after``.

    It counts when stored at or after ``fresh_after`` (seconds since the epoch), or when the call
    asks nothing. A naive ``stored_at`` is UTC, as requests-cache writes it.

    >>> from datetime import UTC, datetime
    >>> bought = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    >>> fresh_enough(bought, None), fresh_enough(bought, bought.timestamp())
    (True, True)
    >>> fresh_enough(bought, bought.timestamp() + 0.5), fresh_enough(None, 0.0)
    (False, False)
    """
    if fresh_after is None:
        return True
    if stored_at is None:
        return False
    when = stored_at if stored_at.tzinfo else stored_at.replace(tzinfo=UTC)
    return when.timestamp() >= fresh_after


@dataclass(frozen=True)
class Attempts:
    """Where one call's attempts stand: retries so far, and the first contact's retry spent.

    >>> Attempts(retries=1)
    Attempts(retries=1, first_contact_retried=False)
    """

    retries: int = 0
    first_contact_retried: bool = False


@dataclass(frozen=True)
class Step:
    """What to do after a failed attempt: raise ``error``, or wait ``delay`` s and retry.

    >>> Step(delay=1.5).error is None
    True
    """

    error: ServiceError | None = None
    delay: float = 0.0
    attempts: Attempts = Attempts()


def next_step(
    exc: ServiceError,
    attempts: Attempts,
    call: Call,
    contacted: bool,
    policy: RetryPolicy,
    settings: Settings,
) -> Step:
    """Retry or not, and how long to wait first, for ``call`` failing with ``exc``.

    ``contacted``: the base URL has answered like the service already. The call's
    ``final_statuses`` are raised as they are (a 404 to a batch submit).

    >>> settings = Settings.build(api_key="lk_doc", base_url="http://127.0.0.1:9")
    >>> limited = RateLimitError("Slow down", status_code=429, retry_after=3.0)
    >>> step = next_step(limited, Attempts(), Call("/p"), True, RetryPolicy(), settings)
    >>> step.error, step.delay, step.attempts.retries
    (None, 3.0, 1)
    """
    if isinstance(exc, AuthenticationError):
        exc.hint = f"Check {settings.api_key_source}"
        return Step(error=exc)
    if isinstance(exc, ConfigurationError):
        if exc.server_message is not None and 404 not in call.final_statuses:
            return Step(error=no_endpoint(exc, call.path, settings))
        return Step(error=exc)
    if exc.status_code in call.final_statuses:
        return Step(error=exc)
    if not contacted and not_the_service(exc):
        if attempts.first_contact_retried:
            return Step(error=misconfigured(exc, call.path, settings))
        return Step(
            delay=FIRST_CONTACT_RETRY_DELAY,
            attempts=replace(attempts, first_contact_retried=True),
        )
    if not is_retryable(exc) or attempts.retries >= policy.max_retries:
        return Step(error=exc)
    retry_after = exc.retry_after if isinstance(exc, RateLimitError) else None
    return Step(
        delay=policy.delay(attempts.retries, retry_after),
        attempts=replace(attempts, retries=attempts.retries + 1),
    )


def not_the_service(exc: ServiceError) -> bool:
    """Whether a failure shows that nothing at the base URL is the service.

    >>> from lookup_pandas.errors import ServerError
    >>> html = ServerError("<html>Bad Gateway</html>", status_code=502)
    >>> html.enveloped = False
    >>> not_the_service(html), not_the_service(ServerError("Down", status_code=503))
    (True, False)
    """
    if isinstance(exc, RateLimitError):
        return False
    return not exc.enveloped or getattr(exc, "before_connecting", False)


def proves_contact(outcome: object) -> bool:
    """Whether an answer from the network proves that the base URL is the service.

    >>> billed = NotFoundError("No such person", status_code=200)
    >>> proves_contact(billed), proves_contact(NotFoundError("Not Found", status_code=404))
    (True, False)
    """
    if isinstance(outcome, NotFoundError):
        return outcome.status_code == 200
    return not isinstance(outcome, BaseException)


def proves_key(outcome: object, path: str) -> bool:
    """Whether an answer from the network proves that the key works.

    >>> proves_key(object(), "/api/data/v1/people/profile"), proves_key(object(), HEALTH_PATH)
    (True, False)
    """
    return not isinstance(outcome, BaseException) and path not in _KEYLESS


def misconfigured(exc: ServiceError, path: str, settings: Settings) -> ConfigurationError:
    """The error of a first contact that failed twice: the base URL, the answer, the setting.

    >>> settings = Settings.build(api_key="lk_doc", base_url="http://127.0.0.1:9")
    >>> error = misconfigured(ServiceError("Bad Gateway"), "/p", settings)
    >>> error.message.endswith("(GET /p, tried twice): Bad Gateway. Check base_url=.")
    True
    """
    error = ConfigurationError(
        f"The base URL {settings.base_url} does not answer like the service (GET {path}, "
        f"tried twice): {exc.message.rstrip('.')}. Check {settings.base_url_source}.",
        status_code=exc.status_code,
        request_id=exc.request_id,
        url=path,
    )
    error.__cause__, error.__suppress_context__ = exc, True  # raised `from exc`
    return error


def no_endpoint(exc: ConfigurationError, path: str, settings: Settings) -> ConfigurationError:
    """The error of an enveloped 404 without a not-found code: the URL is no endpoint.

    >>> settings = Settings.build(api_key="lk_doc", base_url="http://127.0.0.1:9")
    >>> told = ConfigurationError("Not Found", status_code=404)
    >>> told.server_message = "Cannot GET /x"
    >>> no_endpoint(told, "/x", settings).message.startswith("No endpoint at http://127.0.0.1:9/x:")
    True
    >>> no_endpoint(told, "/api/emails/v1/verify", settings).message  # doctest: +ELLIPSIS
    'This service has no Email API: http://127.0.0.1:9/api/emails/v1/verify answered HTTP 404 ...'
    """
    where = f"{settings.base_url}{path}"
    if EMAILS_PREFIX + "/" in path:  # the base URL answers the Data API: no Email API here
        error = ConfigurationError(
            f"This service has no Email API: {where} answered HTTP 404 "
            f"({exc.server_message}). Nothing was billed.",
            status_code=404,
            request_id=exc.request_id,
            url=path,
        )
        error.__suppress_context__ = True
        return error
    error = ConfigurationError(
        f"No endpoint at {where}: the service answered HTTP 404 without a not-found code "
        f"({exc.server_message}). The base URL should be the service's root; check "
        f"{settings.base_url_source}",
        cli_message=f"No endpoint at {where}: the service answered HTTP 404 without a "
        "not-found code. The base URL should be the service's root; check the "
        f"{ENV_BASE_URL} environment variable",
        status_code=404,
        request_id=exc.request_id,
        url=path,
    )
    error.__suppress_context__ = True  # raised `from None`
    return error


@dataclass(frozen=True)
class Slowdown:
    """How a 429 changes the pace: ``set`` it to ``per_minute``, ``keep`` it, or ``halve`` it.

    >>> Slowdown("set", 57.0).per_minute
    57.0
    """

    action: Literal["set", "keep", "halve"]
    per_minute: float | None = None


def slowdown(exc: RateLimitError, current_per_minute: float | None) -> Slowdown:
    """How a 429 slows the pace: to 95% of the limit it names, else to half.

    >>> limited = RateLimitError("Slow down", status_code=429, errors={"current_limit": 60})
    >>> slowdown(limited, 100.0), slowdown(limited, 30.0)
    (Slowdown(action='set', per_minute=57.0), Slowdown(action='keep', per_minute=None))
    """
    errors = exc.errors if isinstance(exc.errors, dict) else {}
    limit = finite_number(errors.get("current_limit"))
    if not limit or limit <= 0:
        return Slowdown("halve")
    target = limit * RATE_SAFETY_MARGIN
    if current_per_minute is None or target < current_per_minute:
        return Slowdown("set", target)
    return Slowdown("keep")


def rate_from_tier(tier: Mapping[str, Any], explicit: float | None) -> float | None:
    """The pace a tier allows: min(95% of its limit, ``explicit``); None: it names no tier.

    An enterprise account has no ``current_tier`` but a ``limit_per_minute`` of its own.

    >>> rate_from_tier({"current_tier": {"limit_per_minute": 60}}, None)
    57.0
    >>> rate_from_tier({"current_tier": {"limit_per_minute": None}}, None)
    inf
    >>> rate_from_tier({"current_tier": None, "limit_per_minute": 3000}, None)
    2850.0
    """
    current = tier.get("current_tier")
    if isinstance(current, Mapping):
        limit = finite_number(current.get("limit_per_minute"))
    elif is_enterprise(tier):
        limit = finite_number(tier.get("limit_per_minute"))
    else:
        return None
    server = limit * RATE_SAFETY_MARGIN if limit and limit > 0 else math.inf
    return min(server, explicit or math.inf)


#: Paths answered without a key: their answers prove nothing about it.
_KEYLESS = frozenset({HEALTH_PATH, ROUTE_COSTS_PATH, TIERS_PATH})

#: How often a long job re-reads its tier (production advises every 1 to 5 minutes).
TIER_REREAD_SECONDS = 120.0
#: A balance below the tier's floor asks again at most this often (the tier may lag the header).
TIER_CROSSING_GAP_SECONDS = 5.0


def tier_floor(tier: Mapping[str, Any]) -> float | None:
    """The balance below which the key drops a tier; None on the lowest tier, or untold.

    >>> tier_floor({"current_tier": {"min_credits": 10000}, "previous_tier": {"name": "Slow"}})
    10000.0
    """
    current = tier.get("current_tier")
    if not isinstance(current, Mapping) or not isinstance(tier.get("previous_tier"), Mapping):
        return None
    return finite_number(current.get("min_credits"))


def tier_action(
    balance: float | None,
    floor: float | None,
    *,
    margin: float,
    dropped_early: bool,
    read_at: float | None,
    now: float,
) -> Literal["reread", "drop", None]:
    """What a newly seen balance asks of the pace: ``"reread"`` the tier, ``"drop"``, or None.

    >>> tier_action(104, 100, margin=8, dropped_early=False, read_at=0, now=1)
    'drop'
    >>> tier_action(99, 100, margin=8, dropped_early=True, read_at=0, now=10)
    'reread'
    """
    if read_at is not None and now - read_at >= TIER_REREAD_SECONDS:
        return "reread"
    if balance is None or floor is None:
        return None
    if balance < floor:
        fresh = read_at is not None and now - read_at < TIER_CROSSING_GAP_SECONDS
        return None if fresh else "reread"
    if balance - floor < margin and not dropped_early:
        return "drop"
    return None
