"""The Spark adapter's refusals, made before any Spark job (no JVM, no cluster)."""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import pytest

if os.environ.get("LOOKUP_REQUIRE_SPARK") != "1":
    pytest.importorskip("pyspark", reason="pyspark is not installed (lookup-pandas[spark])")

import lookup_pandas as lp  # noqa: E402
from lookup_pandas.integrations.spark import _spec, enrich_profiles, output_schema  # noqa: E402


def client(cache: object) -> lp.Client:
    return lp.Client(api_key="lk_unit", base_url="https://api.example.com", cache=cache)


def test_a_cache_file_is_refused_unless_the_master_is_local(tmp_path: Path) -> None:
    c = client(tmp_path / "cache.sqlite")
    try:
        assert _spec(c, "local[2]").settings.api_key == ""
        for master in ("yarn", "spark://head:7077", "k8s://https://k:443", ""):
            with pytest.raises(lp.ConfigurationError, match="must share a Redis cache"):
                _spec(c, master)
    finally:
        c.close()


def test_a_redis_cache_is_fine_anywhere_and_no_cache_is_refused() -> None:
    c = client("redis://:secret@redis.internal:6379/0")
    spec = _spec(c, "yarn")
    assert spec.settings.api_key == "" and "secret" not in repr(spec)
    c.close()
    with pytest.raises(lp.ConfigurationError, match="cache=False"):
        _spec(client(False), "local[2]")


def test_the_signature_is_the_api_one_with_fields() -> None:
    params = inspect.signature(enrich_profiles).parameters
    assert list(params)[:4] == ["sdf", "column", "fields", "prefix"]
    assert params["max_calls"].default is None and params["method"].default == "auto"


def test_output_schema_puts_key_fields_first_and_status_last() -> None:
    names = [f.name for f in output_schema(["name", "name", "id"], "company_", lp_companies())]
    assert names == [
        "company_id", "company_slug", "company_name", "company_json", "lookup_status",
        "lookup_error",
    ]  # fmt: skip


def lp_companies():  # type: ignore[no-untyped-def]
    from lookup_pandas.identifiers.kinds import COMPANIES

    return COMPANIES
