"""Client overhead: CPU time per fetched profile (cache misses), as a ratio to a bare Session.

Figure: ``time.process_time`` per request of this process, for N cache misses each, against the
emulator in its own process (unmetered, no latency), so only the client's own work counts:

- a bare ``requests.Session`` (the floor: HTTP and nothing else);
- a bare ``requests_cache.CachedSession`` on SQLite (a miss, then the store);
- ``Client.profile``, sequentially (envelope checks, stats, pacing, cache);
- ``enrich_profiles`` with 8 workers (plus normalising, the pool and the frame), by single
  calls (``method="single"``) and by batch jobs (``method="batch"``, the emulator's batch jobs
  on, resolving items at their default pace).

Goals, against the bare ``CachedSession`` (a miss and its store: the least a cache costs):
``Client.profile`` <= 1.2 and ``enrich_profiles`` <= 1.5 times it; the batch path's CPU per
profile at most the single path's (ratio batch / single <= 1). The ratio to the bare Session
is printed too.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import requests
import requests_cache
from common import emulator_process, leads

from lookup_pandas import Client
from lookup_pandas.testing import PROFILE

N = 600


def cpu_per_call(run: Callable[[list[str]], object], handles: list[str]) -> float:
    """CPU seconds of this process per handle, for ``run(handles)``."""
    started = time.process_time()
    run(handles)
    return (time.process_time() - started) / len(handles)


def main() -> None:
    with (
        tempfile.TemporaryDirectory() as tmp,
        emulator_process("--latency", "0", "--rate-limit", "0") as (url, key),
    ):
        headers = {"X-service-apikey": key}

        def bare(handles: list[str]) -> None:
            with requests.Session() as s:
                for h in handles:
                    s.get(url + PROFILE, params={"handle": h}, headers=headers, timeout=30)

        def cached_session(handles: list[str]) -> None:
            with requests_cache.CachedSession(str(Path(tmp) / "bare.sqlite"), wal=True) as s:
                for h in handles:
                    s.get(url + PROFILE, params={"handle": h}, headers=headers, timeout=30)

        def client_profile(handles: list[str]) -> None:
            with Client(api_key=key, base_url=url, cache=Path(tmp) / "client.sqlite") as c:
                for h in handles:
                    c.profile(h)

        def enrich(method: str) -> Callable[[list[str]], None]:
            def run(handles: list[str]) -> None:
                cache = Path(tmp) / f"enrich-{method}.sqlite"
                with Client(api_key=key, base_url=url, cache=cache, max_workers=8) as c:
                    frame = leads(len(handles), len(handles), "")
                    frame["handle"] = handles
                    frame.lookup.enrich_profiles("handle", client=c, progress=False, method=method)

            return run

        bare([f"warm-{i}" for i in range(50)])  # connections, imports, the emulator's caches
        paths = {
            "bare requests.Session": bare,
            "requests_cache.CachedSession (miss + store)": cached_session,
            "Client.profile, sequential": client_profile,
            "enrich_profiles, 8 workers, single calls": enrich("single"),
            "enrich_profiles, 8 workers, batch jobs": enrich("batch"),
        }
        cpu = {
            name: cpu_per_call(run, [f"ovh-{i}-{n:05d}" for n in range(N)])
            for i, (name, run) in enumerate(paths.items())
        }
        floor = cpu["bare requests.Session"]
        cached = cpu["requests_cache.CachedSession (miss + store)"]
        goals = {
            "Client.profile, sequential": 1.2,
            "enrich_profiles, 8 workers, single calls": 1.5,
            "enrich_profiles, 8 workers, batch jobs": 1.5,
        }
        for name, seconds in cpu.items():
            versus = (
                f", {seconds / cached:.2f}x the CachedSession (goal <= {goals[name]})"
                if name in goals
                else ""
            )
            print(
                f"   {name}: {seconds * 1000:.2f} ms CPU per request, "
                f"{seconds / floor:.2f}x the bare Session{versus}"
            )
        single, batch = (
            cpu[f"enrich_profiles, 8 workers, {m}"] for m in ("single calls", "batch jobs")
        )
        print(f"   batch jobs / single calls, CPU per profile: {batch / single:.2f} (goal <= 1)")


if __name__ == "__main__":
    main()
