"""Offline mode end to end: ``Client(offline=True)``, ``LOOKUP_OFFLINE=1`` and ``--offline``.

A cache (SQLite in tmp_path) is warmed online through the emulator: two people, a not-found
and a search page. Offline, at a dead loopback URL (nothing listens there) and at the live
emulator (which must then see no request at all, not even the first contact), enrichment gives
the cached rows as they were (ok, not_found) and ``not_cached`` for the rest; the search page
comes back from the cache; what is not cached raises NotCachedError naming the request, as do
``errors="raise"`` and the credits tier (never cached); ``refresh=True`` is a UsageError; the
estimate fetches nothing. Answers past ``expire_after`` are used offline (``lookup_expired``
True), while online the same run buys them again. The CLI's ``--offline`` and the environment
variable do the same.
"""

from __future__ import annotations

import io
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.api import functions as api
from lookup_pandas.testing import FakeService

from ..cli_helpers import CliMain
from ..enrich_helpers import lead_frame
from ..helpers import PROFILE, TIER, make_client

pytestmark = pytest.mark.timeout(120)

STATUS, ERROR = "lookup_status", "lookup_error"
CACHED = ["ada-offline", "grace-offline", "unknown-offline"]
NOT_CACHED_ERROR = "not in the cache, and offline: nothing was sent"
TITLE = "engineer"


def enrich(frame: pd.DataFrame, client: lp.Client, **kwargs: Any) -> pd.DataFrame:
    kwargs.setdefault("progress", False)
    return frame.lookup.enrich_profiles("handle", client=client, **kwargs)


def search(client: lp.Client, title: str = TITLE, **kwargs: Any) -> pd.DataFrame:
    kwargs.setdefault("max_records", 10)
    return lp.search_people(title, limit=10, client=client, progress=False, **kwargs)


