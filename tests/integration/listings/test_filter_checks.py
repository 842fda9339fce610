"""Issue 21, item 4: requests the service would ignore in part or refuse are refused here, before
anything is sent or billed; the escape hatch (``client.get`` / ``client.paginate``) still sends.

Found by a user: ``lp.search_people("engineer", country="DE")`` returned every country and
``lp.company_employees("acme", geo_contry_code="DE")`` all 137 employees, every page billed;
``--limit 100000``, ``--limit 0`` and an empty title went to the service (ValidationError, exit 1).
"""

from __future__ import annotations

import pytest

import lookup_pandas as lp
from lookup_pandas import UsageError, ValidationError, cli
from lookup_pandas.testing import data

from ..helpers import EMPLOYEES, SEARCH


def listings(client):
    """(name, call) for both listing functions, bound to ``client`` and quiet."""
    quiet = {"client": client, "progress": False}
    return [
        ("search_people", lambda **kw: lp.search_people(**kw, **quiet)),
        ("company_employees", lambda **kw: lp.company_employees(**kw, **quiet)),
    ]


# -- the user's findings ---------------------------------------------------------------------------


def test_misspelt_search_filter_sends_nothing(fake_service, fake_client):
    with pytest.raises(UsageError, match="did you mean 'geo_country_code'"):
        lp.search_people("engineer", country="DE", client=fake_client, progress=False)
    assert fake_service.count() == 0 and fake_service.billed() == 0


def test_misspelt_employees_filter_sends_nothing(fake_service, fake_client):
    with pytest.raises(UsageError, match="did you mean 'geo_country_code'"):
        lp.company_employees("acme", geo_contry_code="DE", client=fake_client, progress=False)
    assert fake_service.count() == 0 and fake_service.billed() == 0


def test_unknown_filter_without_a_close_name_lists_the_accepted_ones(fake_service, fake_client):
    with pytest.raises(UsageError, match="It takes: current_only, title, geo_country_code"):
        lp.company_employees("acme", department="sales", client=fake_client, progress=False)
    assert fake_service.count() == 0


@pytest.mark.parametrize("limit", [0, 51, 100000, -1, 2.5])
def test_limit_outside_1_to_50_sends_nothing(fake_service, fake_client, limit):
    for name, call in listings(fake_client):
        first = "title" if name == "search_people" else "slug"
        with pytest.raises(UsageError, match="limit must be a whole number from 1 to 50"):
            call(**{first: "engineer" if first == "title" else "acme"}, limit=limit)
    assert fake_service.count() == 0


@pytest.mark.parametrize("title", ["", "   ", "ab", " ab "])
def test_short_or_empty_title_sends_nothing(fake_service, fake_client, title):
    with pytest.raises(UsageError, match="title needs at least 3 characters"):
        lp.search_people(title, client=fake_client, progress=False)
    with pytest.raises(UsageError, match="title needs at least 3 characters"):
        lp.company_employees("acme", title=title, client=fake_client, progress=False)
    assert fake_service.count() == 0


def test_short_text_filters_and_blank_slug_send_nothing(fake_service, fake_client):
    for call in (
        lambda: lp.search_people("engineer", geo_city="LA", client=fake_client, progress=False),
        lambda: lp.search_people("engineer", last_name="Li", client=fake_client, progress=False),
        lambda: lp.company_employees("acme", geo_city="x", client=fake_client, progress=False),
        lambda: lp.company_employees(" ", client=fake_client, progress=False),
        lambda: lp.search_people(
            "engineer", geo_country_code="Germany", client=fake_client, progress=False
        ),
    ):
        with pytest.raises(UsageError, match="Nothing was sent"):
            call()
    assert fake_service.count() == 0


def test_a_refusal_builds_no_client(fake_service, isolated_default_client):
    """Checked before the default client is even built (no key or base URL needed to be told)."""
    with pytest.raises(UsageError, match="did you mean"):
        lp.search_people("engineer", country="DE", progress=False)
    assert fake_service.count() == 0


# -- valid filters still work, and filter ----------------------------------------------------------


def test_valid_search_filter_filters(fake_service, fake_client):
    frame = lp.search_people(
        "engineer", geo_country_code="DE", max_records=40, client=fake_client, progress=False
    )
    expected = data.search(title="engineer", geo_country_code="DE")
    assert 0 < len(frame) <= 40
    assert frame["handle"].tolist() == [r["handle"] for r in expected[:40]]
    assert (frame["geo.country_code"] == "DE").all()
    assert fake_service.count(SEARCH, geo_country_code="DE") >= 1


