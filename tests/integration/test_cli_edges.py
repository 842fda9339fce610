"""The small rough edges a newcomer meets first (issue 21, item 11), in subprocesses: ``-`` for
standard input, a warning as one line of the CLI's own, a short column-clash message that names
``--prefix``."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

CLI = [sys.executable, "-m", "lookup_pandas"]
TIMEOUT = 120


def _env(svc, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(LOOKUP_BASE_URL=svc.base_url, LOOKUP_API_KEY=svc.api_key, LOOKUP_CACHE=str(cache))
    return env


def _cli(env, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], input=stdin, capture_output=True, text=True, timeout=TIMEOUT, env=env
    )


def test_a_dash_reads_the_lead_list_from_standard_input(fake_service, tmp_path):
    leads = "name,handle\nAda,ada-lovelace\nGrace,https://www.example.com/in/grace-hopper/\n"
    done = _cli(
        _env(fake_service, tmp_path / "c.sqlite"),
        "enrich", "-", "-c", "handle", "--no-progress",
        stdin=leads,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = pd.read_csv(io.StringIO(done.stdout))
    assert out["name"].tolist() == ["Ada", "Grace"]
    assert out["lookup_status"].tolist() == ["ok", "ok"]
    assert fake_service.billed() == 2


def test_standard_input_cannot_be_read_in_chunks_and_says_so(fake_service, tmp_path):
    done = _cli(
        _env(fake_service, tmp_path / "c.sqlite"),
        "enrich", "-", "--chunksize", "10", "--no-progress",
        stdin="handle\nada-lovelace\n",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "lookup-pandas: error: cannot read - in chunks: it is not a regular file, and chunks "
        "read it twice; pass --chunksize 0 to read it whole"
    ]
    assert fake_service.count() == 0


def test_an_insecure_cache_warning_is_one_line_of_the_clis_own(fake_service, tmp_path):
    cache = tmp_path / "open.sqlite"
    cache.touch()
    cache.chmod(0o666)
    done = _cli(_env(fake_service, cache), "tier")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("lookup-pandas: warning: ")
    assert f"chmod 600 {cache}" in lines[0]
    assert ".py:" not in done.stderr and "warnings.warn" not in done.stderr


def test_a_column_clash_is_short_and_names_the_option(fake_service, tmp_path):
    columns = ["handle", "lookup_status"] + [f"profile_f{i}" for i in range(60)]
    leads = tmp_path / "wide.csv"
    pd.DataFrame([["ada-lovelace"] + ["x"] * (len(columns) - 1)], columns=columns).to_csv(
        leads, index=False
    )
    done = _cli(_env(fake_service, tmp_path / "c.sqlite"), "enrich", str(leads), "--no-progress")
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert "61 existing columns" in line and "and 58 more" in line
    assert "--prefix" in line and "prefix=" not in line
    assert len(line) < 300, len(line)
    assert fake_service.count() == 0
