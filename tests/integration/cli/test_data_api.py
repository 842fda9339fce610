"""Issue 24, item 5: the command line over the whole Data API: ``companies``, ``enrich
--companies``, ``search-companies``, ``institutions``, ``alumni``, ``skills``, ``job-changes``.

``main`` runs in this process against the emulator (tests/integration/cli_helpers.py). Each
command writes CSV (stdout or ``-o``), says how many on stderr, refuses a misspelt filter with
one line and exit 2 before anything is sent.
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

from lookup_pandas.cli.exits import EXIT_CONFIG
from lookup_pandas.service.endpoints import ENDPOINTS
from lookup_pandas.testing import catalog
from lookup_pandas.testing import company_records as companies

from ..cli_helpers import CliMain


@pytest.fixture
def cli_main(capsys) -> CliMain:
    return CliMain(capsys)


@pytest.fixture
def run(cli_main, fake_service, tmp_path):
    """``run("skills", "data")``: main with the emulator's environment and its own cache."""
    fake_service.configure(rate_burst=10_000)
    env = {
        "LOOKUP_BASE_URL": fake_service.base_url,
        "LOOKUP_API_KEY": fake_service.api_key,
        "LOOKUP_CACHE": str(tmp_path / "cli-cache.sqlite"),
    }
    return lambda *args: cli_main(env, *args, "--no-progress")


def frame(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text))


def count(svc, name: str) -> int:
    return svc.count(ENDPOINTS[name].path)


# -- the listing commands --------------------------------------------------------------------------