def test_valid_employee_filters_filter(fake_service, fake_client):
    frame = lp.company_employees(
        "hooli", geo_country_code="DE", title="engineer", client=fake_client, progress=False
    )
    expected = data.employees("hooli", geo_country_code="DE", title="engineer")
    assert frame["handle"].tolist() == [r["handle"] for r in expected]
    assert len(frame) < len(data.employees("hooli"))
    assert (frame["geo.country_code"] == "DE").all()


def test_limit_bounds_are_accepted(fake_service, fake_client):
    assert len(lp.search_people("engineer", limit=1, max_records=2, client=fake_client)) == 2
    assert len(lp.company_employees("umbrella", limit=50, client=fake_client)) == 7
    limits = {r.param("limit") for r in fake_service.requests if r.path in (SEARCH, EMPLOYEES)}
    assert limits == {"1", "50"}


# -- the escape hatch is unchecked ---------------------------------------------------------------


def test_paginate_sends_an_unknown_param(fake_service, fake_client):
    records = list(
        fake_client.paginate(
            SEARCH,
            {"title": "engineer", "limit": 50, "country": "DE"},
            max_records=10,
            progress=False,
        )
    )
    assert len(records) == 10  # the emulator ignores it, as production does
    assert fake_service.count(SEARCH, country="DE") == 1


def test_get_sends_a_short_title_and_the_service_refuses_it(fake_service, fake_client):
    with pytest.raises(ValidationError, match="title: must be at least 3 characters"):
        fake_client.get(SEARCH, {"title": "ab", "limit": 10})
    with pytest.raises(ValidationError, match="limit"):
        fake_client.get(EMPLOYEES, {"slug": "acme", "limit": 0})
    assert fake_service.count(SEARCH) == 1 and fake_service.count(EMPLOYEES) == 1


# -- the command line ------------------------------------------------------------------------------


@pytest.fixture
def cli_env(fake_service, tmp_path, monkeypatch):
    """``cli.main`` in this process, on the emulator, with a cache file of the test's own."""
    for name, value in {
        "LOOKUP_BASE_URL": fake_service.base_url,
        "LOOKUP_API_KEY": fake_service.api_key,
        "LOOKUP_CACHE": str(tmp_path / "cli-cache.sqlite"),
    }.items():
        monkeypatch.setenv(name, value)
    return fake_service


def run_cli(capsys, *args: str) -> tuple[int, str]:
    code = cli.main([*args, "--no-progress"])
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize(
    ("args", "phrase"),
    [
        (
            ("search", "engineer", "--filter", "country=DE"),
            "'country' is not a filter of the people search; did you mean 'geo_country_code'?",
        ),
        (
            ("employees", "acme", "--filter", "geo_contry_code=DE"),
            "did you mean 'geo_country_code'",
        ),
        (("search", "engineer", "--limit", "0"), "limit must be a whole number from 1 to 50"),
        (("employees", "acme", "--limit", "100000"), "limit must be a whole number from 1 to 50"),
        (("search", ""), "title needs at least 3 characters"),
        (("search", "ab"), "title needs at least 3 characters"),
        (("employees", ""), "slug must be a non-empty string"),
        (("search", "engineer", "--filter", "geo_city=LA"), "geo_city needs at least 3"),
    ],
)
def test_cli_refuses_with_exit_2_and_sends_nothing(cli_env, capsys, args, phrase):
    code, err = run_cli(capsys, *args)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lookup-pandas: UsageError: "), err
    assert phrase in lines[0]
    assert "Traceback" not in err
    assert cli_env.count() == 0


def test_cli_employees_takes_title_as_a_filter(cli_env, capsys, tmp_path):
    """``title`` is the search command's own argument, but a filter of employees."""
    out = tmp_path / "acme.csv"
    code, err = run_cli(
        capsys, "employees", "acme", "--filter", "title=engineer", "--filter",
        "geo_country_code=DE", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    expected = data.employees("acme", title="engineer", geo_country_code="DE")
    assert f"{len(expected)} records" in err
    assert cli_env.count(EMPLOYEES, title="engineer", geo_country_code="DE") >= 1


def test_cli_search_still_refuses_its_own_argument_as_a_filter(cli_env, capsys):
    for key in ("title", "limit", "frame"):
        code, err = run_cli(capsys, "search", "engineer", "--filter", f"{key}=x")
        assert code == 2 and "is not a filter" in err
    assert cli_env.count() == 0
