"""Unit tests for lookup_pandas.store.redis, without a server: the store and backend a
cache="redis://..." picks, the names its entries are filed under, its error messages, and redis
staying optional (the URL's own checks: tests/unit/config/test_cache_urls.py)."""

from __future__ import annotations

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
from lookup_pandas.config.settings import Settings
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import MemoryStore, namespace, open_store
from lookup_pandas.store.local import LocalStore
from lookup_pandas.store.redis import RedisStore
from lookup_pandas.store.redis_connection import key_prefix, redis_error

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


# -- what the Client builds for a Redis URL (nothing connects until the first call) -------------


def test_the_client_shares_cache_pace_and_claims_through_redis():
    key, base = "lk_test_key", "http://127.0.0.1:8080"
    with lp.Client(api_key=key, base_url=base, cache=URL) as client:
        ns = namespace(key, base)
        assert isinstance(client.parts.store, RedisStore)
        assert client.parts.pacer._shared is client.parts.store
        backend = client.session.cache
        assert isinstance(backend, RedisAnswersCache)
        assert isinstance(backend, PaidAnswersOnly)  # the one save policy, shared with SQLite
        assert backend.responses.serializer.name == "json"  # never pickle
        assert backend.responses.ttl is True
        assert backend.responses.namespace == f"{key_prefix(ns)}:cache"
        assert client.session.settings.ignored_parameters == IGNORED_PARAMETERS
        assert {DATA_KEY_HEADER, PANEL_KEY_HEADER} <= set(IGNORED_PARAMETERS)
        assert key not in key_prefix(ns)
        keys = client.parts.cache.keys(["ada", "grace"], PEOPLE)
        assert len(set(keys.values())) == 2


def test_sqlite_keeps_its_backend_with_the_same_policy(tmp_path):
    assert issubclass(PaidAnswersCache, PaidAnswersOnly)
    with lp.Client(api_key="k", base_url="http://h", cache=tmp_path / "c.sqlite") as client:
        assert isinstance(client.session.cache, PaidAnswersCache)
        assert isinstance(client.parts.store, LocalStore)


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
    assert "lookup_pandas.store.redis_connection" not in loaded
    assert "lookup_pandas.cache.redis" not in loaded
    assert "lookup_pandas.store.local" not in loaded


def test_without_redis_installed_everything_else_works_and_a_redis_url_says_what_to_install(
    fresh_runs,
):
    done = fresh_runs["without-redis"]
    assert done.returncode == 0, done.stderr
    assert "pip install 'lookup_pandas[redis]'" in done.stdout
    assert "pw-xyz" not in done.stdout
