"""Unit tests for lookup_pandas.config.cache_urls: a cache setting that looks like a URL we do not
serve is refused, never made a folder; a Redis URL is the cache URL, checked without showing its
password; the team's namespace it names (?namespace=acme-sales) is read and never handed to
redis-py."""

from __future__ import annotations

from pathlib import Path

import pytest

import lookup_pandas as lp
from lookup_pandas import ConfigurationError
from lookup_pandas.cli import main
from lookup_pandas.config.cache_urls import (
    is_redis_url,
    redact_url,
    redis_namespace,
    refuse_unserved_url,
    url_scheme,
    without_namespace,
)
from lookup_pandas.config.settings import Settings
from lookup_pandas.store.redis_connection import connect

UNSERVED = [
    "postgres://db.example/cache",
    "memcached://x",
    "s3://bucket/x",
    "redis:/host:6379/0",
    "rediss:/host:6379/0",
    "file:///tmp/cache.sqlite",
    "HTTP://cache.example/x",
]

PASSWORD = "Sup3r-s3cret-redis-pw"
URL = f"redis://:{PASSWORD}@cache.internal:6379/0"
NAMED_URL = "redis://:pw-not-shown@cache.internal:6379/0?namespace=acme-sales"
_UNSET = object()


def build(cache: object = _UNSET, key: str = "lk_test_key") -> Settings:
    """Settings with a key and a base URL, and ``cache`` when given (else LOOKUP_CACHE's)."""
    given = {} if cache is _UNSET else {"cache": cache}
    return Settings.build(api_key=key, base_url="http://127.0.0.1:8080", **given)


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    for name in ("LOOKUP_CACHE", "LOOKUP_API_KEY", "LOOKUP_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("value", "scheme"),
    [
        ("Redis://h/0", "redis"),
        ("redis:/h", "redis"),
        (" postgres://db", "postgres"),
        ("s3://b", "s3"),
        ("C:/cache.sqlite", None),
        ("C:\\cache.sqlite", None),
        ("./c.sqlite", None),
        ("/var/cache/c.sqlite", None),
        ("leads:2024.sqlite", None),
    ],
)
def test_url_scheme_tells_urls_from_paths(value, scheme):
    assert url_scheme(value) == scheme


@pytest.mark.parametrize("value", UNSERVED)
def test_an_unserved_scheme_is_refused_at_configuration_and_nothing_is_created(
    value, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigurationError) as info:
        lp.Client(api_key="k", base_url="http://127.0.0.1:9", cache=value)
    message = str(info.value)
    assert "Served: redis://" in message and "cache=" in message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", UNSERVED)
def test_lookup_cache_is_checked_the_same_and_named(value, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOOKUP_CACHE", value)
    with pytest.raises(ConfigurationError) as info:
        Settings.build(api_key="k", base_url="http://127.0.0.1:9")
    assert "LOOKUP_CACHE" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_a_password_in_a_refused_url_is_not_shown():
    with pytest.raises(ConfigurationError) as info:
        refuse_unserved_url("postgres://u:s3cret@db/x", "cache=", "LOOKUP_CACHE")
    assert "s3cret" not in str(info.value)
    assert "s3cret" not in info.value.cli_message


def test_the_single_slash_typo_says_what_was_meant():
    with pytest.raises(ConfigurationError, match=r"redis: needs two slashes \(redis://"):
        refuse_unserved_url("redis:/host:6379/0", "cache=", "LOOKUP_CACHE")


@pytest.mark.parametrize("value", ["Redis://127.0.0.1:6390/0", "REDISS://127.0.0.1:6390/1"])
def test_scheme_names_are_case_insensitive(value):
    settings = Settings.build(api_key="k", base_url="http://127.0.0.1:9", cache=value)
    assert settings.cache_url == value.split("://")[0].lower() + "://" + value.split("://")[1]


def test_paths_that_are_not_urls_still_work(tmp_path):
    settings = Settings.build(api_key="k", base_url="http://127.0.0.1:9", cache=tmp_path / "c.db")
    assert settings.cache_url is None


def test_the_cli_refuses_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOOKUP_CACHE", "postgres://db.example/cache")
    monkeypatch.setenv("LOOKUP_API_KEY", "k")
    monkeypatch.setenv("LOOKUP_BASE_URL", "http://127.0.0.1:9")
    code = main(["tier"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code != 0
    assert len(lines) == 1 and "LOOKUP_CACHE" in lines[0], lines
    assert list(tmp_path.iterdir()) == []


# -- Redis URLs -----------------------------------------------------------------------------------


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
        texts = [repr(s), str(s), repr(client), str(client), repr(client.parts.store)]
        texts += [repr(client.session), repr(client.session.cache)]
        for text in texts:
            assert PASSWORD not in text, text
        assert "redis://:***@cache.internal:6379/0" in repr(client)
        assert s.cache_label == "redis://:***@cache.internal:6379/0"
    finally:
        client.close()


# -- a team's namespace in a Redis URL ------------------------------------------------------------


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
    kwargs = connect(NAMED_URL + "&socket_keepalive=true").connection_pool.connection_kwargs
    assert "namespace" not in kwargs  # redis-py would hand it to its connection, which refuses it
    assert kwargs["socket_keepalive"] is True and kwargs["password"] == "pw-not-shown"
