"""Unit tests for lookup_pandas.client.parts: the parts one Client is made of, built from its
settings and wired together, on MockTransport (no server): nothing sent until the first request,
which makes first contact through the send chain; the store and the shared pace follow the
cache setting; the answers outlive the parts that bought them; and the rest of the package
reaches them through ``Client.parts`` alone."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
import requests

import lookup_pandas
from lookup_pandas.cache.sqlite import PaidAnswersCache
from lookup_pandas.client.parts import ClientParts
from lookup_pandas.config.settings import Settings
from lookup_pandas.http.decisions import Call
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.service.paths import PROFILE_PATH, TIER_PATH
from lookup_pandas.store import MemoryStore, store_path
from lookup_pandas.store.local import LocalStore
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"


def service(request: requests.PreparedRequest) -> tuple[Any, ...]:
    if "/api/panel/" in (request.url or ""):
        return 200, envelope({"balance": 9, "current_tier": {"limit_per_minute": 600}})
    return 200, envelope({"id": "prsn_ada", "handle": "ada"})


def build(cache: Any, transport: MockTransport, **settings: Any) -> ClientParts:
    s = Settings.build(api_key="lk_test_unit", base_url=BASE, cache=cache, **settings)
    return ClientParts.build(s, transport)


def paths(transport: MockTransport) -> list[str]:
    return [requests.utils.urlparse(r.url or "").path for r in transport.requests]


@pytest.fixture
def transport() -> MockTransport:
    return MockTransport(service)


def test_building_the_parts_sends_nothing_and_the_first_request_makes_first_contact(transport):
    parts = build(False, transport)
    try:
        assert transport.requests == [] and not parts.contact.rate_known
        answer = parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
        assert answer.data["id"] == "prsn_ada"
        assert paths(transport) == [TIER_PATH, PROFILE_PATH]  # the contact, through the chain
        assert parts.contact.rate_known  # the tier told the pace before the first paced send
        assert parts.pacer.per_minute == pytest.approx(600 * 0.95)
        assert parts.counter.snapshot().sent == 2
    finally:
        parts.close()


def test_the_parts_follow_the_settings(transport):
    parts = build(False, transport, max_retries=2, backoff_base=0.25)
    try:
        assert (parts.retry_policy.max_retries, parts.retry_policy.backoff_base) == (2, 0.25)
        assert parts.settings.max_retries == 2
    finally:
        parts.close()


def test_without_a_cache_the_store_is_in_memory_and_the_pace_is_this_clients_own(transport):
    parts = build(False, transport)
    try:
        assert isinstance(parts.store, MemoryStore)
        assert not parts.wire.cache_on and parts.pacer._shared is None
        assert parts.cache.keys(["ada"], PEOPLE) == {}
    finally:
        parts.close()


def test_with_a_cache_file_the_store_sits_beside_it_and_shares_the_pace(transport, tmp_path):
    cache = tmp_path / "leads.sqlite"
    parts = build(cache, transport)
    try:
        assert parts.wire.cache_on and isinstance(parts.session.cache, PaidAnswersCache)
        assert isinstance(parts.store, LocalStore)
        assert parts.pacer._shared is parts.store  # processes on this file keep one pace
        parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
        assert store_path(cache).exists()
    finally:
        parts.close()


def test_answers_bought_by_one_set_of_parts_are_read_by_the_next(transport, tmp_path):
    cache = tmp_path / "leads.sqlite"
    first = build(cache, transport)
    first.sender.request(Call(PROFILE_PATH, {"handle": "ada"}))
    first.close()
    second = build(cache, transport)
    try:
        sent = len(transport.requests)
        assert second.cache.is_cached(PROFILE_PATH, {"handle": "ada"})
        assert second.sender.request(Call(PROFILE_PATH, {"handle": "ada"})).from_cache
        assert len(transport.requests) == sent
    finally:
        second.close()


def test_no_module_outside_the_client_package_reaches_a_clients_private_parts():
    # The layering check of the seam: the engine and the rest take ``client.parts``.
    package = Path(lookup_pandas.__file__).parent
    reaching = [
        f"{path.relative_to(package)}:{node.lineno}"
        for path in sorted(package.rglob("*.py"))
        if path.parent.name != "client" or path.parent.parent != package
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "_parts"
    ]
    assert reaching == []
    assert len(list(package.rglob("*.py"))) > 100  # the package's source was read
