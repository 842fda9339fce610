"""Keys and the account routes as production answers them, judged by the official SDK.

Every bad key is a 403 "Invalid API key" (the emulator keeps why for itself); a panel path
without its trailing slash is a 403 "Invalid session"; the default tier is production-shaped
("Emulator", 6000/min); an enterprise workspace (``enterprise_limit_per_minute``) has no
``current_tier``, its limit at the top of ``data``, and its own balance route; a 429 carries
its wait in ``errors.retry_after`` as in ``Retry-After``.
"""

from __future__ import annotations

import pytest
import renidly
import requests
from renidly._ratelimit import limit_from_tier

from lookup_pandas.testing import BALANCE_PATH, ENTERPRISE_BALANCE_PATH, PROFILE, TIER

DATA_HEADER = "X-service-apikey"
PANEL_HEADER = "X-AUTHAPI-Key"


def sdk(svc, key: str | None = None) -> renidly.Renidly:
    """The official SDK on the emulator: no retries; the data key in our header name too."""
    key = key or svc.api_key
    config = renidly.RenidlyConfig(
        base_url=svc.base_url, max_retries=0, default_headers={DATA_HEADER: key}
    )
    return renidly.Renidly(key, config=config)


def panel(svc, path: str, key: str | None = None) -> requests.Response:
    return requests.get(svc.base_url + path, headers={PANEL_HEADER: key or svc.api_key}, timeout=10)


def profile(svc, key: str, handle: str = "ada") -> requests.Response:
    return requests.get(
        svc.base_url + PROFILE, params={"handle": handle}, headers={DATA_HEADER: key}, timeout=10
    )


def _bad_key(svc, case: str) -> str:
    if case == "unknown":
        return "lk_test_never_issued"
    if case == "wrong_workspace":
        return svc.wrong_workspace_key
    if case == "rotated":
        old = svc.api_key
        svc.rotate_key()
        return old
    svc.revoke_key()
    return svc.api_key


# -- 1. key rejections ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["unknown", "wrong_workspace", "rotated", "revoked"])
def test_every_bad_key_is_a_403_invalid_api_key(fake_service, case):
    svc = fake_service
    key = _bad_key(svc, case)
    for reply in (profile(svc, key), panel(svc, TIER, key), panel(svc, BALANCE_PATH, key)):
        body = reply.json()
        assert reply.status_code == 403
        assert body["message"] == "Invalid API key"
        assert "error_code" not in body and body["errors"] is None
        assert "X-Credits-Consumed" not in reply.headers
    with sdk(svc, key) as client:
        with pytest.raises(renidly.AuthenticationError):
            client.data.people.retrieve(handle="ada")
        with pytest.raises(renidly.AuthenticationError):
            client.account.tier()
    assert svc.billed() == 0


@pytest.mark.parametrize("path", [TIER, BALANCE_PATH, ENTERPRISE_BALANCE_PATH])
def test_a_panel_path_without_its_trailing_slash_is_invalid_session(fake_service, path):
    svc = fake_service
    bare = path.rstrip("/")
    for headers in ({PANEL_HEADER: svc.api_key}, {}, {PANEL_HEADER: "lk_test_nope"}):
        reply = requests.get(svc.base_url + bare, headers=headers, timeout=10)
        body = reply.json()
        assert reply.status_code == 403
        assert body["message"] == "Invalid session" and "error_code" not in body
        assert "X-Credits-Balance" not in reply.headers
    assert panel(svc, TIER).status_code == 200  # with its slash, the same key is fine


# -- 5. the default tier -------------------------------------------------------------------------


def test_the_default_tier_reads_as_production_s_through_the_sdk(fake_service):
    with sdk(fake_service) as client:
        tier = client.account.tier()
    payload = panel(fake_service, TIER).json()["data"]
    assert tier.current_tier.name == "Emulator"
    assert tier.current_tier.limit_per_minute == 6000
    assert limit_from_tier(payload) == 6000
    assert payload["next_tier"] is None and payload["previous_tier"] is None
    assert payload["balance"] == fake_service.balance
    assert payload["current_tier"]["min_credits"] == 0
    assert payload["current_tier"]["max_credits"] is None


def test_a_429_says_its_wait_in_the_body_as_in_the_header(fake_service):
    svc = fake_service
    svc.configure(rate_limit_per_minute=6, rate_burst=1)
    assert profile(svc, svc.api_key).status_code == 200
    reply = profile(svc, svc.api_key, "grace")
    assert reply.status_code == 429
    errors = reply.json()["errors"]
    assert errors["retry_after"] == int(reply.headers["Retry-After"]) >= 1
    assert errors["current_tier"] == "Emulator" and errors["current_limit"] == 6
    with sdk(svc) as client, pytest.raises(renidly.RateLimitError) as caught:
        client.data.people.retrieve(handle="linus")
    assert caught.value.retry_after >= 1
    assert (caught.value.tier, caught.value.limit) == ("Emulator", 6)


# -- 2. enterprise workspaces ----------------------------------------------------------------------


def test_the_enterprise_knob_is_off_by_default(fake_service):
    svc = fake_service
    assert svc.knobs.enterprise_limit_per_minute is None
    refused = panel(svc, ENTERPRISE_BALANCE_PATH)  # a personal key there
    assert refused.status_code == 403 and refused.json()["message"] == "Invalid API key"
    assert requests.get(svc.base_url + ENTERPRISE_BALANCE_PATH, timeout=10).status_code == 401
    assert panel(svc, BALANCE_PATH).json()["data"] == {"balance": svc.balance}
    with sdk(svc) as client, pytest.raises(renidly.AuthenticationError):
        client.account.enterprise_balance()


def test_an_enterprise_tier_has_no_current_tier_and_its_limit_at_the_top(fake_service):
    svc = fake_service
    svc.configure(enterprise_limit_per_minute=900, balance=5_000, tier_follows_balance=True)
    tier = panel(svc, TIER).json()["data"]
    assert tier == {
        "balance": 5_000,
        "credits_per_dollar": None,
        "current_tier": None,
        "limit_per_minute": 900,
        "next_tier": None,
        "previous_tier": None,
    }
    with sdk(svc) as client:
        assert client.account.tier().current_tier is None
        assert client.account.enterprise_balance().balance == 5_000
        with pytest.raises(renidly.AuthenticationError):
            client.account.balance()  # the personal route: not for an enterprise key
    assert limit_from_tier(tier) == 900
    assert panel(svc, ENTERPRISE_BALANCE_PATH).headers.get("X-Credits-Balance") is None
    personal = panel(svc, BALANCE_PATH)
    assert personal.status_code == 403 and personal.json()["message"] == "Invalid API key"

    svc.configure(advertise_rate_limit=False)
    assert "limit_per_minute" not in panel(svc, TIER).json()["data"]


def test_an_enterprise_limit_is_the_one_enforced(fake_service):
    svc = fake_service
    svc.configure(enterprise_limit_per_minute=6, rate_limit_per_minute=6000, rate_burst=1)
    assert profile(svc, svc.api_key).status_code == 200
    reply = profile(svc, svc.api_key, "grace")
    assert reply.status_code == 429
    errors = reply.json()["errors"]
    assert errors == {
        "current_tier": None,  # no tier, as tier/k says
        "current_limit": 6,
        "retry_after": int(reply.headers["Retry-After"]),
    }
    assert svc.billed() == 1
