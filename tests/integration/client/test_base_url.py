"""A wrong base URL is never "people not found": refused at configuration, or named at once.

The finding (issue 21): ``LOOKUP_BASE_URL=http://HOST/api/data/v1`` doubled every path; the
tier's enveloped 404 counted as first contact, the pace fell to 7/min, and every lead became
``not_found`` after 17 minutes, exit 0.
"""

from __future__ import annotations

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas import cli
from lookup_pandas.cli import exits
from lookup_pandas.config.settings import SAFE_DEFAULT_RATE_PER_MINUTE
from lookup_pandas.testing.routes import HEALTH

from ..helpers import PROFILE, TIER, make_client, server_error

LEADS = ["ada-lovelace", "grace-hopper", "alan-turing"]


@pytest.mark.parametrize(
    "suffix",
    ["/api/data/v1", "/api/data/v1/", "/API/panel/credits/tier/k/", "/api", "/api/", "/Api"],
)
def test_a_base_url_holding_the_librarys_own_path_is_refused_before_anything_is_sent(
    fake_service, suffix
):
    # ".../api" (issue 30): every call went to .../api/api/..., "No endpoint" without the root
    with pytest.raises(lp.ConfigurationError) as info:
        lp.Client(api_key=fake_service.api_key, base_url=fake_service.base_url + suffix)
    message = str(info.value)
    assert f"the service's root instead, {fake_service.base_url} " in message
    assert f"({suffix.rstrip('/')})" in message  # what to take away
    assert "base_url=" in message
    assert fake_service.count() == 0


@pytest.mark.parametrize("suffix", ["/api/data/v1", "/api"])
def test_the_cli_refuses_a_doubled_base_url_with_exit_2_naming_the_root(
    fake_service, tmp_path, monkeypatch, capsys, isolated_default_client, suffix
):
    leads = tmp_path / "leads.csv"
    pd.DataFrame({"handle": LEADS}).to_csv(leads, index=False)
    monkeypatch.setenv("LOOKUP_API_KEY", fake_service.api_key)
    monkeypatch.setenv("LOOKUP_BASE_URL", fake_service.base_url + suffix)
    monkeypatch.setenv("LOOKUP_CACHE", str(tmp_path / "c.sqlite"))
    code = cli.main(["enrich", str(leads), "-c", "handle", "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == exits.EXIT_CONFIG
    (line,) = err.strip().splitlines()
    assert line.endswith(f"set LOOKUP_BASE_URL={fake_service.base_url}.")
    assert not (tmp_path / "out.csv").exists()
    assert fake_service.count() == 0


def test_a_base_url_with_a_wrong_prefix_stops_the_job_at_once_naming_the_url(fake_service):
    # A prefix of one's own is allowed (a gateway), so this one is only found by asking: the
    # tier's enveloped 404 proves nothing, and no lead is ever reported not found.
    leads = pd.DataFrame({"handle": LEADS})
    with (
        lp.Client(
            api_key=fake_service.api_key, base_url=fake_service.base_url + "/lookup", cache=False
        ) as client,
        pytest.raises(lp.ConfigurationError) as info,
    ):
        leads.lookup.enrich_profiles("handle", client=client, progress=False, method="single")
    assert not isinstance(info.value, lp.NotFoundError)
    assert f"No endpoint at {fake_service.base_url}/lookup{TIER}" in str(info.value)
    assert fake_service.billed() == 0
    assert fake_service.count(PROFILE) == 0


def test_an_enveloped_404_from_the_tier_is_not_first_contact(fake_service):
    fake_service.override(
        TIER, lambda req: (404, {"success": False, "message": "Gone", "data": None})
    )
    with make_client(fake_service) as client, pytest.raises(lp.ConfigurationError):
        client.profile("ada-lovelace")
    assert fake_service.count(PROFILE) == 0  # nothing was sent at a 7/min fallback pace


def test_a_tier_that_cannot_be_read_is_backed_by_the_free_health_probe(fake_service):
    fake_service.override(TIER, lambda req: server_error())
    with make_client(fake_service, max_retries=0) as client:
        assert client.profile("ada-lovelace")["handle"] == "ada-lovelace"
        assert client.rate_limit_per_minute == SAFE_DEFAULT_RATE_PER_MINUTE
    assert fake_service.count(HEALTH) == 1
    assert fake_service.billed() == 1


def test_a_tier_and_a_health_probe_that_are_not_the_service_stop_before_any_lookup(
    fake_service,
):
    fake_service.override(TIER, lambda req: server_error())
    fake_service.override(HEALTH, lambda req: (404, b"<html>Not Found</html>"))
    with (
        make_client(fake_service, max_retries=0) as client,
        pytest.raises(lp.ConfigurationError) as info,
    ):
        client.profile("ada-lovelace")
    assert fake_service.base_url in str(info.value)
    assert fake_service.count(PROFILE) == 0
