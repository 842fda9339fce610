"""pytest fixtures for the lookup_pandas emulator (registered through the ``pytest11`` entry point).

Example::

    def test_lookup(fake_service, fake_client):
        assert fake_client.profile("ada")["handle"] == "ada"
        assert fake_service.billed("/api/data/v1/people/profile", handle="ada") == 1

``lookup_service`` starts one emulator for the whole session; ``fake_service`` resets it before
each test (knobs, keys, counters); ``fake_client`` is a Client bound to it with a fresh cache
file in the test's tmp_path, short back-off and short batch polls, so retries and batch jobs do
not slow the suite;
``isolated_default_client`` gives the test a default client of its own (``lp.configure``,
``lp.default_client``), closed afterwards, the previous one restored.

This module lives outside the ``lookup_pandas`` package and imports nothing but pytest until a
fixture is used: pytest loads it in every run of every project that installs lookup_pandas, and
those runs should not pay for pandas, requests-cache or ipywidgets.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from lookup_pandas import Client
    from lookup_pandas.testing import FakeService


@pytest.fixture(scope="session")
def lookup_service() -> Iterator[FakeService]:
    """One emulator for the whole test session."""
    from lookup_pandas.testing import FakeService

    with FakeService() as svc:
        yield svc


@pytest.fixture
def fake_service(lookup_service: FakeService) -> Iterator[FakeService]:
    """The session's emulator, reset before and after the test."""
    lookup_service.reset()
    yield lookup_service
    lookup_service.reset()


@pytest.fixture
def fake_cache_path(tmp_path: Path) -> Path:
    """A cache file of the test's own."""
    return tmp_path / "lookup-cache.sqlite"


@pytest.fixture
def fake_client(fake_service: FakeService, fake_cache_path: Path) -> Iterator[Client]:
    """A Client on the emulator, caching to the test's own file, with short back-off."""
    from lookup_pandas import Client

    client = Client(
        api_key=fake_service.api_key,
        base_url=fake_service.base_url,
        cache=fake_cache_path,
        backoff_base=0.01,
        backoff_max=0.2,
        retry_after_max=2.0,
        batch_poll_interval=0.05,
    )
    yield client
    client.close()


@pytest.fixture
def isolated_default_client() -> Iterator[None]:
    """No default client while the test starts: ``lp.configure(...)`` or the LOOKUP_*
    variables make one. Whatever the test made the default is closed afterwards, and the
    default from before the test is put back."""
    from lookup_pandas.client import client as module

    with module._default_lock:
        previous, module._default = module._default, None
    try:
        yield
    finally:
        with module._default_lock:
            made, module._default = module._default, previous
        if made is not None and made is not previous:
            made.close()
