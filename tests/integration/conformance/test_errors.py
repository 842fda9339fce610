"""The emulator's errors, read by the SDK: each is the typed error production's would be.

401 (no key) and 403 (a key refused: invalid, rotated, revoked, another workspace's) ->
``AuthenticationError``, on the Data API and the account routes alike; 403 about one record
(opted out, premium-gated) -> ``PermissionDeniedError``; 402 (or production's 403 about
credits) -> ``InsufficientCreditsError``; 429 -> ``RateLimitError`` with the tier, the limit and
``retry_after`` from its body; 400 -> ``InvalidRequestError`` naming the field; 500 / 502 ->
``InternalServerError``, 503 -> ``ServiceUnavailableError``. None of them is billed.
"""

from __future__ import annotations

import pytest
import renidly

from lookup_pandas.testing import FakeService, data

from ..conftest import QUIET_BURST


def test_the_key_header_is_the_one_difference(fake_service):
    """Without the rename the emulator sees no Data API key; the account header needs none."""
    config = renidly.RenidlyConfig(base_url=fake_service.base_url, max_retries=0)
    with renidly.Renidly(fake_service.api_key, config=config) as bare:
        with pytest.raises(renidly.AuthenticationError) as caught:
            bare.data.people.retrieve(handle="ada")
        assert caught.value.status_code == 401
        assert bare.account.balance().balance == fake_service.balance


# -- keys ------------------------------------------------------------------------------------------

CALLS = {
    "data": lambda r: r.data.people.retrieve(handle="ada"),
    "account": lambda r: r.account.balance(),
}


def rotated(svc) -> str:
    old = svc.api_key
    svc.rotate_key()
    return old


def revoked(svc) -> str:
    svc.revoke_key()
    return svc.api_key


REFUSED_KEYS = {
    "invalid": lambda svc: "lk_test_" + "0" * 32,
    "rotated": rotated,
    "revoked": revoked,
    "wrong workspace": lambda svc: svc.wrong_workspace_key,
}


@pytest.mark.parametrize("route", CALLS)
def test_no_key_is_an_authentication_error(fake_service, sdk_for, route):
    with pytest.raises(renidly.AuthenticationError) as caught:
        CALLS[route](sdk_for(fake_service, key=""))
    assert caught.value.status_code == 401


@pytest.mark.parametrize("route", CALLS)
@pytest.mark.parametrize("kind", REFUSED_KEYS)
def test_a_refused_key_is_an_authentication_error(fake_service, sdk_for, kind, route):
    key = REFUSED_KEYS[kind](fake_service)
    with pytest.raises(renidly.AuthenticationError) as caught:
        CALLS[route](sdk_for(fake_service, key=key))
    assert caught.value.status_code == 403
    assert fake_service.billed() == 0


def test_the_rotated_keys_successor_works(fake_service, sdk_for):
    new = fake_service.rotate_key()
    assert sdk_for(fake_service, key=new).data.people.retrieve(handle="ada").handle == "ada"


# -- records, credits, the limit -------------------------------------------------------------------


@pytest.mark.parametrize("knob", ["opted_out", "premium_gated"])
def test_a_refused_record_is_permission_denied(sdk_for, knob):
    with FakeService(**{knob: {"grace"}}, rate_burst=QUIET_BURST) as svc:
        sdk = sdk_for(svc)
        for ask in ({"handle": "grace"}, {"id": data.person("grace")["id"]}):
            with pytest.raises(renidly.PermissionDeniedError) as caught:
                sdk.data.people.retrieve(**ask)
            assert caught.value.status_code == 403
        assert sdk.data.people.retrieve(handle="ada").handle == "ada"
        assert svc.billed() == 1  # ada only


@pytest.mark.parametrize("credits_403", [False, True], ids=["402", "403"])
def test_out_of_credits(sdk_for, credits_403):
    with FakeService(balance=1, credits_403=credits_403, rate_burst=QUIET_BURST) as svc:
        sdk = sdk_for(svc)
        assert sdk.data.people.retrieve(handle="ada").handle == "ada"  # the last credit
        with pytest.raises(renidly.InsufficientCreditsError) as caught:
            sdk.data.people.retrieve(handle="grace")
        with pytest.raises(renidly.InsufficientCreditsError):
            sdk.data.people.enrich_batch(handles=["grace"])  # the submit's pre-check
        assert svc.billed() == 1
    expected = (403, None) if credits_403 else (402, "1080")
    assert (caught.value.status_code, caught.value.error_code) == expected


def test_rate_limited(sdk_for):
    with FakeService(rate_limit_per_minute=1, rate_burst=1) as svc:
        sdk = sdk_for(svc)
        assert sdk.data.people.retrieve(handle="ada").handle == "ada"
        with pytest.raises(renidly.RateLimitError) as caught:
            sdk.data.people.retrieve(handle="grace")
        tier = sdk.account.tier()
        assert svc.rate_limited() == 1 and svc.billed() == 1
    error = caught.value
    assert error.status_code == 429
    assert isinstance(error.retry_after, int | float) and error.retry_after > 0
    assert error.limit == 1 == tier.current_tier.limit_per_minute
    assert error.tier == tier.current_tier.name


INVALID = {
    "companies search without name or website": (lambda r: r.data.companies.search(), "name"),
    "a two-letter institution name": (lambda r: r.data.institutions.search("ab"), "name"),
    "a two-letter skill name": (lambda r: r.data.skills.search("py"), "name"),
    "a limit above 50": (lambda r: r.data.people.search(headline="engineer", limit=51), "limit"),
    "years the wrong way round": (
        lambda r: r.data.institutions.alumni("mit", start_year_min=2020, start_year_max=2010),
        "start_year_max",
    ),
}


@pytest.mark.parametrize("case", INVALID)
def test_an_invalid_request_names_its_field(sdk, fake_service, case):
    call, field = INVALID[case]
    with pytest.raises(renidly.InvalidRequestError) as caught:
        call(sdk)
    assert caught.value.status_code == 400 and field in caught.value.field_errors
    assert fake_service.billed() == 0


@pytest.mark.parametrize(
    "kind, error",
    [
        ("500", renidly.InternalServerError),
        ("502", renidly.InternalServerError),
        ("503", renidly.ServiceUnavailableError),
    ],
)
def test_server_faults(sdk_for, kind, error):
    with FakeService(fault_rate=1.0, fault_kinds=(kind,), rate_burst=QUIET_BURST) as svc:
        with pytest.raises(error) as caught:
            sdk_for(svc).data.people.retrieve(handle="ada")
        assert svc.billed() == 0
    assert caught.value.status_code == int(kind)
