"""The Dask case of bench_scale: ddf.lookup on a 4-worker LocalCluster, rate-bound.

200,000 rows cycling over 20,000 distinct handles, 16 partitions, enriched on a LocalCluster of
4 worker processes (the key in their environment, one cache file: one shared pace) against an
emulator enforcing 3,000/min (burst 3, 20 ms latency) in this process, so its counters can be
read. ``method="single"``: batch jobs would need a few dozen calls, and the pace would not
show. Figure: elapsed (graph build to the last partition) / (distinct / rate), goal <= 1.15,
the bound of one process; also the share of answers that were 429 and paid / distinct.

Smaller runs for development: ``BENCH_DASK_DISTINCT=2000 python bench/run.py scale``.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import dask.dataframe as dd
from common import leads
from distributed import Client as DaskClient
from distributed import LocalCluster

import lookup_pandas as lp
from lookup_pandas.testing import FakeService

ROWS_PER_HANDLE, WORKERS, LIMIT, LATENCY, PARTITIONS = 10, 4, 3000, 0.02, 16


def dask_case() -> None:
    distinct = int(os.environ.get("BENCH_DASK_DISTINCT", "20000"))
    rows = distinct * ROWS_PER_HANDLE
    frame = dd.from_pandas(leads(rows, distinct, "dask"), npartitions=PARTITIONS)
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeService(rate_limit_per_minute=LIMIT, rate_burst=3, latency=LATENCY) as svc,
    ):
        os.environ["LOOKUP_API_KEY"] = svc.api_key  # the workers' environment
        client = lp.Client(api_key=svc.api_key, base_url=svc.base_url, cache=Path(tmp) / "c.sqlite")
        with (
            LocalCluster(
                n_workers=WORKERS,
                threads_per_worker=2,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
            ) as cluster,
            DaskClient(cluster),
        ):
            started = time.perf_counter()
            out = frame.lookup.enrich_profiles("handle", client=client, method="single")
            statuses = out["lookup_status"].value_counts().compute().to_dict()
            elapsed = time.perf_counter() - started
        bound = distinct / (LIMIT / 60)
        billed = svc.billed_handles()
        answered, limited = svc.count(), svc.rate_limited()
    ratio = elapsed / bound
    print(
        f"   dask: {rows:,} rows, {distinct:,} distinct, {WORKERS} workers at {LIMIT}/min: "
        f"{elapsed:.1f} s; elapsed / (distinct / rate) = {ratio:.3f} "
        f"(goal <= 1.15: {'met' if ratio <= 1.15 else 'MISSED'})"
    )
    print(
        f"   answered 429: {limited} of {answered} ({limited / max(answered, 1):.1%}); "
        f"paid / distinct = {sum(billed.values()) / distinct:.2f}; statuses {statuses}"
    )
