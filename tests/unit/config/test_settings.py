"""Unit tests for lookup_pandas.config.settings.Settings.build: kwargs, environment, validation,
repr."""

from __future__ import annotations

import dataclasses
import inspect
from datetime import timedelta
from pathlib import Path

import pytest

import lookup_pandas as lp
from lookup_pandas.config.settings import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_CACHE,
    ENV_OFFLINE,
    SETTING_NAMES,
    Settings,
    default_cache_path,
)
from lookup_pandas.errors import ConfigurationError

KEY = "lk_live_SECRET_0123456789abcdef"
URL = "http://127.0.0.1:8080"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in (ENV_API_KEY, ENV_BASE_URL, ENV_CACHE):
        monkeypatch.delenv(name, raising=False)


def build(**kw) -> Settings:
    kw.setdefault("api_key", KEY)
    kw.setdefault("base_url", URL)
    return Settings.build(**kw)


def test_env_var_names():
    assert (ENV_API_KEY, ENV_BASE_URL, ENV_CACHE) == (
        "LOOKUP_API_KEY",
        "LOOKUP_BASE_URL",
        "LOOKUP_CACHE",
    )


def test_kwargs_are_used():
    s = build(timeout=12, max_retries=3, rate_limit_per_minute=100, max_workers=2)
    assert s.api_key == KEY
    assert s.base_url == URL
    assert s.timeout == 12.0
    assert s.max_retries == 3
    assert s.rate_limit_per_minute == 100
    assert s.max_workers == 2


def test_defaults():
    s = build()
    assert s.timeout == 30.0
    assert s.max_retries == 5
    assert s.rate_limit_per_minute is None
    assert s.max_workers == 4
    assert s.expire_after == timedelta(days=7)
    assert s.cache_path == default_cache_path()
    assert s.cache_path.name == "http_cache.sqlite"


@pytest.mark.parametrize("key", [None, "", "   "])
def test_missing_key_names_the_env_var(key):
    with pytest.raises(ConfigurationError) as info:
        Settings.build(api_key=key, base_url=URL)
    assert "LOOKUP_API_KEY" in str(info.value)


@pytest.mark.parametrize("url", [None, "", "  "])
def test_missing_base_url_names_the_env_var(url):
    with pytest.raises(ConfigurationError) as info:
        Settings.build(api_key=KEY, base_url=url)
    assert "LOOKUP_BASE_URL" in str(info.value)
    assert KEY not in str(info.value)


@pytest.mark.parametrize("url", ["127.0.0.1:8080", "ftp://127.0.0.1", "localhost"])
def test_base_url_without_http_scheme_is_rejected_naming_where_it_came_from(url, monkeypatch):
    with pytest.raises(ConfigurationError) as info:
        Settings.build(api_key=KEY, base_url=url)
    assert "base_url=" in str(info.value) and "LOOKUP_BASE_URL" not in str(info.value)
    monkeypatch.setenv(ENV_BASE_URL, url)
    with pytest.raises(ConfigurationError) as info:
        Settings.build(api_key=KEY)
    assert "the LOOKUP_BASE_URL environment variable" in str(info.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [("HTTP://127.0.0.1:8080", "http://127.0.0.1:8080"), ("Https://h/x/", "https://h/x")],
)
def test_the_scheme_of_a_base_url_has_no_case(url, expected):
    # Issue 39: HTTP:// was refused (RFC 3986: a scheme is case-insensitive)
    assert Settings.build(api_key=KEY, base_url=url, cache=False).base_url == expected


@pytest.mark.parametrize(
    ("url", "what", "bare"),
    [
        ("https://gw.example.com/lookup?tenant=7", "a query (?tenant=7)", "https://gw.example.com/lookup"),
        ("http://h:8080/?", "a query (?)", "http://h:8080"),
        ("http://h/x#top", "a fragment (#top)", "http://h/x"),
    ],
)  # fmt: skip
def test_a_base_url_with_a_query_or_fragment_is_refused_in_one_line(url, what, bare, monkeypatch):
    # Issue 39: the paths were added after the query (https://gw/lookup?tenant=7/api/data/v1/...)
    with pytest.raises(ConfigurationError) as info:
        Settings.build(api_key=KEY, base_url=url, cache=False)
    assert f"The base URL {url} has {what}" in str(info.value)
    assert f"Give the URL without it, {bare} (check base_url=)." in str(info.value)
    assert info.value.cli_message.endswith(f"Set LOOKUP_BASE_URL={bare}.")
    assert "\n" not in str(info.value) and KEY not in str(info.value)


