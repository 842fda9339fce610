"""The emulator itself, spoken to with plain ``requests``: it must answer as the spec says.

If the emulator drifts from the spec, every other integration test proves less; these pin it.
"""

from __future__ import annotations

import http.client as httplib
import json
from urllib.parse import quote, urlsplit

import pytest
import requests

from lookup_pandas.testing import FakeService, data

from .helpers import EMPLOYEES, PROFILE, SEARCH, TIER

DATA_HEADER = "X-service-apikey"
PANEL_HEADER = "X-AUTHAPI-Key"


@pytest.fixture
def api(fake_service):
    """A requests.Session bound to the emulator with the data key; ``api.get(path, **params)``.

    The rate limit stays at its default, but with a burst wide enough that these few quick
    requests never meet it (the limiter has its own test).
    """
    fake_service.configure(rate_burst=1000)
    session = requests.Session()

    class Http:
        svc = fake_service

        def get(self, path, *, key=..., header=None, **params):
            key = fake_service.api_key if key is ... else key
            headers = {}
            if key is not None:
                headers[header or (PANEL_HEADER if path == TIER else DATA_HEADER)] = key
            return session.get(fake_service.base_url + path, params=params, headers=headers,
                               timeout=10)

    yield Http()
    session.close()


# -- the envelope --------------------------------------------------------------------------------


def test_success_envelope_has_the_exact_shape(api):
    r = api.get(PROFILE, handle="ada")
    body = r.json()

    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/json"
    assert set(body) == {"success", "statusCode", "message", "errors", "data"}
    assert body["success"] is True
    assert body["statusCode"] == 200
    assert body["message"] == "Profile retrieved successfully"
    assert body["errors"] is None
    assert body["data"]["handle"] == "ada"
    assert body["data"]["id"].startswith("prsn_")
    assert body["data"] == data.person("ada")


def test_failure_envelope_has_the_exact_shape(api):
    r = api.get(PROFILE, key="lk_test_wrong", handle="ada")
    body = r.json()

    assert r.status_code == 403
    assert set(body) == {"success", "message", "errors", "data"}
    assert body["success"] is False
    assert body["message"] == "Invalid API key"
    assert body["data"] is None
    assert body["errors"] is None


def test_list_envelopes_carry_their_pagination_block(api):
    page = api.get(EMPLOYEES, slug="acme", limit=50, page=3).json()
    assert set(page) == {"success", "statusCode", "message", "errors", "data", "pagination"}
    assert page["pagination"] == {"page": 3, "limit": 50, "has_more": False}
    assert len(page["data"]) == 137 - 100

    first = api.get(SEARCH, title="engineer", limit=50).json()
    assert set(first["pagination"]) == {"limit", "has_more", "next_cursor"}
    assert first["pagination"]["has_more"] is True
    assert first["pagination"]["next_cursor"]

    only = api.get(SEARCH, title="recruiter", country_code="PT", limit=50).json()
    assert len(only["data"]) == len(data.search("recruiter", country_code="PT")) < 50
    assert only["pagination"] == {"limit": 50, "has_more": False, "next_cursor": ""}


def test_default_limit_is_20(api):
    body = api.get(EMPLOYEES, slug="acme").json()
    assert body["pagination"]["limit"] == 20
    assert len(body["data"]) == 20


def test_headers_request_id_and_credits(api):
    start = api.svc.balance
    a = api.get(PROFILE, handle="ada")
    b = api.get(PROFILE, handle="grace")
    tier = api.get(TIER)

    for r in (a, b, tier):
        assert r.headers["X-Request-Id"].startswith("req_")
    assert len({r.headers["X-Request-Id"] for r in (a, b, tier)}) == 3
    assert a.headers["X-Credits-Consumed"] == "1"
    assert float(a.headers["X-Credits-Balance"]) == start - 1
    assert float(b.headers["X-Credits-Balance"]) == start - 2
    assert tier.headers["X-Credits-Consumed"] == "0"  # the panel is free
    assert float(tier.headers["X-Credits-Balance"]) == start - 2 == api.svc.balance


