"""Latency-bound: 1,000 distinct handles, no rate limit, 50 ms latency, max_workers=8.

Figure: elapsed / (1000 x 0.05 / 8), for the default method against a service without batch
jobs, then with them. Goal <= 1.15. The emulator runs unmetered in its own process (as a real
server would not share our GIL); its tier reports no limit, so the client does not pace at all.

The floor, measured in the same run: a bare ``requests_cache.CachedSession`` on SQLite, shared
by 8 threads, fetching the same number of other handles (a miss and its store each, nothing
else), and a bare ``requests.Session`` likewise (no cache at all).
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
import requests_cache
from common import emulator_process, leads, naive_loop

from lookup_pandas import Client
from lookup_pandas.testing import PROFILE

N, LATENCY, WORKERS = 1000, 0.05, 8


def bare_threads(url: str, key: str, session: requests.Session, prefix: str) -> float:
    """Seconds for N misses by WORKERS threads sharing ``session`` (after a warm-up)."""
    session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=2 * WORKERS))

    def one(handle: str) -> None:
        session.get(
            url + PROFILE, params={"handle": handle}, headers={"X-service-apikey": key}, timeout=30
        )

    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(one, [f"{prefix}-warm-{i}" for i in range(2 * WORKERS)]))
        started = time.perf_counter()
        list(pool.map(one, [f"{prefix}-{i}" for i in range(N)]))
        return time.perf_counter() - started


def main() -> None:
    frame = leads(N, N, "lat")
    bound = N * LATENCY / WORKERS
    first: float | None = None
    for label, batch in (
        ("default method, batch off", "--no-batch"),
        ("default method, batch on", "--batch"),
    ):
        with (
            tempfile.TemporaryDirectory() as tmp,
            emulator_process("--latency", str(LATENCY), "--rate-limit", "0", batch) as (url, key),
        ):
            client = Client(
                api_key=key,
                base_url=url,
                cache=Path(tmp) / "c.sqlite",
                max_workers=WORKERS,
            )
            started = time.perf_counter()
            out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
            elapsed = time.perf_counter() - started
            client.close()
            first = elapsed if first is None else first
            failed = int((out["lookup_status"] != "ok").sum())
            print(
                f"   {label}: {N} handles in {elapsed:.2f} s; bound {bound:.2f} s; ratio "
                f"{elapsed / bound:.3f} (goal <= 1.15); failed rows {failed}"
            )
    with (
        tempfile.TemporaryDirectory() as tmp,
        emulator_process("--latency", str(LATENCY), "--rate-limit", "0", "--no-batch") as (
            url,
            key,
        ),
    ):
        for label, session in (
            (
                "bare CachedSession (SQLite), 8 threads",
                requests_cache.CachedSession(str(Path(tmp) / "floor.sqlite"), wal=True),
            ),
            ("bare requests.Session, 8 threads", requests.Session()),
        ):
            with session:
                elapsed = bare_threads(url, key, session, label.split()[1])
            print(
                f"   floor, {label}: {N} handles in {elapsed:.2f} s; ratio {elapsed / bound:.3f}; "
                f"the default method's is {(first or elapsed) / elapsed:.2f}x this"
            )
        sample = [f"naive-{h}" for h in frame["handle"].tolist()[:200]]
        naive = naive_loop(url, key, sample) * N / len(sample)
        print(
            f"   naive sequential loop (200 timed, scaled to {N}): {naive:.1f} s; "
            f"{naive / (first or naive):.1f}x slower than the first case"
        )


if __name__ == "__main__":
    main()
