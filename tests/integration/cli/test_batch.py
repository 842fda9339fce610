"""``lookup-pandas enrich --method``, end to end (in this process) against the session's emulator.

What is tested: the estimate line before the job says how the handles will be fetched (batch
jobs or single calls), how many jobs and about how long at the client's pace; the summary
after it counts the batch jobs; ``--method single`` sends no batch submit; ``--method batch``
against a service without batch jobs exits 2 with one line, nothing billed and no output file;
an unknown method is refused by the parser; a fully cached re-run sends nothing.
"""

from __future__ import annotations

import re
import threading

import pandas as pd
import pytest

from lookup_pandas.testing import BATCH, PROFILE, FakeService

from ..cli_helpers import CliMain, Done
from ..enrich_helpers import expected_status, person_id
from ..helpers import make_client, wait_until

pytestmark = pytest.mark.timeout(120)

ESTIMATE = re.compile(
    r"^lookup-pandas: (?P<rows>\d+) rows, (?P<unique>\d+) distinct handles, "
    r"(?P<cached>\d+) cached: (?P<to_fetch>\d+) to fetch by (?P<method>batch|single)"
    r"(?: \((?P<jobs>\d+) jobs?, ~(?P<polls>\d+) polls, at ~(?P<speed>[\d.,]+) items/s "
    r"(?:seen|assumed)\))?, "
    r"(?P<duration>about .+|under a second) at (?P<rate>\d+) calls/min"
    r"(?:; (?P<credits>[\d,.]+) credits?, balance (?P<balance>[\d,.]+)(?:; tier .+)?)?$"
)


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def _run(cli_main: CliMain, svc: FakeService, cache, *args: str) -> Done:
    env = {
        "LOOKUP_BASE_URL": svc.base_url,
        "LOOKUP_API_KEY": svc.api_key,
        "LOOKUP_CACHE": str(cache),
    }
    return cli_main(env, *args, "--no-progress")


def _leads(tmp_path, tag: str, n: int = 56, unknown: int = 4) -> tuple[object, list[str]]:
    """A CSV of ``n + unknown`` distinct handles (the unknown ones do not exist)."""
    handles = [f"{tag}{i:03d}" for i in range(n)] + [f"unknown-{tag}{i}" for i in range(unknown)]
    path = tmp_path / f"{tag}.csv"
    pd.DataFrame({"name": [f"Lead {i}" for i in range(len(handles))], "handle": handles}).to_csv(
        path, index=False
    )
    return path, handles


def _check_output(out, handles: list[str]) -> None:
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert frame["handle"].tolist() == handles
    assert frame["lookup_status"].tolist() == [expected_status(h) for h in handles]
    for handle, status, got in zip(
        handles, frame["lookup_status"], frame["profile_id"], strict=True
    ):
        assert got == (person_id(handle) if status == "ok" else ""), handle


def test_auto_fetches_60_handles_by_one_batch_job_and_says_so(cli_main, fake_service, tmp_path):
    leads, handles = _leads(tmp_path, "clib")
    out = tmp_path / "out.csv"
    done = _run(
        cli_main,
        fake_service,
        tmp_path / "c.sqlite",
        "enrich",
        str(leads),
        "-c",
        "handle",
        "-o",
        str(out),
    )
    assert done.returncode == 0, done.stderr

    estimate, summary = done.stderr.strip().splitlines()
    match = ESTIMATE.match(estimate)
    assert match, estimate
    assert "60 to fetch by batch (1 job," in estimate
    assert (match["rows"], match["unique"], match["cached"], match["to_fetch"]) == (
        "60",
        "60",
        "0",
        "60",
    )
    assert (match["method"], match["jobs"]) == ("batch", "1")
    assert int(match["polls"]) >= 1 and int(match["rate"]) > 0
    assert summary.startswith("enriched 60 rows (56 ok, 4 not_found, 0 invalid, 0 error)")
    assert "60 fetched (1 batch job)" in summary
    assert summary.endswith(f"-> {out}")

    assert fake_service.count(BATCH, method="POST") == 1
    assert fake_service.count(PROFILE) == 0
    assert fake_service.billed_handles() == {h: 1 for h in handles}
    _check_output(out, handles)
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        assert client.parts.store.jobs() == []  # collected and forgotten


def test_method_single_sends_one_call_per_handle_and_no_batch_job(cli_main, fake_service, tmp_path):
    leads, handles = _leads(tmp_path, "clis")
    out = tmp_path / "out.csv"
    done = _run(
        cli_main,
        fake_service,
        tmp_path / "c.sqlite",
        "enrich",
        str(leads),
        "--method",
        "single",
        "-o",
        str(out),
    )
    assert done.returncode == 0, done.stderr

    estimate, summary = done.stderr.strip().splitlines()
    match = ESTIMATE.match(estimate)
    assert match, estimate
    assert (match["method"], match["to_fetch"], match["jobs"]) == ("single", "60", None)
    assert "by single" in estimate and "job" not in estimate
    assert "batch job" not in summary and "60 fetched" in summary
    assert fake_service.count(BATCH) == 0
    assert fake_service.count(PROFILE) == len(handles)
    assert {h: fake_service.count(PROFILE, handle=h) for h in handles} == {h: 1 for h in handles}
    assert fake_service.billed_handles() == {h: 1 for h in handles}
    _check_output(out, handles)


