"""``lookup-pandas tier``: the credits tier as one line a person reads (``-o FILE``: its CSV row).

Example:
    >>> tier_line({"balance": 1234, "current_tier": {"name": "Hobby", "limit_per_minute": 30}})
    'tier Hobby: 30 calls/min, balance 1,234 credits'
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from ..display.facts import credits_text, number
from ..service.credits import is_enterprise
from ..service.envelope import finite_number
from .options import TierOptions
from .output import check_output, target, to_stdout, write_frame
from .service_client import service_client

__all__ = ["tier", "tier_line"]


def tier(options: TierOptions) -> int:
    """The tier's line on stdout, or with ``-o FILE`` its one-row CSV there.

    With ``-o FILE``, the line goes to stderr.
    """
    from ..frames.records import records_to_frame

    check_output(options.output)
    with service_client(options.offline) as client:
        payload = client.credits_tier()
    line = tier_line(payload)
    if to_stdout(options.output):
        print(line)
        return 0
    write_frame(records_to_frame([payload]), options.output)
    print(f"{line}{target(options.output)}", file=sys.stderr)
    return 0


def tier_line(payload: Mapping[str, Any]) -> str:
    """One line from the credits-tier payload: each figure it holds, nothing for one it lacks.

    Production promises little about the payload, so any field may be missing.

    Example:
        >>> tier_line({"balance": 50})
        'tier: balance 50 credits'
        >>> tier_line({})
        'tier: not reported'
        >>> tier_line({"current_tier": None, "limit_per_minute": 3000, "balance": 5e6})
        'tier enterprise: 3,000 calls/min, balance 5,000,000 credits'
    """
    current = _mapping(payload.get("current_tier"))
    enterprise = is_enterprise(payload)  # no current tier, a fixed limit of its own
    name = _text(current.get("name")) or ("enterprise" if enterprise else "")
    figures = []
    limit = _number((payload if enterprise else current).get("limit_per_minute"))
    if limit is not None:
        figures.append(f"{number(limit)} calls/min")
    balance = _number(payload.get("balance"))
    if balance is not None:
        figures.append(f"balance {credits_text(balance)}")
    line = f"tier {name}" if name else "tier"
    if figures:
        line += ": " + ", ".join(figures)
    elif not name:
        line += ": not reported"
    if "next_tier" in payload:
        line += f"; {_next(payload['next_tier'])}"
    return line


def _next(next_tier: Any) -> str:
    """The next tier, its limit and what it takes, or the top tier.

    Example:
        >>> _next({"name": "Developer", "limit_per_minute": 70, "min_credits": 10000})
        'next: Developer (70 calls/min) at 10,000 credits'
    """
    if next_tier is None:
        return "the top tier"
    up = _mapping(next_tier)
    text = f"next: {_text(up.get('name')) or 'a higher tier'}"
    limit = _number(up.get("limit_per_minute"))
    if limit is not None:
        text += f" ({number(limit)} calls/min)"
    at = _number(up.get("min_credits"))
    if at is not None:
        text += f" at {credits_text(at)}"
    needed = _number(up.get("credits_needed"))
    if needed is not None:
        text += f" ({number(needed) if at is not None else credits_text(needed)} more)"
    return text


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: Any) -> str:
    """A name, on one line (its whitespace runs made one space), or ``""`` for anything else."""
    return " ".join(value.split()) if isinstance(value, str) else ""


def _number(value: Any) -> float | None:
    """A figure of the payload as a float. None when missing, not a number, or a bool."""
    return None if isinstance(value, bool) else finite_number(value)
