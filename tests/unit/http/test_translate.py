"""requests' exceptions become ours in one place (lookup_pandas.http.translate)."""

from __future__ import annotations

import pickle

import pytest
import requests
import urllib3

from lookup_pandas.errors import RequestTimeoutError, ServiceError, TransportError
from lookup_pandas.http.translate import connect_failure, translate, translated_errors

URL = "http://127.0.0.1:9/api/data/v1/people/profile?handle=ada"
PATH = "/api/data/v1/people/profile"


def refused() -> requests.ConnectionError:
    reason = urllib3.exceptions.NewConnectionError(
        None, "Failed to establish a new connection: [Errno 111] Connection refused"
    )
    return requests.ConnectionError(urllib3.exceptions.MaxRetryError(None, URL, reason))


def unknown_host() -> requests.ConnectionError:
    reason = urllib3.exceptions.NameResolutionError("nowhere.invalid", None, OSError("no"))
    return requests.ConnectionError(urllib3.exceptions.MaxRetryError(None, URL, reason))


TABLE = [
    ("refused", refused(), TransportError, True,
     "127.0.0.1:9 cannot be reached: connection refused"),
    ("unknown host", unknown_host(), TransportError, True, "the host name does not resolve"),
    ("TLS", requests.exceptions.SSLError("bad cert"), TransportError, True,
     "the TLS handshake failed"),
    ("proxy", requests.exceptions.ProxyError("no proxy"), TransportError, True,
     "the proxy could not be reached"),
    ("connect timeout", requests.exceptions.ConnectTimeout("slow"), TransportError, True,
     "no connection within the timeout"),
    ("read timeout", requests.exceptions.ReadTimeout("slow"), RequestTimeoutError, False,
     f"No answer from 127.0.0.1:9 within 7s (ReadTimeout) for {PATH}."),
    ("a stall reading the body",
     requests.ConnectionError(urllib3.exceptions.ReadTimeoutError(None, URL, "read timed out")),
     RequestTimeoutError, False, "within 7s (ConnectionError)"),
    ("cut short", requests.exceptions.ChunkedEncodingError("eof"), TransportError, False,
     f"Request to 127.0.0.1:9 for {PATH}: the answer was cut short (ChunkedEncodingError)."),
    ("dropped", requests.ConnectionError("reset by peer"), TransportError, False,
     "the connection failed (ConnectionError)"),
    ("not sendable", requests.exceptions.InvalidHeader("bad"), ServiceError, False,
     f"Request for {PATH} could not be sent (InvalidHeader)."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("exc", "kind", "before_connecting", "words"),
    [case[1:] for case in TABLE],
    ids=[case[0] for case in TABLE],
)
def test_each_requests_exception_maps_to_ours(exc, kind, before_connecting, words):
    error = translate(exc, URL, PATH, 7.0)
    assert type(error) is kind
    assert words in error.message
    assert getattr(error, "before_connecting", False) is before_connecting
    assert (connect_failure(exc) is not None) is before_connecting


def test_the_context_manager_raises_ours_without_the_requests_exception_attached():
    request = requests.Request("GET", URL, headers={"X-service-apikey": "lk_secret"}).prepare()
    with pytest.raises(TransportError) as info, translated_errors(URL, PATH, 7.0):
        raise requests.ConnectionError("reset", request=request)
    error = info.value
    assert error.__context__ is None and error.__cause__ is None
    assert b"lk_secret" not in pickle.dumps(error)


def test_other_exceptions_pass_through_unchanged():
    with pytest.raises(KeyError), translated_errors(URL, PATH, 7.0):
        raise KeyError("not ours to translate")
    with translated_errors(URL, PATH, 7.0):
        pass  # nothing raised, nothing translated
