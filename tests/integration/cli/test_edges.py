"""The small rough edges a newcomer meets first (issue 21, item 11), run in this process: ``-`` for
standard input, a warning as one line of the CLI's own, a short column-clash message that names
``--prefix``."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest

from ..cli_helpers import CliMain, Done


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def _env(svc, cache: Path) -> dict[str, str]:
    return {
        "LOOKUP_BASE_URL": svc.base_url,
        "LOOKUP_API_KEY": svc.api_key,
        "LOOKUP_CACHE": str(cache),
    }


def _cli(cli_main: CliMain, env, *args: str, stdin: str = "") -> Done:
    return cli_main(env, *args, stdin=stdin)


def test_a_dash_reads_the_lead_list_from_standard_input(cli_main, fake_service, tmp_path):
    leads = "name,handle\nAda,ada-lovelace\nGrace,https://www.example.com/in/grace-hopper/\n"
    done = _cli(cli_main,
        _env(fake_service, tmp_path / "c.sqlite"),
        "enrich", "-", "-c", "handle", "--no-progress",
        stdin=leads,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = pd.read_csv(io.StringIO(done.stdout))
    assert out["name"].tolist() == ["Ada", "Grace"]
    assert out["lookup_status"].tolist() == ["ok", "ok"]
    assert fake_service.billed() == 2


def test_standard_input_cannot_be_read_in_chunks_and_says_so(cli_main, fake_service, tmp_path):
    done = _cli(cli_main,
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


def test_an_insecure_cache_warning_is_one_line_of_the_clis_own(cli_main, fake_service, tmp_path):
    cache = tmp_path / "open.sqlite"
    cache.touch()
    cache.chmod(0o666)
    done = _cli(cli_main, _env(fake_service, cache), "tier")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("lookup-pandas: warning: ")
    assert f"chmod 600 {cache}" in lines[0]
    assert ".py:" not in done.stderr and "warnings.warn" not in done.stderr


def test_a_column_clash_is_short_and_names_the_option(cli_main, fake_service, tmp_path):
    columns = ["handle", "lookup_status"] + [f"profile_f{i}" for i in range(60)]
    leads = tmp_path / "wide.csv"
    pd.DataFrame([["ada-lovelace"] + ["x"] * (len(columns) - 1)], columns=columns).to_csv(
        leads, index=False
    )
    done = _cli(
        cli_main, _env(fake_service, tmp_path / "c.sqlite"), "enrich", str(leads), "--no-progress"
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert "60 existing columns" in line and "and 57 more" in line  # lookup_status is not one
    assert "--prefix" in line and "prefix=" not in line
    assert len(line) < 300, len(line)
    assert fake_service.count() == 0
