"""``lookup-pandas emails find | verify | reverse | prospects`` against the emulator (issue 41,
item 4): the estimate line first, the CSV with the action's columns, the summary, each distinct
input bought once, a re-run free, and ``enrich``'s exit codes (2: a missing column or a service
without the Email API; 4: a budget refused before anything is sent).
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

from lookup_pandas.cli.exits import EXIT_BUDGET, EXIT_CONFIG
from lookup_pandas.service.endpoints import (
    EMAIL_FIND_PATH,
    EMAIL_FIND_PROFILE_PATH,
    EMAIL_PROSPECTS_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
)
from lookup_pandas.testing import mailboxes

from ..cli_helpers import CliMain, emulator_env


@pytest.fixture
def run(capsys, fake_service, tmp_path):
    """``run("emails", "verify", ...)``: main with the emulator's environment, its own cache."""
    env = emulator_env(fake_service, tmp_path / "cli-cache.sqlite")
    return lambda *args: CliMain(capsys)(env, *args, "--no-progress", cwd=tmp_path)


def _people(n: int) -> list[dict]:
    return mailboxes.prospects("acme.example", "full")[:n]


def _leads(tmp_path) -> str:
    people = _people(2)
    rows = [
        {"First": p["first_name"], "Last": p["last_name"], "Website": "https://www.acme.example/",
         "Email": p["email"]}
        for p in people
    ] + [{"First": people[0]["first_name"].upper(), "Last": people[0]["last_name"],
          "Website": "acme.example", "Email": "info@acme.example"}]  # fmt: skip
    path = tmp_path / "leads.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return str(path)


def test_find_by_name_writes_the_work_emails_after_the_estimate_line(run, fake_service, tmp_path):
    leads = _leads(tmp_path)
    args = ("emails", "find", leads, "--first-name", "First", "--last-name", "Last",
            "--domain", "Website", "-o", "found.csv")  # fmt: skip
    done = run(*args)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("lookup-pandas: 3 rows, 2 distinct queries, 0 cached: 2 to fetch")
    assert lines[-1].startswith("emails found: 3 rows (3 ok")
    out = pd.read_csv(tmp_path / "found.csv")
    assert out["email_address"].tolist() == [p["email"] for p in _people(2)] + [
        _people(1)[0]["email"]
    ]
    assert fake_service.count(EMAIL_FIND_PATH) == 2

    again = run(*args)
    assert again.returncode == 0 and "nothing to fetch" in again.stderr.splitlines()[0]
    assert fake_service.count(EMAIL_FIND_PATH) == 2


def test_find_by_profile_verify_and_reverse(run, fake_service, tmp_path):
    profiles = tmp_path / "profiles.csv"
    pd.DataFrame({"url": ["https://www.linkedin.com/in/ada/", "ada"]}).to_csv(profiles, index=False)
    done = run("emails", "find", str(profiles), "--profile", "url")
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(io.StringIO(done.stdout))["lookup_status"].tolist() == ["ok", "ok"]
    assert fake_service.count(EMAIL_FIND_PROFILE_PATH) == 1

    leads = _leads(tmp_path)
    checked = run("emails", "verify", leads, "-c", "Email")
    assert checked.returncode == 0, checked.stderr
    verdicts = pd.read_csv(io.StringIO(checked.stdout))
    assert verdicts["verify_reason"].tolist()[:2] == ["mailbox_accepts"] * 2
    assert fake_service.count(EMAIL_VERIFY_PATH) == 3

    behind = run("emails", "reverse", leads, "-c", "Email", "--prefix", "who_")
    assert behind.returncode == 0, behind.stderr
    people = pd.read_csv(io.StringIO(behind.stdout))
    assert people["lookup_status"].tolist() == ["ok", "ok", "unsupported"]
    assert people["who_current_company.slug"].tolist()[:2] == ["acme", "acme"]
    assert fake_service.count(EMAIL_REVERSE_PATH) == 3


def test_refusals_exit_as_enrich_s_do_before_anything_is_sent(run, fake_service, tmp_path):
    leads = _leads(tmp_path)
    missing = run("emails", "verify", leads)  # the default column "email" is not there
    assert missing.returncode == EXIT_CONFIG and "No column 'email'" in missing.stderr
    over = run("emails", "verify", leads, "-c", "Email", "--max-credits", "3")
    assert over.returncode == EXIT_BUDGET and "credits" in over.stderr
    assert fake_service.count(EMAIL_VERIFY_PATH) == 0

    fake_service.configure(emails=False)
    gone = run("emails", "verify", leads, "-c", "Email")
    assert gone.returncode == EXIT_CONFIG
    estimate, told = gone.stderr.strip().splitlines()  # the error is one line, after the estimate
    assert told.startswith("lookup-pandas: ConfigurationError: This service has no Email API: ")
    assert estimate.startswith("lookup-pandas: 3 rows") and told.endswith("Nothing was billed.")
    assert fake_service.stats()["credits"] == 0


def test_prospects_reads_every_page(run, fake_service, tmp_path):
    known = mailboxes.prospects("acme.example", "full")
    done = run("emails", "prospects", "https://www.acme.example", "-o", "p.csv")
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(tmp_path / "p.csv")["email"].tolist() == [p["email"] for p in known]
    assert done.stderr.strip() == (
        f"{len(known)} prospects at https://www.acme.example (full); {len(known)} credits -> p.csv"
    )
    assert fake_service.count(EMAIL_PROSPECTS_PATH) == -(-len(known) // 20)
    verified = run("emails", "prospects", "acme.example", "--verified-only")
    assert verified.returncode == 0
    rows = pd.read_csv(io.StringIO(verified.stdout))
    assert len(rows) == len(mailboxes.prospects("acme.example", "verified_only"))
