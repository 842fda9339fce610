"""The command line, end to end: serve, demo, python -m, exit codes.

A real process where that is the point (serve stopped by a signal, the console script and
``python -m``); elsewhere ``main`` runs in this process (tests/integration/cli_helpers.py).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import pytest

import lookup_pandas as lp
from lookup_pandas.frames.records import PERSON_FIELDS

from ..cli_helpers import CliMain

CLI = [sys.executable, "-m", "lookup_pandas"]


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(extra)
    return env


def test_serve_prints_a_base_url_and_a_key_that_work(tmp_path):
    proc = subprocess.Popen(
        [*CLI, "serve", "--latency", "0", "--rate-limit", "600", "--duration", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
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


def test_serve_stops_by_itself_after_duration(cli_main):
    done = cli_main({}, "serve", "--duration", "0.5")
    assert done.returncode == 0
    assert "listening on http://127.0.0.1:" in done.stdout


@pytest.mark.parametrize("mode", ["full", "sparse"])
def test_demo_runs_end_to_end_and_the_rerun_is_free(cli_main, tmp_path, mode):
    import pandas as pd

    sparse = ["--sparse"] if mode == "sparse" else []
    done = cli_main({}, "demo", "--workdir", str(tmp_path), "--no-progress", *sparse)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "250 rows, 235 valid handles, 190 distinct, 0 cached -> 190 billable calls" in out
    assert "224 ok, 10 not_found, 1 forbidden, 15 invalid, 0 error" in out
    assert "Forbidden, not billed: linus-wilson-178 (This person has opted out" in out
    assert "190 credits of a balance of 250,000" in out
    assert "Employees of acme: 137 rows" in out
    assert "0 billable calls" in out and "result identical: True" in out
    # then offline, the emulator stopped: everything from the cache but the opted-out lead
    assert (
        "Offline (Client(offline=True), the emulator stopped): 250 rows, 224 ok, 15 invalid, "
        "10 not_found, 1 not_cached; 0 requests sent; sources: 234 cache, bought from " in out
    )
    enriched = pd.read_csv(tmp_path / "enriched_leads.csv")
    assert len(enriched) == 250 and "profile_first_name" in enriched.columns
    assert "profile_full_name" not in enriched.columns  # production never promised it


def test_console_script_and_module_agree():
    script = os.path.join(os.path.dirname(sys.executable), "lookup-pandas")
    for cmd in ([script, "--version"], [*CLI, "--version"]):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=_env())
        assert done.returncode == 0
        assert done.stdout.strip() == f"lookup-pandas {lp.__version__}"


def test_a_bad_option_exits_2_with_usage_not_a_traceback(cli_main):
    done = cli_main({}, "serve", "--latency", "nope")
    assert done.returncode == 2
    assert "invalid float value" in done.stderr
    assert "Traceback" not in done.stderr


# -- enrich / employees / search / tier against the test session's emulator --------------------

PROFILE = "/api/data/v1/people/profile"


def _run(cli_main, svc, tmp_path, *args, key=None, cache=None):
    env = {
        "LOOKUP_BASE_URL": svc.base_url,
        "LOOKUP_API_KEY": key or svc.api_key,
        "LOOKUP_CACHE": str(cache or tmp_path / "cli-cache.sqlite"),
    }
    return cli_main(env, *args, "--no-progress")


def _leads(tmp_path):
    path = tmp_path / "leads.csv"
    path.write_text(
        "name,handle,note\n"
        "Ada,ada-lovelace,NA\n"
        "Ada again,https://www.example.com/in/ada-lovelace/?utm_source=x,\n"
        "Blank,,x\n"
        "Ghost,unknown-ghost,y\n"
        "Grace, grace-hopper/ ,z\n"
    )
    return path


def test_enrich_writes_a_csv_and_a_one_line_summary(cli_main, fake_service, tmp_path):
    import pandas as pd

    out = tmp_path / "out.csv"
    done = _run(
        cli_main,
        fake_service,
        tmp_path,
        "enrich",
        str(_leads(tmp_path)),
        "-c",
        "handle",
        "-o",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert frame["name"].tolist() == ["Ada", "Ada again", "Blank", "Ghost", "Grace"]
    assert frame["note"].tolist() == ["NA", "", "x", "y", "z"]  # input cells kept as written
    assert frame["lookup_status"].tolist() == ["ok", "ok", "invalid", "not_found", "ok"]
    assert (frame.loc[0, "profile_first_name"], frame.loc[0, "profile_last_name"]) == (
        "Ada",
        "Lovelace",
    )
    assert json.loads(frame.loc[0, "profile_skills"])  # lists written as JSON
    assert json.loads(frame.loc[0, "profile_positions"])[0]["organization"]["slug"]
    lines = done.stderr.strip().splitlines()
    # the estimate before the job (3 to fetch: below auto's batch threshold), the summary after
    assert len(lines) == 2
    assert lines[0].startswith("lookup-pandas: 5 rows, 3 distinct handles, 0 cached: 3 to fetch")
    assert "by single" in lines[0] and "calls/min" in lines[0]
    assert lines[1].startswith("enriched 5 rows (3 ok, 1 not_found, 1 invalid")
    assert fake_service.count(PROFILE) == 3  # ada once, ghost, grace


def test_enrich_to_stdout_then_a_rerun_sends_nothing(cli_main, fake_service, tmp_path):
    leads = _leads(tmp_path)
    first = _run(cli_main, fake_service, tmp_path, "enrich", str(leads))
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[0].startswith("name,handle,note,profile_id,")
    sent = fake_service.count()
    again = _run(cli_main, fake_service, tmp_path, "enrich", str(leads))
    assert again.returncode == 0
    assert again.stdout == first.stdout
    assert fake_service.count() == sent  # all from the cache
    assert "0 requests sent" in again.stderr
    assert "3 cached: nothing to fetch" in again.stderr


def test_enrich_budget_auth_config_and_input_errors_exit_nonzero(cli_main, fake_service, tmp_path):
    leads = str(_leads(tmp_path))
    cases = {
        4: _run(cli_main, fake_service, tmp_path, "enrich", leads, "--max-calls", "1"),
        3: _run(
            cli_main,
            fake_service,
            tmp_path,
            "enrich",
            leads,
            key="lk_test_not_a_key",
            cache=tmp_path / "other.sqlite",
        ),
    }
    no_url = cli_main({"LOOKUP_API_KEY": "x"}, "enrich", leads)
    cases[2] = no_url
    for code, done in cases.items():
        assert done.returncode == code, (code, done.stderr)
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "BudgetExceededError" in cases[4].stderr and "max_calls=1" in cases[4].stderr
    assert "AuthenticationError" in cases[3].stderr
    assert "LOOKUP_BASE_URL" in cases[2].stderr
    assert "lk_test_not_a_key" not in cases[3].stderr
    missing_col = _run(cli_main, fake_service, tmp_path, "enrich", leads, "-c", "nope")
    missing_file = _run(cli_main, fake_service, tmp_path, "enrich", str(tmp_path / "nope.csv"))
    for done in (missing_col, missing_file):
        assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "No column 'nope'" in missing_col.stderr
    assert "no such file" in missing_file.stderr
    assert fake_service.billed() == 0  # the budget refused first; the bad key paid nothing


def test_employees_search_and_tier_write_csv(cli_main, fake_service, tmp_path):
    import pandas as pd

    emp = tmp_path / "acme.csv"
    done = _run(cli_main, fake_service, tmp_path, "employees", "acme", "-o", str(emp))
    assert done.returncode == 0, done.stderr
    assert len(pd.read_csv(emp)) == 137
    found = _run(
        cli_main,
        fake_service,
        tmp_path,
        "search",
        "engineer",
        "--max-records",
        "60",
        "--filter",
        "geo_country_code=DE",
    )
    assert found.returncode == 0, found.stderr
    people = pd.read_csv(io.StringIO(found.stdout))
    assert 0 < len(people) <= 60 and (people["geo.country_code"] == "DE").all()
    tier = _run(cli_main, fake_service, tmp_path, "tier")
    assert tier.returncode == 0
    (line,) = tier.stdout.splitlines()  # one readable line (issue 30)
    assert line.startswith("tier ") and " calls/min, balance " in line
    unknown = _run(cli_main, fake_service, tmp_path, "employees", "unknown-co")
    assert unknown.returncode == 1 and "NotFoundError" in unknown.stderr


def test_enrich_and_listings_against_sparse_records(cli_main, fake_service, tmp_path):
    """Records with only id, handle and some fields: same statuses, same columns, no error."""
    import pandas as pd

    fake_service.configure(sparse_records=True)
    out = tmp_path / "out.csv"
    done = _run(cli_main, fake_service, tmp_path, "enrich", str(_leads(tmp_path)), "-o", str(out))
    assert done.returncode == 0, done.stderr
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert frame["lookup_status"].tolist() == ["ok", "ok", "invalid", "not_found", "ok"]
    assert [f"profile_{f}" for f in PERSON_FIELDS] == [
        c for c in frame.columns if c.startswith("profile_")
    ][: len(PERSON_FIELDS)]
    for args in (("employees", "acme"), ("search", "engineer", "--max-records", "60")):
        listed = _run(cli_main, fake_service, tmp_path, *args)
        assert listed.returncode == 0, listed.stderr
        assert listed.stdout.splitlines()[0].startswith("id,handle")
