"""The line ``enrich`` prints before the job: what it will fetch, how, and about how long.

Example: ``describe_estimate(est, 57.0)`` -> ``250 rows, 190 distinct handles, 60 cached: 130
to fetch by batch (1 job, ~3 polls), about 6 s at 57 calls/min``.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING

from .options import EnrichOptions

if TYPE_CHECKING:
    from ..client import Client
    from ..outcomes import Estimate


def print_estimate(est: Estimate, options: EnrichOptions, client: Client) -> None:
    """Before the job: what it will fetch, how, and about how long it takes (stderr).

    The pace is learned first when anything must be fetched: the credits-tier look-up the job
    would make first anyway (never billed); a fully cached run still sends nothing, and a job
    that ``--max-calls`` refuses prints only its refusal.
    """
    from ..plan import planned

    if options.refresh:  # every handle is fetched anew
        est = dataclasses.replace(est, cached=0, to_fetch=est.unique)
    if options.max_calls is not None and est.to_fetch > options.max_calls:
        return  # the job refuses it before sending anything, in one line of its own
    if est.to_fetch and not client.pace_known:
        client.learn_pace()
    est = planned(est, client, options.method)
    print(f"lookup-pandas: {describe_estimate(est, client.rate_limit_per_minute)}", file=sys.stderr)


def describe_estimate(est: Estimate, per_minute: float | None) -> str:
    """One line: ``250 rows, 190 distinct handles, 60 cached: 130 to fetch by batch (1 job,
    ~3 polls), about 6 s at 57 calls/min``; a resumed run says ``152 to fetch by batch
    (collecting 1 stored job of 152, ~3 polls)``."""
    line = f"{est.rows} rows, {est.unique} distinct handles, {est.cached} cached: "
    if est.to_fetch == 0:
        return line + "nothing to fetch"
    line += f"{est.to_fetch} to fetch by {est.method}"
    batch = []
    if est.stored_jobs:
        stored = f"{est.stored_jobs} stored job{'s' * (est.stored_jobs != 1)}"
        batch.append(f"collecting {stored} of {est.stored_items}")
    if est.jobs:
        batch.append(f"{est.jobs} {'new ' * bool(est.stored_jobs)}job{'s' * (est.jobs != 1)}")
    if est.polls:
        batch.append(f"~{est.polls} polls")
    if batch:
        line += f" ({', '.join(batch)})"
    if est.seconds is None:
        return line + (", unpaced (no rate limit)" if per_minute is None else "")
    return line + f", about {_duration(est.seconds)} at {per_minute:.0f} calls/min"


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
