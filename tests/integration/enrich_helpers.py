"""Helpers for the enrichment tests: lead frames, scripted overrides that act mid-run."""

from __future__ import annotations

import _thread
import math
import threading
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.testing import FakeService, data
from lookup_pandas.testing.replies import Reply, Request

from .helpers import PROFILE, server_error

__all__ = [
    "AfterN",
    "FailHandles",
    "expected_status",
    "interrupt_main",
    "lead_frame",
    "person_id",
    "plain",
    "profile_counts",
    "spellings",
]


def spellings(handle: str) -> list[str]:
    """Ways a lead list spells one handle."""
    return [
        handle,
        f"  {handle} ",
        f"{handle}/",
        f"https://www.example.com/in/{handle}/?utm_source=newsletter",
        f"www.example.com/in/{handle}",
        f"https://www.example.com/IN/{handle}#about",
    ]


def expected_status(value: Any) -> str:
    handle = normalise_handle(value)
    if handle is None:
        return "invalid"
    return "not_found" if data.is_unknown(handle) else "ok"


def person_id(handle: str) -> str:
    """The id the emulator gives ``handle``'s person record."""
    record = data.person(handle)
    assert record is not None, handle
    return record["id"]


def profile_counts(svc: FakeService, handles: Iterable[str]) -> dict[str, int]:
    return {h: svc.count(PROFILE, handle=h) for h in handles}


class FailHandles:
    """An override answering a persistent failure (500 by default) for some handles only."""

    def __init__(self, handles: Iterable[str], make: Callable[[], Reply] = server_error) -> None:
        self.handles = set(handles)
        self.make = make

    def __call__(self, req: Request) -> Reply | None:
        return self.make() if req.param("handle") in self.handles else None


class AfterN:
    """An override that lets the route answer, and runs ``action`` once, on the n-th request.

    The request that triggers the action is still answered normally (the override returns None).
    """

    def __init__(self, n: int, action: Callable[[], None]) -> None:
        self.n = n
        self.action = action
        self.calls = 0
        self.fired = False
        self._lock = threading.Lock()

    def __call__(self, req: Request) -> None:
        with self._lock:
            self.calls += 1
            fire = self.calls == self.n and not self.fired
            if fire:
                self.fired = True
        if fire:
            self.action()
        return None


def interrupt_main() -> None:
    """Ctrl-C, delivered to the main thread (where the test and enrich_profiles run)."""
    _thread.interrupt_main()


def lead_frame(values: list[Any], index: Any = None) -> pd.DataFrame:
    """A lead list: the handle column plus a column of the user's own."""
    return pd.DataFrame(
        {
            "handle": list(values),
            "company": [f"co{i}" for i in range(len(values))],
            "score": [float(i) / 2 for i in range(len(values))],
        },
        index=index,
    )


def plain(value: Any) -> Any:
    """A cell as plain Python, to compare a frame with one read back from a file: lists and
    arrays as lists, every missing value None, a dict without its missing keys (an arrow
    struct has every key of its type), numpy scalars and timestamps as Python's."""
    if isinstance(value, dict):
        return {k: p for k, v in value.items() if (p := plain(v)) is not None}
    if isinstance(value, list | tuple | np.ndarray):
        return [plain(v) for v in value]
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return value.item() if isinstance(value, np.generic) else value
