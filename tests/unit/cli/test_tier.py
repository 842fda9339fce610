"""``lookup-pandas tier``'s line (issue 30, item 9): one readable line from the credits-tier
payload, whatever it leaves out (production promises little of it)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lookup_pandas.cli.tier import tier_line

HOBBY = {"name": "Hobby", "min_credits": 100, "max_credits": 9999, "limit_per_minute": 30}
DEVELOPER = {
    "name": "Developer",
    "min_credits": 10000,
    "max_credits": 29999,
    "limit_per_minute": 70,
}


@pytest.mark.parametrize(
    ("payload", "line"),
    [
        (  # production's tier/k, as the emulator's ladder answers it
            {
                "balance": 1234,
                "credits_per_dollar": 120,
                "current_tier": HOBBY,
                "next_tier": {**DEVELOPER, "credits_needed": 8766},
                "previous_tier": {"name": "Testing", "min_credits": 0, "limit_per_minute": 7},
            },
            "tier Hobby: 30 calls/min, balance 1,234 credits; "
            "next: Developer (70 calls/min) at 10,000 credits (8,766 more)",
        ),
        (  # the top of the ladder
            {
                "balance": 2_500_000.5,
                "current_tier": {"name": "Strategic Partner"},
                "next_tier": None,
            },
            "tier Strategic Partner: balance 2,500,000.50 credits; the top tier",
        ),
        (  # no min_credits: only what is needed
            {"balance": 1, "current_tier": {"name": "growth"}, "next_tier": {"credits_needed": 1}},
            "tier growth: balance 1 credit; next: a higher tier (1 credit more)",
        ),
        ({"current_tier": {"limit_per_minute": "57.5"}}, "tier: 57.50 calls/min"),
        ({"balance": 0}, "tier: balance 0 credits"),
        ({}, "tier: not reported"),
        ({"balance": 10**400}, "tier: not reported"),  # JSON's integers have no bound
        (  # figures of the wrong kind are left out, never shown as "True" or "nan"
            {"balance": True, "current_tier": ["Hobby"], "next_tier": {"min_credits": "nan"}},
            "tier: not reported; next: a higher tier",
        ),
    ],
)
def test_the_line_holds_what_the_payload_holds(payload: dict[str, Any], line: str) -> None:
    assert tier_line(payload) == line


#: Names of letters and whitespace only: no "None", "True" or "nan" in the line but the code's.
NAMES = st.text(alphabet="abcXYZ \t\n\r", max_size=8)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | NAMES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=12,
)
FIELDS = st.sampled_from(
    ["balance", "current_tier", "next_tier", "name", "limit_per_minute", "min_credits",
     "credits_needed"]
)  # fmt: skip
PAYLOADS = st.dictionaries(
    FIELDS, st.recursive(JSON, lambda inner: st.dictionaries(FIELDS, inner, max_size=4)), max_size=4
)


@settings(max_examples=300, deadline=None)
@given(PAYLOADS)
def test_any_payload_gives_one_readable_line(payload: dict[str, Any]) -> None:
    line = tier_line(payload)
    assert line.startswith("tier")
    assert line == " ".join(line.split())  # one line, no stray whitespace
    for raw in ("None", "True", "False", "nan", "inf", "{", "[", "'"):
        assert raw not in line, line
