"""Unit tests for lookup_pandas.service.envelope.parse_envelope: an Envelope or a ServiceError
only."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from requests.structures import CaseInsensitiveDict

from lookup_pandas.errors import (
    AuthenticationError,
    ConfigurationError,
    InsufficientCreditsError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ResponseError,
    ServerError,
    ServiceError,
    ValidationError,
)
from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.service.envelope import NOT_FOUND_CODES, Envelope, forbidden_kind, parse_envelope

STATUSES = [200, 400, 401, 403, 404, 429, 500, 502, 503]
HTML = b"<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>"


def body(**fields) -> bytes:
    return json.dumps(fields).encode()


def failure(status_code: int | None = None, message: str = "nope", **extra) -> bytes:
    doc = {"success": False, "message": message, "data": None, "errors": None}
    if status_code is not None:
        doc["statusCode"] = status_code
    doc.update(extra)
    return json.dumps(doc).encode()


OK_BODY = body(
    success=True,
    statusCode=200,
    message="Profile retrieved",
    errors=None,
    data={"id": "prsn_1", "handle": "ada"},
)


# ---------------------------------------------------------------------------------------------
# success


def test_success_returns_data_message_and_request_id():
    env = parse_envelope(200, {"X-Request-Id": "req_abc"}, OK_BODY)
    assert isinstance(env, Envelope)
    assert env.data == {"id": "prsn_1", "handle": "ada"}
    assert env.message == "Profile retrieved"
    assert env.request_id == "req_abc"
    assert env.pagination is None
    assert env.body["statusCode"] == 200


def test_success_request_id_from_case_insensitive_headers():
    # requests hands over a CaseInsensitiveDict; servers may send any casing.
    headers = CaseInsensitiveDict({"x-request-id": "req_lower"})
    assert parse_envelope(200, headers, OK_BODY).request_id == "req_lower"


def test_success_without_request_id_header_is_none():
    assert parse_envelope(200, {}, OK_BODY).request_id is None


def test_success_with_pagination_block():
    pagination = {"page": 1, "limit": 50, "has_more": True}
    content = body(
        success=True,
        statusCode=200,
        message="ok",
        errors=None,
        data=[{"id": 1}, {"id": 2}],
        pagination=pagination,
    )
    env = parse_envelope(200, {"X-Request-Id": "r"}, content)
    assert env.data == [{"id": 1}, {"id": 2}]
    assert env.pagination == pagination


def test_success_with_null_data_is_allowed():
    env = parse_envelope(200, {}, body(success=True, message="ok", errors=None, data=None))
    assert env.data is None


def test_success_without_message_falls_back_to_reason_phrase():
    env = parse_envelope(200, {}, body(success=True, data=[]))
    assert env.message == "OK"


# ---------------------------------------------------------------------------------------------
# authentication


@pytest.mark.parametrize(
    ("status", "message"),
    [(401, "API key is required"), (403, "Invalid API key")],
)
def test_auth_failures_raise_authentication_error(status, message):
    with pytest.raises(AuthenticationError) as info:
        parse_envelope(
            status,
            {"X-Request-Id": "req_auth"},
            failure(status, message),
            url="http://127.0.0.1:1/api/data/v1/people/profile",
        )
    exc = info.value
    assert exc.status_code == status
    assert exc.message == message
    assert exc.request_id == "req_auth"
    assert exc.url == "http://127.0.0.1:1/api/data/v1/people/profile"
    assert f"HTTP {status}" in str(exc)
    assert "req_auth" in str(exc)


def test_401_with_html_body_is_still_authentication_error():
    with pytest.raises(AuthenticationError) as info:
        parse_envelope(401, {"Content-Type": "text/html"}, b"<html>Unauthorized</html>")
    assert info.value.status_code == 401


def test_403_with_html_body_is_ambiguous_so_the_client_asks_the_tier_endpoint():
    with pytest.raises(PermissionDeniedError) as info:
        parse_envelope(403, {"Content-Type": "text/html"}, b"<html>Forbidden</html>")
    assert info.value.status_code == 403
    assert info.value.ambiguous is True
    assert info.value.enveloped is False


# ---------------------------------------------------------------------------------------------
# production's 403s and 402 (the official SDK tells 403s apart by message)


@pytest.mark.parametrize(
    ("status", "message", "code", "kind", "ambiguous"),
    [
        (403, "Invalid API key", None, AuthenticationError, False),
        (403, "API key has been revoked", None, AuthenticationError, False),
        (403, "API key does not belong to this workspace", None, AuthenticationError, False),
        (
            403,
            "Insufficient credits to complete this request",
            None,
            InsufficientCreditsError,
            False,
        ),
        (402, "Insufficient credits", "1080", InsufficientCreditsError, False),
        (402, "Payment required", None, InsufficientCreditsError, False),
        (200, "Not enough balance", "1080", InsufficientCreditsError, False),
        (403, "Rate limit exceeded", None, RateLimitError, False),
        (403, "Too many requests", None, RateLimitError, False),
        (403, "This person has opted out of data sharing", None, PermissionDeniedError, False),
        (403, "Premium access is required for this profile", None, PermissionDeniedError, False),
        (403, "Forbidden", None, PermissionDeniedError, True),
        (403, "Access denied", None, PermissionDeniedError, True),
        # a record's 403 that mentions a key is the record's, never the key's
        (403, "Premium profiles need an upgraded API key", None, PermissionDeniedError, False),
        (403, "Key not allowed here", None, PermissionDeniedError, True),  # the tier decides
        # production's documented words (renidly-skills SKILL.md, account-api.md)
        (403, "invalid api key", None, AuthenticationError, False),
        # a panel path without its trailing slash: about the path, not the key or one record
        (403, "Invalid session", None, PermissionDeniedError, True),
    ],
)
def test_403s_and_402s_are_told_apart(status, message, code, kind, ambiguous):
    body = json.dumps(
        {"success": False, "statusCode": status, "message": message, "errors": None}
        | ({"error_code": code} if code else {})
    ).encode()
    with pytest.raises(ServiceError) as info:
        parse_envelope(status, {"Retry-After": "7"}, body)
    assert type(info.value) is kind
    assert info.value.message == message
    if kind is PermissionDeniedError:
        assert info.value.ambiguous is ambiguous
    if kind is RateLimitError:
        assert info.value.retry_after == 7.0


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("Invalid API key", "key"),
        ("API key rotated", "key"),
        ("Premium profiles need an upgraded API key", "record"),
        ("Wrong key", "ambiguous"),
        ("Your credits are exhausted", "credits"),
        ("rate-limited: slow down", "rate"),
        ("Profile is private", "record"),
        ("", "ambiguous"),
        ("Forbidden", "ambiguous"),
    ],
)
def test_forbidden_kind(message, kind):
    assert forbidden_kind(message) == kind


# ---------------------------------------------------------------------------------------------
# not found


def test_an_enveloped_404_without_a_not_found_code_is_no_endpoint_not_a_person_not_found():
    # Production has no 404 for a person: its only 404 is a batch job (1090). Any other 404 is
    # a URL that is no endpoint (a wrong base URL), never "this person does not exist".
    with pytest.raises(ConfigurationError) as info:
        parse_envelope(404, {"X-Request-Id": "r404"}, failure(404, "No endpoint at /x"))
    assert not isinstance(info.value, NotFoundError)
    assert info.value.status_code == 404
    assert info.value.server_message == "No endpoint at /x"
    assert info.value.request_id == "r404"


@pytest.mark.parametrize("code", ["1090", "1010"])
def test_an_enveloped_404_with_a_not_found_code_is_a_not_found(code):
    body = json.dumps(
        {"success": False, "message": "Batch job not found", "error_code": code, "data": None}
    ).encode()
    with pytest.raises(NotFoundError) as info:
        parse_envelope(404, {}, body)
    assert info.value.status_code == 404 and info.value.error_code == code


@pytest.mark.parametrize("content", [b"<html>Not Found</html>", b"", b'{"detail": "Not Found"}'])
def test_http_404_without_the_envelope_is_a_response_error_not_a_not_found(content):
    # Only the service says "not found": a web server that is not ours must not make real
    # people look nonexistent.
    with pytest.raises(ResponseError) as info:
        parse_envelope(404, {"Content-Type": "text/html"}, content)
    assert not isinstance(info.value, NotFoundError)
    assert info.value.status_code == 404 and info.value.enveloped is False
    assert "404" in info.value.message


def test_enveloped_errors_say_so():
    with pytest.raises(ConfigurationError) as info:
        parse_envelope(404, {}, failure(404, "No endpoint at /x"))
    assert info.value.enveloped is True
    with pytest.raises(ServerError) as info:
        parse_envelope(502, {"Content-Type": "text/html"}, HTML)
    assert info.value.enveloped is False


@pytest.mark.parametrize("code", ["1010", "1020", "1030", 1010, 1020])
def test_billed_not_found_200_raises_not_found(code):
    content = failure(message="No person found", error_code=code)
    with pytest.raises(NotFoundError) as info:
        parse_envelope(200, {"X-Request-Id": "r1010"}, content)
    exc = info.value
    assert exc.status_code == 200
    assert exc.error_code == str(code)
    assert exc.message == "No person found"
    assert exc.request_id == "r1010"


def test_not_found_codes_are_the_documented_ones():
    assert {"1010", "1020", "1030", "1040"} == NOT_FOUND_CODES  # person, company, skill, school
    declared = {e.not_found for e in ENDPOINTS.values() if e.not_found}
    assert declared == NOT_FOUND_CODES  # each endpoint's code, and no other


def test_200_success_false_other_code_is_a_plain_service_error_not_not_found():
    with pytest.raises(ServiceError) as info:
        parse_envelope(200, {}, failure(message="Insufficient credits", error_code="1050"))
    assert not isinstance(info.value, NotFoundError)
    assert info.value.message == "Insufficient credits"
    assert info.value.status_code == 200


# ---------------------------------------------------------------------------------------------
# validation


def test_400_validation_error_carries_field_errors():
    errors = {"limit": "must be between 1 and 50", "slug": "is required"}
    content = failure(400, "Validation failed", error_code="VALIDATION_ERROR", errors=errors)
    with pytest.raises(ValidationError) as info:
        parse_envelope(400, {"X-Request-Id": "r400"}, content)
    exc = info.value
    assert exc.status_code == 400
    assert exc.errors == errors
    assert exc.error_code == "VALIDATION_ERROR"
    assert exc.message == "Validation failed"
    assert exc.request_id == "r400"


def test_200_success_false_validation_code_is_validation_error():
    content = failure(message="bad", error_code="VALIDATION_ERROR", errors={"handle": "empty"})
    with pytest.raises(ValidationError) as info:
        parse_envelope(200, {}, content)
    assert info.value.errors == {"handle": "empty"}


# ---------------------------------------------------------------------------------------------
# rate limit


def test_429_rate_limit_error_with_retry_after_and_tier_errors():
    errors = {"current_tier": "starter", "current_limit": 7}
    content = failure(429, "Rate limit exceeded", errors=errors)
    with pytest.raises(RateLimitError) as info:
        parse_envelope(429, {"Retry-After": "12", "X-Request-Id": "r429"}, content)
    exc = info.value
    assert exc.status_code == 429
    assert exc.retry_after == 12.0
    assert exc.errors == errors
    assert exc.request_id == "r429"
    assert exc.message == "Rate limit exceeded"


@pytest.mark.parametrize(
    ("header", "body_wait", "wait"),
    [
        (None, 9, 9.0),  # the official SDK reads the wait from the body
        ("3", 9, 9.0),  # both told: the larger
        ("12", 2.5, 12.0),
        ("4", None, 4.0),
        (None, "soon", None),  # not a number: not a wait
        (None, -5, 0.0),
    ],
)
def test_429_wait_is_the_larger_of_header_and_body(header, body_wait, wait):
    errors = {"current_tier": "Hobby", "current_limit": 30, "retry_after": body_wait}
    headers = {"Retry-After": header} if header is not None else {}
    with pytest.raises(RateLimitError) as info:
        parse_envelope(429, headers, failure(429, "Rate limit exceeded", errors=errors))
    assert info.value.retry_after == wait


def test_429_without_retry_after_has_none():
    with pytest.raises(RateLimitError) as info:
        parse_envelope(429, {}, failure(429, "slow down"))
    assert info.value.retry_after is None


def test_429_non_json_body_still_rate_limit_error_with_retry_after():
    with pytest.raises(RateLimitError) as info:
        parse_envelope(429, {"Retry-After": "4"}, b"Too Many Requests")
    assert info.value.retry_after == 4.0
    assert info.value.status_code == 429


# ---------------------------------------------------------------------------------------------
# server errors


@pytest.mark.parametrize("status", [500, 503])
def test_5xx_envelope_raises_server_error(status):
    content = failure(status, "Service temporarily unavailable", error_code="1072")
    with pytest.raises(ServerError) as info:
        parse_envelope(status, {"X-Request-Id": "r5"}, content)
    assert info.value.status_code == status
    assert info.value.error_code == "1072"
    assert info.value.message == "Service temporarily unavailable"


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_5xx_html_body_raises_server_error_not_response_error(status):
    with pytest.raises(ServerError) as info:
        parse_envelope(status, {"Content-Type": "text/html"}, HTML)
    exc = info.value
    assert not isinstance(exc, ResponseError)
    assert exc.status_code == status
    assert f"HTTP {status}" in exc.message
    assert "not JSON" in exc.message


@pytest.mark.parametrize("status", [500, 502, 503])
def test_5xx_empty_body_raises_server_error(status):
    with pytest.raises(ServerError):
        parse_envelope(status, {}, b"")


# ---------------------------------------------------------------------------------------------
# malformed answers


def test_200_html_is_response_error_with_clear_message():
    with pytest.raises(ResponseError) as info:
        parse_envelope(200, {"Content-Type": "text/html", "X-Request-Id": "rh"}, HTML)
    exc = info.value
    assert exc.status_code == 200
    assert exc.request_id == "rh"
    assert "HTTP 200" in exc.message
    assert "not JSON" in exc.message
    assert "text/html" in exc.message
    assert "Bad Gateway" in exc.message  # a snippet of what came back


@pytest.mark.parametrize(
    "content",
    [
        b"[1, 2, 3]",
        b'{"data": {"id": 1}}',
        b'"just a string"',
        b"42",
        b"null",
        b'{"success": "true", "data": {}}',
        b'{"success": 1, "data": {}}',
        b'{"success": null, "data": {}}',
    ],
    ids=[
        "list",
        "no-success",
        "string",
        "number",
        "null",
        "success-str",
        "success-int",
        "success-null",
    ],
)
def test_200_json_without_envelope_is_response_error(content):
    with pytest.raises(ResponseError) as info:
        parse_envelope(200, {"Content-Type": "application/json"}, content)
    exc = info.value
    assert exc.status_code == 200
    assert "HTTP 200" in exc.message
    assert "without the envelope" in exc.message


@pytest.mark.parametrize(
    "content",
    [b"", b'{"success": true, "data": {"id"', b"\xff\xfe\x00garbage", b"{'success': True}"],
    ids=["empty", "truncated", "binary", "python-repr"],
)
def test_200_not_json_is_response_error(content):
    with pytest.raises(ResponseError) as info:
        parse_envelope(200, {}, content)
    assert info.value.status_code == 200
    assert "HTTP 200" in info.value.message
    assert "not JSON" in info.value.message


def test_long_non_json_body_is_snipped_in_message():
    content = b"x" * 10_000
    with pytest.raises(ResponseError) as info:
        parse_envelope(200, {}, content)
    assert len(info.value.message) < 500
    assert "10000 bytes" in info.value.message


def test_success_true_without_data_is_response_error():
    with pytest.raises(ResponseError) as info:
        parse_envelope(200, {"X-Request-Id": "rd"}, body(success=True, message="ok"))
    exc = info.value
    assert "data" in exc.message
    assert exc.request_id == "rd"
    # Every ServiceError carries the HTTP status it came with (see lookup_pandas.errors).
    assert exc.status_code == 200


@pytest.mark.parametrize("pagination", [[1, 2], "page=2", 3, True])
def test_pagination_not_an_object_is_response_error(pagination):
    content = body(success=True, message="ok", data=[], pagination=pagination)
    with pytest.raises(ResponseError) as info:
        parse_envelope(200, {}, content)
    assert "pagination" in info.value.message
    assert info.value.status_code == 200


# ---------------------------------------------------------------------------------------------
# property: nothing but an Envelope or a ServiceError ever comes out

EXPECTED_CLASS: dict[int, type | tuple[type, ...]] = {
    400: ValidationError,
    401: AuthenticationError,
    # a 403 is told apart by its message (the key, credits, the pace, or one record)
    403: (AuthenticationError, InsufficientCreditsError, RateLimitError, PermissionDeniedError),
    404: NotFoundError,
    429: RateLimitError,
    500: ServerError,
    502: ServerError,
    503: ServerError,
}

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
envelope_like = st.fixed_dictionaries(
    {"success": st.booleans() | json_values},
    optional={
        "data": json_values,
        "message": json_values,
        "errors": json_values,
        "error_code": st.sampled_from(["1010", "1020", "1072", "VALIDATION_ERROR", 1010])
        | json_values,
        "statusCode": json_values,
        "pagination": json_values,
    },
)


def _check_outcome(status: int, content: bytes, headers: dict | None = None) -> None:
    try:
        env = parse_envelope(status, headers or {"X-Request-Id": "req_h"}, content)
    except ServiceError as exc:
        expected = EXPECTED_CLASS.get(status)
        if status == 404 and not exc.enveloped:
            expected = ResponseError  # only the service's own envelope says "not found"
        elif status == 404 and exc.error_code not in (*NOT_FOUND_CODES, "1090", "1080"):
            expected = ConfigurationError  # an enveloped 404 without a code: no such endpoint
        if exc.error_code == "1080":
            expected = InsufficientCreditsError  # whatever the status
        if expected is not None:
            assert isinstance(exc, expected), (status, type(exc))
        assert exc.status_code == status or exc.status_code is None
        assert isinstance(exc.message, str) and exc.message
        str(exc)  # must render
        return
    assert status < 400, "an error status must never produce an Envelope"
    assert isinstance(env, Envelope)
    assert env.body["success"] is True
    assert "data" in env.body
    assert env.pagination is None or isinstance(env.pagination, dict)


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(status=st.sampled_from(STATUSES), content=st.binary(max_size=300))
@example(status=200, content=b"")
@example(status=502, content=HTML)
@example(status=200, content=b"\xef\xbb\xbf{}")
@example(status=200, content=b"[" * 100_000)
@example(status=200, content=b"1" * 5_000)
def test_arbitrary_bytes_give_envelope_or_service_error(status, content):
    _check_outcome(status, content)


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(status=st.sampled_from(STATUSES), value=json_values | envelope_like)
def test_arbitrary_json_gives_envelope_or_service_error(status, value):
    _check_outcome(status, json.dumps(value).encode())


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(status=st.sampled_from(STATUSES), retry_after=st.text(max_size=40))
@example(status=200, retry_after="Mon, 20 Nov 99999999999999999999 19:12:08 GMT")
@example(status=429, retry_after="Mon, 20 Nov 99999999999999999999 19:12:08 GMT")
def test_any_retry_after_header_gives_envelope_or_service_error(status, retry_after):
    # A proxy may send any Retry-After text; parsing it must never crash the call.
    _check_outcome(
        status, OK_BODY if status == 200 else failure(status), {"Retry-After": retry_after}
    )
