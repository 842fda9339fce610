"""The emulator itself, spoken to with plain ``requests``: it must answer as the spec says.

If the emulator drifts from the spec, every other integration test proves less; these pin it.
"""

from __future__ import annotations

import functools
import http.client as httplib
import json
import re
from urllib.parse import quote, urlsplit

import pytest
import requests

from lookup_pandas.testing import FakeService, Knobs, data, notebook

from ..helpers import EMPLOYEES, PROFILE, SEARCH, TIER

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
            return session.get(
                fake_service.base_url + path, params=params, headers=headers, timeout=10
            )

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

    only = api.get(SEARCH, title="designer", geo_country_code="PT", limit=50).json()
    assert len(only["data"]) == len(data.search(title="designer", geo_country_code="PT")) < 50
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
    assert float(b.headers["X-Credits-Balance"]) == api.svc.balance
    # The panel is free and not a Data API route: no credits' headers (production's SDK sees
    # none on its account routes).
    assert "X-Credits-Consumed" not in tier.headers and "X-Credits-Balance" not in tier.headers


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


def test_invalid_keys_are_403_in_production_s_words(api):
    svc = api.svc
    wrong_ws = api.get(PROFILE, key=svc.wrong_workspace_key, handle="ada")
    assert wrong_ws.status_code == 403
    assert wrong_ws.json()["message"] == "Invalid API key"

    old = svc.api_key
    new = svc.rotate_key()
    rotated = api.get(PROFILE, key=old, handle="ada")
    assert rotated.status_code == 403
    assert rotated.json()["message"] == "Invalid API key"
    assert api.get(PROFILE, key=new, handle="ada").status_code == 200

    svc.revoke_key(new)
    revoked = api.get(PROFILE, key=new, handle="ada")
    assert revoked.status_code == 403
    assert revoked.json()["message"] == "Invalid API key"
    # The emulator keeps why, for itself only.
    assert [svc.state.check_key(k) for k in (svc.wrong_workspace_key, old, new, "lk_x")] == [
        "other workspace",
        "rotated",
        "revoked",
        "unknown",
    ]

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
    assert "X-Credits-Consumed" not in r.headers  # an error: not charged, no credits' headers


def test_missing_required_parameter_is_400(api):
    assert api.get(PROFILE).json()["errors"] == {"handle": "is required"}
    assert api.get(EMPLOYEES).json()["errors"] == {"slug": "is required"}


def test_people_search_needs_no_title_and_no_filter(api):
    """Every people-search filter is optional in production (the SDK's quick start searches by
    headline alone); no filter at all answers the whole population, cursor-paged."""
    headline = walk(api, SEARCH, headline="at acme")
    assert ids(headline) == ids(data.search(headline="at acme"))
    assert headline and all("at acme" in r["headline"].lower() for r in headline)
    assert len(headline) < data.SEARCH_POPULATION
    first = api.get(SEARCH, limit=50).json()
    assert first["pagination"]["has_more"] is True and first["pagination"]["next_cursor"]
    assert ids(first["data"]) == ids(population()[:50])
    assert ids(walk(api, SEARCH)) == ids(population()) == ids(data.search())


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
    post = requests.post(
        api.svc.base_url + PROFILE, headers={DATA_HEADER: api.svc.api_key}, timeout=10
    )
    assert post.status_code == 405


# -- cursors -------------------------------------------------------------------------------------


def test_cursors_need_url_encoding_and_survive_only_when_encoded(api):
    cursor = api.get(SEARCH, title="engineer", limit=10).json()["pagination"]["next_cursor"]
    assert "+" in cursor and "/" in cursor and cursor.endswith("=")

    encoded = api.get(SEARCH, title="engineer", limit=10, cursor=cursor)
    assert encoded.status_code == 200
    assert [r["id"] for r in encoded.json()["data"]] == [
        r["id"] for r in data.search(title="engineer")[10:20]
    ]

    # Pasted raw into the URL, "+" reads as a space: the cursor is no longer the same token.
    raw_url = f"{api.svc.base_url}{SEARCH}?title=engineer&limit=10&cursor={cursor}"
    raw = requests.get(raw_url, headers={DATA_HEADER: api.svc.api_key}, timeout=10)
    assert raw.status_code == 400
    assert raw.json()["errors"] == {"cursor": "malformed cursor"}


