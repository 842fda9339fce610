"""Unit tests for cache.opened: where the CLI's cache commands look
(``CacheLocation.from_environment``), without a key for a SQLite file."""

from __future__ import annotations

import pytest

import lookup_pandas as lp
from lookup_pandas.cache.opened import CacheLocation
from lookup_pandas.config.settings import default_cache_path
from lookup_pandas.store import namespace

BASE = "http://service.test"
NS = namespace("lk_live_UnitTestKeyForCacheAdmin", BASE)


# -- where the CLI looks --------------------------------------------------------------------------


@pytest.fixture
def no_lookup_env(monkeypatch):
    for name in ("LOOKUP_CACHE", "LOOKUP_API_KEY", "LOOKUP_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_location_from_the_environment_needs_no_key(no_lookup_env, tmp_path):
    env = no_lookup_env
    env.setenv("LOOKUP_CACHE", str(tmp_path / "c.sqlite"))
    assert CacheLocation.from_environment() == CacheLocation(tmp_path / "c.sqlite")
    env.setenv("LOOKUP_CACHE", "off")
    assert CacheLocation.from_environment().label == "off"
    env.delenv("LOOKUP_CACHE")
    assert CacheLocation.from_environment().path == default_cache_path()


def test_a_redis_location_is_every_namespace_unless_the_key_and_url_are_set(no_lookup_env):
    env = no_lookup_env
    env.setenv("LOOKUP_CACHE", "redis://:s3cret-pw@cache.internal:6379/0")
    everywhere = CacheLocation.from_environment()
    assert everywhere.namespace is None
    assert everywhere.label == "redis://:***@cache.internal:6379/0"
    assert "s3cret" not in repr(everywhere)
    env.setenv("LOOKUP_API_KEY", "lk_live_UnitTestKeyForCacheAdmin")
    assert CacheLocation.from_environment().namespace is None  # a key alone: no namespace
    env.setenv("LOOKUP_BASE_URL", BASE + "/")
    assert CacheLocation.from_environment().namespace == NS  # as the Client files it


def test_a_named_redis_location_needs_the_base_url_and_no_key(no_lookup_env):
    from lookup_pandas.store import named_namespace

    env = no_lookup_env
    env.setenv("LOOKUP_CACHE", "redis://:s3cret-pw@cache.internal:6379/0?namespace=Acme-Sales")
    with pytest.raises(lp.ConfigurationError, match="LOOKUP_BASE_URL"):
        CacheLocation.from_environment()  # never every namespace when one was named
    env.setenv("LOOKUP_BASE_URL", BASE + "/")
    named = CacheLocation.from_environment()
    assert (named.namespace, named.name) == (named_namespace("acme-sales", BASE), "acme-sales")
    env.setenv("LOOKUP_API_KEY", "lk_live_UnitTestKeyForCacheAdmin")
    assert CacheLocation.from_environment() == named  # the key changes nothing: the name rules
    assert "s3cret" not in repr(named) and "acme-sales" in repr(named)
