"""Rate-bound: 600 distinct handles under a smooth 3,000/min limit with 40 ms latency.

Figure: elapsed / (600 / 50 per s), the limit learned from the tier endpoint, for the default
method against a service without batch jobs, then single calls, then the default method with
batch jobs, then the default method as a background job (``background=True``: the job's own
thread, ``job.result()`` waited for). Goal <= 1.10 with 0 failed rows and no 429 storms
(without batch jobs). The client
paces at 95% of the limit, so 1.053 is the floor. Then the naive sequential requests loop over
the same handles, for comparison with the first case.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import leads, naive_loop

from lookup_pandas import Client
from lookup_pandas.testing import FakeService

N, LIMIT, LATENCY = 600, 3000, 0.04


#: (label, method, the emulator has batch jobs, in the background): the default method against
#: a service without batch jobs is the figure (issue 22: it once ran 3x the bound there,
#: unseen, because no benchmark ran it); single calls, a service with batch jobs, and the
#: figure's case as a background job (issue 25) for comparison.
CASES = (("default method, batch off", "auto", False, False), ("single", "single", False, False),
         ("default method, batch on", "auto", True, False),
         ("default method, batch off, background=True", "auto", False, True))  # fmt: skip


def main() -> None:
    frame = leads(N, N, "rate")
    bound = N / (LIMIT / 60)
    first: float | None = None
    with FakeService(latency=LATENCY, rate_limit_per_minute=LIMIT) as svc:
        for label, method, batch, background in CASES:
            svc.reset()
            svc.configure(batch=batch)
            with tempfile.TemporaryDirectory() as tmp:
                cache = Path(tmp) / "c.sqlite"
                client = Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache)
                started = time.perf_counter()
                out = frame.lookup.enrich_profiles(
                    "handle", client=client, progress=False, method=method, background=background
                )
                out = out.result() if background else out
                elapsed = time.perf_counter() - started
                client.close()
            first = elapsed if first is None else first
            failed = int((out["lookup_status"] != "ok").sum())
            goal = " (goal <= 1.10)" if not batch else " (batch jobs: the pace hardly shows)"
            print(
                f"   {label}: {N} handles in {elapsed:.2f} s; bound {bound:.2f} s; ratio "
                f"{elapsed / bound:.3f}{goal}; failed rows {failed}; "
                f"429s {svc.count(status=429)}; billed {svc.billed()}"
            )
        svc.reset()
        naive = naive_loop(svc.base_url, svc.api_key, frame["handle"].tolist())
        print(
            f"   naive sequential requests loop: {naive:.2f} s; ratio {naive / bound:.3f} "
            f"({naive / (first or elapsed):.1f}x slower than the first case); "
            f"429s {svc.count(status=429)}"
        )


if __name__ == "__main__":
    main()