def test_employees_cursor_style(api):
    api.svc.configure(employees_style="cursor")
    first = api.get(EMPLOYEES, slug="acme", limit=50).json()
    assert set(first["pagination"]) == {"limit", "has_more", "next_cursor"}
    second = api.get(
        EMPLOYEES, slug="acme", limit=50, cursor=first["pagination"]["next_cursor"]
    ).json()
    assert [r["id"] for r in second["data"]] == [r["id"] for r in data.employees("acme")[50:100]]


def test_employees_take_no_offset(api):
    """Production documents no offset on employees: ``start`` is ignored, as an unknown
    parameter is (the first page, page-based)."""
    body = api.get(EMPLOYEES, slug="acme", limit=50, start=100).json()
    assert body["pagination"] == {"page": 1, "limit": 50, "has_more": True}
    assert [r["id"] for r in body["data"]] == [r["id"] for r in data.employees("acme")[:50]]
    assert body == api.get(EMPLOYEES, slug="acme", limit=50).json()


# -- rate limit and tier -------------------------------------------------------------------------


def test_429_carries_retry_after_and_the_tier(api):
    api.svc.configure(rate_limit_per_minute=7, rate_burst=1)
    assert api.get(PROFILE, handle="ada").status_code == 200
    r = api.get(PROFILE, handle="grace")
    body = r.json()

    assert r.status_code == 429
    wait = int(r.headers["Retry-After"])
    assert wait >= 1
    assert body["success"] is False
    # The wait in the body too, where the official SDK reads it (errors.retry_after).
    assert body["errors"] == {"current_tier": "Emulator", "current_limit": 7, "retry_after": wait}
    assert "X-Credits-Consumed" not in r.headers and "X-Credits-Balance" not in r.headers
    assert api.svc.billed() == 1


def test_tier_payload(api):
    api.svc.configure(rate_limit_per_minute=7)
    body = api.get(TIER).json()
    tier = body["data"]
    assert body["success"] is True
    assert tier["balance"] == api.svc.balance
    assert tier["current_tier"] == {
        "name": "Emulator",
        "min_credits": 0,
        "max_credits": None,
        "limit_per_minute": 7,
    }
    assert tier["next_tier"] is None and tier["previous_tier"] is None

    api.svc.configure(advertise_rate_limit=False)
    assert "limit_per_minute" not in api.get(TIER).json()["data"]["current_tier"]


def test_default_tier_is_production_shaped_at_6000_a_minute(api):
    tier = api.get(TIER).json()["data"]
    # Production's keys (account-api.md), no more.
    assert set(tier) == {"balance", "credits_per_dollar", "current_tier", "next_tier",
                         "previous_tier"}  # fmt: skip
    assert set(tier["current_tier"]) == {"name", "min_credits", "max_credits", "limit_per_minute"}
    assert tier["current_tier"]["name"] == "Emulator"
    assert tier["current_tier"]["limit_per_minute"] == 6000
    assert isinstance(tier["credits_per_dollar"], int)
    assert tier["next_tier"] is None and tier["previous_tier"] is None
    assert tier["balance"] == api.svc.balance

    api.svc.configure(rate_limit_per_minute=None)  # unmetered: the same tier, no limit
    unmetered = api.get(TIER).json()["data"]["current_tier"]
    assert unmetered["name"] == "Emulator" and unmetered["limit_per_minute"] is None


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
    svc.override(
        PROFILE,
        lambda req: (418, {"success": False, "message": "teapot", "errors": None, "data": None}),
    )
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
            conn.request(
                "GET",
                f"{PROFILE}?handle={quote(handle)}",
                headers={DATA_HEADER: fake_service.api_key},
            )
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
        r = requests.get(
            other.base_url + PROFILE,
            params={"handle": "ada"},
            headers={DATA_HEADER: "lk_test_standalone"},
            timeout=10,
        )
        assert r.status_code == 200
        assert other.count(PROFILE) == 1
    assert fake_service.count() == 0


