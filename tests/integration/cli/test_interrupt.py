"""Ctrl-C and kill -9 of ``lookup-pandas enrich``: a real process stopped, against the emulator.

What is tested: the lines Ctrl-C prints say what the run did and spent up to the interrupt, and
the credits said are those the emulator billed; with a batch job under way, they say how many
more items the job bills as it resolves (the emulator then bills exactly those), and that the
next run collects them: it does, and pays for none of them again. A chunked run killed (-9)
leaves its part file, which the next run of the same output removes. Every wait is bounded;
nothing depends on wall-clock thresholds.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from lookup_pandas.testing import BATCH, PROFILE, FakeService

from ..cli_helpers import CliMain, emulator_env
from ..helpers import wait_until

pytestmark = pytest.mark.timeout(180)

CLI = [sys.executable, "-m", "lookup_pandas", "enrich"]
SUMMARY = re.compile(
    r"^lookup-pandas: up to the interrupt, (\d+) rows \(.*\) in [\d.]+s: (\d+) cached, "
    r"(\d+) fetched.*; ([\d.]+) credits$"
)
IN_FLIGHT = re.compile(
    r"^lookup-pandas: 1 batch job goes on at the service: (\d+) more items? billed as they "
    r"resolve, 1 credit each\. It is stored: the next run that needs its handles collects them "
    r"without paying again$"
)
LAST = "lookup-pandas: interrupted; what was fetched is in the cache"


def _leads(tmp_path: Path, tag: str, n: int) -> Path:
    path = tmp_path / "leads.csv"
    pd.DataFrame({"handle": [f"{tag}{i:03d}" for i in range(n)]}).to_csv(path, index=False)
    return path


def _interrupted(
    svc: FakeService, args: list[str], cache: Path, ready, sig: int = signal.SIGINT
) -> tuple[int, list[str]]:
    """Run the CLI, send ``sig`` once ``ready()``, and return its exit code and stderr lines."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(emulator_env(svc, cache))
    proc = subprocess.Popen(
        [*CLI, *args, "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert wait_until(ready, within=60), proc.poll()
        assert proc.poll() is None  # still at work
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    return proc.returncode, err.strip().splitlines()


def test_ctrl_c_says_what_the_run_fetched_and_spent_as_the_service_billed(fake_service, tmp_path):
    # 60 handles by single calls at 300/min: about 12 s, stopped after 8 were billed
    fake_service.configure(rate_limit_per_minute=300, latency=0.02)
    leads = _leads(tmp_path, "sig", 60)
    args = [str(leads), "--method", "single", "-o", str(tmp_path / "out.csv")]
    cache = tmp_path / "c.sqlite"
    code, lines = _interrupted(fake_service, args, cache, lambda: fake_service.billed() >= 8)

    assert code == 130, lines
    assert lines[-1] == LAST and not any("Traceback" in line for line in lines), lines
    (summary,) = [m for line in lines if (m := SUMMARY.match(line))]
    rows, cached, fetched, credits = summary.groups()
    billed = fake_service.stats()
    assert float(credits) == billed["credits"] >= 8, (lines, billed)
    # the calls in flight at the signal land in the cache after the summary was taken: billed
    # (and counted in its credits), not yet among its fetched
    assert int(fetched) == int(rows) <= fake_service.billed(PROFILE) and int(cached) == 0
    assert not any(IN_FLIGHT.match(line) for line in lines)  # no batch job


def test_ctrl_c_with_a_batch_job_in_flight_says_what_it_still_bills_and_the_rerun_collects_it(
    fake_service, tmp_path, capsys
):
    # 300 handles in one job resolving at 15 items/s (20 s), 50 results a poll: stopped after
    # 3 polls (about 3 s), long before the job's end, however slow the machine
    fake_service.configure(batch_resolve_rate=15, batch_page_size=50)
    leads = _leads(tmp_path, "sigb", 300)
    out = tmp_path / "out.csv"
    cache = tmp_path / "c.sqlite"

    def mid_job() -> bool:
        return (
            len(fake_service.batch_jobs) == 1
            and fake_service.count(BATCH, method="GET", status=200) >= 3
        )

    code, lines = _interrupted(fake_service, [str(leads), "-o", str(out)], cache, mid_job)

    assert code == 130, lines
    assert lines[-1] == LAST and not any("Traceback" in line for line in lines), lines
    (summary,) = [m for line in lines if (m := SUMMARY.match(line))]
    going_on = [m for line in lines if (m := IN_FLIGHT.match(line))]
    assert len(going_on) == 1, lines
    (going_on,) = going_on
    spent, more = float(summary.group(4)), int(going_on.group(1))
    assert spent > 0 and more > 0 and spent + more == 300, lines
    assert spent <= fake_service.stats()["credits"]  # billed as resolved, seen at each poll
    # The job runs to its end at the service: it bills exactly what was said, no more.
    assert wait_until(lambda: fake_service.billed(BATCH) == 300, within=60)
    assert fake_service.stats()["credits"] == spent + more

    done = CliMain(capsys)(emulator_env(fake_service, cache), "enrich", str(leads), "-o",
                           str(out), "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(fake_service.batch_jobs) == 1  # polled, not submitted again
    assert fake_service.count(PROFILE) == 0 and fake_service.stats()["credits"] == 300
    assert pd.read_csv(out)["lookup_status"].eq("ok").sum() == 300


def test_the_part_file_of_a_killed_chunked_run_is_removed_by_the_next_run(
    fake_service, tmp_path, capsys
):
    # 60 handles by single calls at 300/min, in chunks of 7 rows: killed after 8 were billed
    fake_service.configure(rate_limit_per_minute=300, latency=0.02)
    leads = _leads(tmp_path, "kill", 60)
    out = tmp_path / "out.csv"
    cache = tmp_path / "c.sqlite"
    args = [str(leads), "--chunksize", "7", "--method", "single", "-o", str(out)]
    code, _ = _interrupted(
        fake_service, args, cache, lambda: fake_service.billed() >= 8, signal.SIGKILL
    )
    assert code == -signal.SIGKILL
    (left,) = tmp_path.glob(".out.csv.*.part")  # nothing could remove it
    assert not out.exists()
    before = sum(fake_service.billed_handles().values())

    fake_service.configure(rate_limit_per_minute=6000, latency=0.0)
    done = CliMain(capsys)(emulator_env(fake_service, cache), "enrich", *args, "--no-progress")
    assert done.returncode == 0, done.stderr
    assert not left.exists() and list(tmp_path.glob(".out.csv.*")) == []
    assert len(pd.read_csv(out)) == 60
    billed = fake_service.billed_handles()
    assert len(billed) == 60  # the rerun bought the rest: not what was cached before the kill
    # (a call in flight at the kill was billed, but its answer never landed: bought again)
    assert sum(billed.values()) - before < 60
