"""A Redis that can lose answers is named before it does (issue 42, item 3): real redis-servers.

Its settings read at first contact (CONFIG GET, else INFO) give one StorageWarning per process
and server, naming the URL without its password: an evicting policy under maxmemory, no
persistence. noeviction with an append-only file gives none. A database emptied since this
machine stored answers there (a note in the user cache dir, a marker key in Redis) warns before
the run buys them again; a machine without the note does not. Each test has its own user cache
dir (``XDG_CACHE_HOME``) and the servers' settings are forgotten between tests.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import redis

import lookup_pandas as lp
from lookup_pandas.cache import redis_checks

from ..cli_helpers import CliMain, emulator_env
from ..helpers import PROFILE, make_client
from ..redis_fixture import RedisServer

pytestmark = pytest.mark.timeout(120)

PASSWORD = "Pa55-w0rd-n0t-for-printing"
EVICTING = ("--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru")


@pytest.fixture(autouse=True)
def fresh_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """As a new process on a new machine: no server's settings read, no note kept."""
    monkeypatch.setattr(redis_checks, "_read", set())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    yield


def storage_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, lp.StorageWarning)]


def enrich(client: lp.Client, handles: list[str]) -> pd.DataFrame:
    frame = pd.DataFrame({"handle": handles})
    return frame.lookup.enrich_profiles("handle", client=client, method="single", progress=False)


