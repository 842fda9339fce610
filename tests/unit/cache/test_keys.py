"""The remembered cache key is requests-cache's own key, worked out once per request."""

from __future__ import annotations

import requests
from requests_cache import create_key

from lookup_pandas.cache import keys
from lookup_pandas.cache.keys import remembered_key
from lookup_pandas.cache.policy import DATA_KEY_HEADER, IGNORED_PARAMETERS

URL = "http://127.0.0.1:9/api/data/v1/people/profile"


def prepared(handle: str, key: str = "secret-key", **headers: str) -> requests.PreparedRequest:
    return requests.Request(
        "GET", URL, params={"handle": handle}, headers={DATA_KEY_HEADER: key, **headers}
    ).prepare()


def test_the_key_is_requests_caches_own_so_existing_caches_keep_their_answers() -> None:
    for handle in ("ada", "grace-hopper", "ümlaut", "a b"):
        request = prepared(handle)
        expected = create_key(request, ignored_parameters=IGNORED_PARAMETERS)
        assert remembered_key(request, ignored_parameters=IGNORED_PARAMETERS) == expected
        # and again, now from memory
        assert remembered_key(request, ignored_parameters=IGNORED_PARAMETERS) == expected


def test_requests_that_differ_get_different_keys_and_the_api_key_is_left_out() -> None:
    a, b = prepared("ada"), prepared("grace")
    assert remembered_key(a) != remembered_key(b)
    other_key = prepared("ada", key="another-key")
    assert remembered_key(a, ignored_parameters=IGNORED_PARAMETERS) == remembered_key(
        other_key, ignored_parameters=IGNORED_PARAMETERS
    )
    assert remembered_key(a, verify=True) != remembered_key(a, verify=False)


def test_matched_headers_are_part_of_the_key_so_such_keys_are_not_remembered() -> None:
    en, de = (
        prepared("ada", **{"Accept-Language": "en"}),
        prepared("ada", **{"Accept-Language": "de"}),
    )
    got = remembered_key(en, match_headers=["Accept-Language"])
    assert got == create_key(en, match_headers=["Accept-Language"])
    assert remembered_key(de, match_headers=["Accept-Language"]) != got


def test_an_unprepared_request_is_keyed_as_requests_cache_keys_it() -> None:
    request = requests.Request("GET", URL, params={"handle": "ada"})
    assert remembered_key(request) == create_key(request)


def test_the_memory_is_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(keys, "REMEMBERED_MAX", 5)
    monkeypatch.setattr(keys, "_keys", {})
    for i in range(23):
        remembered_key(prepared(f"h{i}"))
        assert len(keys._keys) <= 5
