"""The public surface: lookup_pandas.__all__ is pinned, and every name in it resolves."""

from __future__ import annotations

import types

import lookup_pandas as lp

PUBLIC = [
    "AuthenticationError", "BatchUnavailableError", "BudgetExceededError", "Client",
    "ClientStats", "ColumnError", "ConfigurationError", "EnrichmentJob", "Estimate", "JobSummary",
    "IncompleteErasureWarning", "InsecureCacheWarning", "InsufficientCreditsError",
    "NotCachedError", "NotFoundError", "PaginationError", "PermissionDeniedError",
    "RateLimitError", "RequestTimeoutError", "ResponseError", "SearchPanel",
    "ServerError", "ServiceError", "StorageError", "StorageWarning", "TransportError",
    "UsageError",
    "ValidationError",
    "__version__", "balance", "company_employees", "configure", "credits_tier",
    "default_client", "email_prospects", "errors", "get_companies", "get_email_owners",
    "get_email_verdicts", "get_profiles", "get_work_emails", "institution_alumni",
    "job_changes", "overview", "route_costs", "search_companies", "search_institutions",
    "search_people", "search_skills", "tiers",
]  # fmt: skip


def test_all_is_exactly_the_public_api():
    # A change here is a change of the public contract: make it on purpose.
    assert sorted(lp.__all__) == sorted(PUBLIC)
    assert len(lp.__all__) == len(set(lp.__all__))


def test_every_exported_name_resolves_to_what_it_names():
    import importlib

    for name in lp.__all__:
        value = getattr(lp, name)
        if isinstance(value, types.ModuleType):
            assert value is importlib.import_module(f"lookup_pandas.{name}"), name
        elif name == "__version__":
            assert isinstance(value, str) and value[0].isdigit(), value
        else:  # a class or function of the package, under its own name
            assert value.__name__ == name, (name, value)
            assert value.__module__.startswith("lookup_pandas."), (name, value.__module__)


def test_no_public_name_is_left_out_of_all():
    # Modules (submodules imported along the way, lp.testing) are not API names.
    public = {
        n
        for n, v in vars(lp).items()
        if not n.startswith("_") and not isinstance(v, types.ModuleType)
    }
    assert public <= set(lp.__all__), public - set(lp.__all__)


def test_exceptions_are_exported_from_the_errors_module_too():
    for name in lp.__all__:
        value = getattr(lp, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            assert getattr(lp.errors, name) is value


def test_dir_lists_the_public_names_not_the_internal_modules():
    # Issue 21: dir(lp) listed 28 internal modules (api, batch_run, cache_admin, ...).
    assert set(dir(lp)) == {*lp.__all__, "testing", "spark"}
    assert "batch_run" not in dir(lp) and "transport" not in dir(lp)
