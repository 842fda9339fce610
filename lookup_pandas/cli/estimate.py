"""The line ``enrich`` prints before the job: what it will fetch, how, about how long, and
what it will spend.

Example: ``describe_estimate(est, 57.0)`` -> ``250 rows, 190 distinct handles, 60 cached: 130
to fetch by batch (1 job, ~3 polls), about 6 s at 57 calls/min; 130 credits, balance 10,050;
tier Developer (70/min) -> Hobby (30/min) after 51 credits``.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING

from ..display.facts import about, credits_text, fetching, number
from .options import EnrichOptions

if TYPE_CHECKING:
    from ..client.client import Client
    from ..enrichment.results import Estimate


def print_estimate(est: Estimate, options: EnrichOptions, client: Client) -> None:
    """Before the job: what it will fetch, how, about how long it takes, and what it will
    spend (stderr). ``est``: from ``estimate_values(..., credits=False)``.

    The pace is learned first when anything must be fetched: the credits-tier look-up the job
    would make first anyway (never billed), and the balance, route costs and ladder (free
    panel calls); a fully cached run still sends nothing, and a job that ``--max-calls``,
    ``--max-credits`` or the balance refuses prints only its refusal.
    """
    from ..enrichment.values import planned, read_credit_facts

    if options.refresh:  # every value is fetched anew
        est = dataclasses.replace(est, cached=0, to_fetch=est.unique)
    if options.max_calls is not None and est.to_fetch > options.max_calls:
        return  # the job refuses it before sending anything, in one line of its own
    if est.to_fetch and not client.pace_known:
        client.learn_pace()
    if est.to_fetch:  # estimated with credits=False: nothing is read before --max-calls
        est = dataclasses.replace(est, balance=read_credit_facts(client))
    est = planned(est, client, options.method, options.kind)
    over_budget = options.max_credits is not None and est.credits > options.max_credits
    if over_budget or (est.balance is not None and est.credits > est.balance):
        return  # refused as well, before anything billable is sent
    line = describe_estimate(est, client.rate_limit_per_minute, options.kind.nouns)
    print(f"lookup-pandas: {line}", file=sys.stderr)


def describe_estimate(est: Estimate, per_minute: float | None, nouns: str = "handles") -> str:
    """One line: ``250 rows, 190 distinct handles, 60 cached: 130 to fetch by batch (1 job,
    ~3 polls), about 6 s at 57 calls/min``; a resumed run says ``152 to fetch by batch
    (collecting 1 stored job of 152, ~3 polls)``. ``nouns``: what the values are
    (``"companies"``: ``190 distinct companies``)."""
    line = f"{est.rows} rows, {est.unique} distinct {nouns}, {est.cached} cached: "
    if est.to_fetch == 0:
        return line + "nothing to fetch"
    line += fetching(est)
    if est.seconds is None:
        line += ", unpaced (no rate limit)" if per_minute is None else ""
    else:
        line += f", {about(est.seconds)} at {per_minute:.0f} calls/min"
    return line + _spending(est)


def _spending(est: Estimate) -> str:
    """``; 130 credits, balance 988; tier Developer (70/min) -> Hobby (30/min) after 51
    credits``: what the job spends, the balance when known, and any tier change."""
    text = f"; {credits_text(est.credits)}"
    if est.balance is not None:
        text += f", balance {number(est.balance)}"
    if est.tier_change:
        text += f"; tier {est.tier_change}"
    return text
