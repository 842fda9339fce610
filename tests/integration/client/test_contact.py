"""First contact, "not found" only from the service, unmetered pacing and the outage breaker.

Each test stands for a finding of issue 8 (a new user with a wrong base URL, an ordinary web
server, an unmetered key, a service that goes away mid-job), checked over loopback and by counts
(requests, billing, attempts), never by the wall clock.
"""

from __future__ import annotations

import functools
import logging
import socket
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.config.settings import SAFE_DEFAULT_RATE_PER_MINUTE
from lookup_pandas.errors import ConfigurationError, ResponseError, ServerError, TransportError
from lookup_pandas.testing import BATCH

from ..helpers import (
    DROP,
    PROFILE,
    TIER,
    FailFirst,
    Reply,
    bad_gateway,
    make_client,
    ok,
    rate_limited,
    server_error,
)


def _dead_url() -> str:
    """A loopback address with nothing listening (the port was free a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def web_server(tmp_path) -> Iterator[str]:
    """An ordinary web server (python -m http.server) on loopback: not the service."""
    (tmp_path / "index.html").write_text("<html><body>hello</body></html>")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a, **k: None  # type: ignore[method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# -- 1. a dead or wrong base URL fails at first contact, after one quick retry ------------------


def test_a_port_with_nothing_listening_is_a_configuration_error_after_one_retry():
    url = _dead_url()
    with lp.Client(api_key="k", base_url=url, cache=False) as client:
        with pytest.raises(ConfigurationError) as info:
            client.profile("ada")
        stats = client.stats
    message = str(info.value)
    assert url in message and "refused" in message.lower()
    assert "Check base_url=" in message  # Python names the keyword it was given as
    assert stats.sent == 2 and stats.retries == 1  # the tier look-up, and one quick retry


def test_the_message_names_the_environment_variable_when_the_url_came_from_it(monkeypatch):
    monkeypatch.setenv("LOOKUP_BASE_URL", _dead_url())
    with lp.Client(api_key="k", cache=False) as client, pytest.raises(ConfigurationError) as info:
        client.credits_tier()
    assert "LOOKUP_BASE_URL" in str(info.value)


def test_enriching_against_a_dead_url_raises_and_never_grinds_through_the_rows():
    frame = pd.DataFrame({"handle": [f"person-{i}" for i in range(40)]})
    with lp.Client(api_key="k", base_url=_dead_url(), cache=False) as client:
        with pytest.raises(ConfigurationError):
            frame.lookup.enrich_profiles("handle", client=client, progress=False)
        assert client.stats.sent == 2  # no profile request was ever attempted


def test_an_ordinary_web_server_is_a_configuration_error_not_people_not_found(web_server):
    frame = pd.DataFrame({"handle": ["ada-lovelace", "grace-hopper"]})
    with (
        lp.Client(api_key="k", base_url=web_server, cache=False) as client,
        pytest.raises(ConfigurationError) as info,
    ):
        frame.lookup.enrich_profiles("handle", client=client, progress=False)
    message = str(info.value)
    assert web_server in message and "does not answer like the service" in message
    assert "HTTP 404" in message and "text/html" in message


def test_one_html_answer_at_first_contact_is_retried_once(fake_service):
    fake_service.override(TIER, FailFirst(1, bad_gateway))
    with make_client(fake_service) as client:
        assert client.profile("ada")["handle"] == "ada"
    assert fake_service.count(TIER) == 2


def test_two_html_answers_at_first_contact_are_a_configuration_error(fake_service):
    fake_service.override(TIER, FailFirst(2, bad_gateway))
    with make_client(fake_service) as client, pytest.raises(ConfigurationError) as info:
        client.profile("ada")
    assert "502" in str(info.value)
    assert fake_service.count(PROFILE) == 0


def test_after_contact_an_html_502_is_transient_again(fake_service):
    fake_service.override(PROFILE, FailFirst(3, bad_gateway))
    with make_client(fake_service) as client:
        assert client.profile("ada")["handle"] == "ada"  # the tier answered: contact is made
    assert fake_service.count(PROFILE) == 4


# -- 2. "not found" only when the service says so ------------------------------------------------


def test_an_html_404_after_contact_is_an_error_row_not_not_found_and_is_not_cached(
    fake_service, tmp_path
):
    def html_404(req):
        return Reply(404, b"<html>Not Found</html>", {"Content-Type": "text/html"})

    fake_service.override(PROFILE, html_404)
    frame = pd.DataFrame({"handle": ["ada-lovelace"]})
    with make_client(fake_service, cache=tmp_path / "c.sqlite") as client:
        out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
        assert out["lookup_status"].tolist() == ["error"]
        assert "404" in out["lookup_error"].iloc[0]
        with pytest.raises(ResponseError):
            client.profile("ada-lovelace")
        fake_service.override(PROFILE, None)
        assert client.profile("ada-lovelace")["handle"] == "ada-lovelace"  # not replayed
    assert fake_service.count(PROFILE) == 3


def test_an_enveloped_404_on_a_profile_is_a_wrong_url_not_a_person_not_found(fake_service):
    # Production has no 404 for a person (a not-found is a 200 with 1010): an enveloped 404
    # without a not-found code means the URL is no endpoint, and the error names it.
    fake_service.override(
        PROFILE,
        lambda req: (
            404,
            {"success": False, "message": "No such person", "errors": None, "data": None},
        ),
    )
    with make_client(fake_service) as client, pytest.raises(lp.ConfigurationError) as info:
        client.profile("ada")
    assert not isinstance(info.value, lp.NotFoundError)
    assert f"{fake_service.base_url}{PROFILE}" in str(info.value)
    assert "No such person" in str(info.value)
    assert fake_service.count(PROFILE) == 1  # not retried


def test_a_skill_not_found_code_is_not_found(fake_service):
    fake_service.override(
        PROFILE,
        lambda req: (
            200,
            {
                "success": False,
                "error_code": "1030",
                "message": "Skill not found",
                "errors": None,
                "data": None,
            },
        ),
    )
    with make_client(fake_service) as client:
        assert client.profile("ada") is None


# -- 3. unmetered means unpaced; a 429 always slows ---------------------------------------------


def test_an_unmetered_tier_is_not_paced(fake_service):
    fake_service.configure(rate_limit_per_minute=None)  # the tier reports limit_per_minute null
    with make_client(fake_service) as client:
        frame = pd.DataFrame({"handle": [f"person-{i}" for i in range(8)]})
        out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
        assert (out["lookup_status"] == "ok").all()
        assert client.rate_limit_per_minute is None


def test_a_tier_without_the_field_is_unmetered_too(fake_service):
    fake_service.configure(advertise_rate_limit=False, rate_limit_per_minute=None)
    with make_client(fake_service) as client:
        client.profile("ada")
        assert client.rate_limit_per_minute is None


def test_an_unmetered_tier_with_a_ceiling_of_ones_own_is_paced_at_it(fake_service):
    fake_service.configure(rate_limit_per_minute=None)
    with make_client(fake_service, rate_limit_per_minute=600) as client:
        client.profile("ada")
        assert client.rate_limit_per_minute == 600


def test_an_unreadable_tier_falls_back_to_the_cheapest_pace_with_a_warning(fake_service, caplog):
    fake_service.override(TIER, lambda req: server_error())
    with (
        caplog.at_level(logging.WARNING, logger="lookup_pandas"),
        make_client(fake_service, max_retries=0) as client,
    ):
        assert client.profile("ada")["handle"] == "ada"
        assert client.rate_limit_per_minute == SAFE_DEFAULT_RATE_PER_MINUTE
    assert any(
        "credits tier" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records
    )


def test_a_tier_without_a_current_tier_falls_back_to_the_cheapest_pace(fake_service):
    fake_service.override(TIER, lambda req: ok({"balance": 10}, "ok"))
    with make_client(fake_service) as client:
        client.profile("ada")
        assert client.rate_limit_per_minute == SAFE_DEFAULT_RATE_PER_MINUTE


def test_a_429_naming_no_limit_paces_an_unmetered_client(fake_service):
    fake_service.configure(rate_limit_per_minute=None)
    fake_service.override(PROFILE, FailFirst(1, lambda: rate_limited(0)))
    with make_client(fake_service) as client:
        client.profile("warm-up")  # answered 429 once, then retried
        assert client.rate_limit_per_minute is not None
        assert client.rate_limit_per_minute >= SAFE_DEFAULT_RATE_PER_MINUTE
        assert client.stats.rate_limited == 1


def test_a_429_naming_its_limit_paces_at_95_percent_of_it(fake_service):
    fake_service.configure(rate_limit_per_minute=None)
    fake_service.override(PROFILE, FailFirst(1, lambda: rate_limited(0, limit=300)))
    with make_client(fake_service) as client:
        client.profile("ada")
        assert client.rate_limit_per_minute == pytest.approx(285)


# -- the breaker: a service that goes away mid-job stops the job -------------------------------


@pytest.mark.parametrize(
    ("reply", "error"),
    [(lambda req: DROP, TransportError), (lambda req: server_error(), ServerError)],
)
def test_a_job_stops_after_consecutive_outage_failures(fake_service, tmp_path, reply, error):
    frame = pd.DataFrame({"handle": [f"person-{i:03d}" for i in range(60)]})
    with make_client(
        fake_service, cache=tmp_path / "c.sqlite", max_workers=2, max_retries=1
    ) as client:
        client.profile("ada")  # first contact made; then the service goes away
        fake_service.override(PROFILE, reply)
        with pytest.raises(error) as info:
            frame.lookup.enrich_profiles("handle", client=client, progress=False, method="single")
    assert "in a row failed" in str(info.value) and "re-run resumes" in str(info.value)
    # 3 handles in a row (max(3, max_workers)) plus at most those in flight, 2 attempts each:
    # far fewer than the 60 x 2 a job that ground on would send.
    assert fake_service.count(PROFILE) <= 2 * (3 + 2 + 4 * 2) + 1


@pytest.mark.parametrize(
    ("reply", "error"),
    [(lambda req: DROP, TransportError), (lambda req: server_error(), ServerError)],
)
def test_a_batch_job_whose_polls_keep_failing_stops_the_job(fake_service, tmp_path, reply, error):
    frame = pd.DataFrame({"handle": [f"person-{i:03d}" for i in range(60)]})
    with make_client(fake_service, cache=tmp_path / "c.sqlite", max_retries=1) as client:
        client.profile("ada")  # first contact made; then the batch polls fail

        def polls_fail(req):
            return reply(req) if req.method == "GET" else None

        fake_service.override(BATCH, polls_fail)
        with pytest.raises(error):
            frame.lookup.enrich_profiles("handle", client=client, progress=False)
        # the job stays stored: a re-run collects it instead of paying again
        assert [len(job.inputs) for job in client.parts.store.jobs()] == [60]
    assert fake_service.count(BATCH, method="POST") == 1
    assert fake_service.count(BATCH, method="GET") == 2  # one poll, retried once: then it stops
    assert fake_service.count(PROFILE) == 1  # nothing fell back to single calls


def test_a_success_between_failures_resets_the_breaker(fake_service, tmp_path):
    # every other handle fails: never 3 in a row, so the job runs to its end
    def fail_odd(req):
        return server_error() if req.param("handle")[-1] in "13579" else None

    fake_service.override(PROFILE, fail_odd)
    frame = pd.DataFrame({"handle": [f"person-{i:03d}" for i in range(20)]})
    with make_client(
        fake_service, cache=tmp_path / "c.sqlite", max_workers=1, max_retries=0
    ) as client:
        out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
    assert out["lookup_status"].value_counts().to_dict() == {"ok": 10, "error": 10}


# -- 5. a rejected key names where it came from -------------------------------------------------


def test_a_rejected_key_names_the_keyword_in_python_and_never_the_key(fake_service, monkeypatch):
    with (
        make_client(fake_service, api_key="lk_test_wrong") as client,
        pytest.raises(lp.AuthenticationError) as info,
    ):
        client.profile("ada")
    assert str(info.value).endswith("Check api_key=") and "lk_test_wrong" not in str(info.value)
    monkeypatch.setenv("LOOKUP_API_KEY", "lk_test_wrong")
    with (
        lp.Client(base_url=fake_service.base_url, cache=False) as client,
        pytest.raises(lp.AuthenticationError) as info,
    ):
        client.profile("ada")
    assert str(info.value).endswith("Check the LOOKUP_API_KEY environment variable")
