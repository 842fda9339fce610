"""Rate-bound: 600 distinct handles under a smooth 3,000/min limit with 40 ms latency.

Figure: elapsed / (600 / 50 per s), the limit learned from the tier endpoint. Goal <= 1.10 with
0 failed rows and no 429 storms. The client paces at 95% of the limit, so 1.053 is the floor.
Then the naive sequential requests loop over the same handles, for comparison.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import leads, naive_loop

from lookup_pandas import Client
from lookup_pandas.testing import PROFILE, FakeService

N, LIMIT, LATENCY = 600, 3000, 0.04


def main() -> None:
    frame = leads(N, N, "rate")
    bound = N / (LIMIT / 60)
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeService(latency=LATENCY, rate_limit_per_minute=LIMIT) as svc,
    ):
        client = Client(api_key=svc.api_key, base_url=svc.base_url, cache=Path(tmp) / "c.sqlite")
        started = time.perf_counter()
        out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
        elapsed = time.perf_counter() - started
        failed = int((out["lookup_status"] != "ok").sum())
        print(
            f"   lookup_pandas: {N} handles in {elapsed:.2f} s; bound {bound:.2f} s; "
            f"ratio {elapsed / bound:.3f} (goal <= 1.10); failed rows {failed}; "
            f"429s {svc.count(status=429)}; billed {svc.billed(PROFILE)}"
        )
        svc.reset()
        naive = naive_loop(svc.base_url, svc.api_key, frame["handle"].tolist())
        print(
            f"   naive sequential requests loop: {naive:.2f} s; ratio {naive / bound:.3f} "
            f"({naive / elapsed:.1f}x slower); 429s {svc.count(status=429)}"
        )


if __name__ == "__main__":
    main()
