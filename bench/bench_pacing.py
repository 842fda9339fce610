"""Pacing: distinct profiles through 4 threads under a smooth 3,000/min limit, 40 ms latency.

Figure: elapsed / (calls / limit per second), the limit learned from the tier endpoint.
Bound: 1.0 is the limit itself; the client paces at 95% of it, so ~1.05 is ideal. Also prints
how many answers were 429 (goal: 0, no storms).
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lookup_pandas import Client
from lookup_pandas.testing import PROFILE, FakeService

CALLS, LIMIT, LATENCY, WORKERS = 300, 3000, 0.04, 4


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeService(
        latency=LATENCY, rate_limit_per_minute=LIMIT
    ) as svc:
        client = Client(api_key=svc.api_key, base_url=svc.base_url,
                        cache=Path(tmp) / "c.sqlite", max_workers=WORKERS)
        handles = [f"bench-pace-{i}" for i in range(CALLS)]
        started = time.perf_counter()
        with ThreadPoolExecutor(WORKERS) as pool:
            results = list(pool.map(client.profile, handles))
        elapsed = time.perf_counter() - started
        bound = CALLS / (LIMIT / 60)
        assert all(r is not None for r in results)
        print(f"   {CALLS} calls in {elapsed:.2f} s; bound {bound:.2f} s at {LIMIT}/min; "
              f"ratio {elapsed / bound:.3f}; 429s {svc.count(status=429)}; "
              f"billed per handle max {max(svc.billed(PROFILE, handle=h) for h in handles[:50])}")


if __name__ == "__main__":
    main()
