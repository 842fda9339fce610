"""The SDK on the emulator: ``sdk`` (a ``renidly.Renidly`` on ``fake_service``) and ``sdk_for``
(one on any emulator, with another key or other config).

The one difference allowed between production and the emulator is the Data API key header's
name: the SDK sends production's ``X-renidly-apikey``, the emulator reads the spec's
``X-service-apikey``. ``_our_header`` renames it, once, on every request; everything else the
SDK sends as it would to production (the account routes' ``X-AUTHAPI-Key`` included).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import renidly

from lookup_pandas.testing import FakeService

HERE = Path(__file__).parent
PRODUCTION_HEADER = "X-renidly-apikey"
OUR_HEADER = "X-service-apikey"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here talks to the emulator over loopback: ``integration``."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.integration)


def _our_header(request: httpx.Request) -> None:
    key = request.headers.pop(PRODUCTION_HEADER, None)
    if key is not None:
        request.headers[OUR_HEADER] = key


def connect(svc: FakeService, key: str | None = None, **config: Any) -> renidly.Renidly:
    """The SDK on ``svc``: its current key (``key=""``: none at all), no retries (a retry's
    back-off would only slow the suite), ``config``: more ``RenidlyConfig`` fields."""
    settings = renidly.RenidlyConfig(base_url=svc.base_url, max_retries=0, timeout=10, **config)
    http = httpx.Client(timeout=10, event_hooks={"request": [_our_header]})
    return renidly.Renidly(svc.api_key if key is None else key, config=settings, http_client=http)


@pytest.fixture
def sdk_for() -> Iterator[Callable[..., renidly.Renidly]]:
    """``sdk_for(svc, key=None, **config)``: :func:`connect`, closed after the test."""
    made: list[renidly.Renidly] = []

    def factory(svc: FakeService, key: str | None = None, **config: Any) -> renidly.Renidly:
        made.append(connect(svc, key, **config))
        return made[-1]

    yield factory
    for client in made:
        client.close()


@pytest.fixture
def sdk(fake_service: FakeService, sdk_for: Callable[..., renidly.Renidly]) -> renidly.Renidly:
    """The SDK on the shared emulator, with its key."""
    return sdk_for(fake_service)