# -- the person record: production's shape --------------------------------------------------------

#: The person record's fields as production documents them (data.py's docstring).
DOCUMENTED = {
    "id",
    "handle",
    "first_name",
    "last_name",
    "headline",
    "summary",
    "positions",
    "education",
    "skills",
    "certifications",
    "languages",
    "projects",
    "publications",
    "geo",
    "follower_count",
    "connection_count",
    "is_creator",
    "is_premium",
    "is_open_to_work",
    "is_hiring",
    "primary_locale",
    "localized_headline",
}
#: Fields the emulator once invented and production does not promise.
INVENTED = {"full_name", "title", "company", "counts", "flags", "profile_url"}


@functools.cache
def population() -> tuple[dict, ...]:
    """The search population, as the profile endpoint would answer for each person."""
    return tuple(data.person(f"person-{i:05d}") for i in range(data.SEARCH_POPULATION))


def ids(records) -> list[str]:
    return [r["id"] for r in records]


def position_at(record: dict, slug: str) -> dict | None:
    return next((p for p in record.get("positions", ()) if p["organization"]["slug"] == slug), None)


def walk(api, path: str, **params) -> list[dict]:
    """Every record of a list endpoint, following its cursors or pages."""
    params.setdefault("limit", 50)
    out: list[dict] = []
    page = 1
    cursor = None
    for _ in range(200):
        query = dict(params)
        if cursor:
            query["cursor"] = cursor
        elif path == EMPLOYEES:
            query["page"] = page
        r = api.get(path, **query)
        assert r.status_code == 200, r.text
        body = r.json()
        out += body["data"]
        if not body["pagination"]["has_more"]:
            return out
        cursor = body["pagination"].get("next_cursor")
        page += 1
    raise AssertionError("the list never ended")


def assert_production_shape(rec: dict) -> None:
    assert set(rec) == DOCUMENTED, set(rec) ^ DOCUMENTED
    assert re.fullmatch(r"prsn_[a-z2-7]+", rec["id"])
    assert rec["handle"] == rec["handle"].lower()
    for name in ("first_name", "last_name", "headline", "summary"):
        assert isinstance(rec[name], str) and rec[name]

    positions = rec["positions"]
    assert 1 <= len(positions) <= 4
    starts = []
    for i, p in enumerate(positions):
        assert set(p) == {"title", "organization", "start_date", "end_date", "is_current"}
        org = p["organization"]
        assert set(org) == {"id", "name", "slug", "url"}
        assert re.fullmatch(r"org_[a-z2-7]+", org["id"])
        assert org["url"] == f"https://www.example.com/company/{org['slug']}"
        assert set(p["start_date"]) == {"year", "month"} and 1 <= p["start_date"]["month"] <= 12
        assert isinstance(p["is_current"], bool)
        assert (p["end_date"] is None) == p["is_current"]
        if p["end_date"] is not None:
            assert set(p["end_date"]) == {"year", "month"}
            assert (p["end_date"]["year"], p["end_date"]["month"]) >= (
                p["start_date"]["year"],
                p["start_date"]["month"],
            )
        assert i == 0 or not p["is_current"]  # the current position comes first
        starts.append((p["start_date"]["year"], p["start_date"]["month"]))
    assert starts == sorted(starts, reverse=True)

    assert 0 <= len(rec["education"]) <= 2
    for e in rec["education"]:
        assert set(e) == {"school", "degree", "field_of_study", "start_year", "end_year"}
        assert set(e["school"]) == {"name", "slug"}
        assert e["start_year"] <= e["end_year"]
    assert rec["skills"] and all(isinstance(s, str) for s in rec["skills"])
    assert 0 <= len(rec["certifications"]) <= 2
    assert all(set(c) == {"name", "authority", "year"} for c in rec["certifications"])
    assert 1 <= len(rec["languages"]) <= 3
    assert all(set(lang) == {"name", "proficiency"} for lang in rec["languages"])
    assert isinstance(rec["projects"], list) and isinstance(rec["publications"], list)
    assert all(isinstance(x, dict) and x for x in rec["projects"] + rec["publications"])

    assert set(rec["geo"]) == {"city", "country", "country_code", "region"}
    for name in ("follower_count", "connection_count"):
        assert type(rec[name]) is int and rec[name] >= 0
    for name in ("is_creator", "is_premium", "is_open_to_work", "is_hiring"):
        assert type(rec[name]) is bool
    locale = rec["primary_locale"]
    assert set(locale) == {"country", "language"}
    assert locale["country"] == rec["geo"]["country_code"]
    assert rec["localized_headline"] == {
        f"{locale['language']}_{locale['country']}": rec["headline"]
    }


