"""What a run stopped by an error keeps: every answer that had come in is recorded first.

The emulator holds the answers (an override waiting on events) and the run's pool tells when
each task has finished, so the answers and the error are all in when the run's thread next
looks; nothing waits on the clock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from lookup_pandas.display.progress import Progress
from lookup_pandas.enrichment.plan import Options, Plan
from lookup_pandas.enrichment.run import EnrichmentRun
from lookup_pandas.errors import AuthenticationError
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.testing.replies import Request

from ..helpers import PROFILE, make_client

pytestmark = pytest.mark.timeout(120)

REVOKED = {"success": False, "message": "API key revoked", "errors": None, "data": None}


class SeenPool(ThreadPoolExecutor):
    """The run's pool, telling (a semaphore release) each time one of its tasks has finished."""

    def __init__(self, workers: int) -> None:
        super().__init__(workers)
        self.finished = threading.Semaphore(0)

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(lambda _: self.finished.release())
        return future


def test_a_key_revoked_mid_run_loses_none_of_the_answers_that_came_in_with_the_refusal(
    fake_service,
):
    bought = [f"person-{i}" for i in range(7)]
    refused = "person-refused"
    in_flight = threading.Barrier(len(bought) + 1, timeout=60)  # every call sent at once
    refuse = threading.Event()

    def hold(req: Request) -> Any:
        in_flight.wait()
        if req.param("handle") != refused:
            return None  # answered as usual
        assert refuse.wait(60)
        return 403, REVOKED

    fake_service.override(PROFILE, hold)
    with (
        make_client(fake_service, max_workers=8, max_retries=0) as client,
        Progress(False) as bar,
        SeenPool(8) as pool,
    ):
        state = EnrichmentRun(
            client, Plan(), Options(progress=False), bar=bar, pool=pool, kind=PEOPLE
        )

        def handles() -> Iterator[str]:
            yield from [*bought, refused]
            # The run's thread is here, not looking at its calls, while they all finish: the
            # answers first, then the refusal.
            for _ in bought:
                assert pool.finished.acquire(timeout=60)
            refuse.set()
            assert pool.finished.acquire(timeout=60)

        with pytest.raises(AuthenticationError):
            state.run_singles(handles())
    assert sorted(state.outcomes) == sorted(bought)  # each bought answer is recorded
    assert state.counts["fetched"] == len(bought)
