"""Latency-bound: 1,000 distinct handles, no rate limit, 50 ms latency, max_workers=8.

Figure: elapsed / (1000 x 0.05 / 8), for the default method against a service without batch
jobs, then with them. Goal <= 1.15. The emulator runs unmetered in its own process (as a real
server would not share our GIL); its tier reports no limit, so the client does not pace at all.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import emulator_process, leads, naive_loop

from lookup_pandas import Client

N, LATENCY, WORKERS = 1000, 0.05, 8


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
    with emulator_process("--latency", str(LATENCY), "--rate-limit", "0") as (url, key):
        sample = [f"naive-{h}" for h in frame["handle"].tolist()[:200]]
        naive = naive_loop(url, key, sample) * N / len(sample)
        print(
            f"   naive sequential loop (200 timed, scaled to {N}): {naive:.1f} s; "
            f"{naive / (first or naive):.1f}x slower than the first case"
        )


if __name__ == "__main__":
    main()
