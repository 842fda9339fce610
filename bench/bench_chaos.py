"""Chaos at scale: 10,000 distinct handles (+500 unknown) at 20% faults under 12,000/min.

Figure: elapsed / (requests the emulator answered / limit per s): how close to the limit the
client stays while a fifth of the answers are 500, HTML 502, 503 or dropped connections.
Also: rows that ended "error" (goal 0 with max_retries=10: 0.2**11 per call), handles billed
more than once (goal 0), answers that were 429 (goal: no storms).
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from pathlib import Path

import pandas as pd

from lookup_pandas import Client
from lookup_pandas.testing import PROFILE, FakeService

KNOWN, UNKNOWN, LIMIT = 10_000, 500, 12_000


def main() -> None:
    handles = [f"chaos-{i:05d}" for i in range(KNOWN)]
    handles += [f"unknown-{i:04d}" for i in range(UNKNOWN)]
    frame = pd.DataFrame({"handle": handles})
    # single calls: the figure (the pace under faults); the default method with batch jobs:
    # every row right and paid once through faulty submits and polls (its bound is not the pace)
    for method in ("single", "auto"):
        with tempfile.TemporaryDirectory() as tmp, FakeService(rate_limit_per_minute=LIMIT) as svc:
            client = Client(
                api_key=svc.api_key,
                base_url=svc.base_url,
                cache=Path(tmp) / "c.sqlite",
                max_retries=10,
                backoff_base=0.05,
                backoff_max=1.0,
                max_workers=8,
            )
            # first contact, then the chaos (tests/integration/reliability/test_under_load.py's)
            client.credits_tier()
            svc.configure(fault_rate=0.2)
            started = time.perf_counter()
            out = frame.lookup.enrich_profiles(
                "handle", client=client, progress=False, method=method
            )
            elapsed = time.perf_counter() - started
            client.close()
            _report(method, svc, out, elapsed, len(handles))


def _report(method: str, svc: FakeService, out: pd.DataFrame, elapsed: float, n: int) -> None:
    records = svc.requests
    billed = Counter(r.param("handle") for r in records if r.path == PROFILE and r.billed)
    faults = sum(r.fault is not None for r in records)
    statuses = out["lookup_status"].value_counts().to_dict()
    head = (
        f"   {method}: {len(records)} requests ({faults} faults, "
        f"{svc.count(status=429)} answered 429) in {elapsed:.1f} s; "
    )
    if method == "single":
        bound = len(records) / (LIMIT / 60)
        print(
            f"{head}bound {bound:.1f} s; ratio {elapsed / bound:.3f}; statuses {statuses}; "
            f"billed more than once: {sum(k > 1 for k in billed.values())}; "
            f"never billed: {n - len(billed)}"
        )
    else:
        stats = svc.stats()
        paid = stats["billed_calls"] + stats["billed_batch_items"]
        print(
            f"{head}statuses {statuses}; paid {paid} for {n} distinct "
            f"(goal exactly {n}; batch items {stats['billed_batch_items']})"
        )


if __name__ == "__main__":
    main()
