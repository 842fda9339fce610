"""The emulator's batch jobs: items resolve over time, are billed as they resolve, page out.

Example::

    job = BatchJob.submit(("ada", "unknown-x"), key="lk_test_...", now=0.0, error_rate=0.0)
    job.processed(now=0.004, rate=300)     # 1: one item resolved after 4 ms at 300 items/s
    job.page(after=0, size=100, processed=2)
    # ([("ada", "ok"), ("unknown-x", "not_found")], 2)

As production's reference describes them: a submitted job runs to its end whether or not anyone
collects it, and each item is billed when it resolves (found or not found); an item that ends in
``errors`` is not billed. Results are paged in submit order by an integer cursor. Four kinds, one
machinery (``KINDS``, by path): people (``BATCH``; handles and ``prsn_`` ids resolve as
``/people/profile`` resolves them), companies (``COMPANIES_BATCH``; slugs and ``org_`` ids, as
``/companies/company``), and the Email API's verify and find jobs (addresses resolve as ``/verify``
answers them, queries as ``/find``; each always resolves to an answer, and is billed its single
call's cost, ``Kind.priced_as``, where a Data API item costs 1). Each item is kept with the
parameter the lookup endpoint would send it as (``handle`` / ``slug`` for the body's ``handles``,
``id`` for its ``ids``, ``email``; a find query as ``query``, its parts joined by
``PART_SEPARATOR``). A person the profile route answers 403 (opted out, premium-gated:
``forbidden``) ends in ``errors``. An item that resolves when the balance cannot pay it stops the
job there (``status`` "error" from then on, as production's job stops): the items before stay
readable and billed, that one and the rest never resolve and are never billed (see
:meth:`.state.ServiceState.settle_jobs`).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..service.endpoints import ENDPOINTS, PART_SEPARATOR, Endpoint
from ..service.paths import BATCH_PATH, COMPANY_BATCH_PATH, FIND_BATCH_PATH, VERIFY_BATCH_PATH
from . import company_records as companies
from . import data, mailboxes

__all__ = ["BATCH", "COMPANIES_BATCH", "KINDS", "MAX_ITEMS", "BatchJob", "Kind"]

BATCH = BATCH_PATH
#: Production's companies twin: the same machinery, results under ``companies``.
COMPANIES_BATCH = COMPANY_BATCH_PATH
MAX_ITEMS = 1000


@dataclass(frozen=True)
class Kind:
    """What one batch path resolves: its lookup endpoint (its id and key parameters, the key of
    the poll's results) and how a record is found by key and by id."""

    lookup: Endpoint
    by_key: Callable[[str], dict[str, Any] | None]
    by_id: Callable[[str], dict[str, Any] | None] = lambda value: None
    #: The route whose cost each item pays as it resolves (None: 1 credit, as the Data API's).
    priced_as: str | None = None

    def find(self, param: str, value: str) -> dict[str, Any] | None:
        return self.by_key(value) if param == self.key_param else self.by_id(value)

    @property
    def id_param(self) -> str:
        return self.lookup.ids[0][1]

    @property
    def key_param(self) -> str:
        """The parameter an item by key resolves as (``query`` for a query of several parts)."""
        return self.lookup.key or "query"


def _find(query: str) -> dict[str, Any]:
    first, last, domain = query.split(PART_SEPARATOR)
    return mailboxes.find(first, last, domain)


#: Each batch path's kind, from the endpoint table (the lookup whose ``batch`` it is).
KINDS: dict[str, Kind] = {
    BATCH: Kind(ENDPOINTS["profile"], data.person, data.person_by_id),
    COMPANIES_BATCH: Kind(ENDPOINTS["company"], companies.company, companies.company_by_id),
    VERIFY_BATCH_PATH: Kind(ENDPOINTS["email_verify"], mailboxes.verify,
                            priced_as=ENDPOINTS["email_verify"].path),
    FIND_BATCH_PATH: Kind(ENDPOINTS["email_find"], _find, priced_as=ENDPOINTS["email_find"].path),
}  # fmt: skip


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
    path: str = BATCH  # which kind of job (a key of KINDS)
    params: tuple[tuple[str, str], ...] = ()  # per input: the lookup parameter it resolves as
    #: The submit's ``enrich_live``: in the emulator its items are never free repeats (each is
    #: billed 1 as any item is); records are the same. Production says a live item costs "like
    #: a live resolution" and takes longer, but documents neither its cost nor its speed.
    enrich_live: bool = False
    stopped: int | None = None  # the item the balance could not pay: the job stopped there
    stopped_at: float | None = None  # when it stopped

    def stop(self, index: int, at: float) -> None:
        """The job stops at item ``index`` (resolved at ``at``): it and the rest never resolve."""
        if self.stopped is None or index < self.stopped:
            self.stopped, self.stopped_at = index, at

    @classmethod
    def submit(
        cls,
        handles: tuple[str, ...],
        *,
        key: str,
        now: float,
        error_rate: float,
        ids: tuple[str, ...] = (),
        forbidden: Callable[[str, dict[str, Any] | None], bool] = lambda item, record: False,
        path: str = BATCH,
        enrich_live: bool = False,
    ) -> BatchJob:
        """``handles`` (slugs for companies) and ``ids`` resolve as the lookup of ``path``'s kind
        does; ``forbidden(item, record)``: whether the item's record is refused (an error)."""
        kind = KINDS[path]
        params = tuple((kind.key_param, h) for h in handles)
        params += tuple((kind.id_param, i) for i in ids)
        outcomes = []
        for param, item in params:
            record = kind.find(param, item)
            if _errs(item, error_rate) or forbidden(item, record):
                outcomes.append("error")
            else:
                outcomes.append("ok" if record else "not_found")
        return cls(
            job_id="job_" + uuid.uuid4().hex[:20],
            key=key,
            inputs=handles + ids,
            outcomes=outcomes,
            submitted=now,
            path=path,
            params=params,
            enrich_live=enrich_live,
        )

    def record(self, index: int) -> dict[str, Any] | None:
        """The record input ``index`` resolves to (None: not found)."""
        return KINDS[self.path].find(*self.params[index])

    @property
    def total(self) -> int:
        return len(self.inputs)

    def status(self, processed: int) -> str:
        """What a poll says with ``processed`` items done: "error" once it stopped."""
        if self.stopped is not None:
            return "error"
        return "completed" if processed == self.total else "processing"

    def finished_at(self, rate: float) -> float:
        """When the last item resolves, at ``rate`` items per second (a stopped job: when it
        stopped)."""
        if self.stopped_at is not None:
            return self.stopped_at
        return self.submitted + (self.total / rate if rate > 0 else 0.0)

    def processed(self, now: float, rate: float) -> int:
        """Items resolved or errored by ``now``, at ``rate`` items per second (a stopped job:
        never more than those before the item it stopped at)."""
        end = self.total if self.stopped is None else self.stopped
        if rate <= 0:
            return end
        return min(end, int(max(0.0, now - self.submitted) * rate))

    def page(self, after: int, size: int, processed: int) -> tuple[list[tuple[str, str]], int]:
        """(input, outcome) of the processed items from ``after`` on, at most ``size``; and
        the next cursor (``after`` itself when nothing new is there)."""
        end = min(processed, after + size)
        items = list(zip(self.inputs[after:end], self.outcomes[after:end], strict=True))
        return items, max(after, end)