def warm(svc: FakeService, cache: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The cache filled online: the people of CACHED (one not found) and a search page."""
    with make_client(svc, cache=cache) as client:
        enriched = enrich(lead_frame(CACHED), client)
        page = search(client)
    assert enriched[STATUS].tolist() == ["ok", "ok", "not_found"]
    assert len(page) == 10
    return enriched, page


def offline_client(svc: FakeService, cache: Path, base_url: str, **kwargs: Any) -> lp.Client:
    return lp.Client(api_key=svc.api_key, base_url=base_url, cache=cache, offline=True, **kwargs)


LEADS = ["ada-offline", "unknown-offline", "never-seen-offline", None, "grace-offline"]


def check_offline_rows(out: pd.DataFrame, online: pd.DataFrame) -> None:
    """The offline enrichment of LEADS against the warmed cache."""
    assert out[STATUS].tolist() == ["ok", "not_found", "not_cached", "invalid", "ok"]
    assert out.loc[2, ERROR] == NOT_CACHED_ERROR
    assert pd.isna(out.loc[0, ERROR]) and pd.isna(out.loc[4, ERROR])
    # the cached rows carry the very fields the online run bought
    fields = [c for c in online.columns if c.startswith("profile_")]
    pd.testing.assert_series_equal(
        out.loc[0, fields], online.loc[0, fields], check_names=False, check_dtype=False
    )
    pd.testing.assert_series_equal(
        out.loc[4, fields], online.loc[1, fields], check_names=False, check_dtype=False
    )
    assert out.loc[2, fields].isna().all()  # nothing for the row not cached


@dataclass(frozen=True)
class Gone:
    """A cache warmed through an emulator of the test's own, which has stopped since: its
    address refuses connections (answers are cached by URL, so the dead URL must be theirs)."""

    cache: Path
    base_url: str
    api_key: str
    online: pd.DataFrame
    page: pd.DataFrame


@pytest.fixture
def gone(tmp_path) -> Iterator[Gone]:
    """A cache warmed at an emulator that is then stopped; its port is then held by a socket
    that is bound but never listens, so no other test's emulator can take it: connecting is
    refused for as long as the test runs."""
    for attempt in range(3):
        cache = tmp_path / f"gone{attempt}.sqlite"
        with FakeService(rate_burst=50) as svc:
            online, page = warm(svc, cache)
            base_url, key = svc.base_url, svc.api_key
        port = urlsplit(base_url).port
        holder = socket.socket()
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            holder.bind(("127.0.0.1", port))
        except OSError:  # taken already by another test: warm another cache elsewhere
            holder.close()
            continue
        try:
            yield Gone(cache, base_url, key, online, page)
        finally:
            holder.close()
        return
    pytest.fail("could not keep a stopped emulator's port dead in 3 attempts")


def test_offline_at_a_dead_url_answers_from_the_cache(gone):
    with lp.Client(
        api_key=gone.api_key, base_url=gone.base_url, cache=gone.cache, offline=True
    ) as client:
        out = enrich(lead_frame(LEADS), client)
        again = search(client)
        assert client.profile("ada-offline")["handle"] == "ada-offline"
        assert client.profile("unknown-offline") is None  # a cached not-found
        with pytest.raises(lp.NotCachedError):
            client.profile("never-seen-offline")
    check_offline_rows(out, gone.online)
    pd.testing.assert_frame_equal(again, gone.page)


def test_online_the_dead_url_fails(gone):
    """The guard of the test above: online, the same run at that address cannot be made."""
    with (
        lp.Client(
            api_key=gone.api_key, base_url=gone.base_url, cache=gone.cache, backoff_max=0.1
        ) as client,
        pytest.raises(lp.ConfigurationError, match="cannot be reached"),
    ):
        enrich(lead_frame(LEADS), client, errors="raise")


def test_offline_at_the_live_emulator_sends_nothing_at_all(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    online, page = warm(fake_service, cache)
    before = len(fake_service.requests)
    sent, tier = fake_service.count(), fake_service.count(TIER)
    with offline_client(fake_service, cache, fake_service.base_url) as client:
        out = enrich(lead_frame(LEADS), client)
        again = search(client)
        summary_frame, summary = api.enrich_with_summary(
            lead_frame(LEADS), "handle", client=client, progress=False
        )
        for call in (
            lambda: client.profile("never-seen-offline"),
            lambda: search(client, title="designer"),
            lambda: lp.credits_tier(client=client),
        ):
            with pytest.raises(lp.NotCachedError):
                call()
        est = lead_frame(LEADS).lookup.estimate_profiles("handle", client=client)
    check_offline_rows(out, online)
    pd.testing.assert_frame_equal(again, page)
    pd.testing.assert_frame_equal(summary_frame, out)
    assert (summary.requests, summary.fetched, summary.credits) == (0, 0, 0)
    assert summary.statuses["not_cached"] == 1 and summary.cached == 3
    assert (est.to_fetch, est.method, est.cached) == (0, "none", 3)
    # the emulator received nothing: no profile, no search, no tier (no first contact)
    assert fake_service.count() == sent
    assert len(fake_service.requests) == before
    assert fake_service.count(TIER) == tier


def test_lookup_offline_in_the_environment_does_the_same(fake_service, tmp_path, monkeypatch):
    cache = tmp_path / "c.sqlite"
    online, page = warm(fake_service, cache)
    sent = fake_service.count()
    monkeypatch.setenv("LOOKUP_OFFLINE", "1")
    with make_client(fake_service, cache=cache) as client:  # offline not given: from the env
        assert client.settings.offline is True
        out = enrich(lead_frame(LEADS), client)
        again = search(client)
        with pytest.raises(lp.NotCachedError):
            client.profile("never-seen-offline")
    check_offline_rows(out, online)
    pd.testing.assert_frame_equal(again, page)
    assert fake_service.count() == sent
    # and 0 turns it off again: the row not cached is bought
    monkeypatch.setenv("LOOKUP_OFFLINE", "0")
    with make_client(fake_service, cache=cache) as client:
        assert enrich(lead_frame(LEADS), client)[STATUS].tolist()[2] == "ok"
    assert fake_service.billed(PROFILE, handle="never-seen-offline") == 1


def test_a_bad_lookup_offline_value_is_refused(fake_service, tmp_path, monkeypatch):
    monkeypatch.setenv("LOOKUP_OFFLINE", "maybe")
    with pytest.raises(lp.ConfigurationError, match="LOOKUP_OFFLINE"):
        make_client(fake_service, cache=tmp_path / "c.sqlite")


def test_expired_answers_are_used_offline_and_bought_again_online(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    leads = lead_frame(["ada-expired", "unknown-expired"])
    with make_client(fake_service, cache=cache, expire_after=1) as client:
        first = enrich(leads, client, provenance=True)
    assert first[STATUS].tolist() == ["ok", "not_found"]
    assert not first["lookup_expired"].any()
    time.sleep(1.5)  # past expire_after

    billed = fake_service.billed()
    with offline_client(fake_service, cache, fake_service.base_url, expire_after=1) as client:
        off = enrich(leads, client, provenance=True)
    assert off[STATUS].tolist() == ["ok", "not_found"]
    assert off["lookup_source"].tolist() == ["cache", "cache"]
    assert off["lookup_expired"].tolist() == [True, True]
    # the time the answers were bought, not now
    assert off["lookup_fetched_at"].tolist() == first["lookup_fetched_at"].tolist()
    assert fake_service.billed() == billed

    with make_client(fake_service, cache=cache, expire_after=1) as client:
        online = enrich(leads, client, provenance=True)
    assert online[STATUS].tolist() == ["ok", "not_found"]
    assert online["lookup_source"].tolist() == ["single", "single"]
    assert online["lookup_expired"].tolist() == [False, False]
    assert fake_service.billed() == billed + 2  # online, the expired answers are bought again
    assert (online["lookup_fetched_at"] > first["lookup_fetched_at"]).all()


def test_what_is_not_cached_raises_offline_and_names_the_request(fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    warm(fake_service, cache)
    sent = fake_service.count()
    with offline_client(fake_service, cache, fake_service.base_url) as client:
        # the second page of the cached search was never fetched
        with pytest.raises(lp.NotCachedError) as info:
            search(client, max_records=20)
        message = str(info.value)
        assert "/api/data/v1/people/search" in message and "cursor=" in message
        assert f"title={TITLE}" in message and "limit=10" in message

        with pytest.raises(lp.NotCachedError) as info:
            search(client, title="designer")
        assert "title=designer" in str(info.value)

        with pytest.raises(lp.NotCachedError) as info:
            client.profile("never-seen-offline")
        assert "handle=never-seen-offline" in str(info.value)

        with pytest.raises(lp.NotCachedError):
            enrich(lead_frame(["ada-offline", "never-seen-offline"]), client, errors="raise")
        # errors="raise" with every row cached raises nothing
        ok = enrich(lead_frame(CACHED[:2]), client, errors="raise")
        assert ok[STATUS].tolist() == ["ok", "ok"]

        with pytest.raises(lp.UsageError, match="refresh"):
            enrich(lead_frame(CACHED), client, refresh=True)

        with pytest.raises(lp.NotCachedError, match="never answered from the cache"):
            lp.credits_tier(client=client)

        est = lead_frame(LEADS).lookup.estimate_profiles("handle", client=client)
        assert (est.rows, est.valid, est.unique, est.cached) == (5, 4, 4, 3)
        assert (est.to_fetch, est.method) == (0, "none")
    assert fake_service.count() == sent


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def _leads_csv(tmp_path: Path) -> Path:
    path = tmp_path / "leads.csv"
    lead_frame(LEADS).to_csv(path, index=False)
    return path


def _offline_run(cli_main: CliMain, env: dict[str, str], how: str, *args: str):
    if how == "flag":
        return cli_main(env, *args, "--offline")
    return cli_main({**env, "LOOKUP_OFFLINE": "1"}, *args)


@pytest.mark.parametrize("how", ["flag", "env"])
def test_cli_enrich_offline_sends_nothing(cli_main, fake_service, tmp_path, how):
    cache = tmp_path / "c.sqlite"
    online, _ = warm(fake_service, cache)
    sent = fake_service.count()
    env = {
        "LOOKUP_API_KEY": fake_service.api_key,
        "LOOKUP_CACHE": str(cache),
        "LOOKUP_BASE_URL": fake_service.base_url,
    }
    args = ("enrich", str(_leads_csv(tmp_path)), "-c", "handle", "--no-progress")
    done = _offline_run(cli_main, env, how, *args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = pd.read_csv(io.StringIO(done.stdout))
    assert out[STATUS].tolist() == ["ok", "not_found", "not_cached", "invalid", "ok"]
    assert out.loc[2, ERROR] == NOT_CACHED_ERROR
    assert out.loc[0, "profile_id"] == online.loc[0, "profile_id"]
    assert fake_service.count() == sent  # nothing reached the emulator
    # online, the same command buys the row not cached
    bought = cli_main(env, *args)
    assert bought.returncode == 0, bought.stderr
    assert pd.read_csv(io.StringIO(bought.stdout))[STATUS].tolist()[2] == "ok"
    assert fake_service.billed(PROFILE, handle="never-seen-offline") == 1


@pytest.mark.parametrize("how", ["flag", "env"])
def test_cli_enrich_offline_at_a_dead_url(cli_main, gone, tmp_path, how):
    env = {"LOOKUP_API_KEY": gone.api_key, "LOOKUP_CACHE": str(gone.cache)}
    env["LOOKUP_BASE_URL"] = gone.base_url
    args = ("enrich", str(_leads_csv(tmp_path)), "-c", "handle", "--no-progress")
    done = _offline_run(cli_main, env, how, *args)
    assert done.returncode == 0, done.stderr
    out = pd.read_csv(io.StringIO(done.stdout))
    assert out[STATUS].tolist() == ["ok", "not_found", "not_cached", "invalid", "ok"]
    assert out.loc[0, "profile_id"] == gone.online.loc[0, "profile_id"]
    failed = cli_main(env, *args)  # without offline, the dead URL fails
    assert failed.returncode != 0
    assert "Traceback" not in failed.stderr
