"""``lookup-pandas enrich`` over a CSV an earlier ``enrich`` wrote: enrichments chained on a file.

What is tested: people, then companies (``--companies --prefix acct_``), then people again, each
run's statuses under names of its own (the first run's ``lookup_status``, then
``acct_lookup_status``...), the earlier columns byte for byte; the same output read whole and in
chunks; a run whose prefix would overwrite columns refused before anything is sent, with advice
that helps (another ``--prefix``), and that prefix then working.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from lookup_pandas.service.paths import COMPANY_PATH
from lookup_pandas.testing import FakeService

from ..cli_helpers import CliMain, Done, emulator_env

LEADS = (
    "name,handle,company\n"
    "Ada,ada-chained,acme\n"
    "Grace,grace-chained,globex\n"
    "Ada again,https://www.example.com/in/ada-chained/,acme\n"
    "Nobody,unknown-chained,unknown-co\n"
    "Blank,,\n"
)


@pytest.fixture
def cli_main(capsys: pytest.CaptureFixture[str]) -> CliMain:
    return CliMain(capsys)


def _enrich(cli_main: CliMain, svc: FakeService, tmp_path: Path, *args: str) -> Done:
    env = emulator_env(svc, tmp_path / "c.sqlite")
    return cli_main(env, "enrich", *args, "--no-progress", cwd=tmp_path)


def test_people_then_companies_then_people_again_on_one_file(
    cli_main: CliMain, fake_service: FakeService, tmp_path: Path
) -> None:
    (tmp_path / "leads.csv").write_text(LEADS, encoding="utf-8")
    first = _enrich(cli_main, fake_service, tmp_path, "leads.csv", "-o", "people.csv")
    assert first.returncode == 0, first.stderr
    companies = ("people.csv", "-c", "company", "--companies", "--prefix", "acct_")
    whole = _enrich(cli_main, fake_service, tmp_path, *companies, "-o", "both.csv")
    assert whole.returncode == 0, whole.stderr
    chunked = _enrich(
        cli_main, fake_service, tmp_path, *companies, "-o", "chunked.csv", "--chunksize", "2"
    )
    assert chunked.returncode == 0, chunked.stderr
    assert (tmp_path / "chunked.csv").read_bytes() == (tmp_path / "both.csv").read_bytes()
    again = ("both.csv", "-c", "handle", "--prefix", "again_", "-o", "again.csv")
    third = _enrich(cli_main, fake_service, tmp_path, *again)
    assert third.returncode == 0, third.stderr
    assert "0 credits" in third.stderr  # the people are in the cache

    people, both, last = (
        pd.read_csv(tmp_path / name, dtype=str) for name in ("people.csv", "both.csv", "again.csv")
    )
    pd.testing.assert_frame_equal(both[people.columns], people)  # the first run's, untouched
    pd.testing.assert_frame_equal(last[both.columns], both)
    assert people["lookup_status"].tolist() == ["ok", "ok", "ok", "not_found", "invalid"]
    assert both.columns[-2:].tolist() == ["acct_lookup_status", "acct_lookup_error"]
    assert both["acct_lookup_status"].tolist() == ["ok", "ok", "ok", "not_found", "invalid"]
    assert both["acct_name"].tolist()[:2] == ["Acme", "Globex"]
    assert last.columns[-2:].tolist() == ["again_lookup_status", "again_lookup_error"]
    assert last["again_lookup_status"].tolist() == people["lookup_status"].tolist()
    assert fake_service.count(COMPANY_PATH) == 3  # each company bought once, over three runs


def test_a_prefix_that_would_overwrite_columns_is_refused_with_advice_that_helps(
    cli_main: CliMain, fake_service: FakeService, tmp_path: Path
) -> None:
    (tmp_path / "leads.csv").write_text(LEADS, encoding="utf-8")
    assert (
        _enrich(cli_main, fake_service, tmp_path, "leads.csv", "-o", "people.csv").returncode == 0
    )
    sent = fake_service.count()
    again = ("people.csv", "-o", "again.csv")
    refused = _enrich(cli_main, fake_service, tmp_path, *again)
    assert refused.returncode == 2
    line = refused.stderr.strip()
    assert "start with 'profile_'" in line and "Give another --prefix" in line
    assert "lookup_status" not in line  # the statuses are not in the way
    assert fake_service.count() == sent  # nothing was sent
    taken = _enrich(cli_main, fake_service, tmp_path, *again, "--prefix", "p2_")
    assert taken.returncode == 0, taken.stderr
    columns = pd.read_csv(tmp_path / "again.csv", nrows=0).columns
    assert columns[-2:].tolist() == ["p2_lookup_status", "p2_lookup_error"]
