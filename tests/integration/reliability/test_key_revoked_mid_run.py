"""A key revoked or rotated mid-run says that what was paid for is kept (issue 30, item 9), as
running out of credits does: how many answers are in the cache, and that a re-run after
fixing the key buys only the rest. In Python and on the CLI's one line (exit 3).
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.cli import exits
from lookup_pandas.testing import BATCH, PROFILE

from ..cli_helpers import CliMain
from ..enrich_helpers import AfterN
from ..helpers import make_client

HANDLES = [f"revoked-person-{i:02d}" for i in range(60)]
LEADS = pd.DataFrame({"handle": HANDLES})
#: "K of this job's N billable answers are kept in the cache; after fixing the key, a re-run buys
#: only the other M"
KEPT = re.compile(
    r"(\d+) of this job's (\d+) billable answers are kept in the cache; after fixing the key, "
    r"a re-run buys only the other (\d+)"
)


def _kept(message: str) -> tuple[int, int, int]:
    found = KEPT.findall(message)
    assert len(found) == 1, message  # told once
    kept, total, rest = (int(n) for n in found[0])
    return kept, total, rest


@pytest.mark.parametrize("method", ["single", "batch"])
def test_a_key_revoked_mid_run_says_what_is_kept_and_the_rerun_buys_only_the_rest(
    fake_service, tmp_path, method
):
    cache = tmp_path / "c.sqlite"
    if method == "single":
        revoke = AfterN(8, fake_service.revoke_key)  # the 8th lookup is answered, then no more
        fake_service.override(PROFILE, revoke)
    else:
        fake_service.configure(batch_resolve_rate=100)  # still processing at the 2nd poll
        revoke = AfterN(2, fake_service.revoke_key)  # the submit and the 1st poll answered
        fake_service.override(BATCH, revoke)
    with (
        make_client(fake_service, cache=cache) as client,
        pytest.raises(lp.AuthenticationError) as info,
    ):
        LEADS.lookup.enrich_profiles("handle", client=client, progress=False, method=method)
    assert revoke.fired
    message = str(info.value)
    assert "Invalid API key" in message and "Check api_key=" in message  # the key's hint stays
    kept, total, rest = _kept(message)
    bought = fake_service.billed()
    assert (total, rest) == (len(HANDLES), total - kept)
    if method == "single":  # every answer bought is in the cache
        assert 8 <= kept == bought < total
    else:  # items resolved but not collected yet are billed, and held by the stored job
        assert kept <= bought

    fake_service.override(PROFILE, None)
    fake_service.override(BATCH, None)
    new_key = fake_service.issue_key()
    looked_up = fake_service.count(PROFILE)
    with make_client(fake_service, api_key=new_key, cache=cache) as client:
        out = LEADS.lookup.enrich_profiles("handle", client=client, progress=False, method="single")
    assert (out["lookup_status"] == "ok").all()
    assert fake_service.count(PROFILE) - looked_up == rest  # only the rest is bought


def test_the_cli_says_what_is_kept_when_the_key_is_rotated_mid_run(capsys, fake_service, tmp_path):
    leads = tmp_path / "leads.csv"
    LEADS.to_csv(leads, index=False)
    rotate = AfterN(5, fake_service.rotate_key)
    fake_service.override(PROFILE, rotate)
    env = {
        "LOOKUP_BASE_URL": fake_service.base_url,
        "LOOKUP_API_KEY": fake_service.api_key,
        "LOOKUP_CACHE": str(tmp_path / "c.sqlite"),
    }
    done = CliMain(capsys)(
        env, "enrich", str(leads), "--method", "single", "-o", str(tmp_path / "out.csv"),
        "--no-progress",
    )  # fmt: skip
    assert rotate.fired
    assert done.returncode == exits.EXIT_AUTH
    *estimate, line = done.stderr.strip().splitlines()  # the estimate came first
    assert len(estimate) == 1, done.stderr
    assert line.startswith("lookup-pandas: AuthenticationError: Invalid API key")
    assert "Check the LOOKUP_API_KEY environment variable." in line
    kept, total, rest = _kept(line)
    assert kept == fake_service.billed() >= 5 and (total, rest) == (len(HANDLES), total - kept)
    assert not (tmp_path / "out.csv").exists()
