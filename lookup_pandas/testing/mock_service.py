"""MockService: people and their batch jobs over a MockTransport, with a cache that goes at exit.

For examples: each one shows what it is about, not its set-up.

Example:
    >>> with MockService({"id": "prsn_1", "handle": "ada"}) as service:
    ...     with service.client() as client:
    ...         first, again = client.profile("ada"), client.profile("ada")
    ...         missing = client.profile("grace")
    >>> first["id"], missing, service.count("/people/profile")  # "ada" again: a cache hit
    ('prsn_1', None, 2)
"""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests

from ..client.client import Client
from ..service.paths import BATCH_PATH
from .mock import Handler, MockTransport, envelope, people_service

__all__ = ["MockService", "batch_service"]

#: Where a MockService's clients send (nothing leaves the process).
BASE_URL = "https://api.example.com"


def batch_service(*records: Mapping[str, Any], balance: float | None = None) -> Handler:
    """:func:`~.mock.people_service`, and people batch jobs: each is complete at its first poll.

    A job's handles resolve as the profile route resolves them: ``records`` by handle, any other
    is not found.

    Example:
        >>> from lookup_pandas.identifiers.kinds import PEOPLE
        >>> answer = batch_service({"id": "prsn_1", "handle": "ada"})
        >>> with Client(api_key="lk_example", base_url=BASE_URL, cache=False,
        ...             transport=MockTransport(answer)) as client:
        ...     batch = client.parts.batch
        ...     page = batch.status(PEOPLE, batch.submit(PEOPLE, ["ada", "grace"], None), 0, None)
        >>> page["status"], page["profiles"], page["not_found"]
        ('completed', {'ada': {'id': 'prsn_1', 'handle': 'ada'}}, ['grace'])
    """
    people = people_service(*records, balance=balance)
    by_handle = {str(r["handle"]): dict(r) for r in records}
    jobs: dict[str, list[str]] = {}
    lock = threading.Lock()

    def answer(request: requests.PreparedRequest) -> tuple[Any, ...]:
        url = urlsplit(request.url or "")
        if url.path != BATCH_PATH:
            return people(request)
        if request.method == "POST":
            asked = json.loads(request.body or b"{}")
            with lock:
                job_id = f"job_{len(jobs) + 1}"
                jobs[job_id] = [*asked.get("handles", []), *asked.get("ids", [])]
            return 202, envelope({"job_id": job_id})
        query = parse_qs(url.query)
        with lock:
            items = jobs.get(query.get("job_id", [""])[0])
        if items is None:
            return 404, envelope(None, success=False, message="Job not found", error_code="1090")
        rest = items[int(query.get("after", ["0"])[0]) :]
        page = {
            "status": "completed",
            "total": len(items),
            "resolved": len(items),
            "errors": 0,
            "next_cursor": len(items),
            "not_found": [h for h in rest if h not in by_handle],
            "profiles": {h: by_handle[h] for h in rest if h in by_handle},
        }
        return 200, envelope(page)

    return answer


class MockService:
    """``records`` served by :func:`batch_service`, and a temporary folder for the cache.

    Use it as a context manager: at exit, the clients it made are closed and the folder removed.
    ``transport`` is the :class:`~.mock.MockTransport`: ``transport.requests`` lists what was sent.
    """

    def __init__(self, *records: Mapping[str, Any], balance: float | None = None) -> None:
        self.transport = MockTransport(batch_service(*records, balance=balance))
        self._folder = tempfile.TemporaryDirectory(prefix="lookup-example-")
        self._clients: list[Client] = []

    def __enter__(self) -> MockService:
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self._clients:
            client.close()
        self._folder.cleanup()

    def client(self, api_key: str = "lk_example", *, cache: bool = True) -> Client:
        """A Client of this service. ``cache=True``: one SQLite file all its clients share.

        Example:
            >>> with MockService({"id": "prsn_1", "handle": "ada"}) as service:
            ...     for key in ["lk_example", "lk_other"]:
            ...         with service.client(key) as client:
            ...             _ = client.profile("ada")  # the second client reads the cache
            >>> service.count("/people/profile")
            1
        """
        where = Path(self._folder.name, "cache.sqlite") if cache else False
        client = Client(
            api_key=api_key,
            base_url=BASE_URL,
            cache=where,
            batch_poll_interval=0.01,
            transport=self.transport,
        )
        self._clients.append(client)
        return client

    def count(self, fragment: str = "") -> int:
        """Requests sent whose URL contains ``fragment``, as ``FakeService.count``."""
        return self.transport.count(fragment)
