"""What the Dask and Spark adapters share: one lazy run, checked before anything is planned, and
what its workers do with it (normalise the values, count what is billable, fetch).

Example: ``run = LazyRun.of(given, PEOPLE, frame, spec)``; then, on a worker,
``run.lookup(handles)``
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..api.columns import Columns, HasColumns, check_columns, column_values
from ..api.emails import read_columns
from ..client import credits as credit_facts
from ..client.client import Client, resolve_client
from ..client.spec import ClientSpec
from ..enrichment.lookup import lookup_values
from ..enrichment.plan import (
    Options,
    check_budget,
    check_credits,
)
from ..enrichment.results import LookupResult, OnRecord
from ..errors import ConfigurationError, UsageError
from ..identifiers.distinct import HandleMap
from ..identifiers.kinds import Kind
from ..service.credits import RouteCosts


@dataclasses.dataclass(frozen=True)
class LazyRun:
    """One lazy enrichment as its workers are given it: never the Client, nor its key.

    ``column`` is the column read, or a find's three (one value a row). ``own`` prefixes the
    run's status columns (:func:`~lookup_pandas.api.columns.check_columns`).
    ``options`` are api's; workers draw no bar (the cluster's UI shows the tasks).
    """

    column: Columns
    prefix: str
    own: str
    kind: Kind
    options: Options
    spec: ClientSpec

    @classmethod
    def of(
        cls,
        given: dict[str, Any],
        kind: Kind,
        frame: HasColumns,
        spec: Callable[[Client], ClientSpec],
    ) -> LazyRun:
        """api's arguments (by name) checked on ``frame``'s columns; ``spec`` makes the workers'
        spec of the Client."""
        provenance = bool(given["provenance"])
        options = dataclasses.replace(Options.of(given), provenance=provenance, progress=False)
        options.check(kind)
        column = read_columns(given)
        own = check_columns(frame, column, given["prefix"], provenance)
        workers = spec(resolve_client(given["client"]))
        return cls(column, given["prefix"], own, kind, options, workers)

    @property
    def budgeted(self) -> bool:
        """Whether ``max_calls`` or ``max_credits`` is set: the billable values are counted."""
        return self.options.max_calls is not None or self.options.max_credits is not None

    def normalised(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Each row's normalised value (None when invalid) and the reason it is invalid."""
        values = column_values(frame, self.column)  # a find's three parts are one value
        mapped = HandleMap(fold_case=self.options.fold_case, kind=self.kind).map(values)
        return mapped.handles[mapped.codes], mapped.errors[mapped.codes]  # each raw value once

    def counted(self, handles: Sequence[str]) -> pd.DataFrame:
        """How many of these distinct ``handles`` must be paid for (``needed``), of ``total``:
        all with refresh, else those not cached (the cache is read without the network)."""
        needed = len(handles)
        if not self.options.refresh:
            cache, path = self.spec.client().parts.cache, self.kind.endpoint.path
            needed = sum(not cache.is_cached(path, self.kind.params(h)) for h in handles)
        return pd.DataFrame({"needed": [needed], "total": [len(handles)]})

    def check_budgets(self, client: Client, needed: int, total: int) -> None:
        """Raise BudgetExceededError when ``needed`` of ``total`` distinct values pass
        ``max_credits`` (at the route's cost) or ``max_calls``."""
        max_credits, path = self.options.max_credits, self.kind.endpoint.path
        if max_credits is not None:
            cost = credit_facts.unless_failing(credit_facts.route_costs, client, RouteCosts())
            check_credits(needed * cost.cost_of(path), needed, max_credits)
        check_budget(needed, total - needed, total, self.options.max_calls, self.kind.nouns)

    def lookup(
        self,
        handles: Sequence[str],
        needed: int | None = None,
        total: int | None = None,
        on_record: OnRecord | None = None,
    ) -> LookupResult:
        """On a worker: these distinct, normalised ``handles`` fetched or read, once ``needed``
        of ``total`` (the billable values of the whole input), when counted, fit the budgets."""
        client = self.spec.client()
        if needed is not None:
            self.check_budgets(client, int(needed), int(total or 0))
        # no budgets (checked on the whole input) and no case folding (the values are normalised)
        options = dataclasses.replace(
            self.options, max_calls=None, max_credits=None, fold_case=False
        )
        return lookup_values(
            handles, client=client, options=options, kind=self.kind, on_record=on_record
        )


def worker_spec(client: Client, workers: str, how: str) -> ClientSpec:
    """The Client's key-less spec for ``workers``. Refused when it has no cache to share."""
    if client.settings.cache_path is None and client.settings.cache_url is None:
        raise ConfigurationError(
            f"{workers} share what they fetch through the cache, and this Client has none "
            f"(cache=False): {how}. Nothing was sent."
        )
    return ClientSpec.from_client(client)


def checked_fields(fields: Sequence[str]) -> list[str]:
    """``fields`` once each, else a UsageError: not a list of names."""
    if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
        raise UsageError(f"fields must be a list of field names, not {fields!r}")
    return list(dict.fromkeys(fields))