def test_not_found_is_200_success_false_with_a_code_and_billed(api):
    r = api.get(PROFILE, handle="unknown-zed")
    body = r.json()
    assert r.status_code == 200
    assert body["success"] is False
    assert body["error_code"] == "1010"
    assert body["data"] is None
    assert r.headers["X-Credits-Consumed"] == "1"

    company = api.get(EMPLOYEES, slug="unknown-co").json()
    assert company["success"] is False
    assert company["error_code"] == "1020"
    assert api.svc.billed() == 2


# -- authentication ------------------------------------------------------------------------------


def test_missing_key_is_401_saying_a_key_is_required(api):
    r = api.get(PROFILE, key=None, handle="ada")
    body = r.json()
    assert r.status_code == 401
    assert body["success"] is False
    assert "api key" in body["message"].lower() and "required" in body["message"].lower()
    assert body["data"] is None
    assert body["errors"] is None
    assert api.svc.billed() == 0


@pytest.mark.parametrize("name", ["x-service-apikey", "X-SERVICE-APIKEY", "X-Service-ApiKey"])
def test_data_header_name_is_case_insensitive(api, name):
    assert api.get(PROFILE, header=name, handle="ada").status_code == 200


@pytest.mark.parametrize("name", ["x-authapi-key", "X-AUTHAPI-KEY", "X-AuthApi-Key"])
def test_panel_header_name_is_case_insensitive(api, name):
    assert api.get(TIER, header=name).status_code == 200


def test_each_surface_wants_its_own_header(api):
    assert api.get(TIER, header=DATA_HEADER).status_code == 401
    assert api.get(PROFILE, header=PANEL_HEADER, handle="ada").status_code == 401
    assert api.get(PROFILE, header="Authorization", handle="ada").status_code == 401


def test_invalid_keys_are_403_with_the_reason(api):
    svc = api.svc
    wrong_ws = api.get(PROFILE, key=svc.wrong_workspace_key, handle="ada")
    assert wrong_ws.status_code == 403
    assert wrong_ws.json()["message"] == "API key does not belong to this workspace"

    old = svc.api_key
    new = svc.rotate_key()
    rotated = api.get(PROFILE, key=old, handle="ada")
    assert rotated.status_code == 403
    assert "rotated" in rotated.json()["message"]
    assert api.get(PROFILE, key=new, handle="ada").status_code == 200

    svc.revoke_key(new)
    revoked = api.get(PROFILE, key=new, handle="ada")
    assert revoked.status_code == 403
    assert "revoked" in revoked.json()["message"]

    extra = svc.issue_key()
    assert api.get(PROFILE, key=extra, handle="ada").status_code == 200
    assert api.get(PROFILE, key=extra[:-3], handle="ada").status_code == 403
    assert svc.count(PROFILE, status=403) == 4
    assert svc.billed() == 2


# -- validation and routing ----------------------------------------------------------------------


@pytest.mark.parametrize("limit", ["0", "51", "-1", "abc"])
def test_bad_limit_is_400_with_field_errors(api, limit):
    r = api.get(EMPLOYEES, slug="acme", limit=limit)
    body = r.json()
    assert r.status_code == 400
    assert body["success"] is False
    assert body["error_code"] == "VALIDATION_ERROR"
    assert body["errors"] == {"limit": "must be an integer between 1 and 50"}
    assert r.headers["X-Credits-Consumed"] == "0"


def test_missing_required_parameter_is_400(api):
    assert api.get(PROFILE).json()["errors"] == {"handle": "is required"}
    assert api.get(SEARCH).json()["errors"] == {"title": "is required"}


def test_cursor_of_another_query_is_400(api):
    cursor = api.get(SEARCH, title="engineer", limit=10).json()["pagination"]["next_cursor"]
    assert api.get(SEARCH, title="engineer", limit=10, cursor=cursor).status_code == 200
    other = api.get(SEARCH, title="designer", limit=10, cursor=cursor)
    assert other.status_code == 400
    assert other.json()["errors"] == {"cursor": "cursor does not belong to this query"}


