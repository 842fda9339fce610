"""The line ``enrich`` prints before the job: what it will fetch, how, how long, what it spends.

Example:
    >>> from lookup_pandas.enrichment.results import Estimate
    >>> est = Estimate(rows=250, valid=240, unique=190, cached=60, to_fetch=130,
    ...                method="batch", jobs=1, polls=3, seconds=6.0, credits=130)
    >>> print(describe_estimate(est, 57.0))  # doctest: +ELLIPSIS
    250 rows, 190 distinct handles, 60 cached: 130 to fetch by batch (1 job, ~3 polls), ...
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..display.facts import about
from ..enrichment.results import fetching, spending
from .options import EmailsOptions, EnrichOptions

if TYPE_CHECKING:
    from ..client.client import Client
    from ..enrichment.results import Estimate


def print_estimate(
    values: Iterable[Any], options: EnrichOptions | EmailsOptions, client: Client, **counts: Any
) -> None:
    """Print the estimate line on stderr before the job: what enriching ``values`` fetches.

    ``counts`` are the rows and valid rows when ``values`` are only the distinct ones (chunks).
    It is counted without the credits facts, which are read after ``--max-calls``, if at all. It
    learns the pace first when anything must be fetched (free panel calls). A fully cached
    run sends nothing. A job that ``--max-calls``, ``--max-credits`` or the balance refuses prints
    only its refusal.

    Example: ``print_estimate(leads["handle"], o, client)``
    """
    from ..enrichment.estimate import planned, read_credit_facts
    from ..enrichment.lookup import estimate_values

    o = options
    est = estimate_values(
        values, client=client, fold_case=o.fold_case, method=o.method, credits=False,
        kind=o.kind, refresh=o.refresh,
    )  # fmt: skip
    est = dataclasses.replace(est, **counts)
    if options.max_calls is not None and est.to_fetch > options.max_calls:
        return  # the job refuses it before sending anything, in one line of its own
    if est.to_fetch and not client.parts.contact.rate_known:
        client.parts.contact.learn_pace()
    if est.to_fetch:  # estimated with credits=False: nothing is read before --max-calls
        est = dataclasses.replace(est, balance=read_credit_facts(client))
    est = planned(est, client, options.method, options.kind, est.refresh)
    over_budget = options.max_credits is not None and est.credits > options.max_credits
    if over_budget or (est.balance is not None and est.credits > est.balance):
        return  # refused as well, before anything billable is sent
    line = describe_estimate(est, client.rate_limit_per_minute, options.kind.nouns)
    print(f"lookup-pandas: {line}", file=sys.stderr)


def describe_estimate(est: Estimate, per_minute: float | None, nouns: str = "handles") -> str:
    """The estimate as one line. ``nouns`` names the values (``"companies"``).

    Example:
        >>> from lookup_pandas.enrichment.results import Estimate
        >>> est = Estimate(rows=3, valid=2, unique=2, cached=2, to_fetch=0)
        >>> describe_estimate(est, 60.0, "companies")
        '3 rows, 2 distinct companies, 2 cached: nothing to fetch'
        >>> batch = Estimate(rows=500, valid=500, unique=500, cached=0, to_fetch=500,
        ...                  method="batch", jobs=1, polls=5, seconds=3.0, credits=500)
        >>> describe_estimate(batch, None).split(": ")[1]  # batch jobs on an unmetered key
        '500 to fetch by batch (1 job, ~5 polls), about 3 s (no rate limit); 500 credits'
    """
    line = f"{est.rows} rows, {est.unique} distinct {nouns}, {est.cached} cached: "
    if est.to_fetch == 0:
        return line + "nothing to fetch"
    line += fetching(est)
    if est.seconds is None:
        line += ", unpaced (no rate limit)" if per_minute is None else ""
    else:
        pace = f"at {per_minute:.0f} calls/min" if per_minute else "(no rate limit)"
        line += f", {about(est.seconds)} {pace}"
    return line + spending(est)
