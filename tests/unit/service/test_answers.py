"""Unit tests for service.answers: an answer read once (its reading returned, for the cache
policy to take), its error raised, and a batch result made into the answer a single lookup
gives."""

from __future__ import annotations

import json

import pytest
import requests

from lookup_pandas.cache.policy import should_cache
from lookup_pandas.errors import NotFoundError, ServiceError
from lookup_pandas.service import answers
from lookup_pandas.service.answers import (
    BATCH_NOT_FOUND_MESSAGE,
    parsed_answer,
    profile_answer_from_batch,
    read_answer,
)
from lookup_pandas.service.paths import PROFILE_PATH

URL = f"http://127.0.0.1:8080/api/data/v1{PROFILE_PATH}?handle=ada"


def response(status: int, body: dict) -> requests.Response:
    r = requests.Response()
    r.status_code = status
    r._content = json.dumps(body).encode()
    r.url = URL
    r.headers["Content-Type"] = "application/json"
    return r


SUCCESS = {"success": True, "message": "ok", "errors": None, "data": {"id": "prsn_1"}}


def test_parsed_answer_gives_the_envelope_or_raises_its_error():
    assert parsed_answer(response(200, SUCCESS), PROFILE_PATH).data == {"id": "prsn_1"}
    failed = {"success": False, "message": "nope", "error_code": "1050", "data": None}
    with pytest.raises(ServiceError):
        parsed_answer(response(200, failed), PROFILE_PATH)


def test_an_answer_read_once_is_returned_and_the_cache_policy_takes_that_reading(monkeypatch):
    fresh = response(200, SUCCESS)
    answer = read_answer(fresh, PROFILE_PATH)
    assert answer.data == {"id": "prsn_1"} and not hasattr(fresh, "_lookup_parsed")
    failed = read_answer(response(200, {**SUCCESS, "success": False}), PROFILE_PATH)
    assert isinstance(failed, ServiceError) and not failed.from_cache  # returned, not raised
    assert read_answer(response(500, SUCCESS), PROFILE_PATH, from_cache=True).from_cache
    calls: list[str] = []
    monkeypatch.setattr(answers, "parse_envelope", lambda *a, **k: calls.append("read"))
    assert should_cache(fresh, answer) and calls == []  # not decoded again


def test_a_batch_result_is_the_answer_a_single_lookup_gives():
    request = requests.Request("GET", URL).prepare()
    found = profile_answer_from_batch(request, {"id": "prsn_1", "handle": "ada"}, "job_1")
    assert found.status_code == 200 and found.headers["X-Batch-Job-Id"] == "job_1"
    assert parsed_answer(found, PROFILE_PATH).data == {"id": "prsn_1", "handle": "ada"}
    assert should_cache(found)
    missing = profile_answer_from_batch(request, None, "job_1")
    with pytest.raises(NotFoundError, match=BATCH_NOT_FOUND_MESSAGE):
        parsed_answer(missing, PROFILE_PATH)
    assert should_cache(missing)  # a billed not-found
