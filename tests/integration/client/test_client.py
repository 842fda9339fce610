"""Client against the emulator: answers, error mapping, retries, rate limits and credits."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from lookup_pandas import (
    AuthenticationError,
    ConfigurationError,
    NotFoundError,
    RateLimitError,
    RequestTimeoutError,
    ResponseError,
    ServerError,
    ServiceError,
    TransportError,
    ValidationError,
)
from lookup_pandas.testing import data

from ..helpers import (
    DROP,
    EMPLOYEES,
    PROFILE,
    SEARCH,
    TIER,
    FailFirst,
    bad_gateway,
    capture_request_ids,
    data_count,
    make_client,
    rate_limited,
    server_error,
    unavailable,
    wait_for_count,
)

# A client whose key the panel rejects cannot learn the rate from the tier endpoint and would
# pace at the 7/min default; an explicit rate keeps the auth tests fast (see the report).
FAST = 6000

# -- answers -------------------------------------------------------------------------------------


def test_profile_returns_the_record_and_is_billed_once(fake_service, fake_client):
    rec = fake_client.profile("ada-lovelace")

    assert rec == data.person("ada-lovelace")
    assert rec["id"].startswith("prsn_")
    assert fake_service.count(PROFILE) == 1
    assert fake_service.billed(PROFILE, handle="ada-lovelace") == 1


def test_not_found_profile_is_none_billed_once_and_cached(fake_service, fake_client):
    assert fake_client.profile("unknown-zed") is None
    assert fake_client.profile("unknown-zed") is None

    assert fake_service.count(PROFILE, handle="unknown-zed") == 1
    assert fake_service.billed(PROFILE, handle="unknown-zed") == 1


def test_get_on_a_not_found_profile_raises_not_found_with_the_code(fake_service, fake_client):
    ids = capture_request_ids(fake_client)
    with pytest.raises(NotFoundError) as info:
        fake_client.get(PROFILE, {"handle": "unknown-bob"})

    exc = info.value
    assert exc.status_code == 200
    assert exc.error_code == "1010"
    assert exc.message == "Profile not found"
    assert exc.request_id is not None and exc.request_id == ids[-1]


def test_get_returns_the_whole_checked_envelope(fake_service, fake_client):
    body = fake_client.get(EMPLOYEES, {"slug": "acme", "limit": 5, "page": 2})

    assert body["success"] is True
    assert body["statusCode"] == 200
    assert body["pagination"] == {"page": 2, "limit": 5, "has_more": True}
    assert [r["id"] for r in body["data"]] == [r["id"] for r in data.employees("acme")[5:10]]


def test_unknown_path_raises_a_configuration_error_naming_the_url_without_retrying(
    fake_service, fake_client
):
    ids = capture_request_ids(fake_client)
    with pytest.raises(ConfigurationError) as info:
        fake_client.get("/api/data/v1/no-such-endpoint")

    exc = info.value
    assert not isinstance(exc, NotFoundError)
    assert exc.status_code == 404
    assert f"No endpoint at {fake_service.base_url}/api/data/v1/no-such-endpoint" in exc.message
    assert exc.request_id is not None and exc.request_id == ids[-1]
    assert fake_service.count("/api/data/v1/no-such-endpoint") == 1


def test_http_404_on_a_profile_is_a_configuration_error_not_none(fake_service, fake_client):
    fake_service.override(
        PROFILE,
        lambda req: (404, {"success": False, "message": "Not here", "errors": None, "data": None}),
    )
    with pytest.raises(ConfigurationError) as info:
        fake_client.profile("ada")
    assert "Not here" in str(info.value)
    assert fake_service.count(PROFILE, handle="ada") == 1


def test_unknown_company_raises_not_found(fake_service, fake_client):
    with pytest.raises(NotFoundError) as info:
        list(fake_client.paginate(EMPLOYEES, {"slug": "unknown-co", "limit": 50}, progress=False))
    assert info.value.error_code == "1020"
    assert fake_service.count(EMPLOYEES) == 1


def test_full_url_instead_of_a_path_is_refused_without_sending(fake_service, fake_client):
    with pytest.raises(ConfigurationError):
        fake_client.get(fake_service.base_url + PROFILE, {"handle": "ada"})
    assert fake_service.count() == 0


def test_credits_tier_payload(fake_service, fake_client):
    fake_service.configure(rate_limit_per_minute=60)
    tier = fake_client.credits_tier()

    assert tier["balance"] == fake_service.balance
    assert tier["current_tier"]["name"] == "Emulator"
    assert tier["current_tier"]["limit_per_minute"] == 60
    assert tier["next_tier"] is None and tier["previous_tier"] is None
    # The client paces at 95% of what the tier endpoint advertises.
    assert fake_client.rate_limit_per_minute == pytest.approx(57.0)


def test_get_on_the_panel_path_uses_the_panel_header(fake_service, fake_client):
    body = fake_client.get(TIER)
    assert body["data"]["current_tier"]["limit_per_minute"] == 6000
    assert fake_service.count(TIER, status=401) == 0


# -- authentication ------------------------------------------------------------------------------

#: Every bad key, and production's one answer to each (its reference: "Invalid API key").
AUTH_CASES = dict.fromkeys(
    ["rotated", "wrong_workspace", "unknown", "truncated", "revoked"], "Invalid API key"
)


def _bad_key(svc, case: str) -> str:
    if case == "rotated":
        old = svc.api_key
        svc.rotate_key()
        return old
    if case == "wrong_workspace":
        return svc.wrong_workspace_key
    if case == "unknown":
        return "lk_test_" + "0" * 32
    if case == "truncated":
        return svc.api_key[:-6]
    if case == "revoked":
        key = svc.api_key
        svc.revoke_key(key)
        return key
    raise AssertionError(case)


@pytest.mark.parametrize("case", sorted(AUTH_CASES))
def test_invalid_key_raises_authentication_error_403(fake_service, case):
    key = _bad_key(fake_service, case)
    with make_client(fake_service, api_key=key, rate_limit_per_minute=FAST) as client:
        ids = capture_request_ids(client)
        with pytest.raises(AuthenticationError) as info:
            client.profile("ada")

    exc = info.value
    assert exc.status_code == 403
    assert exc.message == AUTH_CASES[case]
    assert exc.request_id is not None and exc.request_id == ids[-1]
    # Not retried: every further attempt would fail the same way. The first request, the
    # credits-tier look-up that learns the pace, already answers 403, so nothing else is sent.
    assert fake_service.count() == 1
    assert fake_service.count(status=403) == 1
    assert fake_service.billed() == 0


def test_rotation_old_key_fails_new_key_works(fake_service, tmp_path):
    old = fake_service.api_key
    with make_client(fake_service, api_key=old, cache=tmp_path / "c.sqlite") as client:
        assert client.profile("ada") is not None
    new = fake_service.rotate_key()
    assert new != old

    with (
        make_client(fake_service, api_key=old, rate_limit_per_minute=FAST) as client,
        pytest.raises(AuthenticationError),
    ):
        client.profile("grace")
    with make_client(fake_service, api_key=new) as client:
        assert client.profile("grace")["handle"] == "grace"
    assert fake_service.billed(PROFILE, handle="grace") == 1


def test_401_maps_to_authentication_error(fake_service, fake_client):
    # A Client always sends its key, so the 401 is scripted; its body is the emulator's own.
    fake_service.override(
        PROFILE,
        lambda req: (
            401,
            {"success": False, "message": "API key is required", "errors": None, "data": None},
        ),
    )
    with pytest.raises(AuthenticationError) as info:
        fake_client.profile("ada")
    assert info.value.status_code == 401
    assert info.value.message == "API key is required"
    assert fake_service.count(PROFILE) == 1


def test_authentication_error_is_a_service_error_not_a_builtin_lookup_error(fake_service):
    client = make_client(fake_service, api_key="lk_test_nope", rate_limit_per_minute=FAST)
    with client, pytest.raises(ServiceError) as info:
        client.profile("ada")
    assert isinstance(info.value, AuthenticationError)
    assert not isinstance(info.value, LookupError)


# -- validation ----------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [0, 51])
def test_limit_out_of_range_raises_validation_error(fake_service, fake_client, limit):
    ids = capture_request_ids(fake_client)
    with pytest.raises(ValidationError) as info:
        fake_client.get(EMPLOYEES, {"slug": "acme", "limit": limit})

    exc = info.value
    assert exc.status_code == 400
    assert exc.message == "Validation failed"
    assert exc.error_code == "VALIDATION_ERROR"
    assert exc.errors == {"limit": "must be an integer between 1 and 50"}
    assert exc.request_id is not None and exc.request_id == ids[-1]
    assert fake_service.count(EMPLOYEES) == 1  # not retried
    assert fake_service.billed() == 0


def test_malformed_cursor_raises_validation_error(fake_service, fake_client):
    with pytest.raises(ValidationError) as info:
        fake_client.get(SEARCH, {"title": "engineer", "limit": 10, "cursor": "not-a-cursor"})
    assert info.value.status_code == 400
    assert info.value.errors == {"cursor": "malformed cursor"}
    assert fake_service.count(SEARCH) == 1


def test_validation_error_in_a_200_envelope(fake_service, fake_client):
    fake_service.override(
        PROFILE,
        lambda req: (
            200,
            {
                "success": False,
                "message": "handle is malformed",
                "error_code": "VALIDATION_ERROR",
                "errors": {"handle": "bad"},
                "data": None,
            },
        ),
    )
    with pytest.raises(ValidationError) as info:
        fake_client.profile("ada")
    assert info.value.errors == {"handle": "bad"}
    assert info.value.message == "handle is malformed"


# -- responses that are not the envelope ---------------------------------------------------------


@pytest.mark.parametrize("body", ["<html><body>maintenance</body></html>", {"data": {"id": 1}}, ""])
def test_200_without_the_envelope_raises_response_error_without_retrying(
    fake_service, fake_client, body
):
    fake_service.override(PROFILE, lambda req: (200, body))
    with pytest.raises(ResponseError) as info:
        fake_client.profile("ada")
    assert info.value.status_code == 200
    assert fake_service.count(PROFILE) == 1


def test_profile_whose_data_is_not_an_object_raises_response_error(fake_service, fake_client):
    fake_service.override(
        PROFILE,
        lambda req: (
            200,
            {
                "success": True,
                "statusCode": 200,
                "message": "ok",
                "errors": None,
                "data": ["not", "an", "object"],
            },
        ),
    )
    with pytest.raises(ResponseError):
        fake_client.profile("ada")


# -- retries -------------------------------------------------------------------------------------

TRANSIENT = {
    "500": server_error,
    "502-html": bad_gateway,
    "503": unavailable,
    "drop": lambda: DROP,
}


@pytest.mark.parametrize("kind", sorted(TRANSIENT))
@pytest.mark.parametrize("k", [1, 3])
def test_transient_failures_are_retried(fake_service, fake_client, kind, k):
    script = FailFirst(k, TRANSIENT[kind])
    fake_service.override(PROFILE, script)

    rec = fake_client.profile("ada")

    assert rec == data.person("ada")
    assert script.calls == k + 1
    assert fake_service.count(PROFILE, handle="ada") == k + 1
    assert fake_service.billed(PROFILE, handle="ada") == 1
    assert fake_client.stats.retries == k


@pytest.mark.parametrize(
    ("kind", "exc_type", "status"),
    [
        ("500", ServerError, 500),
        ("502-html", ServerError, 502),
        ("503", ServerError, 503),
        ("drop", TransportError, None),
    ],
)
def test_persistent_failure_raises_after_max_retries_plus_one_attempts(
    fake_service, kind, exc_type, status
):
    fake_service.override(PROFILE, lambda req: TRANSIENT[kind]())
    with make_client(fake_service, max_retries=2) as client:
        ids = capture_request_ids(client)
        with pytest.raises(exc_type) as info:
            client.profile("ada")

    exc = info.value
    assert fake_service.count(PROFILE) == 3
    assert exc.status_code == status
    if kind == "500":
        assert exc.message == "Internal server error"
    if kind == "503":
        assert exc.message == "Service temporarily unavailable"
        assert exc.error_code == "1072"
    if status is not None:
        assert exc.request_id is not None and exc.request_id == ids[-1]


def test_max_retries_zero_sends_once(fake_service):
    fake_service.override(PROFILE, lambda req: server_error())
    with make_client(fake_service, max_retries=0) as client, pytest.raises(ServerError):
        client.profile("ada")
    assert fake_service.count(PROFILE) == 1


def test_random_faults_from_the_emulator_lose_nothing(fake_service):
    # The emulator's fault injection (seeded, reset per test): every kind, every endpoint.
    # Seeded draws happen in request order; a single thread and no 429s keep that order fixed.
    fake_service.configure(
        fault_rate=0.3, fault_kinds=("500", "502", "503", "drop"), rate_burst=1000
    )
    handles = [f"fault-{i}" for i in range(12)]
    with make_client(fake_service, max_retries=8) as client:
        records = [client.profile(h) for h in handles]
        stats = client.stats

    assert [r["handle"] for r in records] == handles
    assert all(fake_service.billed(PROFILE, handle=h) == 1 for h in handles)
    faults = [r for r in fake_service.requests if r.fault is not None]
    assert faults, "the knob injected no fault, so this test proved nothing"
    assert stats.retries == len(faults)


def test_timeout_is_retried(fake_service):
    calls: list[int] = []
    lock, answered = threading.Lock(), threading.Event()

    def slow_first(req):
        with lock:
            calls.append(1)
            first = len(calls) == 1
        if first:
            answered.wait(30)  # no answer until the client has given up on it
            return server_error()
        return None

    fake_service.override(PROFILE, slow_first)
    with make_client(fake_service, timeout=0.3) as client:
        assert client.profile("ada")["handle"] == "ada"
        assert client.stats.retries == 1
    answered.set()
    assert len(calls) == 2
    # Let the abandoned slow answer finish, so it is not counted in the next test.
    assert wait_for_count(fake_service, PROFILE, 2)


def test_persistent_timeout_raises_request_timeout_error(fake_service):
    calls: list[int] = []
    answered = threading.Event()

    def slow(req):
        calls.append(1)
        answered.wait(30)  # no answer until the client has given up
        return server_error()

    fake_service.override(PROFILE, slow)
    with (
        make_client(fake_service, timeout=0.2, max_retries=1) as client,
        pytest.raises(RequestTimeoutError) as info,
    ):
        client.profile("ada")
    answered.set()
    assert isinstance(info.value, TransportError)
    assert len(calls) == 2
    assert wait_for_count(fake_service, PROFILE, 2)


# -- rate limits ---------------------------------------------------------------------------------


def test_low_emulator_limit_loses_no_request_from_a_thread_pool(fake_service):
    fake_service.configure(rate_limit_per_minute=600, rate_burst=1)
    handles = [f"pool-{i:02d}" for i in range(15)]
    with make_client(fake_service, rate_limit_per_minute=None) as client:
        with ThreadPoolExecutor(4) as pool:
            records = list(pool.map(client.profile, handles))
        stats = client.stats

    assert [r["handle"] for r in records] == handles
    for h in handles:
        assert fake_service.billed(PROFILE, handle=h) == 1
    # The pace was learnt from the tier endpoint.
    assert client.rate_limit_per_minute == pytest.approx(570.0)
    assert stats.rate_limited == fake_service.count(status=429)
    assert stats.sent == fake_service.count()


def test_client_ignoring_the_limit_still_completes_through_429s(fake_service):
    fake_service.configure(rate_limit_per_minute=120, rate_burst=1, advertise_rate_limit=False)
    handles = [f"greedy-{i}" for i in range(5)]
    with make_client(fake_service, rate_limit_per_minute=100_000) as client:
        with ThreadPoolExecutor(4) as pool:
            records = list(pool.map(client.profile, handles))
        stats = client.stats

    assert [r["handle"] for r in records] == handles
    for h in handles:
        assert fake_service.billed(PROFILE, handle=h) == 1
    n429 = fake_service.count(status=429)
    assert n429 >= 1, "the emulator never pushed back, so this test proved nothing"
    assert stats.rate_limited == n429
    # The 429 named the limit; the client now paces under it.
    assert client.rate_limit_per_minute == pytest.approx(114.0)


def test_retry_after_is_honoured(fake_service, fake_client):
    """A strict server: a retry before Retry-After has passed is refused again."""
    lock = threading.Lock()
    refused_at: dict[str, float] = {}

    def strict(req):
        with lock:
            now = time.monotonic()
            first = refused_at.get(req.param("handle"))
            if first is None or now - first < 1.0:
                refused_at.setdefault(req.param("handle"), now)
                return rate_limited(1)  # no current_limit: nothing but Retry-After to go by
            return None

    fake_service.override(PROFILE, strict)
    assert fake_client.profile("ada")["handle"] == "ada"
    assert fake_service.count(PROFILE, status=429) == 1
    assert fake_service.count(PROFILE) == 2
    assert fake_client.stats.rate_limited == 1


@pytest.mark.timeout(30)
def test_retry_after_is_capped(fake_service, fake_client):
    # Retry-After: one hour; the fixture's client caps waits at 2 s, so this returns.
    fake_service.override(PROFILE, FailFirst(1, lambda: rate_limited(3600)))
    assert fake_client.profile("ada")["handle"] == "ada"
    assert fake_service.count(PROFILE) == 2


def test_persistent_429_raises_rate_limit_error(fake_service):
    fake_service.override(PROFILE, lambda req: rate_limited(0, limit=6000))
    with make_client(fake_service, max_retries=1) as client, pytest.raises(RateLimitError) as info:
        client.profile("ada")

    exc = info.value
    assert exc.status_code == 429
    assert exc.retry_after == 0.0
    assert exc.errors == {"current_tier": "Emulator", "current_limit": 6000}
    assert fake_service.count(PROFILE) == 2


# -- credits and counters ------------------------------------------------------------------------


def test_credits_follow_the_headers_and_cache_hits_cost_nothing(fake_service, fake_client):
    start = fake_service.balance
    fake_client.profile("ada")
    fake_client.profile("grace")
    fake_client.profile("unknown-x")  # not found, and billed
    fake_client.get(EMPLOYEES, {"slug": "acme", "limit": 10})

    stats = fake_client.stats
    assert fake_service.billed() == 4
    assert stats.credits_consumed == 4.0
    assert stats.credits_balance == fake_service.balance == start - 4

    fake_client.profile("ada")
    fake_client.profile("unknown-x")
    fake_client.get(EMPLOYEES, {"slug": "acme", "limit": 10})

    after = fake_client.stats
    assert after.credits_consumed == 4.0
    assert after.credits_balance == start - 4
    assert after.cache_hits == stats.cache_hits + 3
    assert fake_service.billed() == 4


def test_sent_counts_every_network_request(fake_service, fake_client):
    fake_service.override(PROFILE, FailFirst(2, server_error))
    fake_client.profile("ada")
    fake_client.profile("ada")  # cache hit
    assert fake_client.stats.sent == fake_service.count()
    assert data_count(fake_service) == 3
