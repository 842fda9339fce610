"""The emulator's mutable state: knobs, keys, the rate limiter, faults and request counters.

Example::

    state = ServiceState(Knobs(rate_limit_per_minute=60))
    state.check_key("lk_test_...")        # None when valid, else the 403 reason
    state.count("/api/data/v1/people/profile", handle="ada")   # requests seen so far
    state.count(status=429, key="lk_test_...")   # the 429s one key was answered
    state.billed_handles(key="lk_test_...")      # Counter: credits per handle, for one key

One lock guards everything here; the routes read and update it through these methods only.
Each record names the key it carried by :func:`key_id`, a short hash: the emulator keeps no
key in its records, so printing them shows none.
"""

from __future__ import annotations

import hashlib
import math
import random
import secrets
import threading
import time
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from .batch import BATCH, BatchJob

PROFILE_PATH = "/api/data/v1/people/profile"

__all__ = ["FAULT_KINDS", "Knobs", "RequestRecord", "ServiceState", "TIERS", "key_id"]

#: Transient faults the emulator can inject: 500, 502 with an HTML body, 503 ("1072"), and a
#: connection closed without an answer.
FAULT_KINDS = ("500", "502", "503", "drop")

#: (limit per minute, name, credits to reach it) of the production tiers, cheapest first.
TIERS = [
    (7, "free", 0),
    (30, "starter", 1_000),
    (60, "growth", 5_000),
    (120, "pro", 20_000),
    (300, "scale", 100_000),
    (550, "enterprise", 500_000),
]


@dataclass(frozen=True)
class Knobs:
    """How the emulator behaves. Every field can be changed while it runs."""

    latency: float = 0.0  # seconds added to every answer
    rate_limit_per_minute: float | None = 6000  # None: no limit
    rate_burst: int = 3  # requests allowed back to back before the smooth limit bites
    advertise_rate_limit: bool = True  # the tier endpoint reports limit_per_minute
    fault_rate: float = 0.0  # share of requests that get a transient fault
    fault_kinds: tuple[str, ...] = FAULT_KINDS
    employees_style: str = "page"  # or "cursor", as production may do
    sparse_records: bool = False  # records carry id, handle and a handle-seeded half of the rest
    balance: float = 100_000.0  # credits at start
    batch: bool = True  # the batch-enrich endpoints exist (off: 404, as a service without them)
    batch_resolve_rate: float = 300.0  # items a batch job resolves per second (0: at once)
    batch_page_size: int = 100  # results per poll
    batch_job_lifetime: float = 3600.0  # seconds a job can be polled after it finished resolving
    batch_error_rate: float = 0.0  # share of items that end in a job's errors (not billed)


