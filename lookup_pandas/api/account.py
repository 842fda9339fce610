"""The account's credits as the API functions give them: the tier, the balance, the ladder, the
route costs.

Example: ``lp.credits_tier()``, ``lp.balance()``, ``lp.tiers()``, ``lp.route_costs()``, each
free (they need no server here; see the Client's doctest for one over MockTransport).
"""

from __future__ import annotations

import pandas as pd

from ..client import credits as credit_facts
from ..client.client import Client, resolve_client
from ..errors import ConfigurationError
from ..frames.records import records_to_frame

__all__ = ["balance", "credits_tier", "route_costs", "tiers"]


def credits_tier(*, client: Client | None = None) -> pd.DataFrame:
    """The credits tier as a one-row frame (``balance``, ``current_tier.name``, ...), never cached.

    Example: ``lp.credits_tier()["current_tier.limit_per_minute"].item()``

    ``client`` is the Client to ask (default ``lp.default_client()``).
    """
    return records_to_frame([resolve_client(client).credits_tier()])


def balance(*, client: Client | None = None) -> float:
    """The balance in credits, read now (free, never cached).

    Example: ``lp.balance()`` gives ``988.0``.

    A service that does not tell the balance is a ConfigurationError.
    """
    value = credit_facts.balance(resolve_client(client))
    if value is None:
        raise ConfigurationError("This service does not tell the balance (no balance endpoint).")
    return value


def tiers(*, client: Client | None = None) -> pd.DataFrame:
    """The tier ladder, lowest first. Public, read once per Client.

    Example: ``lp.tiers().set_index("name").loc["Hobby", "limit_per_minute"]`` gives ``30``.

    The columns: ``name``, ``min_credits``, ``max_credits`` (missing on the top tier),
    ``limit_per_minute``, ``credits_per_dollar``. A key's tier follows its balance, so a job that
    spends can drop its own tier and limit (``estimate_profiles(...).tier_change`` says when). No
    ladder gives an empty frame.
    """
    rows = credit_facts.ladder_rows(resolve_client(client))
    return pd.DataFrame(rows, columns=list(_TIER_COLUMNS))


def route_costs(*, client: Client | None = None) -> pd.DataFrame:
    """What each listed route costs per call. Public, read once per Client.

    Example: ``lp.route_costs().set_index("route")["credits_cost"]``

    The columns: ``route``, ``title``, ``description``, ``credits_cost``. Only routes whose cost
    is not 1 are listed, so any other costs 1. 0 is free. Batch routes show 0 and bill 1 per
    resolved item.
    """
    rows = credit_facts.route_cost_rows(resolve_client(client))
    return pd.DataFrame(rows, columns=list(_COST_COLUMNS))


_TIER_COLUMNS = ("name", "min_credits", "max_credits", "limit_per_minute", "credits_per_dollar")
_COST_COLUMNS = ("route", "title", "description", "credits_cost")
