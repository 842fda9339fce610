"""Reading an answer: its Envelope decoded and checked once, and a batch result as an answer.

>>> from lookup_pandas.service.endpoints import PROFILE_PATH
>>> request = requests.Request("GET", "http://service.test" + PROFILE_PATH).prepare()
>>> answer = profile_answer_from_batch(request, {"id": "prsn_1", "handle": "ada"}, "job_1")
>>> parsed_answer(answer, PROFILE_PATH).data
{'id': 'prsn_1', 'handle': 'ada'}
"""

from __future__ import annotations

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
    "read_answer",
]

#: The message of a batch job's not-found, as a single lookup's answer carries it.
BATCH_NOT_FOUND_MESSAGE = "Profile not found"


def read_answer(
    response: requests.Response, path: str, *, from_cache: bool = False
) -> Envelope | ServiceError:
    """The answer decoded and checked: its Envelope, or the ServiceError it means (returned).

    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> session = requests.Session()
    >>> session.mount("http://service.test", MockTransport(lambda r: (200, envelope([]))))
    >>> response = session.get("http://service.test/api/data/v1/people/profile")
    >>> read_answer(response, "/api/data/v1/people/profile")
    ResponseError("The answer's data for /api/data/v1/people/profile is list, not an object.")
    """
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
        exc.from_cache = from_cache  # a stored not-found was paid for earlier
        return exc


def parsed_answer(response: requests.Response, path: str, *, from_cache: bool = False) -> Envelope:
    """The checked Envelope of ``response``, or the ServiceError it means, raised.

    >>> from lookup_pandas.testing import MockTransport, envelope
    >>> session = requests.Session()
    >>> session.mount("http://service.test", MockTransport(lambda r: (200, envelope({"id": 1}))))
    >>> path = "/api/data/v1/people/profile"
    >>> parsed_answer(session.get("http://service.test" + path), path).data
    {'id': 1}
    """
    answer = read_answer(response, path, from_cache=from_cache)
    if isinstance(answer, ServiceError):
        raise answer
    return answer


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
            "message": "Retrieved by a batch job",
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
