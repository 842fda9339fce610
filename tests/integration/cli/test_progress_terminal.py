"""The enrichment bar fits the terminal it is drawn on, and its credits never run ahead of the
handles (issue 21, item 5). The CLI runs in a pseudo-terminal of a given width, as a person
would see it."""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios

import pandas as pd
import pytest

pytestmark = pytest.mark.timeout(180)

HANDLES = [f"bar{i:03d}-lead" for i in range(300)]


def _run_in_pty(svc, tmp_path, columns: int, method: str) -> list[str]:
    """Run ``enrich`` in a pty ``columns`` wide; return every screen line it drew (each
    carriage return starts a new one)."""
    leads = tmp_path / "leads.csv"
    pd.DataFrame({"handle": HANDLES}).to_csv(leads, index=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOKUP_", "COLUMNS"))}
    env.update(
        LOOKUP_API_KEY=svc.api_key,
        LOOKUP_BASE_URL=svc.base_url,
        LOOKUP_CACHE=str(tmp_path / f"c{columns}.sqlite"),
    )
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    command = [sys.executable, "-m", "lookup_pandas", "enrich", str(leads), "-c", "handle"]
    command += ["-o", str(tmp_path / "out.csv"), "--method", method]
    proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    raw = b""
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            raw += chunk
    finally:
        os.close(master)
        assert proc.wait(timeout=120) == 0, raw.decode(errors="replace")[-2000:]
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode(errors="replace"))
    return [seg for line in text.split("\n") for seg in line.split("\r") if seg.strip()]


def _bars(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("profiles:")]


@pytest.mark.parametrize("method", ["batch", "single"])
def test_an_80_column_bar_fits_and_shows_credits_never_ahead_of_handles(
    fake_service, tmp_path, method
):
    fake_service.configure(rate_limit_per_minute=3000, batch_resolve_rate=150)
    bars = _bars(_run_in_pty(fake_service, tmp_path, 80, method))
    assert len(bars) >= 2
    assert all(len(bar) <= 80 for bar in bars), [b for b in bars if len(b) > 80]
    last = bars[-1]
    assert "300/300" in last and "credits=300" in last and "fetched=300" in last
    if method == "batch":
        assert "jobs=1/1" in last
    for bar in bars:
        counts = dict(re.findall(r"(fetched|credits)=(\d+)", bar))
        if counts:
            assert int(counts["credits"]) <= int(counts["fetched"]), bar


def test_a_wide_terminal_shows_every_count_and_the_rate(fake_service, tmp_path):
    fake_service.configure(rate_limit_per_minute=3000)
    last = _bars(_run_in_pty(fake_service, tmp_path, 200, "single"))[-1]
    assert len(last) <= 200
    for field in ("fetched=300", "credits=300", "cached=0", "failed=0", "handle/s"):
        assert field in last, last
