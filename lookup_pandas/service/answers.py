"""Reading an answer: its Envelope decoded and checked once, and a batch result as an answer.

>>> from lookup_pandas.service.endpoints import PROFILE_PATH
>>> request = requests.Request("GET", "http://service.test" + PROFILE_PATH).prepare()
>>> answer = profile_answer_from_batch(request, {"id": "prsn_1", "handle": "ada"}, "job_1")
>>> parsed_answer(answer, PROFILE_PATH).data
{'id': 'prsn_1', 'handle': 'ada'}
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter

from ..errors import ServiceError
from .endpoints import checked_data
from .envelope import Envelope, parse_envelope

__all__ = [
    "BATCH_NOT_FOUND_MESSAGE",
    "parsed_answer",
    "profile_answer_from_batch",
    "read_once",
]

_PARSED = "_lookup_parsed"  # where a response keeps its one reading: Envelope or ServiceError

#: The message of a batch job's not-found, as a single lookup's answer carries it.
BATCH_NOT_FOUND_MESSAGE = "Profile not found"


def _read(response: requests.Response, path: str, from_cache: bool) -> Envelope | ServiceError:
    """The answer decoded and checked: its Envelope, or the ServiceError it means."""
    try:
        env = parse_envelope(
            response.status_code,
            response.headers,
            response.content,
            url=path,
            from_cache=from_cache,
        )
        checked_data(env, path)
        return env
    except ServiceError as exc:
        return exc


def read_once(response: requests.Response, path: str) -> Envelope | ServiceError:
    """A fresh answer's reading, kept on the response for :func:`parsed_answer`.

    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> session = requests.Session()
    >>> session.mount("http://service.test", MockTransport(lambda r: (200, envelope([]))))
    >>> response = session.get("http://service.test/api/data/v1/people/profile")
    >>> read_once(response, "/api/data/v1/people/profile")
    ResponseError("The answer's data for /api/data/v1/people/profile is list, not an object.")
    """
    outcome = _read(response, path, from_cache=False)
    # A response type that takes no new attribute is simply read again by parsed_answer.
    with contextlib.suppress(AttributeError):
        setattr(response, _PARSED, outcome)
    return outcome


def parsed_answer(response: requests.Response, path: str, *, from_cache: bool = False) -> Envelope:
    """The checked Envelope of ``response``, or the ServiceError it means, raised.

    A response :func:`read_once` read is not decoded again.

    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> session = requests.Session()
    >>> session.mount("http://service.test", MockTransport(lambda r: (200, envelope({"id": 1}))))
    >>> path = "/api/data/v1/people/profile"
    >>> parsed_answer(session.get("http://service.test" + path), path).data
    {'id': 1}
    """
    outcome = getattr(response, _PARSED, None)
    if outcome is None:
        outcome = _read(response, path, from_cache)
    if isinstance(outcome, ServiceError):
        raise outcome
    return outcome


def profile_answer_from_batch(
    request: requests.PreparedRequest,
    record: dict[str, Any] | None,
    job_id: str,
    *,
    not_found: tuple[str, str] = ("1010", BATCH_NOT_FOUND_MESSAGE),
) -> requests.Response:
    """The answer a single lookup gives, made from one batch job's result.

    Args:
        record: the record, or None for the billed not-found (200, ``success: false``).
        not_found: the not-found's ``(error_code, message)``. A company's code is 1020.

    >>> request = requests.Request("GET", "http://service.test/api/data/v1/people/profile")
    >>> answer = profile_answer_from_batch(request.prepare(), None, "job_1")
    >>> answer.status_code, answer.headers["X-Batch-Job-Id"], answer.json()["error_code"]
    (200, 'job_1', '1010')
    """
    if record is None:
        body: dict[str, Any] = {
            "success": False,
            "message": not_found[1],
            "errors": None,
            "data": None,
            "error_code": not_found[0],
        }
    else:
        body = {
            "success": True,
            "statusCode": 200,
            "message": "Profile retrieved by a batch job",
            "errors": None,
            "data": record,
        }
    content = json.dumps(body).encode()
    raw = urllib3.HTTPResponse(
        body=io.BytesIO(content),
        headers={
            "Content-Type": "application/json",
            "Content-Length": str(len(content)),
            "X-Batch-Job-Id": job_id,
        },
        status=200,
        reason="OK",
        preload_content=False,
        decode_content=False,
        request_url=request.url,
    )
    return _response_builder().build_response(request, raw)


@functools.cache
def _response_builder() -> HTTPAdapter:
    """An adapter used only for requests' ``build_response`` (it sends nothing)."""
    return HTTPAdapter()
