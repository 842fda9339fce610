"""``lookup-pandas tier`` prints one readable line (issue 30, item 9), not a raw CSV row with
dotted column names; ``-o FILE`` still writes that row, for scripts."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from lookup_pandas.testing import TIER

from ..cli_helpers import CliMain, Done


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def _tier(cli_main: CliMain, svc, tmp_path, *args: str) -> Done:
    env = {
        "LOOKUP_BASE_URL": svc.base_url,
        "LOOKUP_API_KEY": svc.api_key,
        "LOOKUP_CACHE": str(tmp_path / "c.sqlite"),
    }
    return cli_main(env, "tier", *args, cwd=tmp_path)


def test_tier_prints_one_readable_line(cli_main, fake_service, tmp_path):
    fake_service.configure(balance=1234, tier_follows_balance=True)  # production's ladder
    done = _tier(cli_main, fake_service, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "tier Hobby: 30 calls/min, balance 1,234 credits; "
        "next: Developer (70 calls/min) at 10,000 credits (8,766 more)\n"
    )
    assert done.stderr == ""


def test_tier_to_a_file_writes_the_row_and_says_the_line(cli_main, fake_service, tmp_path):
    fake_service.configure(balance=2_500_000, tier_follows_balance=True)  # the ladder's top
    done = _tier(cli_main, fake_service, tmp_path, "-o", "tier.csv")
    assert done.returncode == 0, done.stderr
    line = "tier Strategic Partner: 550 calls/min, balance 2,500,000 credits; the top tier"
    assert (done.stdout, done.stderr) == ("", f"{line} -> tier.csv\n")
    row = pd.read_csv(tmp_path / "tier.csv")
    assert row[["balance", "current_tier.name"]].values.tolist() == [
        [2_500_000, "Strategic Partner"]
    ]


def _answer(data: dict[str, Any]):
    body = {"success": True, "statusCode": 200, "message": "ok", "errors": None, "data": data}
    return lambda req: (200, body)


@pytest.mark.parametrize(
    ("data", "line"),
    [
        ({"balance": 5}, "tier: balance 5 credits"),
        ({"current_tier": {"name": "Pro"}, "next_tier": {"name": "Max"}}, "tier Pro; next: Max"),
        ({}, "tier: not reported"),
    ],
)
def test_tier_copes_with_a_payload_that_holds_little(cli_main, fake_service, tmp_path, data, line):
    fake_service.override(TIER, _answer(data))
    done = _tier(cli_main, fake_service, tmp_path)
    assert (done.returncode, done.stdout) == (0, f"{line}\n"), done.stderr
