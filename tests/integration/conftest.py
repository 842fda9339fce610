"""Integration-test fixtures on top of the emulator's own plugin (``fake_service``, ...)."""

from __future__ import annotations

from pathlib import Path

import pytest

# a real redis-server on a free loopback port, for the tests of cache="redis://..."
from .redis_fixture import redis_server, redis_url  # noqa: F401

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder talks to the emulator over loopback: mark it ``integration``,
    so ``pytest -m "not integration"`` runs the unit tests alone, in seconds."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.integration)


#: Burst tolerance used by default in these tests (the emulator's own default is 3).
QUIET_BURST = 50


@pytest.fixture(autouse=True)
def _tolerant_limiter(request: pytest.FixtureRequest) -> None:
    """Keep the emulator's limit (6000/min, advertised) but widen its burst tolerance.

    Many tests count requests exactly. The client paces at 95% of the limit, but on a loaded
    machine one answer delayed by ~20 ms can make the next arrive "early" for a burst of 3 and
    earn a 429 (retried, so nothing breaks, but the count is off by one). Tests about the limit
    itself set ``rate_burst`` explicitly.
    """
    if "fake_service" in request.fixturenames:
        request.getfixturevalue("fake_service").configure(rate_burst=QUIET_BURST)
