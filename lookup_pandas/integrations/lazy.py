"""What the Dask and Spark adapters share: the checks before a lazy run, the spec and options
their workers run with, and the count of billable values checked against the budgets.

Example: ``check_budgets(client, needed=3, total=4, given=given, kind=PEOPLE)``
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..client import credits as credit_facts
from ..client.client import Client
from ..client.spec import ClientSpec
from ..enrichment.plan import (
    Options,
    check_budget,
    check_credits,
    check_method,
    check_options,
    check_refresh,
)
from ..enrichment.results import Refresh
from ..errors import ConfigurationError, UsageError
from ..identifiers.kinds import Kind
from ..service.credits import RouteCosts


def check_given(given: dict[str, Any], kind: Kind, refused: str | None) -> None:
    """api's arguments checked before anything is planned; ``refused``: a UsageError's message."""
    if refused is not None:
        raise UsageError(refused)
    check_options(given["errors"], given["max_calls"], given["max_credits"])
    check_refresh(given["refresh"], kind)
    check_method(given["method"])


def worker_spec(client: Client, workers: str, how: str) -> ClientSpec:
    """The Client's key-less spec for ``workers``. Refused when it has no cache to share."""
    if client.settings.cache_path is None and client.settings.cache_url is None:
        raise ConfigurationError(
            f"{workers} share what they fetch through the cache, and this Client has none "
            f"(cache=False): {how}. Nothing was sent."
        )
    return ClientSpec.from_client(client)


def worker_options(given: dict[str, Any]) -> Options:
    """What each worker's lookup is asked: api's ``errors``, ``refresh``, ``method`` and
    ``provenance``; no bar (the cluster's UI shows the tasks), and no case folding (the values
    are normalised, and folded if asked, before they reach the workers)."""
    return Options(
        errors=given["errors"],
        refresh=given["refresh"],
        method=given["method"],
        provenance=bool(given.get("provenance")),
        progress=False,
        fold_case=False,
    )


def billable(spec: ClientSpec, handles: Sequence[str], refresh: Refresh, kind: Kind) -> int:
    """How many of these distinct ``handles`` must be paid for: all with refresh, else those not
    cached (the cache is read without the network)."""
    if refresh:
        return len(handles)
    cache, path = spec.client().parts.cache, kind.endpoint.path
    return sum(not cache.is_cached(path, kind.params(h)) for h in handles)


def check_budgets(
    client: Client, needed: int, total: int, given: dict[str, Any], kind: Kind
) -> None:
    """Raise BudgetExceededError when ``needed`` of ``total`` distinct values pass
    ``max_credits`` (at the route's cost) or ``max_calls``."""
    if given["max_credits"] is not None:
        cost = credit_facts.unless_failing(credit_facts.route_costs, client, RouteCosts())
        check_credits(needed * cost.cost_of(kind.endpoint.path), needed, given["max_credits"])
    check_budget(needed, total - needed, total, given["max_calls"], kind.nouns)


def checked_fields(fields: Sequence[str]) -> list[str]:
    """``fields`` once each, else a UsageError: not a list of names."""
    if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
        raise UsageError(f"fields must be a list of field names, not {fields!r}")
    return list(dict.fromkeys(fields))
