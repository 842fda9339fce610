"""Unit tests for lookup_pandas.cli.parser: the command line's parser and the typed options it
makes, without a socket or a process.

What is tested: each command's arguments become its frozen options object (defaults, every option,
``--no-progress``), bad numbers are refused by argparse (exit 2), the help of the service commands
lists the environment.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from lookup_pandas.cli.options import (
    CacheOptions,
    CompaniesOptions,
    DemoOptions,
    EnrichOptions,
    ListingOptions,
    ServeOptions,
    TierOptions,
)
from lookup_pandas.cli.parser import build_parser, parse_args

# -- arguments -> options ------------------------------------------------------------------------


def test_enrich_defaults_and_every_option():
    assert parse_args(["enrich", "leads.csv"]) == EnrichOptions(input="leads.csv")
    options = parse_args(
        [
            "enrich", "-", "-c", "lead", "--prefix", "p_", "--errors", "raise",
            "--max-calls", "9", "--max-credits", "12.5", "--refresh", "--method", "single",
            "--encoding", "latin-1",
            "--keep-case", "--chunksize", "7", "--chunk-threshold", "100", "-o", "out.csv",
            "--no-progress",
        ]
    )  # fmt: skip
    assert options == EnrichOptions(
        input="-",
        column="lead",
        prefix="p_",
        errors="raise",
        max_calls=9,
        max_credits=12.5,
        refresh=True,
        method="single",
        encoding="latin-1",
        fold_case=False,
        chunksize=7,
        chunk_threshold=100,
        output="out.csv",
        progress=False,
    )
    assert not options.fold_case and EnrichOptions(input="x").fold_case


def test_options_are_frozen():
    options = parse_args(["tier"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.output = "x"  # type: ignore[misc]


def test_listings_take_their_own_argument_and_the_filters_in_order():
    assert parse_args(["employees", "acme"]) == ListingOptions(command="employees", query="acme")
    assert parse_args(
        ["search", "engineer", "--limit", "20", "--max-records", "60", "--filter", "a=1",
         "--filter", "b=2", "-o", "-", "--no-progress"]
    ) == ListingOptions(
        command="search", query="engineer", limit=20, max_records=60, filters=("a=1", "b=2"),
        output="-", progress=False,
    )  # fmt: skip
    assert parse_args(["tier", "-o", "t.csv"]) == TierOptions(output="t.csv")


def test_the_data_api_listings_take_their_argument_and_only_their_own_options():
    assert parse_args(["alumni", "mit", "--filter", "degree=msc"]) == ListingOptions(
        command="alumni", query="mit", filters=("degree=msc",)
    )
    assert parse_args(["skills", "data", "--max-records", "5"]) == ListingOptions(
        command="skills", query="data", max_records=5
    )
    assert parse_args(["institutions", "oxford"]) == ListingOptions("institutions", "oxford")
    assert parse_args(["job-changes"]) == ListingOptions(command="job-changes")
    assert parse_args(
        ["job-changes", "--filter", "event_type=joined", "--limit", "10", "-o", "j.csv"]
    ) == ListingOptions(
        command="job-changes", filters=("event_type=joined",), limit=10, output="j.csv"
    )
    assert parse_args(["search-companies", "acme"]) == ListingOptions("search-companies", "acme")
    assert parse_args(["search-companies", "--website", "acme.example"]) == ListingOptions(
        command="search-companies", website="acme.example"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["skills", "data", "--filter", "a=b"],  # no filters beyond the name
        ["institutions", "uni", "--filter", "a=b"],
        ["job-changes", "extra"],
        ["alumni"],
        ["skills"],
        ["companies"],
        ["employees", "acme", "--website", "x"],
        ["companies", "acme", "--method", "bogus"],
    ],
)
def test_data_api_commands_refuse_what_they_do_not_take(argv, capsys):
    with pytest.raises(SystemExit) as info:
        parse_args(argv)
    assert info.value.code == 2


def test_companies_and_enrich_companies():
    assert parse_args(["companies", "acme", "org_1"]) == CompaniesOptions(values=("acme", "org_1"))
    assert parse_args(
        ["companies", "acme", "--errors", "raise", "--method", "single", "--keep-case", "-o", "c"]
    ) == CompaniesOptions(
        values=("acme",), errors="raise", method="single", fold_case=False, output="c"
    )
    companies = parse_args(["enrich", "accounts.csv", "--companies"])
    assert companies == EnrichOptions(
        input="accounts.csv", companies=True, column="slug", prefix="company_"
    )
    given = parse_args(["enrich", "a.csv", "--companies", "-c", "org", "--prefix", ""])
    assert (given.column, given.prefix) == ("org", "")
    assert parse_args(["enrich", "a.csv"]) == EnrichOptions(input="a.csv")


def test_every_listing_command_is_a_row_of_the_table():
    from lookup_pandas.api import listings, searches
    from lookup_pandas.cli.listing_commands import LIST_COMMANDS
    from lookup_pandas.service.endpoints import ENDPOINTS

    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(LIST_COMMANDS) <= set(commands)
    assert {c.listing for c in LIST_COMMANDS.values()} == {
        e.listing for e in ENDPOINTS.values() if e.listing
    }
    for c in LIST_COMMANDS.values():
        assert callable(getattr(listings, c.function, None) or getattr(searches, c.function))
        assert c.argument is None or c.argument in (c.listing.required, *c.listing.filters)
        text = commands[c.name].format_help()
        assert ("--filter" in text) == bool(c.filters), c.name
        assert "LOOKUP_API_KEY" in text
    assert LIST_COMMANDS["search-companies"].filters[:2] == ("staff_count_min", "staff_count_max")


def test_serve_and_demo():
    assert parse_args(["serve"]) == ServeOptions()
    assert parse_args(
        ["serve", "--port", "8080", "--latency", "0.05", "--rate-limit", "0", "--fault-rate",
         "0.1", "--api-key", "lk_test_k", "--sparse", "--no-batch", "--no-emails",
         "--batch-resolve-rate", "0", "--batch-page-size", "2", "--move-rate", "2.5", "--duration",
         "1.5"]
    ) == ServeOptions(
        port=8080, latency=0.05, rate_limit=0.0, fault_rate=0.1, api_key="lk_test_k",
        sparse=True, batch=False, emails=False, batch_resolve_rate=0.0, batch_page_size=2,
        move_rate=2.5, duration=1.5,
    )  # fmt: skip
    assert parse_args(["demo"]) == DemoOptions()
    assert parse_args(["demo", "--workdir", "w", "--no-progress", "--sparse"]) == DemoOptions(
        workdir=Path("w"), progress=False, sparse=True
    )


def test_cache_actions_take_only_their_own_options():
    assert parse_args(["cache", "info"]) == CacheOptions(action="info")
    assert parse_args(["cache", "prune"]) == CacheOptions(action="prune")
    assert parse_args(["cache", "clear", "--yes"]) == CacheOptions(action="clear", yes=True)
    forget = parse_args(
        ["cache", "forget", "ada", "grace", "--from-csv", "f.csv", "-c", "lead",
         "--encoding", "cp1252", "--keep-case"]
    )  # fmt: skip
    assert forget == CacheOptions(
        action="forget",
        handles=("ada", "grace"),
        from_csv="f.csv",
        column="lead",
        encoding="cp1252",
        fold_case=False,
    )
    assert not forget.fold_case


@pytest.mark.parametrize(
    "argv",
    [
        ["enrich", "x.csv", "--method", "bogus"],
        ["enrich", "x.csv", "--chunksize", "-1"],
        ["serve", "--batch-page-size", "0"],
        ["serve", "--batch-resolve-rate", "-1"],
        ["serve", "--move-rate", "-1"],
        ["serve", "--latency", "nope"],
        ["cache"],
        [],
    ],
)
def test_bad_arguments_exit_2_with_the_usage(argv, capsys):
    with pytest.raises(SystemExit) as info:
        parse_args(argv)
    assert info.value.code == 2
    assert "usage: lookup-pandas" in capsys.readouterr().err


def test_the_help_of_service_commands_lists_the_environment():
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name in ("enrich", "employees", "search", "tier", "companies", "alumni", "job-changes"):
        text = commands[name].format_help()
        for variable in ("LOOKUP_API_KEY", "LOOKUP_BASE_URL", "LOOKUP_CACHE"):
            assert variable in text, (name, variable)
    assert "--chunk-threshold" not in commands["enrich"].format_help()  # for tests only


@pytest.mark.parametrize("bad", ["-1", "lots", "inf"])
def test_max_credits_is_a_number_at_least_0(bad, capsys):
    with pytest.raises(SystemExit) as caught:
        parse_args(["enrich", "leads.csv", "--max-credits", bad])
    assert caught.value.code == 2 and "--max-credits" in capsys.readouterr().err
