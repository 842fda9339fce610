"""lp.configure() and lp.default_client(): the client used wherever client=None."""

from __future__ import annotations

import pytest

import lookup_pandas as lp

from ..helpers import PROFILE


def test_default_client_is_built_from_the_environment(
    fake_service, tmp_path, monkeypatch, isolated_default_client
):
    cache = tmp_path / "env-cache.sqlite"
    monkeypatch.setenv("LOOKUP_API_KEY", fake_service.api_key)
    monkeypatch.setenv("LOOKUP_BASE_URL", fake_service.base_url + "/")
    monkeypatch.setenv("LOOKUP_CACHE", str(cache))
    client = lp.default_client()
    assert client is lp.default_client()  # built once, then reused
    assert client.base_url == fake_service.base_url
    assert client.settings.cache_path == cache
    assert client.profile("ada")["handle"] == "ada"
    assert cache.exists()
    assert fake_service.count(PROFILE, handle="ada") == 1


def test_default_client_names_the_missing_variable(monkeypatch, isolated_default_client):
    monkeypatch.delenv("LOOKUP_API_KEY", raising=False)
    monkeypatch.setenv("LOOKUP_BASE_URL", "http://127.0.0.1:9")
    with pytest.raises(lp.ConfigurationError, match="LOOKUP_API_KEY"):
        lp.default_client()
    monkeypatch.setenv("LOOKUP_API_KEY", "lk_test_x")
    monkeypatch.delenv("LOOKUP_BASE_URL", raising=False)
    with pytest.raises(lp.ConfigurationError, match="LOOKUP_BASE_URL"):
        lp.default_client()


def test_configure_replaces_the_default(fake_service, monkeypatch, isolated_default_client):
    monkeypatch.delenv("LOOKUP_API_KEY", raising=False)
    monkeypatch.setenv("LOOKUP_CACHE", "off")
    first = lp.configure(api_key=fake_service.api_key, base_url=fake_service.base_url)
    assert lp.default_client() is first
    assert first.settings.cache_path is None  # LOOKUP_CACHE=off is honoured by the default
    second = lp.configure(
        api_key=fake_service.api_key, base_url=fake_service.base_url, cache=False, max_workers=2
    )
    assert lp.default_client() is second and second is not first
    assert second.max_workers == 2
    assert second.profile("grace")["handle"] == "grace"


def test_configure_while_the_old_default_is_busy_in_a_thread(
    fake_service, tmp_path, isolated_default_client
):
    # Replacing the default client must not close the one a running job still uses (closing
    # its SQLite connection under another thread could crash the interpreter).
    import threading

    import pandas as pd

    fake_service.configure(latency=0.005)
    cache = tmp_path / "busy.sqlite"
    first = lp.configure(api_key=fake_service.api_key, base_url=fake_service.base_url, cache=cache)
    frame = pd.DataFrame({"handle": [f"busy-{i:03d}" for i in range(150)]})
    result: dict[str, object] = {}

    def job() -> None:
        try:
            result["out"] = frame.lookup.enrich_profiles("handle", client=first, progress=False)
        except BaseException as exc:  # reported below
            result["error"] = exc

    worker = threading.Thread(target=job)
    worker.start()
    for _ in range(3):
        lp.configure(api_key=fake_service.api_key, base_url=fake_service.base_url, cache=cache)
    worker.join(timeout=120)
    assert not worker.is_alive() and "error" not in result, result.get("error")
    assert result["out"]["lookup_status"].eq("ok").all()
    assert lp.default_client() is not first
    assert lp.default_client().parts.cache.is_cached(PROFILE, {"handle": "busy-149"})
