"""Unit tests for lookup_pandas.cache.policy.should_cache: what is worth keeping."""

from __future__ import annotations

import json

import pytest
import requests

from lookup_pandas.cache.policy import should_cache

DATA_URL = "http://127.0.0.1:8080/api/data/v1/people/profile?handle=ada"
PANEL_URL = "http://127.0.0.1:8080/api/panel/credits/tier/k/"


def response(status: int, content: bytes | dict | list, url: str = DATA_URL) -> requests.Response:
    r = requests.Response()
    r.status_code = status
    r._content = content if isinstance(content, bytes) else json.dumps(content).encode()
    r.url = url
    r.headers["Content-Type"] = "application/json"
    return r


SUCCESS = {
    "success": True,
    "statusCode": 200,
    "message": "ok",
    "errors": None,
    "data": {"id": "prsn_1", "handle": "ada"},
}


def test_success_envelope_is_cached():
    assert should_cache(response(200, SUCCESS)) is True


def test_success_list_page_is_cached():
    body = {
        "success": True,
        "message": "ok",
        "data": [{"id": 1}],
        "pagination": {"page": 1, "limit": 50, "has_more": False},
    }
    assert (
        should_cache(response(200, body, "http://127.0.0.1:8080/api/data/v1/companies/employees"))
        is True
    )


@pytest.mark.parametrize("code", ["1010", "1020", 1010])
def test_billed_not_found_is_cached(code):
    body = {
        "success": False,
        "message": "not found",
        "error_code": code,
        "data": None,
        "errors": None,
    }
    assert should_cache(response(200, body)) is True


@pytest.mark.parametrize("code", ["1050", "VALIDATION_ERROR", None])
def test_200_success_false_other_reasons_not_cached(code):
    body = {"success": False, "message": "nope", "error_code": code, "data": None, "errors": None}
    assert should_cache(response(200, body)) is False


@pytest.mark.parametrize("status", [500, 502, 503, 429, 404, 403, 401, 400])
def test_error_statuses_not_cached(status):
    body = {"success": False, "message": "err", "data": None, "errors": None}
    assert should_cache(response(status, body)) is False


def test_404_with_billed_not_found_body_not_cached():
    body = {"success": False, "message": "not found", "error_code": "1010", "data": None}
    assert should_cache(response(404, body)) is False


def test_5xx_even_claiming_success_not_cached():
    assert should_cache(response(500, SUCCESS)) is False


def test_a_batch_poll_is_never_cached():
    # its results are cached one by one; a stored page would keep people forget() erased
    body = {"success": True, "message": "ok", "data": {"status": "done", "results": []}}
    poll = "http://127.0.0.1:1/api/data/v1/people/batch/enrich/job_1?cursor=0"
    assert should_cache(response(200, body, poll)) is False


def test_panel_url_never_cached_even_on_success():
    body = {
        "success": True,
        "message": "ok",
        "data": {"balance": 10, "current_tier": {"limit_per_minute": 7}},
    }
    assert should_cache(response(200, body, PANEL_URL)) is False


@pytest.mark.parametrize(
    "content",
    [
        b"<html>ok</html>",
        b"",
        b'{"success": true, "data"',
        b"\xff\xfe\xfa",
        b"[1, 2]",
        b'"ok"',
        b"null",
    ],
    ids=["html", "empty", "truncated", "binary", "list", "string", "null"],
)
def test_non_envelope_200_not_cached(content):
    assert should_cache(response(200, content)) is False


@pytest.mark.parametrize("success", ["true", 1, None])
def test_success_must_be_boolean_true(success):
    body = dict(SUCCESS, success=success)
    assert should_cache(response(200, body)) is False