def test_search_companies_reads_every_page(run, fake_service):
    expected = [c["id"] for c in companies.search_companies(name="labs")]
    done = run("search-companies", "labs", "--limit", "4")
    assert done.returncode == 0, done.stderr
    assert frame(done.stdout)["id"].tolist() == expected
    assert done.stderr.strip().endswith(f"{len(expected)} records")
    assert count(fake_service, "companies_search") == -(-len(expected) // 4)


def test_search_companies_by_website_with_a_filter(run):
    slug = companies.search_companies(name="labs")[0]["slug"]
    record = companies.company(slug)
    country = record["hq"]["country_code"]
    done = run("search-companies", "--website", record["website"], "--filter",
               f"hq_country_code={country}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert slug in frame(done.stdout)["slug"].tolist()


def test_search_companies_needs_a_name_or_a_website(run, fake_service):
    done = run("search-companies", "--filter", "hq_city=Berlin")
    assert done.returncode == EXIT_CONFIG
    assert "needs name or website" in done.stderr and len(done.stderr.splitlines()) == 1
    assert fake_service.count() == 0


def test_search_without_a_title_by_its_filters(run, fake_service):
    """Production makes every people-search filter optional: TITLE is too."""
    done = run("search", "--filter", "headline=designer", "--max-records", "5")
    assert done.returncode == 0, done.stderr
    assert len(frame(done.stdout)) == 5
    (sent,) = [r for r in fake_service.requests if r.path == ENDPOINTS["people_search"].path]
    assert sent.param("headline") == "designer" and sent.param("title") is None


def test_search_with_no_filter_at_all_is_refused_before_anything_is_sent(run, fake_service):
    done = run("search")
    assert done.returncode == EXIT_CONFIG
    assert "needs at least one filter" in done.stderr and len(done.stderr.splitlines()) == 1
    assert fake_service.count() == 0


def test_institutions_then_alumni_to_a_file(run, fake_service, tmp_path):
    found = run("institutions", "oxford")
    assert found.returncode == 0, found.stderr
    name = frame(found.stdout)["normalized_name"].item()
    out = tmp_path / "alumni.csv"
    done = run("alumni", name, "--filter", "degree=msc", "-o", str(out))
    assert done.returncode == 0, done.stderr
    alumni = pd.read_csv(out)
    expected = catalog.alumni(name, degree="msc")
    assert alumni["handle"].tolist() == [r["handle"] for r in expected]
    assert set(alumni["education.school.slug"]) == {name}
    assert done.stdout == ""


def test_skills_and_max_records(run, fake_service):
    done = run("skills", "data", "--limit", "1", "--max-records", "1")
    assert done.returncode == 0, done.stderr
    assert frame(done.stdout)["id"].tolist() == [catalog.search_skills("data")[0]["id"]]
    assert count(fake_service, "skills_search") == 1


def test_job_changes_every_page_of_a_filter(run, fake_service):
    expected = catalog.job_changes(event_type="joined", geo_country_code="DE")
    done = run("job-changes", "--filter", "event_type=joined", "--filter", "geo_country_code=DE")
    assert done.returncode == 0, done.stderr
    events = frame(done.stdout)
    assert events["id"].tolist() == [e["id"] for e in expected]
    assert events["person.handle"].tolist() == [e["person"]["handle"] for e in expected]
    assert "organization.slug" in events.columns


def test_job_changes_with_no_filter_stops_at_max_records(run, fake_service):
    done = run("job-changes", "--max-records", "75")
    assert done.returncode == 0, done.stderr
    assert len(frame(done.stdout)) == 75 and count(fake_service, "job_changes") == 2


@pytest.mark.parametrize(
    ("args", "suggested"),
    [
        (("job-changes", "--filter", "event=joined"), "event_type"),
        (("alumni", "mit", "--filter", "degre=msc"), "degree"),
        (("search-companies", "labs", "--filter", "hq_country=DE"), "hq_country_code"),
    ],
)
def test_a_misspelt_filter_is_one_line_exit_2_nothing_sent(run, fake_service, args, suggested):
    done = run(*args)
    assert done.returncode == EXIT_CONFIG
    assert f"did you mean '{suggested}'" in done.stderr and len(done.stderr.splitlines()) == 1
    assert fake_service.count() == 0


def test_commands_without_filters_take_no_filter_option(run):
    done = run("skills", "data", "--filter", "a=b")
    assert done.returncode == 2 and "unrecognized arguments: --filter" in done.stderr


# -- companies by value, and enrich --companies ----------------------------------------------------


def test_companies_one_row_per_value(run, fake_service):
    acme = companies.company("acme")
    done = run("companies", "acme", acme["id"], "https://www.linkedin.com/company/Globex/",
               "unknown-co")  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = frame(done.stdout)
    assert rows["lookup_status"].tolist() == ["ok", "ok", "ok", "not_found"]
    assert rows["slug"].tolist()[:3] == ["acme", "acme", "globex"]
    assert "4 companies: 3 ok, 1 not_found" in done.stderr


def test_enrich_companies_a_csv_then_a_rerun_bills_nothing(run, fake_service, tmp_path):
    accounts = tmp_path / "accounts.csv"
    accounts.write_text("account,slug\nA,acme\nA again,ACME\nG,globex\nblank,\nX,unknown-co\n")
    out = tmp_path / "out.csv"
    done = run("enrich", str(accounts), "--companies", "-o", str(out))
    assert done.returncode == 0, done.stderr
    enriched = pd.read_csv(out, keep_default_na=False)
    assert enriched["account"].tolist() == ["A", "A again", "G", "blank", "X"]
    assert enriched["lookup_status"].tolist() == ["ok", "ok", "ok", "invalid", "not_found"]
    assert enriched["company_slug"].tolist()[:3] == ["acme", "acme", "globex"]
    assert "3 distinct companies" in done.stderr
    # the summary people runs print: statuses, what was fetched, requests, credits at the
    # company route's cost (2 each in the emulator)
    assert "enriched 5 rows (3 ok, 1 not_found, 1 invalid, 0 error)" in done.stderr
    assert "3 fetched" in done.stderr and "6 credits" in done.stderr
    billed = fake_service.billed()
    assert billed == 3  # acme, globex, unknown-co: each once
    again = run("enrich", str(accounts), "--companies", "-o", str(out))
    assert again.returncode == 0, again.stderr
    assert fake_service.billed() == billed


def test_enrich_companies_takes_its_own_column_and_prefix(run, tmp_path):
    accounts = tmp_path / "accounts.csv"
    accounts.write_text("org\nacme\n")
    done = run("enrich", str(accounts), "--companies", "-c", "org", "--prefix", "co_")
    assert done.returncode == 0, done.stderr
    assert frame(done.stdout)["co_slug"].tolist() == ["acme"]
    missing = run("enrich", str(accounts), "--companies")  # the default column is slug
    assert missing.returncode == EXIT_CONFIG and "slug" in missing.stderr


@pytest.mark.parametrize("method", ["single", "batch"])
def test_enrich_companies_in_chunks_equals_the_whole_file(run, fake_service, tmp_path, method):
    """``--companies --chunksize N`` streams the file (two passes, a part file) as people's
    chunks do, and writes what the whole-file run writes; each distinct company bought once."""
    slugs = [c["slug"] for c in companies.company_population()][:25]
    values = [*slugs, *(s.upper() for s in slugs[:5]), "", "unknown-co", slugs[0]]
    accounts = tmp_path / "accounts.csv"
    pd.DataFrame({"n": range(len(values)), "slug": values}).to_csv(accounts, index=False)
    chunked = tmp_path / "chunked.csv"
    done = run("enrich", str(accounts), "--companies", "--chunksize", "7", "--method", method,
               "-o", str(chunked))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "in 5 chunks of 7 rows" in done.stderr and "26 distinct companies" in done.stderr
    billed = fake_service.billed()
    assert billed == 26  # each distinct company once, the not-found too
    assert count(fake_service, "company") == (26 if method == "single" else 0)
    whole = tmp_path / "whole.csv"
    again = run("enrich", str(accounts), "--companies", "--chunksize", "0", "-o", str(whole))
    assert again.returncode == 0, again.stderr
    assert fake_service.billed() == billed  # all cached: the whole-file run buys nothing
    left, right = pd.read_csv(chunked), pd.read_csv(whole)
    pd.testing.assert_frame_equal(left, right)
    assert left["lookup_status"].value_counts().to_dict() == {"ok": 31, "invalid": 1,
                                                              "not_found": 1}  # fmt: skip
    assert left["company_slug"].iloc[25] == slugs[0]  # a case variant joins its company