def test_person_record_has_production_shape_and_none_of_the_invented_fields(api):
    handles = [
        "ada",
        "grace",
        "linus",
        "ada-lovelace-042",
        "acme-employee-00000",
        "acme-former-00000",
        "stark-industries-employee-00003",
    ]
    records = [data.person(h) for h in handles] + [
        r for r in population()[:400] if not data.is_sparse_person(r["handle"])
    ]
    for rec in records:
        assert not INVENTED & set(rec)
        assert_production_shape(rec)
    # ... and over HTTP, the same record.
    assert api.get(PROFILE, handle="grace").json()["data"] == data.person("grace")

    # The population exercises every variant of the shape.
    full = [r for r in population() if "positions" in r]
    assert {len(r["positions"]) for r in full} == {1, 2, 3, 4}
    assert {len(r["education"]) for r in full} == {0, 1, 2}
    assert {len(r["certifications"]) for r in full} == {0, 1, 2}
    assert {len(r["languages"]) for r in full} == {1, 2, 3}
    assert any(r["projects"] for r in full) and any(not r["projects"] for r in full)
    assert any(r["publications"] for r in full) and any(not r["publications"] for r in full)
    assert any(not r["positions"][0]["is_current"] for r in full)  # some are between jobs
    for flag in ("is_creator", "is_premium", "is_open_to_work", "is_hiring"):
        assert {r[flag] for r in full} == {True, False}


def test_named_and_case_insensitive_handles(api):
    ada = data.person("ada-lovelace-042")
    assert (ada["first_name"], ada["last_name"]) == ("Ada", "Lovelace")
    body = api.get(PROFILE, handle="Ada-Lovelace-042").json()
    assert body["data"] == ada and body["data"]["handle"] == "ada-lovelace-042"
    assert data.person("ADA") == data.person("ada")
    assert data.person("ada") is not data.person("ada")  # fresh copies: callers may mutate


def test_a_few_people_are_sparse_in_the_full_mode(api):
    sparse = [r["handle"] for r in population() if data.is_sparse_person(r["handle"])]
    assert 0.02 < len(sparse) / data.SEARCH_POPULATION < 0.09
    assert any(data.is_sparse_person(f"person-{i:05d}") for i in range(100))
    acme_sparse = [
        h for h in (f"acme-employee-{i:05d}" for i in range(137)) if data.is_sparse_person(h)
    ]
    assert acme_sparse
    assert not any(data.is_sparse_person(h) for h in ("ada", "grace", "linus", "ada-lovelace"))

    for handle in sparse[:10] + acme_sparse:
        rec = data.person(handle)
        assert set(rec) == DOCUMENTED - {"summary", "positions", "geo"}  # keys absent
        assert data.is_sparse_person(handle.upper())
    assert api.get(PROFILE, handle=sparse[0]).json()["data"] == data.person(sparse[0])
    # A sparse employee is still listed (the service knows the employment), without positions.
    listed = {r["handle"]: r for r in data.employees("acme")}
    assert set(acme_sparse) <= set(listed)
    assert "positions" not in listed[acme_sparse[0]]


# -- the sparse-records mode ---------------------------------------------------------------------


def test_sparse_records_is_a_knob_off_by_default():
    assert Knobs().sparse_records is False
    assert FakeService(sparse_records=True).knobs.sparse_records is True


