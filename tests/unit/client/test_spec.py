"""ClientSpec: a Client's settings without its key, rebuilt in another process from its env."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import lookup_pandas as lp
from lookup_pandas.client.spec import ClientSpec

KEY = "lk_spec_secret_0123456789"
URL = "http://127.0.0.1:9"


def make(cache: object, **kwargs: object) -> lp.Client:
    return lp.Client(api_key=KEY, base_url=URL, cache=cache, **kwargs)  # type: ignore[arg-type]


def test_the_spec_pickles_without_the_key_and_rebuilds_the_same_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make(tmp_path / "c.sqlite", max_workers=3, rate_limit_per_minute=120, timeout=7)
    spec = ClientSpec.from_client(client)
    blob = pickle.dumps(spec)
    assert KEY.encode() not in blob
    assert KEY not in repr(spec)
    monkeypatch.setenv("LOOKUP_API_KEY", KEY)
    rebuilt = pickle.loads(blob).client()
    assert rebuilt.settings.cache_path == client.settings.cache_path
    for name in ("base_url", "max_workers", "rate_limit_per_minute", "timeout", "expire_after"):
        assert getattr(rebuilt.settings, name) == getattr(client.settings, name)
    assert pickle.loads(blob).client() is rebuilt  # one Client per spec and process


def test_a_client_is_not_picklable(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="ClientSpec"):
        pickle.dumps(make(tmp_path / "c.sqlite"))


def test_a_missing_or_different_key_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = ClientSpec.from_client(make(tmp_path / "d.sqlite"))
    monkeypatch.delenv("LOOKUP_API_KEY", raising=False)
    with pytest.raises(lp.ConfigurationError, match="LOOKUP_API_KEY is not set"):
        spec.client()
    monkeypatch.setenv("LOOKUP_API_KEY", "lk_another_key")
    with pytest.raises(lp.ConfigurationError, match="not the key the enrichment was set up with"):
        spec.client()


def test_a_redis_password_stays_out_and_comes_from_the_workers_env(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = make("redis://:hunter2pw@127.0.0.1:1/0")
    spec = ClientSpec.from_client(client)
    assert spec.cache_from_env
    assert "hunter2pw" not in repr(spec)
    assert b"hunter2pw" not in pickle.dumps(spec)
    monkeypatch.setenv("LOOKUP_API_KEY", KEY)
    monkeypatch.delenv("LOOKUP_CACHE", raising=False)
    with pytest.raises(lp.ConfigurationError, match="set LOOKUP_CACHE to its URL"):
        spec.client()
    monkeypatch.setenv("LOOKUP_CACHE", "redis://:hunter2pw@127.0.0.1:1/0")
    assert spec.client().settings.cache_url == "redis://:hunter2pw@127.0.0.1:1/0"


def test_a_redis_url_without_a_password_travels_as_is() -> None:
    spec = ClientSpec.from_client(make("redis://127.0.0.1:1/2"))
    assert (spec.cache, spec.cache_from_env) == ("redis://127.0.0.1:1/2", False)


def test_a_worker_without_the_key_is_told_how_for_dask_and_spark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = make(tmp_path / "nokey.sqlite", timeout=11)
    spec = ClientSpec.from_client(client)
    monkeypatch.delenv("LOOKUP_API_KEY", raising=False)
    with pytest.raises(lp.ConfigurationError, match="spark.executorEnv.LOOKUP_API_KEY") as caught:
        spec.client()
    assert "dask worker" in str(caught.value) and KEY not in str(caught.value)
    client.close()
