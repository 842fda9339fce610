"""The send chain's decisions as data (lookup_pandas.http.decisions): no server, no transport."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from lookup_pandas.config.settings import Settings
from lookup_pandas.errors import (
    AuthenticationError,
    ConfigurationError,
    NotFoundError,
    RateLimitError,
    ResponseError,
    ServerError,
    ServiceError,
    TransportError,
    UsageError,
    ValidationError,
)
from lookup_pandas.http.decisions import (
    FIRST_CONTACT_RETRY_DELAY,
    TIER_REREAD_SECONDS,
    Attempts,
    Call,
    SendActions,
    Slowdown,
    fresh_enough,
    next_step,
    not_the_service,
    proves_contact,
    proves_key,
    rate_from_tier,
    slowdown,
    tier_action,
    tier_floor,
)
from lookup_pandas.service.envelope import Envelope
from lookup_pandas.service.paths import HEALTH_PATH, PROFILE_PATH, TIER_PATH
from lookup_pandas.service.retry import RetryPolicy
from lookup_pandas.store import MINE, RECHECK

SETTINGS = Settings.build(api_key="lk_decisions", base_url="http://127.0.0.1:9", cache=False)
ENV = Envelope(data={"id": "prsn_1"}, message="ok", pagination=None, request_id=None, body={})


def policy(max_retries: int = 2) -> RetryPolicy:
    # backoff_base == backoff_max == 2: every back-off is 1..2 s; Retry-After is exact
    return RetryPolicy(max_retries, 2.0, 2.0, 10.0, rng=random.Random(0))


def enveloped(cls: type[ServiceError], status: int, **kw: object) -> ServiceError:
    return cls("told", status_code=status, **kw)  # type: ignore[arg-type]


def not_enveloped(cls: type[ServiceError], status: int | None) -> ServiceError:
    exc = cls("an HTML page", status_code=status)
    exc.enveloped = False
    return exc


def unreachable() -> TransportError:
    exc = TransportError("127.0.0.1:9 cannot be reached: connection refused")
    exc.before_connecting = True
    return exc


def no_endpoint_404() -> ConfigurationError:
    exc = ConfigurationError("Not Found", status_code=404)
    exc.server_message = "Cannot GET /x"
    return exc


# What the decision is told besides the failure: the call, and whether the Client has contact.
FIRST = (Call(PROFILE_PATH), False)
AFTER = (Call(PROFILE_PATH), True)


def expecting(*statuses: int) -> tuple[Call, bool]:
    """After contact, a call that raises ``statuses`` as they are."""
    return Call(PROFILE_PATH, final_statuses=frozenset(statuses)), True


# (case, failure, attempts, situation) -> (raise what? None: retry; delay range; attempts after)
RETRY_TABLE = [
    ("a 503 after contact: retried", enveloped(ServerError, 503), Attempts(), AFTER,
     None, (1.0, 2.0), Attempts(retries=1)),
    ("a 429 after contact: its Retry-After", enveloped(RateLimitError, 429, retry_after=3.0),
     Attempts(), AFTER, None, (3.0, 3.0), Attempts(retries=1)),
    ("a 429's Retry-After is capped", enveloped(RateLimitError, 429, retry_after=900.0),
     Attempts(), AFTER, None, (10.0, 10.0), Attempts(retries=1)),
    ("a dropped connection after contact: retried", TransportError("cut"), Attempts(1), AFTER,
     None, (1.0, 2.0), Attempts(retries=2)),
    ("the retries ran out", enveloped(ServerError, 503), Attempts(2), AFTER,
     "same", None, None),
    ("a 400 is final", enveloped(ValidationError, 400), Attempts(), AFTER, "same", None, None),
    ("a not-found is final", enveloped(NotFoundError, 200), Attempts(), FIRST,
     "same", None, None),
    ("a final status is raised as it is", enveloped(ServerError, 503), Attempts(),
     expecting(503), "same", None, None),
    ("first contact, no envelope: one quick retry", not_enveloped(ResponseError, 200),
     Attempts(), FIRST, None, (FIRST_CONTACT_RETRY_DELAY,) * 2,
     Attempts(first_contact_retried=True)),
    ("first contact, unreachable: one quick retry", unreachable(), Attempts(), FIRST,
     None, (FIRST_CONTACT_RETRY_DELAY,) * 2, Attempts(first_contact_retried=True)),
    ("first contact failed twice: misconfigured", not_enveloped(ResponseError, 404),
     Attempts(first_contact_retried=True), FIRST, ConfigurationError, None, None),
    ("first contact, an enveloped 503: an ordinary retry", enveloped(ServerError, 503),
     Attempts(), FIRST, None, (1.0, 2.0), Attempts(retries=1)),
    ("first contact, a 429 is never 'not the service'", not_enveloped(RateLimitError, 429),
     Attempts(), FIRST, None, (1.0, 2.0), Attempts(retries=1)),
    ("after contact, no envelope: ordinary rules (final)", not_enveloped(ResponseError, 200),
     Attempts(), AFTER, "same", None, None),
    ("a rejected key is final, with a hint", enveloped(AuthenticationError, 403), Attempts(),
     FIRST, "same", None, None),
    ("an enveloped 404 that is no endpoint", no_endpoint_404(), Attempts(), AFTER,
     ConfigurationError, None, None),
    ("a 404 a batch call expects is raised as it is", no_endpoint_404(), Attempts(),
     expecting(404), "same", None, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("failure", "attempts", "situation", "raises", "delay", "after"),
    [case[1:] for case in RETRY_TABLE],
    ids=[case[0] for case in RETRY_TABLE],
)
def test_retry_or_not_and_how_long_to_wait(failure, attempts, situation, raises, delay, after):
    step = next_step(failure, attempts, *situation, policy(), SETTINGS)
    if raises is None:
        assert step.error is None
        low, high = delay
        assert low <= step.delay <= high
        assert step.attempts == after
    elif raises == "same":
        assert step.error is failure
    else:
        assert type(step.error) is raises and step.error is not failure


def test_misconfigured_names_the_base_url_what_came_back_and_the_setting():
    failure = not_enveloped(ResponseError, 404)
    step = next_step(failure, Attempts(first_contact_retried=True), *FIRST, policy(), SETTINGS)
    assert str(step.error.message) == (
        f"The base URL http://127.0.0.1:9 does not answer like the service (GET {PROFILE_PATH}, "
        "tried twice): an HTML page. Check base_url=."
    )
    assert step.error.__cause__ is failure and step.error.status_code == 404


def test_no_endpoint_names_the_url_for_python_and_the_variable_for_the_command_line():
    step = next_step(no_endpoint_404(), Attempts(), Call("/x"), True, policy(), SETTINGS)
    assert step.error.message.startswith("No endpoint at http://127.0.0.1:9/x: ")
    assert "(Cannot GET /x)" in step.error.message and "check base_url=" in step.error.message
    assert step.error.cli_message.endswith("check the LOOKUP_BASE_URL environment variable")
    assert step.error.__suppress_context__


def test_a_rejected_key_gets_a_hint_naming_where_the_key_came_from():
    step = next_step(
        enveloped(AuthenticationError, 403), Attempts(), Call("/p"), True, policy(), SETTINGS
    )
    assert step.error.hint == "Check api_key="


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (not_enveloped(ResponseError, 200), True),
        (unreachable(), True),
        (TransportError("dropped after connecting"), False),
        (enveloped(ServerError, 503), False),
        (not_enveloped(RateLimitError, 429), False),
    ],
)
def test_not_the_service(failure, expected):
    assert not_the_service(failure) is expected


# -- what one call does, decided once before it is sent -----------------------------------------

OFFLINE = Settings.build(
    api_key="lk_decisions", base_url="http://127.0.0.1:9", cache=False, offline=True
)
KEEPS_NOTHING = Settings.build(
    api_key="lk_decisions", base_url="http://127.0.0.1:9", cache=False, expire_after=0
)
ONLINE = Settings.build(
    api_key="lk_decisions", base_url="http://127.0.0.1:9", cache=False, offline=False
)
PROFILE = Call(PROFILE_PATH, {"handle": "ada"})
BATCH = "/api/data/v1/people/batch"

# (case, call, settings, cache_on) -> (read, claim, send, store, paced)
ACTIONS_TABLE = [
    ("a lookup: read once, claim a miss, store it", PROFILE, ONLINE, True,
     ("once", True, True, True, True)),
    ("no cache: sent and kept nowhere", PROFILE, ONLINE, False,
     ("skip", False, True, False, True)),
    ("refresh: bought again, stored anew", replace(PROFILE, refresh=True), ONLINE, True,
     ("skip", False, True, True, True)),
    ("only an answer stored since a time: read once, claim a miss",
     replace(PROFILE, fresh_after=1.0), ONLINE, True, ("once", True, True, True, True)),
    ("a claim the caller holds: read once, not claimed", replace(PROFILE, held=MINE), ONLINE,
     True, ("once", False, True, True, True)),
    ("a claim let go of lately: read afresh", replace(PROFILE, held=RECHECK),
     ONLINE, True, ("afresh", False, True, True, True)),
    ("a batch poll: never cached", Call(BATCH, {"job_id": "j"}, cache=False), ONLINE, True,
     ("skip", False, True, False, True)),
    ("a POST: never cached", Call(BATCH, method="POST", body={}), ONLINE, True,
     ("skip", False, True, False, True)),
    ("the panel: neither cached nor paced", Call(TIER_PATH), ONLINE, True,
     ("skip", False, True, False, False)),
    ("a free probe: not paced", Call(HEALTH_PATH, cache=False, paced=False), ONLINE, True,
     ("skip", False, True, False, False)),
    ("a cache that keeps nothing: read, never stored", PROFILE, KEEPS_NOTHING, True,
     ("once", True, True, False, True)),
    ("offline: read, never sent", replace(PROFILE, held=RECHECK), OFFLINE, True,
     ("once", False, False, False, True)),
    ("offline, never cached: neither read nor sent", Call(TIER_PATH), OFFLINE, True,
     ("skip", False, False, False, False)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("call", "settings", "cache_on", "expected"),
    [case[1:] for case in ACTIONS_TABLE],
    ids=[case[0] for case in ACTIONS_TABLE],
)
def test_what_one_call_does(call, settings, cache_on, expected):
    actions = SendActions.from_call(call, settings, cache_on=cache_on)
    assert (actions.read, actions.claim, actions.send, actions.store, actions.paced) == expected
    assert actions.error is None


def test_a_refresh_offline_is_refused_before_anything_is_read():
    actions = SendActions.from_call(replace(PROFILE, refresh=True), OFFLINE, cache_on=True)
    assert isinstance(actions.error, UsageError) and "needs the network" in actions.error.message


FRESH = replace(PROFILE, fresh_after=1_700_000_000.0)


def test_a_call_asking_for_an_answer_stored_since_a_time_carries_it_to_its_lookups():
    actions = SendActions.from_call(FRESH, ONLINE, cache_on=True)
    assert actions.fresh_after == 1_700_000_000.0 and actions.claim and actions.read == "once"
    held_call = replace(FRESH, held=RECHECK)
    held = SendActions.from_call(held_call, ONLINE, cache_on=True)
    assert (held.read, held.claim, held.fresh_after) == ("afresh", False, 1_700_000_000.0)
    assert SendActions.from_call(PROFILE, ONLINE, cache_on=True).fresh_after is None


@pytest.mark.parametrize(
    ("call", "cache_on"),
    [(replace(FRESH, refresh=True), True), (FRESH, False)],
    ids=["a refresh buys anyway, unclaimed", "no cache: nothing stored to judge"],
)
def test_fresh_after_means_nothing_where_nothing_is_read(call, cache_on):
    actions = SendActions.from_call(call, ONLINE, cache_on=cache_on)
    assert actions.fresh_after is None and actions.read == "skip" and not actions.claim


def test_fresh_after_offline_is_refused_before_anything_is_read():
    actions = SendActions.from_call(FRESH, OFFLINE, cache_on=True)
    assert isinstance(actions.error, UsageError) and "needs the network" in actions.error.message
    assert "fresh_after" in actions.error.message


BOUGHT = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)

# (case, stored at, fresh after) -> counts
FRESH_TABLE = [
    ("the call asks nothing", BOUGHT, None, True),
    ("stored at that very time", BOUGHT, BOUGHT.timestamp(), True),
    ("stored after it", BOUGHT, BOUGHT.timestamp() - 3600, True),
    ("stored a moment before it", BOUGHT, BOUGHT.timestamp() + 0.001, False),
    ("a naive time is UTC", BOUGHT.replace(tzinfo=None), BOUGHT.timestamp(), True),
    ("a naive time before it", BOUGHT.replace(tzinfo=None) - timedelta(seconds=1),
     BOUGHT.timestamp(), False),
    ("another zone, same instant", BOUGHT.astimezone(datetime.now().astimezone().tzinfo),
     BOUGHT.timestamp(), True),
    ("no time stored", None, 0.0, False),
    ("no time stored, nothing asked", None, None, True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("stored_at", "fresh_after", "counts"),
    [case[1:] for case in FRESH_TABLE],
    ids=[case[0] for case in FRESH_TABLE],
)
def test_which_stored_answer_counts(stored_at, fresh_after, counts):
    assert fresh_enough(stored_at, fresh_after) is counts


# -- first contact: only a success, or a billed not-found ---------------------------------------

# Only answers from the network are noted: a cached one proves nothing (test_sending.py holds it).
CONTACT_TABLE = [
    ("a success", ENV, True),
    ("a billed not-found (200 + its code)", enveloped(NotFoundError, 200), True),
    ("an enveloped 404 not-found", enveloped(NotFoundError, 404), False),
    ("an enveloped 503", enveloped(ServerError, 503), False),
    ("a rejected key", enveloped(AuthenticationError, 403), False),
]


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [case[1:] for case in CONTACT_TABLE],
    ids=[case[0] for case in CONTACT_TABLE],
)
def test_what_counts_as_first_contact(outcome, expected):
    assert proves_contact(outcome) is expected


@pytest.mark.parametrize(
    ("outcome", "path", "expected"),
    [
        (ENV, PROFILE_PATH, True),
        (ENV, TIER_PATH, True),
        (ENV, HEALTH_PATH, False),  # the health probe takes no key
        (enveloped(NotFoundError, 200), PROFILE_PATH, False),
    ],
)
def test_what_proves_the_key(outcome, path, expected):
    assert proves_key(outcome, path) is expected


# -- the pace after a 429 -------------------------------------------------------------------------

SLOWDOWN_TABLE = [
    ("names a limit below the pace", {"current_limit": 60}, 100.0, Slowdown("set", 57.0)),
    ("names a limit, unpaced", {"current_limit": 60}, None, Slowdown("set", 57.0)),
    ("names a limit above the pace", {"current_limit": 60}, 30.0, Slowdown("keep")),
    ("names a limit as text", {"current_limit": "120"}, None, Slowdown("set", 114.0)),
    ("names no limit", None, 60.0, Slowdown("halve")),
    ("names a zero limit", {"current_limit": 0}, 60.0, Slowdown("halve")),
    ("names a limit that is no number", {"current_limit": "lots"}, 60.0, Slowdown("halve")),
    ("names an infinite limit", {"current_limit": "inf"}, 60.0, Slowdown("halve")),
]


@pytest.mark.parametrize(
    ("errors", "current", "expected"),
    [case[1:] for case in SLOWDOWN_TABLE],
    ids=[case[0] for case in SLOWDOWN_TABLE],
)
def test_the_pace_after_a_429(errors, current, expected):
    exc = RateLimitError("slow down", status_code=429, errors=errors)
    assert slowdown(exc, current) == expected


# -- the pace from the credits tier ---------------------------------------------------------------

TIER_TABLE = [
    ("a limit", {"current_tier": {"limit_per_minute": 60}}, None, 57.0),
    ("a limit and a lower ceiling", {"current_tier": {"limit_per_minute": 60}}, 30.0, 30.0),
    ("a limit and a higher ceiling", {"current_tier": {"limit_per_minute": 60}}, 600.0, 57.0),
    ("no limit: unmetered", {"current_tier": {"limit_per_minute": None}}, None, math.inf),
    ("no limit and a ceiling", {"current_tier": {}}, 600.0, 600.0),
    ("no current tier", {"balance": 3}, None, None),
    ("a current tier that is no object", {"current_tier": "gold"}, 5.0, None),
]


@pytest.mark.parametrize(
    ("tier", "explicit", "expected"),
    [case[1:] for case in TIER_TABLE],
    ids=[case[0] for case in TIER_TABLE],
)
def test_the_pace_from_the_tier(tier, explicit, expected):
    assert rate_from_tier(tier, explicit) == expected


# -- following the tier down -------------------------------------------------------------------

FAST_TIER = {
    "current_tier": {"name": "Fast", "min_credits": 100, "limit_per_minute": 1200},
    "previous_tier": {"name": "Slow", "min_credits": 0, "limit_per_minute": 120},
}


@pytest.mark.parametrize(
    ("tier", "floor"),
    [
        (FAST_TIER, 100.0),
        ({"current_tier": {"min_credits": 100}, "previous_tier": None}, None),  # lowest tier
        ({"current_tier": {"limit_per_minute": 60}}, None),  # a tier without its range
        ({}, None),
    ],
)
def test_tier_floor(tier, floor):
    assert tier_floor(tier) == floor


@pytest.mark.parametrize(
    ("balance", "floor", "dropped", "read_at", "now", "action"),
    [
        (130, 100, False, 0.0, 1.0, None),  # far above the floor
        (111, 100, False, 0.0, 1.0, "drop"),  # within the margin: slow down now
        (105, 100, True, 0.0, 1.0, None),  # already slowed
        (99, 100, True, 0.0, 10.0, "reread"),  # crossed: read the new tier
        (99, 100, True, 9.0, 10.0, None),  # crossed, but the tier was read a moment ago
        (5000, 100, False, 0.0, TIER_REREAD_SECONDS, "reread"),  # read long ago
        (None, 100, False, 0.0, 1.0, None),  # no balance header
        (50, None, False, 0.0, 1.0, None),  # the lowest tier: nothing below
    ],
)
def test_tier_action(balance, floor, dropped, read_at, now, action):
    got = tier_action(balance, floor, margin=12, dropped_early=dropped, read_at=read_at, now=now)
    assert got == action
