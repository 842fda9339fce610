"""The enrichment's keywords are declared once, as the fields of ``enrichment.plan.Options``.

What is tested: every public enrichment function, accessor method, adapter and the overloads'
TypedDict takes each of those keywords with the declared default and annotation, and no other
keyword but its own (column, prefix, client, background, fields); the CLI's flags for them have
the declared default and help. A keyword added in one place and not the others fails here.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing

import pytest

from lookup_pandas import accessor
from lookup_pandas.api import functions as api
from lookup_pandas.cli.parser import build_parser
from lookup_pandas.enrichment.plan import Options

DECLARED = {f.name: f for f in dataclasses.fields(Options)}
TYPES = typing.get_type_hints(Options)

#: Each public function, the declared keywords it does not take (and why), and its own.
FUNCTIONS = {
    # an enrichment takes every option
    "enrich_profiles": (set(), {"prefix", "client", "background"}),
    "enrich_companies": (set(), {"prefix", "client", "background"}),
    # a frame of records, no job: no budget in calls (max_credits is the budget)
    "get_profiles": ({"max_calls"}, {"client"}),
    # as get_profiles, and companies have no job-change feed to refresh by
    "get_companies": ({"max_calls", "refresh"}, {"client"}),
    # an estimate plans what enrich would do: no budget, no errors, no bar, no provenance
    "estimate_profiles": (
        {"max_calls", "max_credits", "errors", "progress", "provenance"},
        {"client"},
    ),
    "estimate_companies": (
        {"max_calls", "max_credits", "errors", "progress", "provenance", "refresh"},
        {"client"},
    ),
}


def keywords(function: typing.Callable[..., object]) -> dict[str, inspect.Parameter]:
    parameters = inspect.signature(function, eval_str=True).parameters.values()
    return {p.name: p for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}


def check(name: str, given: dict[str, inspect.Parameter], left_out: set[str], own: set[str]):
    assert set(given) == (set(DECLARED) - left_out) | own, name
    for keyword, parameter in given.items():
        if keyword in DECLARED:
            assert parameter.default == DECLARED[keyword].default, (name, keyword)
            assert parameter.annotation == TYPES[keyword], (name, keyword)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_public_function_takes_the_declared_keywords(name):
    left_out, own = FUNCTIONS[name]
    check(name, keywords(getattr(api, name)), left_out, own)


def test_the_summarised_twins_and_the_accessor_methods_show_the_same_keywords():
    twins = {
        api.enrich_with_summary: "enrich_profiles",
        api.enrich_companies_with_summary: "enrich_companies",
    }
    for name in ("enrich_profiles", "enrich_companies", "estimate_profiles", "estimate_companies"):
        twins[getattr(accessor.LookupAccessor, name)] = name
    for function, name in twins.items():
        check(function.__qualname__, keywords(function), *FUNCTIONS[name])


def test_the_polars_dask_and_spark_adapters_show_the_same_keywords():
    from lookup_pandas.integrations import dask, polars, spark

    for module, own in ((polars, set()), (dask, {"fields"}), (spark, {"fields"})):
        for name, (left_out, theirs) in FUNCTIONS.items():
            function = getattr(module, name, None)
            if function is None:  # get_profiles and get_companies are pandas' only
                continue
            extra = own if name.startswith("enrich") else set()
            check(f"{module.__name__}.{name}", keywords(function), left_out, theirs | extra)


def test_the_overloads_typed_dict_is_the_declaration_with_prefix_and_client():
    hints = typing.get_type_hints(api.EnrichKeywords)
    assert set(hints) == set(DECLARED) | {"prefix", "client"}
    for keyword in DECLARED:
        assert hints[keyword] == TYPES[keyword], keyword


def test_the_cli_flags_for_the_options_have_the_declared_default_and_help():
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    actions = {a.dest: a for a in commands["enrich"]._actions}
    for keyword in ("errors", "max_calls", "max_credits", "method", "refresh"):
        assert actions[keyword].default == DECLARED[keyword].default, keyword
        assert actions[keyword].help == DECLARED[keyword].metadata["help"], keyword
    assert actions["errors"].choices == typing.get_args(TYPES["errors"])
    assert actions["method"].choices == typing.get_args(TYPES["method"])
    companies = {a.dest: a for a in commands["companies"]._actions}
    assert companies["errors"].help == DECLARED["errors"].metadata["help"]


def test_the_cli_options_that_are_the_engines_have_its_types_and_defaults():
    from lookup_pandas.cli.options import CompaniesOptions, EnrichOptions

    for cls in (EnrichOptions, CompaniesOptions):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.name in DECLARED:
                assert hints[f.name] == TYPES[f.name], (cls.__name__, f.name)
                assert f.default == DECLARED[f.name].default, (cls.__name__, f.name)
    assert set(EnrichOptions("a.csv").job) == set(DECLARED) - {"provenance"}
