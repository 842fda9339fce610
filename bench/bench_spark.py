"""Spark: 200,000 rows / 20,000 distinct handles on local[2], rate-bound, then a cached re-run.

200,000 rows cycling over 20,000 distinct handles, enriched by ``lookup_pandas.spark`` on a
``local[2]`` session against an emulator enforcing 3,000/min (burst 3, 20 ms latency) in this
process. ``method="single"``: batch jobs would need a few dozen calls, and the pace would not
show. Figures: elapsed (an action over the whole result) / (distinct / rate), goal <= 1.15
(Dask's is 1.09); then the same rows again over the warm cache, elapsed / the pandas accessor's
on the same rows and cache, goal <= 3 (Spark's start is paid once per session, not per call).

Smaller runs for development: ``BENCH_SPARK_DISTINCT=2000 python bench/run.py spark``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from common import goal, leads

import lookup_pandas as lp
import lookup_pandas.spark as lps
from lookup_pandas.testing import FakeService

ROWS_PER_HANDLE, LIMIT, LATENCY = 10, 3000, 0.02


def main() -> None:
    from pyspark.sql import SparkSession

    distinct = int(os.environ.get("BENCH_SPARK_DISTINCT", "20000"))
    rows = distinct * ROWS_PER_HANDLE
    frame = leads(rows, distinct, "spark")
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeService(rate_limit_per_minute=LIMIT, rate_burst=3, latency=LATENCY) as svc,
    ):
        os.environ["LOOKUP_API_KEY"] = svc.api_key  # the executors' environment
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the executors' Python is ours
        spark = (
            SparkSession.builder.master("local[2]")
            .appName("lookup-pandas-bench")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.pyspark.python", sys.executable)
            .config("spark.sql.shuffle.partitions", "4")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        try:
            sdf = spark.createDataFrame(frame).repartition(8)
            sdf.cache().count()  # the input materialised: the figure is the enrichment's
            client = lp.Client(
                api_key=svc.api_key, base_url=svc.base_url, cache=Path(tmp) / "c.sqlite"
            )
            started = time.perf_counter()
            out = lps.enrich_profiles(sdf, "handle", client=client, method="single")
            statuses = {r[0]: r[1] for r in out.groupBy("lookup_status").count().collect()}
            elapsed = time.perf_counter() - started
            bound = distinct / (LIMIT / 60)
            billed = svc.billed_handles()
            print(
                f"   spark local[2]: {rows:,} rows, {distinct:,} distinct at {LIMIT}/min: "
                f"{elapsed:.1f} s; elapsed / (distinct / rate) = {elapsed / bound:.3f} "
                f"{goal(elapsed / bound <= 1.15)} (goal <= 1.15); paid / distinct = "
                f"{sum(billed.values()) / distinct:.2f}; 429s {svc.rate_limited()}; {statuses}"
            )
            before = svc.count()
            started = time.perf_counter()
            lps.enrich_profiles(sdf, "handle", client=client, method="single").count()
            spark_rerun = time.perf_counter() - started
            started = time.perf_counter()
            frame.lookup.enrich_profiles("handle", client=client, progress=False)
            pandas_rerun = time.perf_counter() - started
            ratio = spark_rerun / pandas_rerun
            print(
                f"   cached re-run: spark {spark_rerun:.1f} s, pandas accessor "
                f"{pandas_rerun:.1f} s; "
                f"ratio {ratio:.2f} {goal(ratio <= 3)} (goal <= 3); requests sent "
                f"{svc.count() - before}"
            )
            client.close()
        finally:
            spark.stop()


if __name__ == "__main__":
    main()
