"""Batch jobs: 5,000 distinct handles (200 unknown) at a 60/min limit, 300 items/s resolve rate.

Figures: elapsed / (resolve time + the fewest paced calls at the client's pace), goal <= 1.5;
the single-call bound (5,000 calls at 1/s) / elapsed, goal >= 50; billed / distinct, goal
exactly 1.00. Then a second run with a new Client on the same cache: requests sent, goal 0.
The emulator runs in-process (the serve CLI has no batch knobs) so its counters can be read.
"""

from __future__ import annotations

import math
import tempfile
import time
from pathlib import Path

import pandas as pd
from common import goal

import lookup_pandas as lp
from lookup_pandas.api import functions as api
from lookup_pandas.testing import BATCH, FakeService

KNOWN, UNKNOWN, LIMIT, RESOLVE_RATE = 4800, 200, 60, 300.0


def _advancing_polls(svc: FakeService) -> int:
    """Polls that brought something new: for each job, one per distinct cursor below its size
    (a cursor is polled again only while nothing new had come)."""
    jobs = svc.batch_jobs
    seen: set[tuple[str, int]] = set()
    for r in svc.requests:
        if r.path == BATCH and r.method == "GET" and r.status == 200:
            job_id, after = r.param("job_id"), int(r.param("after") or 0)
            if job_id in jobs and after < len(jobs[job_id]):
                seen.add((job_id, after))
    return len(seen)


def main() -> None:
    handles = [f"batch-{i:05d}" for i in range(KNOWN)]
    handles += [f"unknown-{i:04d}" for i in range(UNKNOWN)]
    frame = pd.DataFrame({"handle": handles})
    distinct = len(handles)
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeService(rate_limit_per_minute=LIMIT, batch_resolve_rate=RESOLVE_RATE) as svc,
    ):
        cache = Path(tmp) / "c.sqlite"
        client = lp.Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache)
        started = time.perf_counter()
        out, summary = api.enrich_with_summary(
            frame, "handle", client=client, method="auto", progress=False
        )
        elapsed = time.perf_counter() - started

        pace = client.rate_limit_per_minute or math.inf
        page = svc.knobs.batch_page_size
        jobs = svc.batch_jobs
        submits = svc.count(BATCH, method="POST")
        polls = svc.count(BATCH, method="GET")
        min_polls = sum(math.ceil(len(inputs) / page) for inputs in jobs.values())
        min_calls = submits + min_polls
        resolve = distinct / RESOLVE_RATE
        slot = 60.0 / pace
        bound = resolve + min_calls * slot
        single_bound = distinct / (LIMIT / 60.0)
        billed = svc.billed()
        advancing = _advancing_polls(svc)
        statuses = out["lookup_status"].value_counts().to_dict()

        print(
            f"   {distinct} distinct handles ({UNKNOWN} unknown) in {elapsed:.1f} s: "
            f"{len(jobs)} jobs, {submits} submits, {polls} polls ({advancing} brought new "
            f"results, {polls - advancing} nothing new; fewest possible {min_polls}); "
            f"{summary.requests} requests sent (emulator saw {len(svc.requests)}), "
            f"{svc.count(status=429)} answered 429; billed {billed}; statuses {statuses}"
        )
        print(
            f"   bound = {distinct} / {RESOLVE_RATE:g} items/s (resolve {resolve:.1f} s) + "
            f"({submits} submits + sum over jobs of ceil(results / {page}) = {min_polls} polls) "
            f"x 60 / {pace:g} per min ({slot:.3f} s a slot) = {resolve:.1f} + "
            f"{min_calls * slot:.1f} = {bound:.1f} s"
        )
        ratio = elapsed / bound
        print(f"   elapsed / bound: {ratio:.3f} (goal <= 1.5: {goal(ratio <= 1.5)})")
        speedup = single_bound / elapsed
        print(
            f"   single-call bound ({distinct} calls at {LIMIT}/min = {single_bound:.0f} s) "
            f"/ elapsed: {speedup:.1f} (goal >= 50: {goal(speedup >= 50)})"
        )
        per_handle = billed / distinct
        print(
            f"   billed / distinct: {billed} / {distinct} = {per_handle:.2f} "
            f"(goal exactly 1.00: {goal(billed == distinct)})"
        )

        before = len(svc.requests)
        again = lp.Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache)
        started = time.perf_counter()
        _, cached = api.enrich_with_summary(
            frame, "handle", client=again, method="auto", progress=False
        )
        rerun = time.perf_counter() - started
        seen = len(svc.requests) - before
        print(
            f"   cached re-run (new Client, same cache): {cached.requests} requests sent "
            f"(emulator saw {seen}) in {rerun:.2f} s; {cached.cached} cached "
            f"(goal 0 sent: {goal(cached.requests == 0 and seen == 0)})"
        )


if __name__ == "__main__":
    main()
