"""Reading an answer: its Envelope decoded and checked once, and a batch result as an answer.

Example::

    parsed_answer(session.get(url, ...), PROFILE_PATH).data   # the Envelope, or its error raised
    profile_answer_from_batch(prepared, {"id": "prsn_1", "handle": "ada"}, "job_1")
    # the response GET /people/profile gives for ada, as the cache stores it

The cache policy (:func:`lookup_pandas.cache.policy.should_cache`) reads a fresh answer on its
way into the cache with :func:`read_once`, which keeps its reading on the response; the Client
takes it from there (:func:`parsed_answer`), so the body is decoded once.
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
    """The answer decoded and checked: its Envelope (data of the endpoint's kind), or the
    ServiceError it means."""
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
    """A fresh answer's reading (:func:`_read`), kept on the response for :func:`parsed_answer`.

    Example: ``isinstance(read_once(response, PROFILE_PATH), Envelope)``
    """
    outcome = _read(response, path, from_cache=False)
    # A response type that takes no new attribute is simply read again by parsed_answer.
    with contextlib.suppress(AttributeError):
        setattr(response, _PARSED, outcome)
    return outcome


def parsed_answer(response: requests.Response, path: str, *, from_cache: bool = False) -> Envelope:
    """The checked Envelope of ``response``, or the ServiceError it means, raised.

    Example: ``parsed_answer(session.get(url, ...), PROFILE_PATH).data``

    A response the cache policy already read (a fresh answer, on its way into the cache) is
    not decoded again.
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
    """The answer ``GET /people/profile`` gives, made from one batch job result, so that it is
    cached (and read back) exactly as a single lookup's: the record with ``success: true``, or
    ``record=None``: the billed not-found (200, ``success: false``, ``error_code`` 1010).

    Example: ``profile_answer_from_batch(wire.prepare(PROFILE_PATH, {"handle": "ada"}),
    {"id": "prsn_1", "handle": "ada"}, "job_1").status_code == 200``

    ``not_found``: the not-found's ``(error_code, message)`` (a company's: 1020).
    ``X-Batch-Job-Id`` names the job it came from. It goes through requests' own
    ``build_response``, so requests-cache stores it like any answer from the network.
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
