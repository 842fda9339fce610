"""The Client a command talks to the service through: built from LOOKUP_*, one per run.

Example: ``with service_client() as client: lp.credits_tier(client=client)``
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..client.client import Client


@contextmanager
def service_client(offline: bool = False) -> Iterator[Client]:
    """A Client from the environment, its settings checked now, closed when the command is done.

    On a failure or Ctrl-C it is left open, as a process ending would leave it: workers may still
    hold it. ``offline`` (``--offline``): answers from the cache only. Else ``LOOKUP_OFFLINE``
    decides.
    """
    from ..client.client import Client

    client = Client(offline=True if offline else None)
    yield client
    client.close()