def test_sparse_mode_keeps_id_handle_and_a_deterministic_half(api):
    api.svc.configure(sparse_records=True)
    handles = ["ada", "grace", "ada-lovelace-042"] + [f"person-{i:05d}" for i in range(60)]
    shares, field_sets = [], set()
    for handle in handles:
        full = data.person(handle)
        got = api.get(PROFILE, handle=handle).json()["data"]
        assert got == api.get(PROFILE, handle=handle).json()["data"]  # deterministic
        assert got == data.thin(full)
        assert got["id"] == full["id"] and got["handle"] == full["handle"]
        assert set(got) <= set(full)
        assert all(got[k] == full[k] for k in got)
        shares.append((len(got) - 2) / (len(full) - 2))
        field_sets.add(frozenset(got))
    assert 0.3 < sum(shares) / len(shares) < 0.7
    assert len(field_sets) > 10  # each person loses other fields

    api.svc.reset()
    assert api.get(PROFILE, handle="ada").json()["data"] == data.person("ada")


def test_sparse_mode_filters_on_the_full_record_then_thins(api):
    api.svc.configure(sparse_records=True)
    expected = data.search(title="designer", geo_country_code="DE")
    got = walk(api, SEARCH, title="designer", geo_country_code="DE")
    assert ids(got) == ids(expected)
    assert got == [data.thin(r) for r in expected]
    assert any("geo" not in r for r in got) and any("positions" not in r for r in got)

    expected = data.employees("umbrella", current_only=False, sort="newest")
    got = walk(api, EMPLOYEES, slug="umbrella", current_only="false", sort="newest")
    assert got == [data.thin(r) for r in expected] and len(got) > 7


# -- search filters ------------------------------------------------------------------------------


def test_search_title_matches_any_position_unless_current_only(api):
    def titles(rec, current_only):
        return [
            p["title"].lower()
            for p in rec.get("positions", ())
            if p["is_current"] or not current_only
        ]

    any_position = [r for r in population() if any("designer" in t for t in titles(r, False))]
    current = [r for r in population() if any("designer" in t for t in titles(r, True))]
    assert 0 < len(current) < len(any_position)
    assert ids(data.search(title="Designer")) == ids(any_position)
    assert ids(data.search(title="designer", current_only=True)) == ids(current)

    assert ids(walk(api, SEARCH, title="DESIGNER")) == ids(any_position)
    assert ids(walk(api, SEARCH, title="designer", current_only="false")) == ids(any_position)
    assert ids(walk(api, SEARCH, title="designer", current_only="true")) == ids(current)
    assert ids(walk(api, SEARCH, title="designer", current_only="True")) == ids(current)
    bad = api.get(SEARCH, title="designer", current_only="maybe")
    assert bad.status_code == 400
    assert bad.json()["errors"] == {"current_only": "must be true or false"}


def test_search_geo_filters(api):
    de = [r for r in data.search(title="designer") if r["geo"]["country_code"] == "DE"]
    expected = data.search(title="designer", geo_country_code="de")
    assert ids(expected) == ids(data.search(title="designer", geo_country_code="DE")) == ids(de)
    assert expected
    assert ids(walk(api, SEARCH, title="designer", geo_country_code="de")) == ids(expected)

    paulo = data.search(title="engineer", geo_city="são paulo")
    assert paulo and all(r["geo"]["city"] == "São Paulo" for r in paulo)
    assert ids(walk(api, SEARCH, title="engineer", geo_city="SÃO PAULO")) == ids(paulo)
    assert data.search(title="engineer", geo_city="paulo") == []  # equality, not a substring


@pytest.mark.parametrize(
    ("name", "needle"),
    [("first_name", "ada"), ("last_name", "van"), ("headline", "at acme"), ("summary", "pandas")],
)
def test_search_text_filters_are_case_insensitive_substrings(api, name, needle):
    base = data.search(title="engineer")
    expected = [r for r in base if needle in r.get(name, "").lower()]
    assert 0 < len(expected) < len(base)
    assert ids(data.search(title="engineer", **{name: needle.upper()})) == ids(expected)
    assert ids(walk(api, SEARCH, title="engineer", **{name: needle})) == ids(expected)


