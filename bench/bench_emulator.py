"""Emulator overhead: sequential keep-alive requests at 10 ms configured latency.

Figure: median time per request / configured latency. Bound: 1.0; Nagle's algorithm with
delayed ACKs would show as ~5 (an extra ~40 ms) if TCP_NODELAY were missing.
"""

from __future__ import annotations

import statistics
import time

import requests

from lookup_pandas.testing import PROFILE, FakeService

N, LATENCY = 100, 0.01


def main() -> None:
    with FakeService(latency=LATENCY, rate_limit_per_minute=None) as svc, requests.Session() as s:
        times = []
        for i in range(N):
            t = time.perf_counter()
            r = s.get(
                svc.base_url + PROFILE,
                params={"handle": f"e{i}"},
                headers={"X-service-apikey": svc.api_key},
                timeout=5,
            )
            r.raise_for_status()
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        print(
            f"   median {med * 1000:.1f} ms per request at {LATENCY * 1000:.0f} ms latency; "
            f"ratio {med / LATENCY:.2f}; p95 {sorted(times)[int(N * 0.95)] * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
