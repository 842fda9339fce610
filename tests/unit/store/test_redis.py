"""cache="redis://..." without a server: the setting, its checks, passwords never shown, the
store and backend it picks, its error messages, and redis staying optional."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

import lookup_pandas as lp
from lookup_pandas import ConfigurationError
from lookup_pandas.cache.policy import (
    DATA_KEY_HEADER,
    IGNORED_PARAMETERS,
    PANEL_KEY_HEADER,
    PaidAnswersOnly,
)
from lookup_pandas.cache.redis import RedisAnswersCache
from lookup_pandas.cache.sqlite import PaidAnswersCache
from lookup_pandas.config.cache_urls import is_redis_url, redact_url
from lookup_pandas.config.settings import Settings
from lookup_pandas.store import MemoryStore, namespace, open_store
from lookup_pandas.store.local import LocalStore
from lookup_pandas.store.redis import RedisStore, key_prefix, redis_error

PASSWORD = "Sup3r-s3cret-redis-pw"
URL = f"redis://:{PASSWORD}@cache.internal:6379/0"


def build(**kwargs):
    kwargs.setdefault("api_key", "lk_test_key")
    kwargs.setdefault("base_url", "http://127.0.0.1:8080")
    return Settings.build(**kwargs)


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    for name in ("LOOKUP_API_KEY", "LOOKUP_BASE_URL", "LOOKUP_CACHE"):
        monkeypatch.delenv(name, raising=False)


# -- the setting -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "redis://localhost:6379/0",
        "redis://localhost",
        "rediss://cache.internal:6380/2",
        "REDIS://LOCALHOST:6379",
        URL,
        f"redis://analyst:{PASSWORD}@cache.internal:6379/1",
    ],
)
def test_a_redis_url_is_the_cache_url_and_no_path(url):
    s = build(cache=url)
    scheme, rest = url.split("://", 1)
    assert s.cache_url == f"{scheme.lower()}://{rest}"  # redis-py takes lower-case schemes only
    assert s.cache_path is None


def test_lookup_cache_may_name_a_redis(monkeypatch):
    monkeypatch.setenv("LOOKUP_CACHE", f"  {URL} ")
    s = build()
    assert s.cache_url == URL and s.cache_path is None
    assert build(cache=False).cache_url is None  # the keyword wins over the variable


def test_paths_and_off_are_as_before(monkeypatch, tmp_path):
    assert build(cache=tmp_path / "c.sqlite").cache_url is None
    assert build(cache="redis.sqlite").cache_path == Path("redis.sqlite")
    monkeypatch.setenv("LOOKUP_CACHE", "off")
    assert build().cache_url is None and build().cache_path is None


def test_is_redis_url():
    assert is_redis_url("redis://h") and is_redis_url(" rediss://h:1/0")
    assert not is_redis_url("redis.sqlite") and not is_redis_url("http://h")
    assert not is_redis_url("/tmp/redis://x")


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        (f"redis://:{PASSWORD}@/0", "names no host"),
        (f"redis://:{PASSWORD}@host:notaport/0", "port"),
        (f"redis://:{PASSWORD}@host:99999/0", "port"),
        (f"redis://:{PASSWORD}@host:6379/zero", "database"),
    ],
)
def test_an_unusable_redis_url_is_refused_without_showing_its_password(url, problem):
    with pytest.raises(ConfigurationError) as caught:
        build(cache=url)
    assert problem in str(caught.value)
    assert "cache=" in str(caught.value)
    assert "LOOKUP_CACHE" in caught.value.cli_message
    for text in (str(caught.value), caught.value.cli_message, repr(caught.value)):
        assert PASSWORD not in text


# -- passwords are never shown ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (URL, "redis://:***@cache.internal:6379/0"),
        ("redis://ana:pw@h:1/0", "redis://ana:***@h:1/0"),
        ("redis://justapassword@h/0", "redis://***@h/0"),
        ("rediss://h:6380/0", "rediss://h:6380/0"),
        ("redis://h/0?password=pw&db=1", "redis://h/0?password=***&db=1"),
    ],
)
def test_redact_url(url, shown):
    assert redact_url(url) == shown


def test_no_repr_shows_the_password():
    s = build(cache=URL)
    client = lp.Client(api_key="lk_test_key", base_url="http://127.0.0.1:8080", cache=URL)
    try:
        texts = [repr(s), str(s), repr(client), str(client), repr(client._parts.store)]
        texts += [repr(client.session), repr(client.session.cache)]
        for text in texts:
            assert PASSWORD not in text, text
        assert "redis://:***@cache.internal:6379/0" in repr(client)
        assert s.cache_label == "redis://:***@cache.internal:6379/0"
    finally:
        client.close()


# -- what the Client builds for a Redis URL (nothing connects until the first call) -------------


def test_the_client_shares_cache_pace_and_claims_through_redis():
    key, base = "lk_test_key", "http://127.0.0.1:8080"
    with lp.Client(api_key=key, base_url=base, cache=URL) as client:
        ns = namespace(key, base)
        assert isinstance(client._parts.store, RedisStore)
        assert client._parts.pacer._shared is client._parts.store
        backend = client.session.cache
        assert isinstance(backend, RedisAnswersCache)
        assert isinstance(backend, PaidAnswersOnly)  # the one save policy, shared with SQLite
        assert backend.responses.serializer.name == "json"  # never pickle
        assert backend.responses.ttl is True
        assert backend.responses.namespace == f"{key_prefix(ns)}:cache"
        assert client.session.settings.ignored_parameters == IGNORED_PARAMETERS
        assert {DATA_KEY_HEADER, PANEL_KEY_HEADER} <= set(IGNORED_PARAMETERS)
        assert key not in key_prefix(ns)
        keys = client.profile_keys(["ada", "grace"])
        assert len(set(keys.values())) == 2


def test_sqlite_keeps_its_backend_with_the_same_policy(tmp_path):
    assert issubclass(PaidAnswersCache, PaidAnswersOnly)
    with lp.Client(api_key="k", base_url="http://h", cache=tmp_path / "c.sqlite") as client:
        assert isinstance(client.session.cache, PaidAnswersCache)
        assert isinstance(client._parts.store, LocalStore)


def test_open_store_picks_the_store_by_its_setting(tmp_path):
    assert isinstance(open_store(None, "ns"), MemoryStore)
    assert isinstance(open_store(tmp_path / "c.sqlite", "ns"), LocalStore)
    assert isinstance(open_store(str(tmp_path / "c.sqlite"), "ns"), LocalStore)
    store = open_store(URL, "ns")
    assert isinstance(store, RedisStore)
    store.close()


# -- what a failed Redis command says ----------------------------------------------------------


@pytest.mark.parametrize(
    ("exc", "says"),
    [
        (redis.exceptions.ConnectionError("Error 111 connecting. Connection refused."), "reached"),
        (redis.exceptions.TimeoutError("Timeout reading from socket"), "reached"),
        (redis.exceptions.AuthenticationError("invalid username-password pair"), "password"),
        (redis.exceptions.ResponseError("NOAUTH Authentication required."), "password"),
        (redis.exceptions.ResponseError("OOM command not allowed"), "noeviction"),
        (redis.exceptions.ConnectionError(f"echoing {PASSWORD} back"), "reached"),
    ],
)
def test_redis_errors_become_a_configuration_error_naming_the_url(exc, says):
    error = redis_error(URL, exc)
    assert isinstance(error, ConfigurationError)
    assert "redis://:***@cache.internal:6379/0" in str(error)
    assert says in str(error)
    assert "cache=" in str(error) and "LOOKUP_CACHE" in error.cli_message
    assert PASSWORD not in str(error) + error.cli_message


# -- redis stays optional -----------------------------------------------------------------------


#: Fresh interpreters, run early beside the other tests (the ``fresh_runs`` fixture,
#: tests/conftest.py).
FRESH_RUNS = {
    "without-redis": [
        "-c",
        """
import sys
sys.modules["redis"] = None  # as if the [redis] extra were not installed
import lookup_pandas as lp
with lp.Client(api_key="k", base_url="http://h", cache=False) as c:
    pass
try:
    lp.Client(api_key="k", base_url="http://h", cache="redis://:pw-xyz@h:6379/0")
except lp.ConfigurationError as exc:
    print("ERROR:", exc)
""",
    ]
}


def test_importing_the_package_loads_no_redis_code_of_ours(fresh_import):
    loaded = fresh_import.after_import  # a fresh interpreter's, shared (tests/conftest.py)
    assert "lookup_pandas.store.redis" not in loaded
    assert "lookup_pandas.cache.redis" not in loaded
    assert "lookup_pandas.store.local" not in loaded


def test_without_redis_installed_everything_else_works_and_a_redis_url_says_what_to_install(
    fresh_runs,
):
    done = fresh_runs["without-redis"]
    assert done.returncode == 0, done.stderr
    assert "pip install 'lookup_pandas[redis]'" in done.stdout
    assert "pw-xyz" not in done.stdout
