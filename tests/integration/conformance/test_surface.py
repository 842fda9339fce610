"""The SDK's surface, and where this suite calls each method of it.

Every public method of the SDK's Data API and account classes (``renidly.resources.data``'s
``People``, ``Companies``, ``Institutions``, ``Skills``, ``JobChanges``;
``renidly.resources.account.Account``) and of the job handle ``enrich_batch`` returns, as a
client reaches it, with the test modules that call it:

- ``data.people.retrieve``: test_data_api, test_errors, test_credits
- ``data.people.search``: test_data_api, test_filters
- ``data.people.enrich_batch``: test_batch, test_errors
- ``data.companies.retrieve``: test_data_api, test_credits
- ``data.companies.search``: test_data_api, test_filters
- ``data.companies.employees``: test_data_api, test_filters
- ``data.companies.enrich_batch``: test_batch
- ``data.institutions.retrieve``: test_data_api, test_credits
- ``data.institutions.search``: test_data_api, test_errors
- ``data.institutions.alumni``: test_data_api, test_filters
- ``data.skills.retrieve``: test_data_api
- ``data.skills.search``: test_data_api, test_errors
- ``data.job_changes.search``: test_data_api, test_filters
- ``account.balance``: test_account, test_credits
- ``account.tier``: test_account, test_errors
- ``account.enterprise_balance``: test_account
- ``account.tiers``: test_account, test_credits
- ``account.route_costs``: test_account, test_credits
- ``batch.status``, ``batch.wait``, ``batch.stream``: test_batch (the handle is ``job`` there)

The tests below read this list: a method a new SDK adds fails them until it is listed here, and
a module listed must call it (``.data.people.retrieve(``, ``job.wait(``, ...).
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import get_type_hints

from renidly.resources.account import Account
from renidly.resources.data import Companies, Institutions, JobChanges, People, Skills

HERE = Path(__file__).parent


def listed() -> dict[str, list[str]]:
    """The docstring's list: method -> the test modules that call it."""
    out: dict[str, list[str]] = {}
    for line in (__doc__ or "").splitlines():
        if line.startswith("- ``"):
            methods, modules = line[2:].split(": ", 1)
            for method in re.findall(r"``([\w.]+)``", methods):
                out[method] = re.findall(r"test_\w+", modules)
    return out


def public(cls: type) -> list[str]:
    return [n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")]


def test_the_sdk_classes_are_those_covered(sdk):
    groups = {f"data.{name}": type(group) for name, group in vars(sdk.data).items()}
    assert groups == {
        "data.people": People,
        "data.companies": Companies,
        "data.institutions": Institutions,
        "data.skills": Skills,
        "data.job_changes": JobChanges,
    }
    assert type(sdk.account) is Account
    jobs = {get_type_hints(cls.enrich_batch)["return"] for cls in (People, Companies)}
    assert len(jobs) == 1


def test_the_docstring_lists_every_public_method(sdk):
    groups: dict[str, type] = {f"data.{n}": type(g) for n, g in vars(sdk.data).items()}
    groups["account"] = type(sdk.account)
    groups["batch"] = get_type_hints(People.enrich_batch)["return"]
    surface = {f"{prefix}.{name}" for prefix, cls in groups.items() for name in public(cls)}
    assert set(listed()) == surface


def test_each_module_listed_calls_the_method():
    for method, modules in listed().items():
        prefix, name = method.rsplit(".", 1)
        call = f"job.{name}(" if prefix == "batch" else f".{method}("
        assert modules, method
        for module in modules:
            assert call in (HERE / f"{module}.py").read_text(), (method, module)
