"""A cache setting that looks like a URL we do not serve is refused, never made a folder."""

from __future__ import annotations

import pytest

import lookup_pandas as lp
from lookup_pandas import ConfigurationError
from lookup_pandas.cli import main
from lookup_pandas.config.cache_urls import refuse_unserved_url, url_scheme
from lookup_pandas.config.settings import Settings

UNSERVED = [
    "postgres://db.example/cache",
    "memcached://x",
    "s3://bucket/x",
    "redis:/host:6379/0",
    "rediss:/host:6379/0",
    "file:///tmp/cache.sqlite",
    "HTTP://cache.example/x",
]


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
