"""The emulator's batch jobs: items resolve over time, are billed as they resolve, page out.

Example::

    job = BatchJob.submit(("ada", "unknown-x"), key="lk_test_...", now=0.0, error_rate=0.0)
    job.processed(now=0.004, rate=300)     # 1: one item resolved after 4 ms at 300 items/s
    job.page(after=0, size=100, processed=2)
    # ([("ada", "ok"), ("unknown-x", "not_found")], 2)

As production's reference describes them: a submitted job runs to its end whether or not
anyone collects it, and each item is billed when it resolves (found or not found); an item
that ends in ``errors`` is not billed. Results are paged in submit order by an integer cursor.
Handles resolve like ``/people/profile``; ``ids`` (``prsn_…``) resolve to not-found here. A
person the profile route answers 403 (opted out, premium-gated: ``forbidden``) ends in
``errors``, as does an item that resolves when the balance cannot pay it (see
:meth:`.state.ServiceState.settle_jobs`).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from . import data

__all__ = ["BATCH", "COMPANIES_BATCH", "MAX_ITEMS", "BatchJob"]

BATCH = "/api/data/v1/people/batch/enrich"
#: Production's companies twin (not served here; listed in the route costs at 0).
COMPANIES_BATCH = "/api/data/v1/companies/batch/enrich"
MAX_ITEMS = 1000


def _errs(item: str, error_rate: float) -> bool:
    """Whether ``item`` ends in ``errors`` (deterministic, about ``error_rate`` of items)."""
    if error_rate <= 0:
        return False
    draw = int.from_bytes(hashlib.sha256(b"batch-error\x1f" + item.encode()).digest()[:4], "big")
    return draw / 2**32 < error_rate


@dataclass
class BatchJob:
    """One submitted job: its inputs, their outcomes, and how far billing has caught up."""

    job_id: str
    key: str
    inputs: tuple[str, ...]
    outcomes: list[str]  # "ok" | "not_found" | "error", per input (settling may add errors)
    submitted: float
    settled: int = 0  # items already billed (or errored): billing catches up to processed()

    @classmethod
    def submit(
        cls,
        handles: tuple[str, ...],
        *,
        key: str,
        now: float,
        error_rate: float,
        ids: tuple[str, ...] = (),
        forbidden: Callable[[str, str | None], bool] = lambda item, person_id: False,
    ) -> BatchJob:
        """``forbidden(item, prsn_id)``: whether the item's person is refused (an error)."""
        outcomes = []
        for h in handles:
            record = data.person(h)
            if _errs(h, error_rate) or forbidden(h, record["id"] if record else None):
                outcomes.append("error")
            else:
                outcomes.append("ok" if record else "not_found")
        outcomes += [
            "error" if _errs(i, error_rate) or forbidden(i, None) else "not_found" for i in ids
        ]
        return cls(
            job_id="job_" + uuid.uuid4().hex[:20],
            key=key,
            inputs=handles + ids,
            outcomes=outcomes,
            submitted=now,
        )

    @property
    def total(self) -> int:
        return len(self.inputs)

    def finished_at(self, rate: float) -> float:
        """When the last item resolves, at ``rate`` items per second."""
        return self.submitted + (self.total / rate if rate > 0 else 0.0)

    def processed(self, now: float, rate: float) -> int:
        """Items resolved or errored by ``now``, at ``rate`` items per second."""
        if rate <= 0:
            return self.total
        return min(self.total, int(max(0.0, now - self.submitted) * rate))

    def page(self, after: int, size: int, processed: int) -> tuple[list[tuple[str, str]], int]:
        """(input, outcome) of the processed items from ``after`` on, at most ``size``; and
        the next cursor (``after`` itself when nothing new is there)."""
        end = min(processed, after + size)
        items = list(zip(self.inputs[after:end], self.outcomes[after:end], strict=True))
        return items, max(after, end)
