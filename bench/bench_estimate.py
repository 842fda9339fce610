"""Estimate: the run's time against its estimate's, with fast, slow and no batch jobs.

Figure: elapsed / promise (``Estimate.seconds``) on a fresh cache, for 200 handles at 600/min:
batch jobs resolving 300 items a second (the emulator's default), 10 a second (as a
production-like server did, issue 39), and none (single calls at the limit). Goal: within the
issue's bound, 0.5 x promise - 5 s <= elapsed <= 2 x promise + 5 s. Then each batch service
again, a new Client on the same cache: its promise is at the speed the first run saw (goal:
ratio 0.5 to 2 on the slow one, no slack; the fast one's first job is done at its first poll,
so it teaches only a lower bound of its speed: the bound above).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import emulator_process, goal, leads

from lookup_pandas import Client

N, RATE = 200, 600

CASES = (
    ("fast batch jobs (300 items/s)", ("--batch-resolve-rate", "300")),
    ("slow batch jobs (10 items/s)", ("--batch-resolve-rate", "10")),
    ("no batch jobs", ("--no-batch",)),
)


def timed(url: str, key: str, cache: Path, prefix: str) -> tuple[float, float, str]:
    """A new Client's estimate of N new handles, then the run: (promise, elapsed, the line)."""
    frame = leads(N, N, prefix)
    with Client(api_key=key, base_url=url, cache=cache) as client:
        est = frame.lookup.estimate_profiles("handle", client=client)
        started = time.perf_counter()
        frame.lookup.enrich_profiles("handle", client=client, progress=False)
        elapsed = time.perf_counter() - started
    assert est.seconds is not None
    return est.seconds, elapsed, str(est)


def main() -> None:
    for label, args in CASES:
        with (
            tempfile.TemporaryDirectory() as tmp,
            emulator_process("--rate-limit", str(RATE), *args) as (url, key),
        ):
            cache = Path(tmp) / "c.sqlite"
            promise, elapsed, line = timed(url, key, cache, "eta")
            kept = promise / 2 - 5 <= elapsed <= 2 * promise + 5
            print(f"   {label}, fresh cache: {line}")
            print(
                f"      promised {promise:.1f} s, took {elapsed:.1f} s; ratio "
                f"{elapsed / promise:.2f} (goal: within 0.5x - 5 s .. 2x + 5 s); {goal(kept)}"
            )
            if "--no-batch" in args:
                continue
            promise, elapsed, _ = timed(url, key, cache, "again")
            ratio, slow = elapsed / promise, "10" in args
            kept = 0.5 <= ratio <= 2 if slow else promise / 2 - 5 <= elapsed <= 2 * promise + 5
            print(
                f"      the next process: promised {promise:.1f} s, took {elapsed:.1f} s; ratio "
                f"{ratio:.2f} (goal {'0.5 .. 2' if slow else 'as above'}); {goal(kept)}"
            )
