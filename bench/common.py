"""Shared bits of the benchmarks: lead frames, temporary caches, a naive loop for comparison."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator

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