def key_id(key: str) -> str:
    """The name records give a key: a short hash of it (the key itself is never recorded).

    Example: ``svc.requests[0].key_id == key_id(svc.api_key)``
    """
    return hashlib.sha256(b"lookup-pandas-emulator-key\x1f" + key.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class RequestRecord:
    """One request as the emulator saw it."""

    path: str
    params: tuple[tuple[str, str], ...]
    status: int
    billed: bool
    fault: str | None = None
    item: bool = False  # a batch item billed as it resolved, not a request
    method: str = "GET"
    key_id: str | None = None  # key_id() of the key it carried (a batch item: its job's key)
    at: float = 0.0  # time.monotonic() when it was answered (a batch item: when it resolved)

    def param(self, name: str) -> str | None:
        for k, v in self.params:
            if k == name:
                return v
        return None


class ServiceState:
    """Everything the routes need to remember, behind one lock."""

    WORKSPACE = "ws_emulator"

    def __init__(self, knobs: Knobs, *, api_key: str | None = None, seed: int = 0) -> None:
        self._initial_knobs = knobs
        self._initial_key = api_key or "lk_test_" + secrets.token_hex(16)
        self._seed = seed
        self.lock = threading.RLock()
        self.overrides: dict[str, Any] = {}
        self.reset()

    # -- set-up ----------------------------------------------------------------------------

    def reset(self) -> None:
        """Back to the state at construction: knobs, keys, balance, counters, limiter."""
        with self.lock:
            self.knobs = self._initial_knobs
            self.keys: dict[str, str] = {self._initial_key: "valid"}
            self.workspace_of: dict[str, str] = {self._initial_key: self.WORKSPACE}
            self.current_key = self._initial_key
            self.wrong_workspace_key = "lk_test_otherws_" + self._initial_key[-8:]
            self.keys[self.wrong_workspace_key] = "valid"
            self.workspace_of[self.wrong_workspace_key] = "ws_someone_else"
            self.balance = self.knobs.balance
            self.records: list[RequestRecord] = []
            self._tat: dict[str, float] = {}
            self._rng = random.Random(self._seed)
            self.in_flight: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()
            self.max_in_flight: Counter[tuple[str, tuple[tuple[str, str], ...]]] = Counter()
            self.overrides.clear()
            self.jobs: dict[str, BatchJob] = {}

    def configure(self, **changes: Any) -> None:
        with self.lock:
            self.knobs = replace(self.knobs, **changes)
            if "balance" in changes:
                self.balance = self.knobs.balance

    # -- keys --------------------------------------------------------------------------------

    def issue_key(self, workspace: str | None = None) -> str:
        key = "lk_test_" + secrets.token_hex(16)
        with self.lock:
            self.keys[key] = "valid"
            self.workspace_of[key] = workspace or self.WORKSPACE
        return key

    def rotate_key(self) -> str:
        """A new key replaces the current one; the old one answers 403 from now on."""
        new = self.issue_key()
        with self.lock:
            self.keys[self.current_key] = "rotated"
            self.current_key = new
        return new

    def revoke_key(self, key: str) -> None:
        with self.lock:
            self.keys[key] = "revoked"

    def check_key(self, key: str) -> str | None:
        """None when ``key`` may call this workspace; else the reason for a 403."""
        with self.lock:
            status = self.keys.get(key)
            if status is None:
                return "Invalid API key"
            if status == "rotated":
                return "API key has been rotated; use the new key from the API Keys area"
            if status == "revoked":
                return "API key has been revoked"
            if self.workspace_of.get(key) != self.WORKSPACE:
                return "API key does not belong to this workspace"
            return None

    # -- limits and faults -------------------------------------------------------------------

    def admit(self, key: str, now: float | None = None) -> float:
        """GCRA: 0 when the request may go, else the seconds until it would be admitted.

        Smooth: one request every ``60 / limit`` seconds, with ``rate_burst`` of tolerance,
        rather than a per-minute window that lets the whole minute through at once.
        """
        with self.lock:
            limit = self.knobs.rate_limit_per_minute
            if not limit:
                return 0.0
            now = time.monotonic() if now is None else now
            interval = 60.0 / limit
            tolerance = interval * max(0, self.knobs.rate_burst - 1)
            tat = max(self._tat.get(key, now), now)
            if tat - now > tolerance:
                return tat - now - tolerance
            self._tat[key] = tat + interval
            return 0.0

    def draw_fault(self) -> str | None:
        with self.lock:
            k = self.knobs
            if k.fault_rate <= 0 or not k.fault_kinds:
                return None
            if self._rng.random() >= k.fault_rate:
                return None
            return self._rng.choice(k.fault_kinds)

    def tier(self) -> dict[str, Any]:
        """The credits-tier payload for the configured limit (a production tier, or custom)."""
        with self.lock:
            limit = self.knobs.rate_limit_per_minute
            advertise = self.knobs.advertise_rate_limit
            balance = self.balance
        names = {float(t[0]): t[1] for t in TIERS}
        current: dict[str, Any] = {
            "name": names.get(limit, "custom") if limit else "unmetered",
            "billing": "per successful lookup",
        }
        if advertise:
            current["limit_per_minute"] = limit
        higher = [t for t in TIERS if limit and t[0] > limit]
        next_tier = None
        if higher:
            rate, name, credits = higher[0]
            next_tier = {
                "name": name,
                "limit_per_minute": rate,
                "credits_needed": max(0, credits - int(balance)),
            }
        return {"balance": balance, "current_tier": current, "next_tier": next_tier}

    # -- billing and counters ----------------------------------------------------------------

    def bill(self, credits: float = 1.0) -> float:
        with self.lock:
            self.balance -= credits
            return self.balance

    def record(self, rec: RequestRecord) -> None:
        with self.lock:
            self.records.append(rec)

    # -- batch jobs ----------------------------------------------------------------------------

    def add_job(self, job: BatchJob) -> None:
        with self.lock:
            self.jobs[job.job_id] = job

    def job(self, job_id: str, key: str, now: float | None = None) -> BatchJob | None:
        """The job, for the key that submitted it, while it has not expired; else None.

        A job expires ``batch_job_lifetime`` seconds after its last item resolved: a job
        still resolving (and billing) can always be polled.
        """
        now = time.monotonic() if now is None else now
        with self.lock:
            job = self.jobs.get(job_id)
            if job is None or job.key != key:
                return None
            finished = job.finished_at(self.knobs.batch_resolve_rate)
            if now - finished > self.knobs.batch_job_lifetime:
                return None
            return job

    def settle_jobs(self, now: float | None = None) -> None:
        """Bill every batch item resolved by ``now`` (found or not found; not errors).

        A job runs to its end whether or not anyone polls it, so billing catches up here,
        whenever the emulator is asked anything: a request, or a counter read by a test.
        """
        now = time.monotonic() if now is None else now
        with self.lock:
            rate = self.knobs.batch_resolve_rate
            for job in self.jobs.values():
                done = job.processed(now, rate)
                for index, item, outcome in zip(
                    range(job.settled, done),
                    job.inputs[job.settled : done],
                    job.outcomes[job.settled : done],
                    strict=True,
                ):
                    if outcome != "error":
                        self.balance -= 1.0
                        self.records.append(
                            RequestRecord(
                                BATCH,
                                (("handle", item),),
                                200,
                                True,
                                item=True,
                                key_id=key_id(job.key),
                                at=job.submitted + ((index + 1) / rate if rate > 0 else 0.0),
                            )
                        )
                job.settled = max(job.settled, done)

    def enter(self, key: tuple[str, tuple[tuple[str, str], ...]]) -> None:
        with self.lock:
            self.in_flight[key] += 1
            if self.in_flight[key] > self.max_in_flight[key]:
                self.max_in_flight[key] = self.in_flight[key]

    def leave(self, key: tuple[str, tuple[tuple[str, str], ...]]) -> None:
        with self.lock:
            self.in_flight[key] -= 1

    def count(
        self,
        /,
        path: str | None = None,
        *,
        billed: bool | None = None,
        status: int | None = None,
        method: str | None = None,
        key: str | None = None,
        **params: Any,
    ) -> int:
        """Requests seen for ``path`` (any when None) whose query has every given param.

        With ``billed=True``, batch items billed as they resolved count too (``handle=`` finds
        them), so a test sees every credit one handle cost, however it was fetched. ``key``:
        only requests that carried this key (batch items: submitted with it). ``status`` and
        ``method``: only requests answered with that status, sent with that method
        (``count(BATCH, method="POST")`` counts batch submits).
        """
        want = {k: str(v) for k, v in params.items()}
        wanted_key = key_id(key) if key is not None else None
        if self.jobs:
            self.settle_jobs()
        with self.lock:
            records = list(self.records)
        n = 0
        for rec in records:
            if rec.item and billed is not True:
                continue
            if path is not None and rec.path != path:
                continue
            if billed is not None and rec.billed != billed:
                continue
            if status is not None and rec.status != status:
                continue
            if method is not None and rec.method != method:
                continue
            if wanted_key is not None and rec.key_id != wanted_key:
                continue
            if want and any(rec.param(k) != v for k, v in want.items()):
                continue
            n += 1
        return n

    def billed_handles(self, key: str | None = None) -> Counter[str]:
        """Credits per handle: billed ``/people/profile`` requests and batch items (``key``:
        only those paid with this key)."""
        if self.jobs:
            self.settle_jobs()
        wanted_key = key_id(key) if key is not None else None
        with self.lock:
            records = list(self.records)
        return Counter(
            handle
            for rec in records
            if rec.billed and (rec.item or rec.path == PROFILE_PATH)
            if wanted_key is None or rec.key_id == wanted_key
            if (handle := rec.param("handle")) is not None
        )

    def retry_after(self, wait: float) -> int:
        """Retry-After in whole seconds, as HTTP wants it (at least 1)."""
        return max(1, math.ceil(wait))