def run_caught(svc: Any, url: str, handles: list[str]) -> tuple[list[str], pd.DataFrame]:
    """One Client's run on ``url``: the StorageWarnings it gave, and its frame."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with make_client(svc, cache=url) as client:
            out = enrich(client, handles)
    return storage_warnings(caught), out


# -- the settings ------------------------------------------------------------------------------


def test_an_evicting_redis_warns_once_naming_the_url_without_its_password(fake_service, tmp_path):
    svc = fake_service
    with RedisServer.start(tmp_path / "redis", *EVICTING, "--requirepass", PASSWORD) as server:
        url = f"redis://:{PASSWORD}@127.0.0.1:{server.port}/0"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with make_client(svc, cache=url) as client:
                client.profile("ada")
                client.profile("grace")
            with make_client(svc, cache=url) as client:  # the same process: told already
                client.profile("alan")
    (line,) = storage_warnings(caught)
    assert "\n" not in line
    assert line.startswith(f"Redis at redis://:***@127.0.0.1:{server.port}/0 can lose")
    assert "maxmemory-policy allkeys-lru" in line and "noeviction" in line
    assert PASSWORD not in line
    assert "a restart" not in line  # the fixture's append-only file keeps answers


def test_noeviction_with_an_append_only_file_gives_no_warning(fake_service, redis_url):
    warned, out = run_caught(fake_service, redis_url, ["ada", "grace"])
    assert warned == []
    assert set(out["lookup_status"]) == {"ok"}


def test_a_redis_that_keeps_nothing_on_disk_warns_that_a_restart_loses_every_answer(
    fake_service, tmp_path
):
    with RedisServer.start(tmp_path / "redis", "--appendonly", "no") as server:
        warned, _ = run_caught(fake_service, server.url, ["ada"])
    (line,) = warned
    assert 'a restart loses every answer (appendonly no, save "")' in line
    assert "evicted" not in line


def test_snapshots_alone_warn_that_a_crash_loses_the_answers_since_the_last(fake_service, tmp_path):
    rdb = ("--appendonly", "no", "--save", "3600 1")
    with RedisServer.start(tmp_path / "redis", *rdb) as server:
        warned, _ = run_caught(fake_service, server.url, ["ada"])
    (line,) = warned
    assert 'a crash loses those bought since the last snapshot (appendonly no, save "3600 1")' in (
        line
    )


def test_config_refused_the_info_path_gives_the_same_warning(fake_service, tmp_path):
    refused = (*EVICTING, "--rename-command", "CONFIG", '""')
    with RedisServer.start(tmp_path / "redis", *refused) as server:
        with server.client() as conn, pytest.raises(Exception, match="unknown command"):
            conn.config_get("maxmemory")
        warned, _ = run_caught(fake_service, server.url, ["ada"])
    (line,) = warned
    assert f"Redis at {server.url} can lose paid answers" in line
    assert "maxmemory 2097152, maxmemory-policy allkeys-lru" in line
    assert "a restart" not in line  # INFO says aof_enabled:1


def test_the_eviction_warning_comes_before_anything_is_bought(fake_service, tmp_path):
    # The figure of the issue: 1,152 of 1,500 answers evicted without a word. Now the user is
    # told before the first answer is bought (the eviction itself is Redis's).
    svc = fake_service
    with RedisServer.start(tmp_path / "redis", *EVICTING) as server:
        bought_at_warning: list[int] = []
        with warnings.catch_warnings():
            warnings.simplefilter("error", lp.StorageWarning)  # stops at the warning
            with make_client(svc, cache=server.url) as client:
                with pytest.raises(lp.StorageWarning, match="evicted and bought again"):
                    enrich(client, [f"lru{i:03d}" for i in range(50)])
                bought_at_warning.append(svc.count(PROFILE))
    assert bought_at_warning == [0]


# -- an emptied database -----------------------------------------------------------------------


def test_an_emptied_redis_warns_before_the_run_that_buys_again_once(fake_service, redis_url):
    svc = fake_service
    handles = ["ada", "grace", "alan"]
    assert run_caught(svc, redis_url, handles)[0] == []  # a fresh machine: no note, no warning
    assert svc.count(PROFILE) == 3
    with redis.Redis.from_url(redis_url) as conn:
        conn.flushdb()
    before = svc.count(PROFILE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with make_client(svc, cache=redis_url) as client:
            with warnings.catch_warnings():
                warnings.simplefilter("error", lp.StorageWarning)
                with pytest.raises(lp.StorageWarning, match="holds none of the answers"):
                    enrich(client, handles)
            assert svc.count(PROFILE) == before  # told before anything was bought
    assert storage_warnings(caught) == []
    warned, out = run_caught(svc, redis_url, handles)  # the next Client: told once, then buys
    assert warned == [
        f"Redis at {redis_url} holds none of the answers this machine stored there (restarted "
        "empty, flushed or evicted): this run buys them again"
    ]
    assert set(out["lookup_status"]) == {"ok"}
    assert run_caught(svc, redis_url, handles)[0] == []  # stored again: nothing to tell


def test_a_machine_without_the_note_is_not_warned_of_an_emptied_redis(
    fake_service, redis_url, tmp_path, monkeypatch
):
    svc = fake_service
    run_caught(svc, redis_url, ["ada"])
    with redis.Redis.from_url(redis_url) as conn:
        conn.flushdb()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-machine"))
    assert run_caught(svc, redis_url, ["ada"])[0] == []


def test_the_note_and_the_marker_hold_no_key_and_no_answer(fake_service, redis_url):
    svc = fake_service
    run_caught(svc, redis_url, ["ada"])
    (note,) = Path(os.environ["XDG_CACHE_HOME"]).rglob("redis-answers/*")
    assert note.read_bytes() == b""
    assert svc.api_key not in note.name
    with redis.Redis.from_url(redis_url) as conn:
        (marker,) = [k for k in conn.scan_iter(match="*answers-held")]
        assert conn.get(marker) == b"1"
        assert svc.api_key.encode() not in marker
        assert conn.ttl(marker) == -1  # kept as long as the server keeps anything


def test_the_cli_says_it_in_one_warning_line(fake_service, tmp_path, capsys):
    leads = tmp_path / "leads.csv"
    leads.write_text("handle\nada\ngrace\n")
    with RedisServer.start(tmp_path / "redis", *EVICTING, "--requirepass", PASSWORD) as server:
        url = f"redis://:{PASSWORD}@127.0.0.1:{server.port}/0"
        env = emulator_env(fake_service, url)
        done = CliMain(capsys)(
            env, "enrich", str(leads), "-c", "handle", "-o", "out.csv", cwd=tmp_path
        )
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "can lose paid answers" in x]
    assert line.startswith(
        f"lookup-pandas: warning: Redis at redis://:***@127.0.0.1:{server.port}/0"
    )
    assert PASSWORD not in done.stderr + done.stdout
