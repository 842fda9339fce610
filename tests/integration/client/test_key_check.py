"""A key never seen to work is checked even when every answer is cached (issue 21, item 6).

The finding: a wrong or revoked key went unnoticed while everything was cached (exit 0). Now a
run that is all cache hits reads the free credits tier once per new key and base URL, and the
store remembers a key that worked, so a warm re-run with a known key still sends nothing.
"""

from __future__ import annotations

import time

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas import cli
from lookup_pandas.cli import exits
from lookup_pandas.store import KEY_SEEN_SECONDS

from ..helpers import PROFILE, TIER, make_client

LEADS = pd.DataFrame({"handle": ["ada-lovelace", "grace-hopper", "alan-turing", "unknown-x"]})


def _warm(fake_service, cache) -> None:
    with make_client(fake_service, cache=cache) as client:
        out = LEADS.lookup.enrich_profiles("handle", client=client, progress=False, method="single")
    assert (out["lookup_status"] != "error").all()
    fake_service.reset()


@pytest.mark.parametrize("bad", ["revoked", "wrong_workspace"])
def test_a_bad_key_over_a_warm_cache_fails_the_run(fake_service, tmp_path, bad):
    cache = tmp_path / "c.sqlite"
    _warm(fake_service, cache)
    if bad == "revoked":
        key = fake_service.issue_key()  # a second key of the workspace, revoked before use
        fake_service.revoke_key(key)
    else:
        key = fake_service.wrong_workspace_key
    with make_client(fake_service, api_key=key, cache=cache) as client:
        with pytest.raises(lp.AuthenticationError):
            LEADS.lookup.enrich_profiles("handle", client=client, progress=False)
        with pytest.raises(lp.AuthenticationError):
            client.profile("ada-lovelace")  # a cached answer is not handed to a rejected key
    assert fake_service.count(TIER) >= 1
    assert fake_service.count(PROFILE) == 0
    assert fake_service.billed() == 0


def test_a_key_revoked_after_it_worked_is_found_once_its_hour_is_up(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    _warm(fake_service, cache)
    key = fake_service.api_key
    fake_service.revoke_key(key)
    with make_client(fake_service, api_key=key, cache=cache) as client:
        LEADS.lookup.enrich_profiles("handle", client=client, progress=False)  # within the hour
    assert fake_service.count() == 0
    with make_client(fake_service, api_key=key, cache=cache) as client:
        # a later run, an hour on: the store's clock (its only one) is moved forward
        client.parts.store._clock = lambda: time.time() + KEY_SEEN_SECONDS + 1  # type: ignore[attr-defined]
        with pytest.raises(lp.AuthenticationError):
            LEADS.lookup.enrich_profiles("handle", client=client, progress=False)
    assert fake_service.count(TIER) == 1
    assert fake_service.billed() == 0


def test_a_new_good_key_is_checked_once_then_remembered_by_the_cache(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    _warm(fake_service, cache)
    new_key = fake_service.rotate_key()  # answers stay shared: a rotated key keeps them
    with make_client(fake_service, api_key=new_key, cache=cache) as client:
        out = LEADS.lookup.enrich_profiles("handle", client=client, progress=False)
    assert out["lookup_status"].tolist() == ["ok", "ok", "ok", "not_found"]
    assert fake_service.count(TIER) == 1  # the one free check
    assert fake_service.billed() == 0
    fake_service.reset()
    with make_client(fake_service, api_key=new_key, cache=cache) as client:
        LEADS.lookup.enrich_profiles("handle", client=client, progress=False)
        client.profile("ada-lovelace")
    assert fake_service.count() == 0  # the store remembers the key worked


def test_the_cli_exits_3_for_a_revoked_key_over_a_warm_cache(
    fake_service, tmp_path, monkeypatch, capsys, isolated_default_client
):
    cache = tmp_path / "c.sqlite"
    _warm(fake_service, cache)
    leads = tmp_path / "leads.csv"
    LEADS.to_csv(leads, index=False)
    key = fake_service.issue_key()
    fake_service.revoke_key(key)
    monkeypatch.setenv("LOOKUP_API_KEY", key)
    monkeypatch.setenv("LOOKUP_BASE_URL", fake_service.base_url)
    monkeypatch.setenv("LOOKUP_CACHE", str(cache))
    out = tmp_path / "out.csv"
    code = cli.main(["enrich", str(leads), "-c", "handle", "-o", str(out), "--no-progress"])
    assert code == exits.EXIT_AUTH
    assert "AuthenticationError" in capsys.readouterr().err
    assert not out.exists()
    assert fake_service.billed() == 0
