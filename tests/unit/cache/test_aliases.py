"""Unit tests for lookup_pandas.cache.aliases: which keys lead to an answer, and while when."""

from __future__ import annotations

import json
from typing import Any

import requests
from requests_cache.backends.base import BaseCache

from lookup_pandas.cache.aliases import alias_keys, kind_of, leads_here

BASE = "http://127.0.0.1:8080/api/data/v1"


def answer(path: str, params: dict[str, str], body: dict[str, Any]) -> requests.Response:
    """A response to GET ``path`` with ``params``, carrying ``body``."""
    r = requests.Response()
    r.status_code = 200
    r._content = json.dumps(body).encode()
    r.request = requests.Request("GET", BASE + path, params=params).prepare()
    r.url = r.request.url
    r.headers["Content-Type"] = "application/json"
    return r


def found(record: dict[str, Any]) -> dict[str, Any]:
    return {"success": True, "statusCode": 200, "message": "ok", "errors": None, "data": record}


def key_of(cache: BaseCache, path: str, params: dict[str, str], verify: bool = True) -> str:
    request = requests.Request("GET", BASE + path, params=params).prepare()
    return cache.create_key(request, verify=verify)


def test_a_person_by_handle_is_aliased_by_id_and_the_other_way_round():
    cache = BaseCache()
    by_handle = answer(
        "/people/profile", {"handle": "ada"}, found({"id": "prsn_1", "handle": "Ada"})
    )
    key = key_of(cache, "/people/profile", {"handle": "ada"})
    assert alias_keys(cache, by_handle, key) == {key_of(cache, "/people/profile", {"id": "prsn_1"})}
    by_id = answer("/people/profile", {"id": "prsn_1"}, found({"id": "prsn_1", "handle": "ada"}))
    key = key_of(cache, "/people/profile", {"id": "prsn_1"})
    assert alias_keys(cache, by_id, key) == {key_of(cache, "/people/profile", {"handle": "ada"})}


def test_a_company_is_aliased_by_slug_and_id():
    cache = BaseCache()
    record = {"id": "org_9", "slug": "acme", "name": "Acme"}
    by_slug = answer("/companies/company", {"slug": "acme"}, found(record))
    key = key_of(cache, "/companies/company", {"slug": "acme"})
    assert kind_of(by_slug) is not None
    assert alias_keys(cache, by_slug, key) == {key_of(cache, "/companies/company", {"id": "org_9"})}


def test_the_aliases_keys_keep_the_verify_of_the_answers_key():
    cache = BaseCache()
    by_handle = answer(
        "/people/profile", {"handle": "ada"}, found({"id": "prsn_1", "handle": "ada"})
    )
    key = key_of(cache, "/people/profile", {"handle": "ada"}, verify=False)
    wanted = key_of(cache, "/people/profile", {"id": "prsn_1"}, verify=False)
    assert alias_keys(cache, by_handle, key) == {wanted}
    assert alias_keys(cache, by_handle, "a key made some other way") == set()


def test_no_alias_for_a_not_found_a_list_or_a_record_without_names():
    cache = BaseCache()
    missing = {"success": False, "message": "Profile not found", "error_code": "1010", "data": None}
    gone = answer("/people/profile", {"handle": "nobody"}, missing)
    assert alias_keys(cache, gone, key_of(cache, "/people/profile", {"handle": "nobody"})) == set()
    page = answer("/people/search", {"title": "cto"}, found({"id": "prsn_1"}))
    assert kind_of(page) is None
    assert alias_keys(cache, page, key_of(cache, "/people/search", {"title": "cto"})) == set()
    nameless = answer("/people/profile", {"handle": "ada"}, found({"first_name": "Ada"}))
    assert alias_keys(cache, nameless, key_of(cache, "/people/profile", {"handle": "ada"})) == set()


def test_an_alias_leads_to_an_answer_only_while_the_answer_names_it():
    cache = BaseCache()
    key = key_of(cache, "/people/profile", {"handle": "ada"})
    old_id = key_of(cache, "/people/profile", {"id": "prsn_1"})
    ada = answer("/people/profile", {"handle": "ada"}, found({"id": "prsn_1", "handle": "ada"}))
    assert leads_here(cache, old_id, ada, key)
    # the handle was given to someone else, and bought anew under the same key
    other = answer("/people/profile", {"handle": "ada"}, found({"id": "prsn_2", "handle": "ada"}))
    assert not leads_here(cache, old_id, other, key)