def test_search_organization_slugs(api):
    def slugs(rec, current_only=False):
        return {
            p["organization"]["slug"]
            for p in rec.get("positions", ())
            if p["is_current"] or not current_only
        }

    base = data.search(title="recruiter")
    anywhere = [r for r in base if slugs(r) & {"acme", "hooli"}]
    now = [
        r
        for r in data.search(title="recruiter", current_only=True)  # title AND org: current
        if slugs(r, True) & {"acme", "hooli"}
    ]
    assert 0 < len(now) < len(anywhere) < len(base)
    assert ids(data.search(title="recruiter", organization_slugs="acme, HOOLI")) == ids(anywhere)
    assert ids(
        data.search(title="recruiter", organization_slugs=["acme", "hooli"], current_only=True)
    ) == ids(now)
    assert ids(walk(api, SEARCH, title="recruiter", organization_slugs="acme,hooli")) == ids(
        anywhere
    )
    assert ids(
        walk(api, SEARCH, title="recruiter", organization_slugs="acme,hooli", current_only="true")
    ) == ids(now)


def test_search_skills_any_by_default_or_all(api):
    base = data.search(title="engineer")
    both = [r for r in base if {"python", "sql"} <= set(r["skills"])]
    either = [r for r in base if {"python", "sql"} & set(r["skills"])]
    assert 0 < len(both) < len(either) < len(base)
    assert ids(data.search(title="engineer", skills="Python,sql")) == ids(either)  # any: default
    assert ids(data.search(title="engineer", skills="python,sql", skills_match="all")) == ids(both)
    assert ids(walk(api, SEARCH, title="engineer", skills="python,sql")) == ids(either)
    assert ids(walk(api, SEARCH, title="engineer", skills="python,sql", skills_match="all")) == ids(
        both
    )
    assert ids(
        walk(api, SEARCH, title="engineer", skills="python, sql", skills_match="ANY")
    ) == ids(either)
    bad = api.get(SEARCH, title="engineer", skills="python", skills_match="most")
    assert bad.status_code == 400
    assert bad.json()["errors"] == {"skills_match": "must be one of any, all"}


def test_search_ignores_unknown_filters(api):
    plain = api.get(SEARCH, title="designer", geo_country_code="PT", limit=50).json()
    extra = api.get(
        SEARCH,
        title="designer",
        geo_country_code="PT",
        limit=50,
        country_code="DE",
        company="acme",
        seniority="senior",
    ).json()
    assert extra["data"] == plain["data"] and extra["pagination"] == plain["pagination"]
    with pytest.raises(TypeError):
        data.search(title="designer", country_code="DE")  # the Python side is strict


def test_search_cursor_is_bound_to_every_filter(api):
    params = {"title": "engineer", "geo_country_code": "DE", "limit": 10}
    cursor = api.get(SEARCH, **params).json()["pagination"]["next_cursor"]
    again = api.get(SEARCH, **params, cursor=cursor)
    assert again.status_code == 200
    expected = data.search(title="engineer", geo_country_code="DE")[10:20]
    assert ids(again.json()["data"]) == ids(expected)
    for change in (
        {"geo_country_code": "FR"},
        {"skills": "python"},
        {"current_only": "true"},
        {"organization_slugs": "acme"},
        {"first_name": "ada"},
        {"limit": 11},
    ):
        other = api.get(SEARCH, **{**params, **change}, cursor=cursor)
        assert other.status_code == 400, change
        assert other.json()["errors"] == {"cursor": "cursor does not belong to this query"}
    # An unknown parameter is not part of the query.
    assert api.get(SEARCH, **params, foo="bar", cursor=cursor).status_code == 200


def test_search_of_the_population_is_made_once_per_query(api):
    """Search stays fast by answering a query it has answered from its cache: the same query
    (however its values are spelt) is the very same answer, the population read once."""
    query = {"skills": "python,sql", "geo_country_code": "de", "organization_slugs": "acme"}
    first = data.search_records(title="engineer", **query)
    spelt = {"skills": " Python, SQL ", "geo_country_code": "DE", "organization_slugs": ["ACME"]}
    assert data.search_records(title="Engineer ", **spelt) is first
    assert data.search_records(title="engineer", skills_match="any", **query) is first  # default
    assert data.search_records(title="manager", **query) is not first
    assert data.population() is data.population()


