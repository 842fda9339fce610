"""The team's namespace in a Redis cache URL (``?namespace=acme-sales``), without a server: the
setting and its checks, the names entries are filed under, and what a Client builds on it."""

from __future__ import annotations

import string

import pytest

import lookup_pandas as lp
from lookup_pandas import ConfigurationError
from lookup_pandas.config.cache_urls import redis_namespace, without_namespace
from lookup_pandas.config.settings import Settings
from lookup_pandas.store import answers_namespace, named_namespace, namespace
from lookup_pandas.store.redis import connect, key_prefix

BASE = "http://127.0.0.1:8080"
OTHER_BASE = "https://staging.example.com"
KEY, OTHER_KEY = "lk_test_the_first_key_0001", "lk_test_the_rotated_key_002"
URL = "redis://:pw-not-shown@cache.internal:6379/0?namespace=acme-sales"


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    for name in ("LOOKUP_API_KEY", "LOOKUP_BASE_URL", "LOOKUP_CACHE"):
        monkeypatch.delenv(name, raising=False)


def build(cache: object, key: str = KEY, base: str = BASE) -> Settings:
    return Settings.build(api_key=key, base_url=base, cache=cache)


# -- the setting ---------------------------------------------------------------------------------


def test_a_redis_url_may_name_the_teams_namespace():
    s = build("redis://h:6379/0?namespace=Acme-Sales")
    assert s.cache_namespace == "acme-sales"  # case folded: one team, one namespace
    assert s.cache_url == "redis://h:6379/0?namespace=Acme-Sales"
    assert build("redis://h:6379/0").cache_namespace is None
    assert build(False).cache_namespace is None
    assert redis_namespace("rediss://h/1?ssl_cert_reqs=none&namespace=ws.2_a") == "ws.2_a"


@pytest.mark.parametrize(
    "query",
    [
        "namespace=",
        "namespace=a%20b",
        "namespace=a:b",
        "namespace=*",
        "namespace=-acme",
        "namespace=" + "x" * 65,
        "namespace=acme&namespace=sales",
    ],
)
def test_a_namespace_that_is_no_name_is_refused(query):
    with pytest.raises(ConfigurationError) as caught:
        build(f"redis://:pw-not-shown@h:6379/0?{query}")
    assert "namespace" in str(caught.value)
    assert "pw-not-shown" not in str(caught.value) + caught.value.cli_message


def test_redis_py_is_never_given_the_namespace():
    assert without_namespace("redis://h/0?namespace=acme&socket_keepalive=true") == (
        "redis://h/0?socket_keepalive=true"
    )
    assert without_namespace("redis://h/0") == "redis://h/0"
    kwargs = connect(URL + "&socket_keepalive=true").connection_pool.connection_kwargs
    assert "namespace" not in kwargs  # redis-py would hand it to its connection, which refuses it
    assert kwargs["socket_keepalive"] is True and kwargs["password"] == "pw-not-shown"


# -- the names entries are filed under -----------------------------------------------------------


def test_a_named_namespace_is_per_name_and_per_service_and_never_a_keys():
    ns = named_namespace("acme-sales", BASE)
    assert ns == named_namespace("acme-sales", BASE)
    assert len(ns) == 32 and set(ns) <= set(string.hexdigits)
    assert ns != named_namespace("acme-sales", OTHER_BASE)  # staging never mixes with production
    assert ns != named_namespace("acme-support", BASE)
    assert ns != namespace("acme-sales", BASE)  # a key that happens to be the name


def test_answers_follow_the_name_and_otherwise_the_key():
    named = named_namespace("acme-sales", BASE)
    assert answers_namespace(build(URL)) == answers_namespace(build(URL, OTHER_KEY)) == named
    plain = URL.partition("?")[0]
    assert answers_namespace(build(plain)) == namespace(KEY, BASE)  # as before: per key
    assert answers_namespace(build(plain, OTHER_KEY)) == namespace(OTHER_KEY, BASE)


def test_two_keys_naming_one_namespace_share_answers_and_claims_not_their_pace():
    clients = [lp.Client(api_key=k, base_url=BASE, cache=URL) for k in (KEY, OTHER_KEY)]
    try:
        named = key_prefix(named_namespace("acme-sales", BASE))
        backends = {c.session.cache.responses.namespace for c in clients}
        assert backends == {f"{named}:cache"}
        assert {c._parts.store._claim_key("k") for c in clients} == {f"{named}:claim:k"}
        paces = [c._parts.store._pace_key for c in clients]
        assert paces == [f"{key_prefix(namespace(k, BASE))}:pace" for k in (KEY, OTHER_KEY)]
        for c in clients:
            assert "pw-not-shown" not in repr(c._parts.store) + repr(c.session.cache)
    finally:
        for c in clients:
            c.close()
