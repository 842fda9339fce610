"""Unit tests for http.session: the session built for each cache setting (none, a SQLite file),
its headers and adapter, the environment read once, and Cache-Control kept off the wire.
(A Redis URL's session: tests/unit/store/test_redis.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from requests.adapters import HTTPAdapter
from requests_cache import CachedSession

from lookup_pandas._version import __version__
from lookup_pandas.cache.policy import IGNORED_PARAMETERS
from lookup_pandas.cache.sqlite import PaidAnswersCache, shared_backends
from lookup_pandas.config.settings import Settings
from lookup_pandas.http import session as session_module
from lookup_pandas.http.session import build_session
from lookup_pandas.testing import MockTransport, envelope

BASE = "http://service.test"


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    for name in ("LOOKUP_API_KEY", "LOOKUP_BASE_URL", "LOOKUP_CACHE", "REQUESTS_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)


def settings(**options) -> Settings:
    return Settings.build(api_key="lk_unit", base_url=BASE, **options)


def test_without_a_cache_a_plain_session_over_our_adapter():
    session = build_session(settings(cache=False, max_workers=8))
    assert type(session) is requests.Session
    adapter = session.get_adapter(BASE)
    assert isinstance(adapter, session_module._Adapter)
    assert adapter.max_retries.total == 0  # the Client's retries are paced
    assert adapter._pool_maxsize == 16  # two per worker, at least ten
    assert session.headers["User-Agent"] == f"lookup-pandas/{__version__}"
    assert session.headers["Accept"] == "application/json"
    assert session.trust_env is False


def test_a_sqlite_cache_is_the_shared_backend_let_go_of_once(tmp_path: Path):
    path = tmp_path / "c.sqlite"
    transport = MockTransport(lambda request: (200, envelope({"id": "prsn_1"})))
    session = build_session(settings(cache=path), transport)
    assert isinstance(session, CachedSession)
    assert isinstance(session.cache, PaidAnswersCache)
    assert session.get_adapter(BASE) is transport
    assert session.settings.ignored_parameters == IGNORED_PARAMETERS
    assert session.settings.allowable_methods == ("GET",)
    assert shared_backends().is_open(path)
    session.release_cache()
    assert not shared_backends().is_open(path)
    session.release_cache()  # a second time lets go of nothing more


def test_the_environment_is_read_once_when_the_session_is_built(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/ssl/corp.pem")
    session = build_session(
        Settings.build(api_key="k", base_url="https://api.example.com", cache=False)
    )
    assert session.proxies["https"] == "http://proxy.internal:3128"
    assert session.verify == "/etc/ssl/corp.pem"
    assert session.trust_env is False  # requests reads it no more on each request
    session.close()


def test_cache_control_directives_never_reach_the_wire(monkeypatch):
    sent: list[requests.PreparedRequest] = []
    monkeypatch.setattr(HTTPAdapter, "send", lambda self, request, *a, **k: sent.append(request))
    request = requests.Request("GET", BASE, headers={"Cache-Control": "max-age=0"}).prepare()
    session_module._Adapter().send(request)
    assert "Cache-Control" not in sent[0].headers