# -- employees -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("slug", "current"), sorted(data.COMPANIES.items()))
def test_head_counts_are_current_employees_and_a_quarter_more_left(slug, current):
    assert len(data.employees(slug)) == current
    formers = data.employees(slug, current_only=False)[current:]
    assert len(formers) == data.former_count(slug) == (current + 2) // 4
    for rec in data.employees(slug)[:50]:
        pos = position_at(rec, slug)
        assert pos is None or pos["is_current"]
        assert rec == data.person(rec["handle"])  # the same person as the profile endpoint
    for rec in formers[:50]:
        pos = position_at(rec, slug)
        assert pos is None or (not pos["is_current"] and pos["end_date"] is not None)
        assert not any(
            p["is_current"] and p["organization"]["slug"] == slug for p in rec.get("positions", ())
        )


def test_employees_current_only(api):
    assert ids(walk(api, EMPLOYEES, slug="umbrella")) == ids(data.employees("umbrella"))
    assert len(walk(api, EMPLOYEES, slug="acme", current_only="true")) == 137
    everyone = walk(api, EMPLOYEES, slug="acme", current_only="false")
    assert len(everyone) == 137 + data.former_count("acme")
    assert ids(everyone) == ids(data.employees("acme", current_only=False))
    bad = api.get(EMPLOYEES, slug="acme", current_only="yes")
    assert bad.status_code == 400 and bad.json()["errors"] == {
        "current_only": "must be true or false"
    }


def test_employees_title_and_start_filters_look_at_the_position_there(api):
    everyone = data.employees("acme", current_only=False)
    engineers = [
        r for r in everyone if (p := position_at(r, "acme")) and "engineer" in p["title"].lower()
    ]
    assert 0 < len(engineers) < len(everyone)
    assert ids(data.employees("acme", current_only=False, title="ENGINEER")) == ids(engineers)
    assert ids(walk(api, EMPLOYEES, slug="acme", current_only="false", title="engineer")) == ids(
        engineers
    )

    year = position_at(everyone[0], "acme")["start_date"]["year"]
    in_year = [
        r
        for r in data.employees("acme")
        if (p := position_at(r, "acme")) and p["start_date"]["year"] == year
    ]
    assert in_year
    assert ids(walk(api, EMPLOYEES, slug="acme", start_year=year)) == ids(in_year)
    month = position_at(in_year[0], "acme")["start_date"]["month"]
    in_month = [r for r in in_year if position_at(r, "acme")["start_date"]["month"] == month]
    assert ids(walk(api, EMPLOYEES, slug="acme", start_year=year, start_month=month)) == ids(
        in_month
    )
    assert ids(data.employees("acme", start_year=year, start_month=month)) == ids(in_month)
    for name, value in (("start_month", 13), ("start_year", "soon")):
        bad = api.get(EMPLOYEES, slug="acme", **{name: value})
        assert bad.status_code == 400 and set(bad.json()["errors"]) == {name}


def test_employees_geo_filters(api):
    staff = data.employees("hooli")
    in_de = [r for r in staff if r.get("geo", {}).get("country_code") == "DE"]
    assert 0 < len(in_de) < len(staff)
    assert ids(data.employees("hooli", geo_country_code="de")) == ids(in_de)
    assert ids(walk(api, EMPLOYEES, slug="hooli", geo_country_code="de")) == ids(in_de)
    in_tokyo = [r for r in staff if r.get("geo", {}).get("city") == "Tokyo"]
    assert ids(walk(api, EMPLOYEES, slug="hooli", geo_city="tokyo")) == ids(in_tokyo)


def _start(rec, slug="acme"):
    p = position_at(rec, slug)
    return None if p is None else (p["start_date"]["year"], p["start_date"]["month"])


def _end(rec, slug="acme"):
    p = position_at(rec, slug)
    return (
        None
        if p is None or p["end_date"] is None
        else (p["end_date"]["year"], p["end_date"]["month"])
    )


