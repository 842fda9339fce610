"""Team: four processes on one key against a 600/min limit, through one shared store.

Figures, per run: aggregate elapsed / (distinct handles / limit), goal <= 1.10; the share of
answers that were 429, goal < 1%; paid / distinct, goal 1.00. Each process enriches 75
handles, 25 of them in all four lists (225 distinct), with method="single": batch jobs would
need only a few calls, so the pace would not show. Runs: the local store (one cache file, so
one <cache>.store.sqlite); Redis (LOOKUP_CACHE=redis://...) when redis-server and the redis
package are there, on a redis-server of its own on a free loopback port; and, for comparison,
today's per-process pacing: each process its own cache file, so nothing is shared.

Each child imports everything, builds its Client, prints "ready" and waits for a start file:
the elapsed time runs from that file to the last child done, without interpreter start-up.
The emulator runs in this process so its per-key counters can be read.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from common import goal

from lookup_pandas.testing import FakeService

PROCESSES, EACH, SHARED, LIMIT, LATENCY = 4, 75, 25, 600, 0.02
READY_WITHIN, DONE_WITHIN = 60.0, 600.0

CHILD = textwrap.dedent(
    """
    import json
    import os
    import sys
    import time

    import pandas as pd

    import lookup_pandas as lp

    spec = json.loads(sys.argv[1])
    client = lp.Client()  # key, base URL and cache (a file or a Redis URL) from the environment
    frame = pd.DataFrame({"handle": spec["handles"]})
    print("ready", flush=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(spec["start"]):
        if time.monotonic() > deadline:
            sys.exit("no start signal within 60 s")
        time.sleep(0.005)
    out = frame.lookup.enrich_profiles("handle", client=client, method="single", progress=False)
    done = time.time()
    statuses = out["lookup_status"].value_counts().to_dict()
    client.close()
    print("done " + json.dumps({"done": done, "statuses": statuses}), flush=True)
    """
)


def lists() -> list[list[str]]:
    """Four lists of EACH handles; the SHARED first ones of each are in all four, at the same
    places (every third row), so the processes reach them at about the same time."""
    shared = [f"team-all-{i:03d}" for i in range(SHARED)]
    out = []
    for p in range(PROCESSES):
        own = iter(f"team{p}-{i:03d}" for i in range(EACH - SHARED))
        rows: list[str] = []
        for i in range(EACH):
            rows.append(shared[i // 3] if i % 3 == 0 and i // 3 < SHARED else next(own))
        out.append(rows)
    return out


def run(svc: FakeService, tmp: Path, name: str, caches: list[str]) -> dict[str, Any]:
    """One child per list, child i with LOOKUP_CACHE=caches[i]; started together; measured."""
    svc.reset()
    work = tmp / name
    work.mkdir()
    start = work / "start"
    base = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    base.update(LOOKUP_API_KEY=svc.api_key, LOOKUP_BASE_URL=svc.base_url)
    procs: list[tuple[subprocess.Popen[bytes], Path, Path]] = []
    try:
        for i, handles in enumerate(lists()):
            out, err = work / f"{i}.out", work / f"{i}.err"
            spec = json.dumps({"handles": handles, "start": str(start)})
            with out.open("wb") as stdout, err.open("wb") as stderr:
                proc = subprocess.Popen(
                    [sys.executable, "-c", CHILD, spec],
                    stdout=stdout,
                    stderr=stderr,
                    env={**base, "LOOKUP_CACHE": caches[i]},
                )
            procs.append((proc, out, err))
        deadline = time.monotonic() + READY_WITHIN
        while not all("ready" in out.read_text() for _, out, _ in procs):
            if time.monotonic() > deadline or any(p.poll() is not None for p, _, _ in procs):
                return {"failed": _failure(procs)}
            time.sleep(0.01)
        started = time.time()
        start.touch()
        reports = []
        for proc, out, _ in procs:
            proc.wait(timeout=DONE_WITHIN)
            line = next((x for x in out.read_text().splitlines() if x.startswith("done ")), "")
            if proc.returncode != 0 or not line:
                return {"failed": _failure(procs)}
            reports.append(json.loads(line.removeprefix("done ")))
    finally:
        for proc, _, _ in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=30)
    elapsed = max(r["done"] for r in reports) - started
    statuses: dict[str, int] = {}
    for r in reports:
        for status, n in r["statuses"].items():
            statuses[status] = statuses.get(status, 0) + n
    key = svc.api_key
    return {
        "elapsed": elapsed,
        "answered": svc.count(key=key),
        "limited": svc.rate_limited(key=key),
        "paid": sum(svc.billed_handles(key=key).values()),
        "statuses": statuses,
    }


def _failure(procs: list[tuple[subprocess.Popen[bytes], Path, Path]]) -> str:
    for proc, _, err in procs:
        if proc.poll() not in (None, 0):
            lines = err.read_text().strip().splitlines()
            return f"a child exited {proc.returncode}: {lines[-1] if lines else '(no stderr)'}"
    return f"the children were not all ready within {READY_WITHIN:g} s"


def report(label: str, result: dict[str, Any], distinct: int, bound: float) -> None:
    if "failed" in result:
        print(f"   {label}: FAILED: {result['failed']}")
        return
    ratio = result["elapsed"] / bound
    share = result["limited"] / result["answered"] if result["answered"] else 0.0
    paid = result["paid"]
    rows = PROCESSES * EACH
    failed = rows - result["statuses"].get("ok", 0) - result["statuses"].get("not_found", 0)
    print(
        f"   {label}: {result['elapsed']:.1f} s; elapsed / bound {ratio:.3f} "
        f"(goal <= 1.10: {goal(ratio <= 1.10)}); answered 429: {result['limited']} of "
        f"{result['answered']} = {100 * share:.1f}% (goal < 1%: {goal(share < 0.01)}); "
        f"paid / distinct {paid} / {distinct} = {paid / distinct:.2f} "
        f"(goal 1.00: {goal(paid == distinct)}); failed rows {failed} of {rows}"
    )


def redis_missing() -> str | None:
    """Why there can be no Redis run here, or None."""
    if shutil.which("redis-server") is None:
        return "no redis-server on PATH"
    if importlib.util.find_spec("redis") is None:
        return "the redis package is not installed (pip install 'lookup_pandas[redis]')"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def redis_server(tmp: Path) -> Iterator[str]:
    """A redis-server of our own on a free loopback port, nothing saved; yields its URL and
    stops it (by its pid) afterwards."""
    import redis

    port = _free_port()
    log = (tmp / "redis.log").open("wb")
    server = subprocess.Popen(
        [
            "redis-server",
            *("--port", str(port), "--bind", "127.0.0.1"),
            *("--save", "", "--appendonly", "no", "--dir", str(tmp)),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                if redis.Redis.from_url(url, socket_timeout=1).ping():
                    break
            except redis.RedisError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"redis-server did not answer on port {port}") from None
                time.sleep(0.05)
        yield url
    finally:
        if server.poll() is None:
            os.kill(server.pid, 15)  # SIGTERM: redis-server exits at once, nothing to save
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(server.pid, 9)
                server.wait(timeout=10)
        log.close()


def main() -> None:
    every = lists()
    distinct = len({h for hs in every for h in hs})
    bound = distinct / (LIMIT / 60)
    print(
        f"   {PROCESSES} processes x {EACH} handles ({SHARED} in all {PROCESSES} lists; "
        f"{distinct} distinct) on one key, emulator limit {LIMIT}/min (burst 3), "
        f'{1000 * LATENCY:g} ms latency; method="single" (batch jobs would need only a few '
        f"calls: the pace would not show); bound {distinct} / {LIMIT / 60:g} per s = {bound:.1f} s"
    )
    with (
        tempfile.TemporaryDirectory() as tmp_name,
        FakeService(latency=LATENCY, rate_limit_per_minute=LIMIT) as svc,
    ):
        tmp = Path(tmp_name)
        shared_file = str(tmp / "team.sqlite")
        result = run(svc, tmp, "local", [shared_file] * PROCESSES)
        report("local store (one cache file and its .store.sqlite)", result, distinct, bound)

        missing = redis_missing()
        if missing is not None:
            print(f"   redis: skipped ({missing})")
        else:
            try:
                with redis_server(tmp) as url:
                    result = run(svc, tmp, "redis", [url] * PROCESSES)
                label = "redis (a redis-server of its own, LOOKUP_CACHE=redis://...)"
                report(label, result, distinct, bound)
            except RuntimeError as exc:
                print(f"   redis: FAILED to start: {exc}")

        own = [str(tmp / f"own{i}.sqlite") for i in range(PROCESSES)]
        result = run(svc, tmp, "unshared", own)
        report(
            "for comparison, per-process pacing (each process its own cache file: nothing shared)",
            result,
            distinct,
            bound,
        )


if __name__ == "__main__":
    main()
