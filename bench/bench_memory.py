"""Memory: 100,000 rows / 20,000 distinct handles enriched, fetched over loopback.

Figure: (peak RSS - RSS at start) / memory of the result frame (deep). Goal <= 2. The emulator
runs in its own process and the enrichment in a fresh one, so neither's memory blurs the other.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from common import emulator_process

HERE = Path(__file__).resolve().parent
ROWS, DISTINCT = 100_000, 20_000

WORKER = r"""
import sys, time
sys.path.insert(0, sys.argv[3])
from common import leads
import lookup_pandas as lp

def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
frame = leads(%(rows)d, %(distinct)d, "mem")
client = lp.Client(api_key=sys.argv[1], base_url=sys.argv[2], cache=sys.argv[4],
                   rate_limit_per_minute=10**7, max_workers=8)
open("/proc/self/clear_refs", "w").write("5")   # reset the peak (VmHWM) to the current RSS
start = rss("VmRSS:")
t = time.perf_counter()
out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
elapsed = time.perf_counter() - t
peak = rss("VmHWM:")
size = int(out.memory_usage(deep=True).sum())
ok = int((out["lookup_status"] == "ok").sum())
print(f"RESULT {start} {peak} {size} {elapsed:.1f} {ok}")
"""


def main() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    with emulator_process("--rate-limit", "0") as (url, key):
        with tempfile.TemporaryDirectory() as tmp:
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    WORKER % {"rows": ROWS, "distinct": DISTINCT},
                    key,
                    url,
                    str(HERE),
                    str(Path(tmp) / "c.sqlite"),
                ],
                capture_output=True,
                text=True,
                timeout=900,
                env=env,
            )
        line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT")), None)
        if line is None:
            print("   worker failed:", done.stderr[-2000:])
            return
        start, peak, size, elapsed, ok = line.split()[1:]
        start, peak, size = int(start), int(peak), int(size)
        print(
            f"   {ROWS} rows / {DISTINCT} distinct in {float(elapsed):.1f} s, {ok} ok; "
            f"RSS start {start / 2**20:.0f} MiB, peak {peak / 2**20:.0f} MiB; result frame "
            f"{size / 2**20:.0f} MiB; ratio {(peak - start) / size:.2f} (goal <= 2)"
        )


if __name__ == "__main__":
    main()
