"""Unit tests for lookup_pandas.client.fetching: one lookup by value, the value normalised by its
kind's rules and sent as its endpoint's parameter; first with stand-ins for the send chain
(pure), then through a Client's parts on MockTransport (no server)."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from lookup_pandas.client.fetching import fetched, or_none, record
from lookup_pandas.client.parts import ClientParts
from lookup_pandas.config.settings import Settings
from lookup_pandas.errors import NotFoundError, ResponseError, UsageError
from lookup_pandas.http.decisions import Call
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
from lookup_pandas.service.envelope import Envelope
from lookup_pandas.service.paths import COMPANY_PATH, PROFILE_PATH
from lookup_pandas.testing import MockTransport, envelope


def env(data: Any) -> Envelope:
    return Envelope(data=data, message="ok", pagination=None, request_id=None, body={"data": data})


class Requests:
    """A stand-in for the send chain (``Sender.request``): records each Call, answers ``data``."""

    def __init__(self, data: Any = None) -> None:
        self.data = {"id": "prsn_1"} if data is None else data
        self.sent: list[Call] = []

    def __call__(self, call: Call) -> Envelope:
        self.sent.append(call)
        return env(self.data)


# -- fetched: one value's record, sent as its kind's parameter -----------------------------------


@pytest.mark.parametrize(
    ("value", "kind", "path", "params"),
    [
        ("Ada-Lovelace", PEOPLE, PROFILE_PATH, {"handle": "Ada-Lovelace"}),
        ("https://www.example.com/in/Ada/", PEOPLE, PROFILE_PATH, {"handle": "Ada"}),
        ("prsn_1A2b", PEOPLE, PROFILE_PATH, {"id": "prsn_1A2b"}),
        ("https://www.linkedin.com/company/Acme/", COMPANIES, COMPANY_PATH, {"slug": "Acme"}),
        ("org_9F", COMPANIES, COMPANY_PATH, {"id": "org_9F"}),
    ],
)
def test_a_value_is_sent_as_its_kinds_parameter_with_its_case_kept(value, kind, path, params):
    request = Requests()
    assert fetched(request, value, kind, fold_case=False) == {"id": "prsn_1"}
    (call,) = request.sent
    assert (call.path, call.params, call.method) == (path, params, "GET")
    assert call.cache and call.paced  # a lookup is cached and paced


def test_a_value_that_is_no_handle_is_refused_and_nothing_is_sent():
    request = Requests()
    with pytest.raises(UsageError, match="Nothing was sent"):
        fetched(request, "ada@example.com", PEOPLE)
    assert request.sent == []


def test_an_answer_whose_data_is_not_a_record_is_a_response_error():
    with pytest.raises(ResponseError, match="not an object"):
        fetched(Requests(data=["a", "list"]), "ada", PEOPLE)


# -- record and fetched: normalised as enrichment does -------------------------------------------


def test_a_record_is_looked_up_by_the_value_enrichment_would_send():
    request = Requests()
    assert record(request, "https://www.example.com/in/Ada/", PEOPLE) == {"id": "prsn_1"}
    record(request, "Ada", PEOPLE, fold_case=False, refresh=True)
    record(request, "prsn_1A2b", PEOPLE)  # an id: its case is never folded
    assert [(dict(c.params), c.refresh) for c in request.sent] == [
        ({"handle": "ada"}, False),
        ({"handle": "Ada"}, True),
        ({"id": "prsn_1A2b"}, False),
    ]


def test_a_record_not_found_is_none_and_fetched_raises_the_servers_error():
    def request(call: Call) -> Envelope:
        raise NotFoundError("Profile not found", status_code=200)

    assert record(request, "ghost", PEOPLE) is None
    with pytest.raises(NotFoundError, match="Profile not found"):
        fetched(request, "ghost", PEOPLE)


def test_or_none_lets_any_other_error_through():
    def fetch(value: str) -> str:
        raise UsageError(f"{value!r} is no handle")

    with pytest.raises(UsageError, match="is no handle"):
        or_none(fetch)("ada@example.com")


def test_the_record_is_a_copy_of_the_answers_data():
    request = Requests()
    got = fetched(request, "ada", PEOPLE)
    got["id"] = "changed"
    assert fetched(request, "ada", PEOPLE)["id"] == "prsn_1"


# -- through a Client's parts --------------------------------------------------------------------


def test_through_the_send_chain_a_billed_not_found_is_raised_and_a_record_returned():
    def service(request: requests.PreparedRequest) -> tuple[Any, ...]:
        url = request.url or ""
        if "/api/panel/" in url:
            return 200, envelope({"current_tier": {"limit_per_minute": 60000}})
        if url.endswith("handle=ada"):
            return 200, envelope({"id": "prsn_1", "handle": "ada"})
        return 200, envelope(None, success=False, message="Profile not found", error_code="1010")

    settings = Settings.build(api_key="lk_test_unit", base_url="http://service.test", cache=False)
    parts = ClientParts.build(settings, MockTransport(service))
    try:
        assert fetched(parts.sender.request, "ada", PEOPLE)["id"] == "prsn_1"
        with pytest.raises(NotFoundError, match="Profile not found"):
            fetched(parts.sender.request, "ghost", PEOPLE)
    finally:
        parts.close()
