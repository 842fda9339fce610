"""The command line, end to end in subprocesses: serve, demo, python -m, exit codes."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import lookup_pandas as lp

CLI = [sys.executable, "-m", "lookup_pandas"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(extra)
    return env


def test_serve_prints_a_base_url_and_a_key_that_work(tmp_path):
    proc = subprocess.Popen(
        [*CLI, "serve", "--latency", "0", "--rate-limit", "600", "--duration", "60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
    )
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        url = re.search(r"LOOKUP_BASE_URL=(\S+)", lines[1]).group(1)
        key = re.search(r"LOOKUP_API_KEY=(\S+)", lines[2]).group(1)
        assert url.startswith("http://127.0.0.1:")
        with lp.Client(api_key=key, base_url=url, cache=False) as client:
            assert client.profile("ada")["handle"] == "ada"
            # the emulator advertises the limit it was started with; we pace at 95% of it
            assert client.rate_limit_per_minute == 600 * 0.95
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_stops_by_itself_after_duration():
    done = subprocess.run([*CLI, "serve", "--duration", "0.5"], capture_output=True, text=True,
                          timeout=60, env=_env())
    assert done.returncode == 0
    assert "listening on http://127.0.0.1:" in done.stdout


def test_demo_runs_end_to_end_and_the_rerun_is_free(tmp_path):
    done = subprocess.run([*CLI, "demo", "--cache-dir", str(tmp_path)], capture_output=True,
                          text=True, timeout=300, env=_env())
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Employees of acme: 137 records in 3 pages of 50" in out
    assert "Re-run with a new Client on the same cache: 0 billable calls" in out
    assert (tmp_path / "demo-cache.sqlite").exists()


def test_console_script_and_module_agree():
    script = os.path.join(os.path.dirname(sys.executable), "lookup-pandas")
    for cmd in ([script, "--version"], [*CLI, "--version"]):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=_env())
        assert done.returncode == 0
        assert done.stdout.strip() == f"lookup-pandas {lp.__version__}"


def test_a_bad_option_exits_2_with_usage_not_a_traceback():
    done = subprocess.run([*CLI, "serve", "--latency", "nope"], capture_output=True, text=True,
                          timeout=60, env=_env())
    assert done.returncode == 2
    assert "invalid float value" in done.stderr
    assert "Traceback" not in done.stderr