def test_method_batch_without_batch_jobs_exits_2_with_one_line(cli_main, fake_service, tmp_path):
    fake_service.configure(batch=False)
    leads, _ = _leads(tmp_path, "clin")
    out = tmp_path / "out.csv"
    done = _run(
        cli_main,
        fake_service,
        tmp_path / "c.sqlite",
        "enrich",
        str(leads),
        "--method",
        "batch",
        "-o",
        str(out),
    )

    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    refusals = [line for line in lines if "no batch jobs" in line]
    assert len(refusals) == 1, done.stderr
    refusal = refusals[0]
    assert refusal == lines[-1]  # the last word
    assert refusal.startswith("lookup-pandas: BatchUnavailableError: ")
    assert "--method" in refusal and "method=" not in refusal  # the CLI's option, not the kwarg
    for line in lines[:-1]:  # at most the estimate, before the job started
        assert ESTIMATE.match(line), line
    assert fake_service.count(BATCH, method="POST", status=404) == 1
    assert fake_service.count(PROFILE) == 0
    assert fake_service.billed() == 0
    assert not out.exists()


def test_an_unknown_method_is_refused_by_the_parser(cli_main, fake_service, tmp_path):
    leads, _ = _leads(tmp_path, "clix")
    out = tmp_path / "out.csv"
    done = _run(
        cli_main,
        fake_service,
        tmp_path / "c.sqlite",
        "enrich",
        str(leads),
        "--method",
        "bogus",
        "-o",
        str(out),
    )
    assert done.returncode == 2
    assert "invalid choice: 'bogus'" in done.stderr
    assert "--method" in done.stderr
    assert "Traceback" not in done.stderr
    assert fake_service.count() == 0
    assert not out.exists()


def test_a_fully_cached_rerun_has_nothing_to_fetch_and_sends_nothing(
    cli_main, fake_service, tmp_path
):
    leads, handles = _leads(tmp_path, "clic", n=30, unknown=2)
    cache = tmp_path / "c.sqlite"
    first_out, again_out = tmp_path / "first.csv", tmp_path / "again.csv"
    first = _run(cli_main, fake_service, cache, "enrich", str(leads), "-o", str(first_out))
    assert first.returncode == 0, first.stderr
    assert "32 to fetch by batch (1 job" in first.stderr
    assert fake_service.count(BATCH, method="POST") == 1
    sent = fake_service.count()

    again = _run(cli_main, fake_service, cache, "enrich", str(leads), "-o", str(again_out))
    assert again.returncode == 0, again.stderr
    estimate, summary = again.stderr.strip().splitlines()
    assert estimate == "lookup-pandas: 32 rows, 32 distinct handles, 32 cached: nothing to fetch"
    assert "32 cached, 0 fetched" in summary and "0 requests sent" in summary
    assert "batch job" not in summary
    assert fake_service.count() == sent
    assert again_out.read_text() == first_out.read_text()
    _check_output(again_out, handles)
    assert fake_service.billed_handles() == {h: 1 for h in handles}


def test_a_batch_job_stopped_by_credits_exits_4_and_a_rerun_buys_the_rest(cli_main, tmp_path):
    """Production's job ends in status "error" when the balance runs out mid-job (another
    spender drains it here once the job is submitted): exit 4, what resolved is kept."""
    path, handles = _leads(tmp_path, "stopb", n=40, unknown=0)
    cache, out = tmp_path / "c.sqlite", tmp_path / "out.csv"
    with FakeService(balance=1_000, batch_resolve_rate=100) as svc:

        def drain() -> None:
            if wait_until(lambda: bool(svc.batch_jobs), within=30):
                svc.configure(balance=10)

        spender = threading.Thread(target=drain)
        spender.start()
        done = _run(cli_main, svc, cache, "enrich", str(path), "-c", "handle", "-o", str(out),
                    "--method", "batch")  # fmt: skip
        spender.join()
        assert done.returncode == 4, done.stderr
        assert "credits" in done.stderr.lower()
        (job,) = svc.state.jobs.values()
        assert job.stopped is not None
        bought = sum(svc.billed_handles().values())
        assert 10 <= bought < 40
        svc.configure(balance=1_000)
        again = _run(cli_main, svc, cache, "enrich", str(path), "-c", "handle", "-o", str(out))
        assert again.returncode == 0, again.stderr
        billed = svc.billed_handles()
        assert set(billed) == set(handles) and set(billed.values()) == {1}


def test_batch_jobs_on_an_unmetered_key_are_timed_without_a_pace(cli_main, tmp_path):
    """A key with no rate limit: the estimate line times the batch jobs and names no pace
    (it once formatted the missing pace and stopped before the run)."""
    path, handles = _leads(tmp_path, "unmet", n=30, unknown=0)
    out = tmp_path / "out.csv"
    with FakeService(rate_limit_per_minute=0) as svc:
        done = _run(cli_main, svc, tmp_path / "c.sqlite", "enrich", str(path), "-c", "handle",
                    "-o", str(out))  # fmt: skip
        assert done.returncode == 0, done.stderr
        estimate = done.stderr.strip().splitlines()[0]
        assert "30 to fetch by batch (1 job," in estimate
        assert re.search(r"\), (about .+|under a second) \(no rate limit\)", estimate), estimate
        assert svc.billed_handles() == dict.fromkeys(handles, 1)