@pytest.mark.parametrize("sort", ["newest", "oldest"])
def test_employees_sort_by_start_date_there(api, sort):
    got = walk(api, EMPLOYEES, slug="acme", current_only="false", sort=sort)
    assert ids(got) == ids(data.employees("acme", current_only=False, sort=sort))
    assert sorted(ids(got)) == sorted(ids(data.employees("acme", current_only=False)))
    dated = [_start(r) for r in got if _start(r) is not None]
    assert dated == sorted(dated, reverse=sort == "newest")
    undated = [i for i, r in enumerate(got) if _start(r) is None]
    assert undated and undated == list(range(len(got) - len(undated), len(got)))  # last


def test_employees_sort_recently_left(api):
    got = walk(api, EMPLOYEES, slug="acme", current_only="false", sort="recently_left")
    n_former = data.former_count("acme")
    formers, current = got[:n_former], got[n_former:]
    assert set(ids(formers)) == set(ids(data.employees("acme", current_only=False)[137:]))
    ends = [_end(r) for r in formers if _end(r) is not None]
    assert ends == sorted(ends, reverse=True) and len(set(ends)) > 1
    assert ids(current) == ids(data.employees("acme"))
    # Current employees only (the default): nobody left, the stable order.
    assert ids(walk(api, EMPLOYEES, slug="acme", sort="recently_left")) == ids(
        data.employees("acme")
    )


def test_employees_bad_sort_is_400_and_unknown_filters_are_ignored(api):
    bad = api.get(EMPLOYEES, slug="acme", sort="alphabetical")
    body = bad.json()
    assert bad.status_code == 400 and body["error_code"] == "VALIDATION_ERROR"
    assert body["errors"] == {"sort": "must be one of newest, oldest, recently_left"}
    assert "X-Credits-Consumed" not in bad.headers
    with pytest.raises(ValueError):
        data.employees("acme", sort="alphabetical")

    plain = api.get(EMPLOYEES, slug="acme", limit=50, page=2).json()
    extra = api.get(
        EMPLOYEES,
        slug="acme",
        limit=50,
        page=2,
        department="sales",
        country_code="DE",
        seniority="senior",
    ).json()
    assert extra == plain

    unknown = api.get(EMPLOYEES, slug="unknown-co", title="engineer", sort="newest")
    assert unknown.status_code == 200 and unknown.json()["error_code"] == "1020"


def test_employees_cursor_is_bound_to_every_filter(api):
    api.svc.configure(employees_style="cursor")
    params = {"slug": "hooli", "limit": 20, "sort": "newest", "title": "engineer"}
    cursor = api.get(EMPLOYEES, **params).json()["pagination"]["next_cursor"]
    again = api.get(EMPLOYEES, **params, cursor=cursor).json()
    assert ids(again["data"]) == ids(
        data.employees("hooli", sort="newest", title="engineer")[20:40]
    )
    for change in (
        {"sort": "oldest"},
        {"title": "designer"},
        {"current_only": "false"},
        {"geo_country_code": "DE"},
        {"start_year": 2020},
        {"slug": "globex"},
    ):
        other = api.get(EMPLOYEES, **{**params, **change}, cursor=cursor)
        assert other.status_code == 400, change
        assert other.json()["errors"] == {"cursor": "cursor does not belong to this query"}


# -- notebooks -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("env", "sparse"), [("1", True), ("0", False), (None, False)])
def test_notebook_client_starts_a_sparse_emulator_when_asked(monkeypatch, env, sparse):
    started = []

    class Recorder:
        def __init__(self, **knobs):
            self.knobs = knobs
            self.api_key, self.base_url = "lk_test_x", "http://127.0.0.1:1"
            started.append(self)

        def start(self):
            return self

        def stop(self):
            pass

    for name in ("LOOKUP_BASE_URL", "LOOKUP_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    if env is None:
        monkeypatch.delenv("LOOKUP_EMULATOR_SPARSE", raising=False)
    else:
        monkeypatch.setenv("LOOKUP_EMULATOR_SPARSE", env)
    monkeypatch.setattr(notebook, "_emulator", None)
    monkeypatch.setattr(notebook, "FakeService", Recorder)
    monkeypatch.setattr(notebook, "configure", lambda **kwargs: kwargs)
    monkeypatch.setattr(notebook.atexit, "register", lambda fn: fn)

    notebook.notebook_client()
    assert started[0].knobs["sparse_records"] is sparse
