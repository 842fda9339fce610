"""Private by default, against the emulator: the cache, the store and their -wal / -shm files are
0600 and the directories the library makes 0700, whatever the umask; what existed already and is
open to others is named in one InsecureCacheWarning (with the chmod that fixes it) and left as
it is.

A Client under a given umask runs in a subprocess (the umask is process-wide; this process may
run threads), used once against the emulator, and reports the mode of everything under a root
while it is still open (SQLite removes -wal and -shm when the last connection closes).
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from lookup_pandas import InsecureCacheWarning
from lookup_pandas.store import store_path

from ..helpers import PROFILE, make_client

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")

_CLIENT_UNDER_UMASK = """
import json, os, sys
args = json.loads(sys.argv[1])
os.umask(args["umask"])
import lookup_pandas as lp
from lookup_pandas.config.settings import default_cache_path

def client():
    return lp.Client(api_key=args["api_key"], base_url=args["base_url"], cache=args["cache"],
                     backoff_base=0.01, backoff_max=0.2)

first = client()
assert first.profile("ada")["handle"] == "ada"
modes = {}
for dirpath, dirnames, filenames in os.walk(args["root"]):
    for name in dirnames + filenames:
        path = os.path.join(dirpath, name)
        modes[os.path.relpath(path, args["root"])] = os.stat(path).st_mode & 0o7777
first.close()
with client() as second:  # the files work: the answer is read back from the cache
    assert second.profile("ada")["handle"] == "ada"
    hits = second.stats.cache_hits
print(json.dumps({"modes": modes, "default": str(default_cache_path()), "hits": hits,
                  "umask": os.umask(0)}))