def test_unknown_path_is_404_and_other_methods_405(api):
    r = api.get("/api/data/v1/nothing")
    assert r.status_code == 404
    assert r.json()["success"] is False
    post = requests.post(api.svc.base_url + PROFILE, headers={DATA_HEADER: api.svc.api_key},
                         timeout=10)
    assert post.status_code == 405


# -- cursors -------------------------------------------------------------------------------------


def test_cursors_need_url_encoding_and_survive_only_when_encoded(api):
    cursor = api.get(SEARCH, title="engineer", limit=10).json()["pagination"]["next_cursor"]
    assert "+" in cursor and "/" in cursor and cursor.endswith("=")

    encoded = api.get(SEARCH, title="engineer", limit=10, cursor=cursor)
    assert encoded.status_code == 200
    assert [r["id"] for r in encoded.json()["data"]] == \
        [r["id"] for r in data.search("engineer")[10:20]]

    # Pasted raw into the URL, "+" reads as a space: the cursor is no longer the same token.
    raw_url = f"{api.svc.base_url}{SEARCH}?title=engineer&limit=10&cursor={cursor}"
    raw = requests.get(raw_url, headers={DATA_HEADER: api.svc.api_key}, timeout=10)
    assert raw.status_code == 400
    assert raw.json()["errors"] == {"cursor": "malformed cursor"}


def test_employees_cursor_style(api):
    api.svc.configure(employees_style="cursor")
    first = api.get(EMPLOYEES, slug="acme", limit=50).json()
    assert set(first["pagination"]) == {"limit", "has_more", "next_cursor"}
    second = api.get(EMPLOYEES, slug="acme", limit=50,
                      cursor=first["pagination"]["next_cursor"]).json()
    assert [r["id"] for r in second["data"]] == [r["id"] for r in data.employees("acme")[50:100]]


def test_offset_parameter(api):
    body = api.get(EMPLOYEES, slug="acme", limit=50, start=100).json()
    assert body["pagination"] == {"start": 100, "limit": 50, "has_more": False}
    assert [r["id"] for r in body["data"]] == [r["id"] for r in data.employees("acme")[100:]]


# -- rate limit and tier -------------------------------------------------------------------------


def test_429_carries_retry_after_and_the_tier(api):
    api.svc.configure(rate_limit_per_minute=7, rate_burst=1)
    assert api.get(PROFILE, handle="ada").status_code == 200
    r = api.get(PROFILE, handle="grace")
    body = r.json()

    assert r.status_code == 429
    assert int(r.headers["Retry-After"]) >= 1
    assert body["success"] is False
    assert body["errors"] == {"current_tier": "free", "current_limit": 7}
    assert r.headers["X-Credits-Consumed"] == "0"
    assert api.svc.billed() == 1


def test_tier_payload(api):
    api.svc.configure(rate_limit_per_minute=7)
    body = api.get(TIER).json()
    tier = body["data"]
    assert body["success"] is True
    assert tier["balance"] == api.svc.balance
    assert tier["current_tier"]["name"] == "free"
    assert tier["current_tier"]["limit_per_minute"] == 7
    assert tier["next_tier"]["name"] == "starter"
    assert tier["next_tier"]["limit_per_minute"] == 30
    assert tier["next_tier"]["credits_needed"] == 0  # the default balance is far above 1000

    api.svc.configure(advertise_rate_limit=False)
    assert "limit_per_minute" not in api.get(TIER).json()["data"]["current_tier"]


def test_default_tier_is_unadvertised_custom_with_no_next(api):
    tier = api.get(TIER).json()["data"]
    assert tier["current_tier"]["limit_per_minute"] == 6000
    assert tier["next_tier"] is None


# -- faults --------------------------------------------------------------------------------------


