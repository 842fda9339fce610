"""Issue 30, item 3: one input rule for companies everywhere.

Found by a user: ``lp.company_employees("ACME")`` and ``lookup-pandas employees
https://www.linkedin.com/company/acme/`` raised NotFoundError (the raw value was sent as
``slug``, a billed not-found in production) while ``client.company("ACME")`` found ``acme``.
Every function that takes a company now reads it as enrichment does (slugs in any case, with
spaces around, company page URLs, ``org_`` ids), and refuses anything else before sending.
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.cli.exits import EXIT_CONFIG
from lookup_pandas.errors import NotFoundError, UsageError
from lookup_pandas.service.paths import COMPANY_PATH, JOB_CHANGES_PATH
from lookup_pandas.testing import catalog, data
from lookup_pandas.testing import company_records as companies

from ..cli_helpers import CliMain
from ..helpers import EMPLOYEES, SEARCH

QUIET = {"progress": False}
#: The spellings a user pastes for acme, each the same company as "acme".
ACME_SPELLINGS = [
    "ACME",
    "  Acme ",
    "https://www.linkedin.com/company/Acme/?trk=x",
    "linkedin.com/company/acme",
]
#: What is no company: refused before anything is sent.
GARBAGE = [
    "",
    "   ",
    "https://acme.com",  # a website: no /company/<slug>
    "https://www.linkedin.com/in/ada/",  # a person's page
    "sales@acme.com",
    "x",
    "acme/ada",
]


def acme_id() -> str:
    record = companies.company("acme")
    assert record is not None
    return str(record["id"])


# -- company_employees ----------------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ACME_SPELLINGS)
def test_company_employees_takes_case_variants_and_page_urls(fake_service, fake_client, spelling):
    expected = [r["id"] for r in data.employees("acme") or []]
    frame = lp.company_employees(spelling, client=fake_client, **QUIET)
    assert frame["id"].tolist() == expected and len(expected) == 137
    # Sent as the slug, never as written: every page asked for slug=acme.
    assert fake_service.count(EMPLOYEES) == fake_service.count(EMPLOYEES, slug="acme") >= 1
    assert fake_service.count(EMPLOYEES, status=200) == fake_service.count(EMPLOYEES)


def test_company_employees_takes_an_org_id_through_one_company_lookup(fake_service, fake_client):
    """The employees endpoint takes only ``slug`` (production's data-api.md): an ``org_`` id is
    looked up once for its slug (cached), then the employees are asked for by slug."""
    expected = [r["id"] for r in data.employees("acme") or []]
    frame = lp.company_employees(f" {acme_id()} ", client=fake_client, **QUIET)
    assert frame["id"].tolist() == expected
    assert fake_service.count(COMPANY_PATH) == fake_service.count(COMPANY_PATH, id=acme_id()) == 1
    assert fake_service.count(EMPLOYEES) == fake_service.count(EMPLOYEES, slug="acme") == 3

    again = lp.company_employees(acme_id(), client=fake_client, **QUIET)
    assert again["id"].tolist() == expected
    assert fake_service.count(COMPANY_PATH) == 1  # the id's slug came from the cache


def test_an_unknown_org_id_is_not_found_and_the_employees_are_not_asked(fake_service, fake_client):
    with pytest.raises(NotFoundError):
        lp.company_employees("org_unknownco", client=fake_client, **QUIET)
    assert fake_service.count(COMPANY_PATH, id="org_unknownco") == 1
    assert fake_service.count(EMPLOYEES) == 0


@pytest.mark.parametrize("value", GARBAGE)
def test_company_employees_refuses_what_is_no_company_with_nothing_sent(
    fake_service, fake_client, value
):
    with pytest.raises(UsageError, match="Nothing was sent"):
        lp.company_employees(value, client=fake_client, **QUIET)
    assert fake_service.count() == 0 and fake_service.billed() == 0


def test_a_refused_company_builds_no_client(fake_service, isolated_default_client):
    with pytest.raises(UsageError, match="a URL without /company/<slug>"):
        lp.company_employees("https://acme.com", **QUIET)
    assert fake_service.count() == 0


# -- the other functions that take companies -------------------------------------------------------


def test_search_people_organization_slugs_take_any_company_form(fake_service, fake_client):
    expected = lp.search_people(
        "recruiter", organization_slugs="acme,hooli", client=fake_client, **QUIET
    )["id"].tolist()
    assert expected
    frame = lp.search_people(
        "recruiter",
        organization_slugs=["ACME", " https://www.linkedin.com/company/Hooli/ ", "acme"],
        client=fake_client,
        **QUIET,
    )
    assert frame["id"].tolist() == expected
    sent = {r.param("organization_slugs") for r in fake_service.requests if r.path == SEARCH}
    assert sent == {"acme,hooli"}


def test_search_people_organization_slugs_look_an_org_id_up(fake_service, fake_client):
    frame = lp.search_people(
        "recruiter", organization_slugs=f"{acme_id()}, hooli", client=fake_client, **QUIET
    )
    expected = data.search(title="recruiter", organization_slugs="acme,hooli")
    assert frame["id"].tolist() == [r["id"] for r in expected]
    assert fake_service.count(COMPANY_PATH, id=acme_id()) == 1
    assert fake_service.count(SEARCH, organization_slugs="acme,hooli") >= 1


def test_job_changes_organization_ids_take_slugs_and_urls(fake_service, fake_client):
    globex = companies.company("globex")
    assert globex is not None
    ids = f"{acme_id()},{globex['id']}"
    expected = [e["id"] for e in catalog.job_changes(organization_ids=ids)]
    assert expected
    frame = lp.job_changes(
        organization_ids=["ACME", "https://www.linkedin.com/company/globex", globex["id"]],
        client=fake_client,
        **QUIET,
    )
    assert frame["id"].tolist() == expected
    assert fake_service.count(COMPANY_PATH) == 2  # each slug looked up once for its id
    sent = {
        r.param("organization_ids") for r in fake_service.requests if r.path == JOB_CHANGES_PATH
    }
    assert sent == {ids}


@pytest.mark.parametrize(
    ("call", "value"),
    [
        (lambda c, v: lp.search_people("recruiter", organization_slugs=v, client=c), "acme,x"),
        (lambda c, v: lp.search_people("recruiter", organization_slugs=v, client=c), ""),
        (lambda c, v: lp.job_changes(organization_ids=v, client=c), ["org_1", "https://a.com"]),
        (lambda c, v: lp.job_changes(organization_ids=v, client=c), " , "),
    ],
    ids=["slugs-short", "slugs-empty", "ids-website", "ids-blank"],
)
def test_company_filters_refuse_garbage_with_nothing_sent(fake_service, fake_client, call, value):
    with pytest.raises(UsageError, match="Nothing was sent"):
        call(fake_client, value)
    assert fake_service.count() == 0


# -- the command line -----------------------------------------------------------------------------


@pytest.fixture
def run(capsys, fake_service, tmp_path):
    env = {
        "LOOKUP_BASE_URL": fake_service.base_url,
        "LOOKUP_API_KEY": fake_service.api_key,
        "LOOKUP_CACHE": str(tmp_path / "cli-cache.sqlite"),
    }
    return lambda *args: CliMain(capsys)(env, *args, "--no-progress")


@pytest.mark.parametrize("spelling", ["https://www.linkedin.com/company/acme/", "ACME"])
def test_cli_employees_takes_a_page_url_and_case(run, fake_service, spelling):
    done = run("employees", spelling)
    assert done.returncode == 0, done.stderr
    shown = pd.read_csv(io.StringIO(done.stdout))
    assert shown["id"].tolist() == [r["id"] for r in data.employees("acme") or []]
    assert fake_service.count(EMPLOYEES) == fake_service.count(EMPLOYEES, slug="acme") >= 1


def test_cli_employees_takes_an_org_id(run, fake_service):
    done = run("employees", acme_id(), "--max-records", "10")
    assert done.returncode == 0, done.stderr
    shown = pd.read_csv(io.StringIO(done.stdout))
    assert shown["id"].tolist() == [r["id"] for r in (data.employees("acme") or [])[:10]]
    assert fake_service.count(COMPANY_PATH, id=acme_id()) == 1


@pytest.mark.parametrize("value", ["https://acme.com", " ", "x"])
def test_cli_employees_refuses_garbage_exit_2_nothing_sent(run, fake_service, value):
    done = run("employees", value)
    assert done.returncode == EXIT_CONFIG
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lookup-pandas: UsageError: ")
    assert fake_service.count() == 0


def test_cli_search_organization_slugs_filter_is_normalised(run, fake_service):
    done = run("search", "recruiter", "--filter", "organization_slugs=ACME, Hooli")
    assert done.returncode == 0, done.stderr
    assert fake_service.count(SEARCH) == fake_service.count(SEARCH, organization_slugs="acme,hooli")
    assert fake_service.count(SEARCH) >= 1


# -- the emulator: as production documents /companies/employees, no more --------------------------


def test_emulator_employees_takes_slug_only(fake_service, fake_client):
    """Production's data-api.md: ``slug`` (required); no ``id`` parameter. An id alone is a 400
    (not billed), as a missing required parameter is."""
    with pytest.raises(lp.ValidationError, match="slug"):
        fake_client.get(EMPLOYEES, {"id": acme_id()})
    assert fake_service.count(EMPLOYEES, status=400) == 1
    assert fake_service.billed() == 0