def test_a_base_url_without_a_host_is_refused():
    with pytest.raises(ConfigurationError, match="names no host"):
        Settings.build(api_key=KEY, base_url="https://:8080/x", cache=False)


def test_missing_settings_speak_to_python_and_to_the_command_line(monkeypatch):
    monkeypatch.delenv(ENV_API_KEY, raising=False)
    monkeypatch.delenv(ENV_BASE_URL, raising=False)
    with pytest.raises(ConfigurationError) as info:
        Settings.build(base_url="http://127.0.0.1:1")
    assert "pass api_key=..." in str(info.value)
    assert info.value.cli_message == "No API key: set the LOOKUP_API_KEY environment variable."
    with pytest.raises(ConfigurationError) as info:
        Settings.build(api_key=KEY)
    assert "pass base_url=..." in str(info.value)
    assert "base_url=" not in info.value.cli_message and ENV_BASE_URL in info.value.cli_message


def test_settings_remember_where_key_and_url_came_from(monkeypatch):
    s = Settings.build(api_key=KEY, base_url="http://127.0.0.1:1")
    assert (s.api_key_source, s.base_url_source) == ("api_key=", "base_url=")
    monkeypatch.setenv(ENV_API_KEY, KEY)
    monkeypatch.setenv(ENV_BASE_URL, "http://127.0.0.1:1")
    s = Settings.build()
    assert s.api_key_source == "the LOOKUP_API_KEY environment variable"
    assert s.base_url_source == "the LOOKUP_BASE_URL environment variable"


def test_env_vars_used_when_kwargs_absent(monkeypatch):
    monkeypatch.setenv(ENV_API_KEY, "  lk_from_env  ")
    monkeypatch.setenv(ENV_BASE_URL, "http://127.0.0.1:9999/")
    s = Settings.build()
    assert s.api_key == "lk_from_env"
    assert s.base_url == "http://127.0.0.1:9999"


def test_kwargs_win_over_env(monkeypatch):
    monkeypatch.setenv(ENV_API_KEY, "lk_env")
    monkeypatch.setenv(ENV_BASE_URL, "http://127.0.0.1:1")
    s = Settings.build(api_key="lk_kw", base_url="http://127.0.0.1:2")
    assert (s.api_key, s.base_url) == ("lk_kw", "http://127.0.0.1:2")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
        ("http://127.0.0.1:8080///", "http://127.0.0.1:8080"),
        ("  http://127.0.0.1:8080/base/  ", "http://127.0.0.1:8080/base"),
        ("https://localhost", "https://localhost"),
    ],
)
def test_trailing_slash_and_whitespace_stripped(url, expected):
    assert build(base_url=url).base_url == expected


@pytest.mark.parametrize("word", ["off", "0", "false", "OFF", " False ", "no", "none"])
def test_lookup_cache_off_words_disable_the_cache(monkeypatch, word):
    monkeypatch.setenv(ENV_CACHE, word)
    assert build(cache=True).cache_path is None
    assert build(cache=None).cache_path is None


def test_lookup_cache_path_from_env(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "c.sqlite"))
    assert build().cache_path == tmp_path / "c.sqlite"


def test_cache_false_disables_even_with_env_path(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "c.sqlite"))
    assert build(cache=False).cache_path is None


def test_cache_explicit_path_is_used(monkeypatch):
    monkeypatch.setenv(ENV_CACHE, "off")  # an explicit path wins over the environment
    assert build(cache="some/path.sqlite").cache_path == Path("some/path.sqlite")
    assert build(cache=Path("other.sqlite")).cache_path == Path("other.sqlite")


def test_cache_path_expands_user():
    p = build(cache="~/lp.sqlite").cache_path
    assert "~" not in str(p)
    assert p == Path("~/lp.sqlite").expanduser()


def test_expire_after_number_becomes_timedelta():
    assert build(expire_after=90).expire_after == timedelta(seconds=90)


def test_repr_never_contains_the_key():
    s = build()
    for text in (repr(s), str(s), f"{s}", f"{s!r}"):
        assert KEY not in text
        assert "SECRET" not in text
    assert "127.0.0.1:8080" in repr(s)