def test_injected_faults(api):
    svc = api.svc
    svc.configure(fault_rate=1.0, fault_kinds=("500",))
    r = api.get(PROFILE, handle="ada")
    assert r.status_code == 500 and r.json()["success"] is False

    svc.configure(fault_kinds=("502",))
    r = api.get(PROFILE, handle="ada")
    assert r.status_code == 502
    assert r.headers["Content-Type"] == "text/html"
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.text)

    svc.configure(fault_kinds=("503",))
    r = api.get(PROFILE, handle="ada")
    assert r.status_code == 503 and r.json()["error_code"] == "1072"

    svc.configure(fault_kinds=("drop",))
    with pytest.raises(requests.ConnectionError):
        api.get(PROFILE, handle="ada")

    faults = [rec.fault for rec in svc.requests]
    assert faults == ["500", "502", "503", "drop"]
    assert svc.billed() == 0


# -- bookkeeping ---------------------------------------------------------------------------------


def test_count_filters(api):
    api.get(PROFILE, handle="ada")
    api.get(PROFILE, handle="ada")
    api.get(PROFILE, handle="unknown-1")
    api.get(PROFILE, key="lk_test_bad", handle="ada")
    svc = api.svc
    assert svc.count() == 4
    assert svc.count(PROFILE, handle="ada") == 3
    assert svc.count(PROFILE, status=403) == 1
    assert svc.billed(PROFILE) == 3
    assert svc.count(PROFILE, billed=False) == 1
    assert [r.param("handle") for r in svc.requests] == ["ada", "ada", "unknown-1", "ada"]


def test_reset_restores_counters_keys_knobs_and_overrides(api):
    svc = api.svc
    original = svc.api_key
    start = svc.balance
    new = svc.rotate_key()
    svc.configure(rate_limit_per_minute=7, latency=0.0, fault_rate=0.0)
    svc.override(PROFILE, lambda req: (418, {"success": False, "message": "teapot",
                                             "errors": None, "data": None}))
    assert api.get(PROFILE, key=new, handle="ada").status_code == 418
    assert api.get(PROFILE, key=original, handle="ada").status_code == 403
    api.get(TIER, key=new)

    svc.reset()

    assert svc.count() == 0 and svc.requests == []
    assert svc.api_key == original
    assert svc.balance == start
    assert svc.knobs.rate_limit_per_minute == 6000
    assert api.get(PROFILE, key=original, handle="ada").status_code == 200
    assert api.get(PROFILE, key=new, handle="ada").status_code == 403
    assert svc.balance == start - 1


def test_keep_alive(fake_service):
    """HTTP/1.1 keep-alive: several answers on one connection (timing is left to the bench)."""
    split = urlsplit(fake_service.base_url)
    conn = httplib.HTTPConnection(split.hostname, split.port, timeout=10)
    try:
        sock = None
        for handle in ("ada", "grace", "linus"):
            conn.request("GET", f"{PROFILE}?handle={quote(handle)}",
                         headers={DATA_HEADER: fake_service.api_key})
            resp = conn.getresponse()
            body = json.loads(resp.read())
            assert resp.status == 200 and body["data"]["handle"] == handle
            assert resp.version == 11
            assert not resp.will_close
            sock = sock or conn.sock
            assert conn.sock is sock  # the same connection every time
    finally:
        conn.close()
    assert fake_service.count(PROFILE) == 3


def test_emulator_refuses_non_loopback_hosts():
    with pytest.raises(ValueError):
        FakeService(host="0.0.0.0")


def test_standalone_service_has_its_own_key_and_state(fake_service):
    with FakeService(api_key="lk_test_standalone") as other:
        assert other.api_key == "lk_test_standalone"
        assert other.base_url != fake_service.base_url
        r = requests.get(other.base_url + PROFILE, params={"handle": "ada"},
                         headers={DATA_HEADER: "lk_test_standalone"}, timeout=10)
        assert r.status_code == 200
        assert other.count(PROFILE) == 1
    assert fake_service.count() == 0
