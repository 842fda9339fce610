"""Shared bits of the benchmarks: lead frames, a naive loop for comparison, the emulator in a
process of its own, a child process's own peak RSS."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import requests

from lookup_pandas.testing import PROFILE


def leads(rows: int, distinct: int, prefix: str) -> pd.DataFrame:
    """``rows`` leads cycling over ``distinct`` handles (so each repeats rows/distinct times)."""
    return pd.DataFrame(
        {
            "lead_id": range(rows),
            "handle": [f"{prefix}-{i % distinct:06d}" for i in range(rows)],
        }
    )


def naive_loop(base_url: str, api_key: str, handles: list[str]) -> float:
    """What people write first: one requests.get per row, in sequence, no cache. Seconds."""
    started = time.perf_counter()
    with requests.Session() as s:
        for h in handles:
            r = s.get(
                base_url + PROFILE,
                params={"handle": h},
                headers={"X-service-apikey": api_key},
                timeout=30,
            )
            r.raise_for_status()
    return time.perf_counter() - started


@contextlib.contextmanager
def emulator_process(*args: str) -> Iterator[tuple[str, str]]:
    """``lookup-pandas serve ARGS`` in its own process (its own GIL); yields (base_url, key)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    server = subprocess.Popen(
        [sys.executable, "-m", "lookup_pandas", "serve", "--duration", "900", *args],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        lines = [server.stdout.readline() for _ in range(3)]
        url = re.search(r"LOOKUP_BASE_URL=(\S+)", lines[1]).group(1)
        key = re.search(r"LOOKUP_API_KEY=(\S+)", lines[2]).group(1)
        yield url, key
    finally:
        server.terminate()
        server.wait(timeout=10)


#: ``python -c PEAK REPORT MODULE ARGS...``: run ``python -m MODULE ARGS...`` and, as it exits,
#: write its own peak RSS (``VmHWM``, KiB) to REPORT.
PEAK = textwrap.dedent(
    """
    import atexit, runpy, sys
    report, module = sys.argv[1:3]

    def peak():
        with open("/proc/self/status") as status:
            kib = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
        with open(report, "w") as out:
            out.write(kib)

    atexit.register(peak)
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    """
)


def run_child(args: list[str], env: dict[str, str], log: Path) -> tuple[float, int, str]:
    """Run ``args``; its wall time, peak RSS (bytes) and stdout. Raises on failure. A module
    (``python -m M ...``) runs through PEAK, which reports its own peak; else ``ru_maxrss``."""
    report = log.with_suffix(".peak")
    report.unlink(missing_ok=True)
    if args[1] == "-m":
        args = [args[0], "-c", PEAK, str(report), *args[2:]]
    with log.open("w") as err, tempfile.TemporaryFile("w+") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(args, stdout=out, stderr=err, env=env, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        stdout = out.read()
    if proc.returncode != 0:
        raise RuntimeError(f"{args[:4]} failed ({proc.returncode}): {log.read_text()[-2000:]}")
    if report.exists():  # the child's own high-water mark
        return elapsed, int(report.read_text()) * 1024, stdout
    return elapsed, usage.ru_maxrss * 1024, stdout  # Linux: ru_maxrss is in KiB


def goal(met: bool) -> str:
    """How a figure's line ends: ``goal met`` or ``NOT met``."""
    return "goal met" if met else "NOT met"


def spellings(rows: int, people: int) -> pd.DataFrame:
    """``rows`` leads naming ``people`` people, each in four spellings in turn: the bare handle,
    upper case, a profile URL and ``@handle`` (so ``4 * people`` distinct raw values)."""
    handles = [f"spell-{i:06d}" for i in range(people)]
    forms = (
        handles,
        [h.upper() for h in handles],
        [f"https://www.linkedin.com/in/{h}/" for h in handles],
        [f"@{h}" for h in handles],
    )
    return pd.DataFrame(
        {
            "lead_id": range(rows),
            "handle": [forms[(i // people) % 4][i % people] for i in range(rows)],
        }
    )
