"""At DEBUG, a real run against the emulator logs its pace, its retries, the claims it waited on
and its batch jobs under ``lookup_pandas``, and no record holds the API key.

The run: single calls while another holder is buying two of the handles (the claims), a 429
naming a limit (the pace slowed) and transient faults (retries), then a batch enrichment. The
key is recognisable, so a leak is a plain substring search of every record: its message, its
arguments, its fields and the line a handler formats, traceback included.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.store import namespace, store_path
from lookup_pandas.store.local import LocalStore
from lookup_pandas.testing import FakeService

from ..conftest import QUIET_BURST
from ..enrich_helpers import lead_frame
from ..helpers import PROFILE, FailFirst, make_client, rate_limited, wait_until

pytestmark = pytest.mark.timeout(180)

KEY = "lk_test_LOGGED_NEVER_7781"
SINGLES = [f"logged{i:03d}-lead" for i in range(40)]
HELD = SINGLES[:2]  # another holder is buying these when the run starts
BATCHED = [f"batched{i:03d}-lead" for i in range(60)]
FORMAT = logging.Formatter("%(asctime)s %(threadName)s %(name)s %(levelname)s %(message)s")


@pytest.fixture
def service() -> Iterator[FakeService]:
    with FakeService(api_key=KEY) as svc:
        svc.configure(rate_burst=QUIET_BURST)
        yield svc


@pytest.fixture
def log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """caplog, keeping the records of the ``lookup_pandas`` tree at every level, every thread."""
    caplog.set_level(logging.DEBUG, logger="lookup_pandas")
    return caplog


def release_once_waited_on(client, other: LocalStore, keys: list[str]) -> threading.Thread:
    """Let go of ``keys``, unbought, once the client waits for each of them (bounded)."""

    def let_go() -> None:
        wait_until(lambda: client.parts.counter.waiting >= len(keys), within=60)
        other.release_many(keys, bought=False)

    thread = threading.Thread(target=let_go, daemon=True)
    thread.start()
    return thread


def test_a_run_at_debug_logs_pace_retries_claims_and_batch_jobs_never_the_key(
    service, log, tmp_path
):
    cache = tmp_path / "logged.sqlite"
    with make_client(service, api_key=KEY, cache=cache, max_retries=10) as client:
        other = LocalStore(store_path(cache), namespace(KEY, service.base_url))
        keys = list(client.parts.cache.keys(HELD, PEOPLE).values())
        assert set(other.claim_many(keys, ttl=60.0).values()) == {"mine"}
        releaser = release_once_waited_on(client, other, keys)
        service.override(PROFILE, FailFirst(1, lambda: rate_limited(1, limit=3000)))
        service.configure(fault_rate=0.3)
        try:
            singles = lead_frame(SINGLES).lookup.enrich_profiles(
                "handle", client=client, method="single", progress=False
            )
            batched = lead_frame(BATCHED).lookup.enrich_profiles(
                "handle", client=client, method="batch", progress=False
            )
        finally:
            releaser.join(timeout=60)
            other.close()
    assert singles["lookup_status"].tolist() == ["ok"] * len(SINGLES)
    assert batched["lookup_status"].tolist() == ["ok"] * len(BATCHED)
    summary = singles.lookup.summary
    assert summary.retries > 0  # the faults were met, and retried

    ours = [r for r in log.records if r.name.split(".")[0] == "lookup_pandas"]
    assert len(ours) > len(SINGLES)  # a record per request at DEBUG, at least
    for record in ours:
        where = f"a record of {record.name} ({record.msg!r})"
        assert KEY not in record.getMessage(), where
        assert KEY not in str(record.msg) and KEY not in repr(record.args), where
        assert KEY not in FORMAT.format(record), where
        assert KEY not in repr(vars(record)), where

    def messages(logger: str) -> list[str]:
        return [r.getMessage() for r in ours if r.name == f"lookup_pandas.{logger}"]

    # The pace: learnt from the tier, then slowed by the 429 and held back by its Retry-After.
    assert any(m.startswith("pace learnt: 5700.0 calls/min") for m in messages("http.contact"))
    assert "rate limited: pacing at 2850.0/min" in messages("http.sending")
    pacing = messages("store.pacing")
    assert "pace 2850.0/min (was 5700.0/min); every process of the store keeps to it" in pacing
    assert "no send slot for 1.00s (Retry-After)" in pacing
    # The retries, one record each.
    retries = [m for m in messages("http.sending") if m.startswith("retrying ")]
    assert len(retries) >= summary.retries
    assert any("after RateLimitError (HTTP 429)" in m for m in retries)
    # The claims another holder held: waited on, then bought here once it let go unbought.
    claims = messages("store.claims")
    for key in keys:
        assert f"claim {key}: waiting for the answer another holder is buying" in claims
        assert f"claim {key}: let go of unbought, so bought here" in claims
    # The batch job: submitted, polled.
    jobs = messages("client.batch_jobs")
    assert any(m.endswith(f"submitted: {len(BATCHED)} handles") for m in jobs), jobs
    assert any("completed" in m and f"{len(BATCHED)} of {len(BATCHED)} resolved" in m for m in jobs)
