"""Unit tests for lookup_pandas.cli.estimate: the line printed before a job."""

from __future__ import annotations

import dataclasses

from lookup_pandas.cli.estimate import describe_estimate
from lookup_pandas.enrichment.results import Estimate

# -- the estimate line ---------------------------------------------------------------------------


def _estimate(**fields: object) -> Estimate:
    base = {"rows": 250, "valid": 235, "unique": 190, "cached": 60, "to_fetch": 130}
    return Estimate(**{**base, **fields})  # type: ignore[arg-type]


def test_the_estimate_line():
    est = _estimate(method="batch", jobs=1, polls=3, seconds=6.2, credits=130.0)
    assert describe_estimate(est, 57.0) == (
        "250 rows, 190 distinct handles, 60 cached: 130 to fetch by batch (1 job, ~3 polls), "
        "about 6 s at 57 calls/min; 130 credits"
    )
    assert describe_estimate(_estimate(cached=190, to_fetch=0), 57.0).endswith(
        "190 cached: nothing to fetch"
    )
    resumed = _estimate(method="batch", stored_jobs=1, stored_items=130, polls=3, seconds=0.5)
    assert "(collecting 1 stored job of 130, ~3 polls), under a second at 57 calls/min" in (
        describe_estimate(resumed, 57.0)
    )
    unpaced = describe_estimate(_estimate(method="single"), None)
    assert unpaced.endswith("130 to fetch by single, unpaced (no rate limit); 0 credits")
    assert describe_estimate(_estimate(method="single", seconds=7200.0), 30.0).endswith(
        "about 2.0 h at 30 calls/min; 0 credits"
    )


def test_the_estimate_line_shows_credits_balance_and_a_tier_change():
    est = _estimate(method="single", seconds=6.2, credits=130.0, balance=10_050.0)
    assert describe_estimate(est, 57.0).endswith(
        "130 to fetch by single, about 6 s at 57 calls/min; 130 credits, balance 10,050"
    )
    drop = "Developer (70/min) -> Hobby (30/min) after 51 credits"
    dropping = dataclasses.replace(est, credits=1_300.5, tier_change=drop)
    assert describe_estimate(dropping, 57.0).endswith(
        f"; 1,300.50 credits, balance 10,050; tier {drop}"
    )
    one = _estimate(to_fetch=1, method="single", seconds=1.0, credits=1.0)
    assert describe_estimate(one, 60.0).endswith("at 60 calls/min; 1 credit")
    assert describe_estimate(_estimate(cached=190, to_fetch=0, balance=5.0), 57.0).endswith(
        "nothing to fetch"
    )