def test_settings_are_frozen():
    s = build()
    with pytest.raises(AttributeError):
        s.api_key = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("timeout", 0),
        ("timeout", -1),
        ("timeout", float("nan")),
        ("timeout", "fast"),
        ("max_retries", -1),
        ("max_retries", "many"),
        ("rate_limit_per_minute", 0),
        ("rate_limit_per_minute", -7),
        ("rate_limit_per_minute", float("nan")),
        ("rate_limit_per_minute", "lots"),
        ("max_workers", 0),
        ("max_workers", -2),
        ("max_workers", "four"),
    ],
)
def test_bad_numeric_settings_raise_configuration_error(name, value):
    with pytest.raises(ConfigurationError) as info:
        build(**{name: value})
    assert KEY not in str(info.value)


def test_error_messages_never_contain_the_key():
    with pytest.raises(ConfigurationError) as info:
        Settings.build(api_key=KEY, base_url="nonsense")
    assert KEY not in str(info.value)


def test_the_clients_keywords_are_the_settings_fields_one_list():
    # Client keeps explicit keywords (a public contract, IDE completion); they must not drift
    # from the Settings fields, the one list of a Client's settings.
    client = inspect.signature(lp.Client.__init__).parameters
    keywords = [name for name in client if name not in ("self", "transport")]
    assert keywords == list(SETTING_NAMES)
    fields = {f.name: f for f in dataclasses.fields(Settings) if f.init}
    assert list(fields) == list(SETTING_NAMES)
    for name, f in fields.items():
        if f.metadata["env"] is None:  # api_key, base_url, cache: None/True mean "the env's"
            assert client[name].default == f.default, name
    assert [f.metadata["env"] for f in fields.values() if f.metadata["env"]] == [
        ENV_API_KEY,
        ENV_BASE_URL,
        ENV_CACHE,
        ENV_OFFLINE,
    ]


@pytest.mark.parametrize(
    ("value", "offline"),
    [(None, False), ("1", True), ("true", True), ("Yes", True), ("0", False), ("off", False)],
)
def test_offline_comes_from_the_keyword_else_lookup_offline(monkeypatch, value, offline):
    if value is None:
        monkeypatch.delenv(ENV_OFFLINE, raising=False)
    else:
        monkeypatch.setenv(ENV_OFFLINE, value)
    built = Settings.build(api_key=KEY, base_url="http://127.0.0.1:9", cache=False)
    assert built.offline is offline
    given = Settings.build(api_key=KEY, base_url="http://127.0.0.1:9", cache=False, offline=False)
    assert given.offline is False  # the keyword wins over the environment


def test_a_lookup_offline_that_is_no_flag_is_refused(monkeypatch):
    monkeypatch.setenv(ENV_OFFLINE, "maybe")
    with pytest.raises(ConfigurationError, match="LOOKUP_OFFLINE must be 1 or 0"):
        Settings.build(api_key=KEY, base_url="http://127.0.0.1:9", cache=False)


def test_build_refuses_a_keyword_that_is_no_setting():
    with pytest.raises(TypeError, match="timeuot"):
        build(timeuot=5)


def test_keywords_rebuild_the_same_settings(tmp_path):
    s = build(cache=tmp_path / "c.sqlite", timeout=7, max_workers=3, expire_after=60)
    again = Settings.build(**s.keywords())
    assert again == s and again.cache_path == tmp_path / "c.sqlite"
    off = build(cache=False)
    assert off.cache is False and Settings.build(**off.keywords()).cache_path is None


def test_a_key_less_copy_keeps_every_other_setting():
    s = build(timeout=7)
    keyless = dataclasses.replace(s, api_key="")
    assert keyless.api_key == "" and keyless.timeout == 7 and keyless.base_url == URL


def test_help_of_client_lists_every_keyword_with_its_own_help():
    import inspect
    from dataclasses import fields

    import lookup_pandas as lp
    from lookup_pandas.config.settings import Settings

    doc = inspect.getdoc(lp.Client) or ""
    assert "{keywords}" not in doc
    for name in inspect.signature(lp.Client).parameters:
        assert f"``{name}``\n    " in doc, name
    helps = [f.metadata["doc"] for f in fields(Settings) if f.init]
    assert all(len(h) > 20 for h in helps)
    assert len(set(helps)) == len(helps)  # each its own
    assert all(h.split()[0] in doc for h in helps)


def test_an_offline_client_says_so_in_its_repr_and_never_shows_the_key():
    with lp.Client(api_key=KEY, base_url="http://127.0.0.1:9", cache=False, offline=True) as c:
        assert c.settings.offline and repr(c).endswith(", offline=True)")
        assert KEY not in repr(c)
    with lp.Client(api_key=KEY, base_url="http://127.0.0.1:9", cache=False, offline=False) as c:
        assert "offline" not in repr(c)