"""


def client_under_umask(
    svc: Any, umask: int, root: Path, cache: str | None, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run a Client (cache: a path, or None for the default) in a subprocess of ``umask``."""
    args = {
        "umask": umask,
        "api_key": svc.api_key,
        "base_url": svc.base_url,
        "cache": cache if cache is not None else True,
        "root": str(root),
    }
    base = {k: v for k, v in os.environ.items() if not k.startswith(("LOOKUP_", "XDG_CACHE"))}
    proc = subprocess.run(
        [sys.executable, "-c", _CLIENT_UNDER_UMASK, json.dumps(args)],
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "InsecureCacheWarning" not in proc.stderr, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    assert out["umask"] == umask  # the library never changed it
    assert out["hits"] == 1
    return out


def sqlite_set(cache: str) -> set[str]:
    """The cache file, the store file, and the -wal and -shm of each (relative names)."""
    store = str(store_path(Path(cache)))
    return {f + s for f in (cache, store) for s in ("", "-wal", "-shm")}


@pytest.mark.parametrize("umask", [0o022, 0o277])
def test_the_default_cache_dir_and_its_files_are_private(fake_service, tmp_path, umask):
    xdg = tmp_path / "xdg"  # not there yet: the library makes it, and lookup_pandas/ in it
    out = client_under_umask(fake_service, umask, tmp_path, None, {"XDG_CACHE_HOME": str(xdg)})
    assert out["default"] == str(xdg / "lookup_pandas" / "http_cache.sqlite")
    cache_dir = os.path.join("xdg", "lookup_pandas")
    assert out["modes"] == {
        "xdg": 0o700,
        cache_dir: 0o700,
        **dict.fromkeys(sqlite_set(os.path.join(cache_dir, "http_cache.sqlite")), 0o600),
    }
    assert fake_service.count(PROFILE) == 1


@pytest.mark.parametrize("umask", [0o022, 0o277])
def test_an_explicit_path_in_new_directories_is_private(fake_service, tmp_path, umask):
    cache = tmp_path / "team" / "leads" / "leads.sqlite"
    out = client_under_umask(fake_service, umask, tmp_path, str(cache))
    team, leads = "team", os.path.join("team", "leads")
    assert out["modes"] == {
        team: 0o700,
        leads: 0o700,
        **dict.fromkeys(sqlite_set(os.path.join(leads, "leads.sqlite")), 0o600),
    }


@pytest.mark.parametrize("umask", [0o022, 0o277])
def test_an_explicit_path_in_an_existing_directory_is_private(fake_service, tmp_path, umask):
    out = client_under_umask(fake_service, umask, tmp_path, str(tmp_path / "leads.sqlite"))
    assert out["modes"] == dict.fromkeys(sqlite_set("leads.sqlite"), 0o600)


def test_a_path_without_a_suffix_is_private_where_sqlite_puts_it(fake_service, tmp_path):
    # requests-cache adds .sqlite: the file made private must be the one it opens
    out = client_under_umask(fake_service, 0o022, tmp_path, str(tmp_path / "leads"))
    assert out["modes"] == {
        **dict.fromkeys(("leads.sqlite", "leads.sqlite-wal", "leads.sqlite-shm"), 0o600),
        **dict.fromkeys(("leads.store.sqlite", "leads.store.sqlite-wal"), 0o600),
        "leads.store.sqlite-shm": 0o600,
    }


# -- what existed already: one warning, nothing changed -----------------------------------------


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def insecure(caught: list[warnings.WarningMessage]) -> list[warnings.WarningMessage]:
    return [w for w in caught if issubclass(w.category, InsecureCacheWarning)]


def test_an_open_cache_file_warns_once_and_is_left_as_it_is(fake_service, tmp_path):
    cache = tmp_path / "leads.sqlite"
    sqlite3.connect(cache).close()
    cache.chmod(0o644)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with make_client(fake_service, cache=cache) as client:
            assert client.profile("ada")["handle"] == "ada"
        with make_client(fake_service, cache=cache) as again:  # same process: said already
            assert again.profile("ada")["handle"] == "ada"
    [warning] = insecure(caught)
    text = str(warning.message)
    assert f"{cache} (mode 0644)" in text
    assert text.endswith(f"run: chmod 600 {cache}")
    assert warning.filename == make_client.__code__.co_filename  # the line making the Client
    assert mode_of(cache) == 0o644
    assert mode_of(store_path(cache)) == 0o600  # the store beside it is new: private


def test_an_open_default_dir_warns_once_and_is_left_as_it_is(
    fake_service, tmp_path, monkeypatch, isolated_default_client
):
    monkeypatch.delenv("LOOKUP_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    own = tmp_path / "lookup_pandas"
    own.mkdir()
    own.chmod(0o755)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with make_client(fake_service, cache=True) as client:
            assert client.settings.cache_path == own / "http_cache.sqlite"
            client.profile("ada")
        with make_client(fake_service, cache=True) as again:
            again.profile("ada")
    [warning] = insecure(caught)
    assert f"{own} (directory, mode 0755)" in str(warning.message)
    assert str(warning.message).endswith(f"run: chmod 700 {own}")
    assert mode_of(own) == 0o755
    assert mode_of(own / "http_cache.sqlite") == 0o600
    assert mode_of(own / "http_cache.store.sqlite") == 0o600


def test_an_open_store_file_warns_once(fake_service, tmp_path):
    cache = tmp_path / "leads.sqlite"
    store = store_path(cache)
    sqlite3.connect(store).close()
    store.chmod(0o640)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for handle in ("ada", "grace"):
            with make_client(fake_service, cache=cache) as client:
                client.profile(handle)
    [warning] = insecure(caught)
    assert str(warning.message).endswith(f"run: chmod 600 {store}")
    assert mode_of(store) == 0o640


def test_an_explicit_path_in_a_shared_sticky_dir_does_not_warn(fake_service, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp: the user's choice
    cache = shared / "leads.sqlite"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with make_client(fake_service, cache=cache) as client:
            client.profile("ada")
    assert insecure(caught) == []
    assert mode_of(shared) == 0o1777
    assert mode_of(cache) == mode_of(store_path(cache)) == 0o600
