"""The emulator's routes over loopback with plain requests: ``api`` (an :class:`Api` with the
data key, the limiter's burst wide enough that a test's quick requests never meet it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from lookup_pandas.testing import FakeService


class Api:
    """``api.get(path, **params)``, ``api.data(...)``, ``api.post(path, body)``,
    ``api.walk(path, **params)``, each with the data key."""

    def __init__(self, svc: FakeService) -> None:
        self.svc = svc
        self.session = requests.Session()
        self.session.headers["X-service-apikey"] = svc.api_key

    def get(self, path: str, **params: Any) -> requests.Response:
        return self.session.get(self.svc.base_url + path, params=params, timeout=30)

    def data(self, path: str, **params: Any) -> Any:
        body = self.get(path, **params).json()
        assert body["success"] is True, body
        return body["data"]

    def post(self, path: str, body: dict[str, Any]) -> requests.Response:
        return self.session.post(self.svc.base_url + path, json=body, timeout=30)

    def walk(self, path: str, **params: Any) -> list[dict[str, Any]]:
        """Every record of a list, following its cursors or its pages (500 pages at most)."""
        query: dict[str, Any] = {"limit": 50, **params}
        out: list[dict[str, Any]] = []
        for _ in range(500):
            reply = self.get(path, **query)
            assert reply.status_code == 200, reply.text
            body = reply.json()
            out += body["data"]
            pagination = body["pagination"]
            if not pagination["has_more"]:
                return out
            if "next_cursor" in pagination:
                query["cursor"] = pagination["next_cursor"]
            else:
                query["page"] = pagination["page"] + 1
        raise AssertionError("the list never ended")


@pytest.fixture
def api(fake_service: FakeService) -> Iterator[Api]:
    fake_service.configure(rate_burst=10_000)
    http = Api(fake_service)
    yield http
    http.session.close()
