"""The emulator's mutable state: knobs, keys, the rate limiter, credits, faults, counters, moves.

Example::

    state = ServiceState(Knobs(rate_limit_per_minute=60))
    state.check_key("lk_test_...")        # None when valid, else why not ("rotated", ...)
    state.cost_of("/api/data/v1/companies/company")   # 2.0: the route_costs knob (unlisted: 1)
    state.pay("/api/data/v1/people/profile", repeat)   # (cost, balance after), or None: broke
    state.count("/api/data/v1/people/profile", handle="ada")   # requests seen so far
    state.count(status=429, key="lk_test_...")   # the 429s one key was answered
    state.billed_handles(key="lk_test_...")      # Counter: credits per handle, for one key
    state.move("ada", "globex")           # ada works at Globex now, as every route shows

Credits, as production bills them: a billable answer costs its route's cost (``route_costs``;
a route not listed costs 1, 0 is free; an answer may say it costs otherwise: ``Reply.cost``), a
batch item as it resolves (:meth:`ServiceState.item_cost`); a cost the balance cannot pay is
refused (402 ``1080``), never billed. ``Knobs(balance=30)`` runs out after 30 lookups;
``configure(balance=...)`` tops up. With ``tier_follows_balance`` the limit enforced is the
``ladder`` tier of the balance now (production's ladder by default), so spending drops it;
otherwise it is the "Emulator" tier of ``rate_limit_per_minute`` (or, for an enterprise
workspace, ``enterprise_limit_per_minute``). With ``free_repeat_seconds`` an identical request
soon after a billed one is answered free, as production's short-lived cache answers it.

One lock guards everything here; the routes read and update it through these methods only
(``world``, the moves made, is an immutable snapshot that ``move`` replaces whole).
Each record names the key it carried by :func:`key_id`, a short hash: the emulator keeps no
key in its records, so printing them shows none.
"""

from __future__ import annotations

import copy
import hashlib
import math
import random
import secrets
import threading
import time
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ..service.paths import (
    COMPANY_PATH,
    EMAIL_FIND_PATH,
    EMAIL_FIND_PROFILE_PATH,
    EMAIL_REVERSE_PATH,
    EMAIL_VERIFY_PATH,
    EMAILS_HEALTH_PATH,
    FIND_BATCH_PATH,
    HEALTH_PATH,
    PROFILE_PATH,
    SKILL_PATH,
    SKILL_SEARCH_PATH,
    VERIFY_BATCH_PATH,
)
from .batch import BATCH, COMPANIES_BATCH, KINDS, BatchJob
from .catalog import JOB_CHANGE_RATE, today
from .moves import Moves

__all__ = [
    "EMULATOR_TIER",
    "FAULT_KINDS",
    "PRODUCTION_LADDER",
    "ROUTE_COSTS",
    "Knobs",
    "LadderTier",
    "RequestRecord",
    "ServiceState",
    "as_number",
    "key_id",
]

#: Transient faults the emulator can inject: 500, 502 with an HTML body, 503 ("1072"), and a
#: connection closed without an answer.
FAULT_KINDS = ("500", "502", "503", "drop")

#: The name of the tier of a configured ``rate_limit_per_minute`` (off the ladder): one tier for
#: every balance, shaped as production's tiers are.
EMULATOR_TIER = "Emulator"
#: What the emulator's tier says one dollar buys (a stand-in: production's ladder starts at 100).
EMULATOR_CREDITS_PER_DOLLAR = 100


@dataclass(frozen=True)
class LadderTier:
    """One tier of the public ladder: ``min_credits`` to ``max_credits`` (None: no top).

    Example: ``LadderTier("Slow", 0, 99, 120)``; a ``ladder`` knob also takes plain tuples
    ``("Slow", 0, 99, 120)`` or dicts with these names.
    """

    name: str
    min_credits: float
    max_credits: float | None
    limit_per_minute: float | None  # None: no limit (the emulator's tier, unmetered)
    credits_per_dollar: float | None = None

    def payload(self) -> dict[str, Any]:
        """As the tier endpoints show a tier (``credits_per_dollar`` is the ladder's only)."""
        limit = self.limit_per_minute
        return {
            "name": self.name,
            "min_credits": as_number(self.min_credits),
            "max_credits": None if self.max_credits is None else as_number(self.max_credits),
            "limit_per_minute": None if limit is None else as_number(limit),
        }


#: Production's ladder (its public reference): name, credits range, calls a minute, credits a $.
PRODUCTION_LADDER: tuple[LadderTier, ...] = (
    LadderTier("Testing", 0, 99, 7, 100),
    LadderTier("Hobby", 100, 9_999, 30, 120),
    LadderTier("Developer", 10_000, 29_999, 70, 185),
    LadderTier("Startup", 30_000, 59_999, 90, 210),
    LadderTier("Growth", 60_000, 99_999, 150, 270),
    LadderTier("Scale", 100_000, 299_999, 250, 345),
    LadderTier("Business", 300_000, 599_999, 350, 355),
    LadderTier("Ultra", 600_000, 999_999, 450, 375),
    LadderTier("Strategic Partner", 1_000_000, None, 550, 400),
)

#: Production-like costs of the routes that do not cost 1 (any route not listed costs 1; 0 is
#: free). Batch submits show 0: their items bill as they resolve (a Data API item 1, an Email
#: API item its single call's cost). The Email API's, as production's listing shows them
#: (prospects is not listed: 1, its price per address of a ``full`` page).
ROUTE_COSTS: Mapping[str, float] = MappingProxyType(
    {
        COMPANY_PATH: 2,
        BATCH: 0,
        COMPANIES_BATCH: 0,
        HEALTH_PATH: 0,
        SKILL_PATH: 0,
        SKILL_SEARCH_PATH: 0,
        EMAIL_VERIFY_PATH: 2,
        EMAIL_FIND_PATH: 3,
        EMAIL_FIND_PROFILE_PATH: 5,
        EMAIL_REVERSE_PATH: 5,
        VERIFY_BATCH_PATH: 0,
        FIND_BATCH_PATH: 0,
        EMAILS_HEALTH_PATH: 0,
    }
)


def as_number(value: float) -> float | int:
    """A whole number as an int (as production writes credits and limits), else the float.

    >>> as_number(7.0), as_number(2.5)
    (7, 2.5)
    """
    return int(value) if float(value).is_integer() else float(value)


def _ladder_tier(item: Any) -> LadderTier:
    if isinstance(item, LadderTier):
        return item
    if isinstance(item, Mapping):
        return LadderTier(**{k: v for k, v in item.items() if k != "id"})
    return LadderTier(*item)


def route_key(path: str) -> str:
    """How routes are matched: without the slashes at either end."""
    return path.split("?", 1)[0].strip("/")


@dataclass(frozen=True)
class Knobs:
    """How the emulator behaves. Every field can be changed while it runs."""

    latency: float = 0.0  # seconds added to every answer
    rate_limit_per_minute: float | None = 6000  # the "Emulator" tier's limit; None: no limit
    rate_burst: int = 3  # requests allowed back to back before the smooth limit bites
    advertise_rate_limit: bool = True  # the tier endpoint reports limit_per_minute
    fault_rate: float = 0.0  # share of requests that get a transient fault
    fault_kinds: tuple[str, ...] = FAULT_KINDS
    employees_style: str = "page"  # or "cursor", as production may do
    sparse_records: bool = False  # records carry id, handle and a handle-seeded half of the rest
    balance: float = 250_000.0  # credits at start: mid-Scale, so a test job keeps its tier
    batch: bool = True  # the batch endpoints exist (off: 404, as a service without them)
    emails: bool = True  # the Email API exists (off: every /api/emails/v1 path 404s, health too)
    batch_resolve_rate: float = 300.0  # items a batch job resolves per second (0: at once)
    batch_page_size: int = 100  # results per poll
    batch_job_lifetime: float = 3600.0  # seconds a job can be polled after it finished resolving
    batch_error_rate: float = 0.0  # share of items that end in a job's errors (not billed)
    #: How a submit's balance pre-check reads (production: "the balance is pre-checked"):
    #: "one" refuses only a balance that cannot pay one item (the job stops with status
    #: "error" at the first item it cannot pay); "job" refuses a job whose items the balance
    #: cannot all pay.
    batch_precheck: str = "one"
    # -- production's errors and credits (all off by default) --
    opted_out: frozenset[str] = frozenset()  # handles / prsn_ ids: 403 "opted out", not billed
    premium_gated: frozenset[str] = frozenset()  # handles / prsn_ ids: 403 "premium", not billed
    credits_403: bool = False  # insufficient credits answered 403 (no code) instead of 402/1080
    rate_limit_as_403: bool = False  # where a 429 would be answered, a 403 with its headers/body
    route_costs: Mapping[str, float] = field(default_factory=lambda: ROUTE_COSTS)  # not 1 only
    ladder: tuple[LadderTier, ...] = PRODUCTION_LADDER  # the public tier ladder, lowest first
    tier_follows_balance: bool = False  # the limit (and tier/k) is the ladder tier of the balance
    #: An enterprise workspace (off by default): tier/k answers ``current_tier: null`` and this
    #: ``limit_per_minute`` at the top of ``data`` (the SDK's CHANGELOG 0.2.1), this limit is the
    #: one enforced (over the ladder and ``rate_limit_per_minute``), and the balance is read at
    #: ``/credits/balance/k/enterprise/``. Strict: the personal ``/credits/balance/k/`` answers
    #: an enterprise key 403 "Invalid API key" (production does not document it for one), so
    #: code must read the enterprise route. Off, the enterprise route answers that 403 (a
    #: personal key there, account-api.md).
    enterprise_limit_per_minute: float | None = None
    #: Production's free repeat (off by default): an identical request (method, path, query,
    #: key) within this many seconds of a billed answer is answered again free (not billed,
    #: ``X-Credits-Consumed: 0``), as production's short-lived cache answers it; so is a batch
    #: item the same key had billed as an item of the same kind in that time (not for a job
    #: submitted with ``enrich_live``). Off, every repeat is billed: stricter than production,
    #: it keeps the counts of what the library bought honest.
    free_repeat_seconds: float = 0.0
    # -- the job-change feed's background (see catalog.job_feed) --
    job_change_rate: float = JOB_CHANGE_RATE  # events per 1,000 employees per day, everywhere
    job_change_rates: Mapping[str, float] = field(default_factory=dict)  # by slug: overrides

    def __post_init__(self) -> None:
        # Accept any iterable / mapping / plain tuples; keep the knobs immutable and comparable.
        object.__setattr__(self, "opted_out", frozenset(self.opted_out))
        object.__setattr__(self, "premium_gated", frozenset(self.premium_gated))
        costs = {route_key(k): float(v) for k, v in dict(self.route_costs).items()}
        object.__setattr__(self, "route_costs", MappingProxyType(costs))
        rungs = sorted((_ladder_tier(t) for t in self.ladder), key=lambda t: t.min_credits)
        object.__setattr__(self, "ladder", tuple(rungs))
        rates = {k.strip().lower(): float(v) for k, v in dict(self.job_change_rates).items()}
        if min([self.job_change_rate, *rates.values()]) < 0:
            raise ValueError("job change rates are events a day per 1,000 employees: at least 0")
        object.__setattr__(self, "job_change_rates", MappingProxyType(rates))

    def forbidden(self, *names: str | None) -> str | None:
        """The 403 message for a record any of ``names`` (handle, prsn_ id) names, else None."""
        if any(n in self.opted_out for n in names if n):
            return "This person has opted out of data sharing"
        if any(n in self.premium_gated for n in names if n):
            return "Premium access is required for this profile"
        return None


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
    credits: float = 0.0  # what it cost (X-Credits-Consumed)

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
        """Back to the state at construction: knobs, keys, balance, counters, limiter, moves."""
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
            #: When each request (or batch item) was last billed: the free repeats' memory.
            self._billed_at: dict[Hashable, float] = {}
            #: The moves made (``move``): what every route shows of the movers, and their events.
            self.world = Moves()

    def move(self, handle: str, to: str, title: str | None = None) -> dict[str, Any]:
        """``handle`` moves to company ``to`` today (:meth:`.moves.Moves.moved`, the real UTC
        date); returns a copy of the person's new record."""
        with self.lock:
            self.world, record = self.world.moved(handle, to=to, title=title, on=today())
        return copy.deepcopy(record)

    def configure(self, **changes: Any) -> None:
        """Change knobs; ``balance=`` sets the balance now (a top-up, or a drain)."""
        with self.lock:
            if self.jobs:
                self.settle_jobs()  # items resolved so far were paid at the old balance
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
        """None when ``key`` may call this workspace; else why not: "unknown", "rotated",
        "revoked" or "other workspace" (the emulator's own: every one is answered 403 "Invalid
        API key", production's words)."""
        with self.lock:
            status = self.keys.get(key)
            if status is None:
                return "unknown"
            if status != "valid":
                return status
            if self.workspace_of.get(key) != self.WORKSPACE:
                return "other workspace"
            return None

    # -- limits and faults -------------------------------------------------------------------

    def admit(self, key: str, now: float | None = None) -> float:
        """GCRA: 0 when the request may go, else the seconds until it would be admitted.

        Smooth: one request every ``60 / limit`` seconds, with ``rate_burst`` of tolerance,
        rather than a per-minute window that lets the whole minute through at once.
        """
        with self.lock:
            limit = self.limit_per_minute()
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

    def ladder_tier(self) -> LadderTier | None:
        """The ladder tier of the balance now, when ``tier_follows_balance`` (and not an
        enterprise workspace); else None.

        The highest tier whose ``min_credits`` the balance reaches (below them all: the lowest).
        """
        with self.lock:
            knobs, balance = self.knobs, self.balance
        ladder, enterprise = knobs.ladder, knobs.enterprise_limit_per_minute
        if not knobs.tier_follows_balance or not ladder or enterprise is not None:
            return None
        reached = [t for t in ladder if balance >= t.min_credits]
        return reached[-1] if reached else ladder[0]

    def limit_per_minute(self) -> float | None:
        """The limit enforced now: an enterprise workspace's, the balance's ladder tier's, or
        the ``rate_limit_per_minute`` knob (None: no limit)."""
        enterprise = self.knobs.enterprise_limit_per_minute
        if enterprise is not None:
            return enterprise
        rung = self.ladder_tier()
        return rung.limit_per_minute if rung is not None else self.knobs.rate_limit_per_minute

    def tier_name(self) -> str | None:
        """The current tier's name, as a 429 reports it (an enterprise workspace has none)."""
        if self.knobs.enterprise_limit_per_minute is not None:
            return None
        rung = self.ladder_tier()
        return rung.name if rung is not None else EMULATOR_TIER

    def tier(self) -> dict[str, Any]:
        """The credits-tier payload: an enterprise workspace's (``current_tier`` null, the limit
        at the top), the balance's ladder tier (``tier_follows_balance``), else the "Emulator"
        tier of the configured limit, alone on its ladder.

        >>> ServiceState(Knobs(balance=50)).tier()["current_tier"]
        {'name': 'Emulator', 'min_credits': 0, 'max_credits': None, 'limit_per_minute': 6000}
        >>> enterprise = ServiceState(Knobs(balance=50, enterprise_limit_per_minute=900)).tier()
        >>> enterprise["current_tier"], enterprise["limit_per_minute"], enterprise["next_tier"]
        (None, 900, None)
        """
        with self.lock:
            if self.jobs:
                self.settle_jobs()  # the balance after the batch items resolved so far
            knobs, balance = self.knobs, self.balance
        advertise = knobs.advertise_rate_limit
        if knobs.enterprise_limit_per_minute is not None:
            payload: dict[str, Any] = {
                "balance": as_number(balance),
                "credits_per_dollar": None,
                "current_tier": None,
                "next_tier": None,
                "previous_tier": None,
            }
            if advertise:
                payload["limit_per_minute"] = as_number(knobs.enterprise_limit_per_minute)
            return payload
        rung = self.ladder_tier()
        if rung is not None:
            return self._ladder_payload(rung, knobs.ladder, balance, advertise)
        limit = knobs.rate_limit_per_minute
        own = LadderTier(EMULATOR_TIER, 0, None, limit, EMULATOR_CREDITS_PER_DOLLAR)
        return self._ladder_payload(own, (own,), balance, advertise)

    @staticmethod
    def _ladder_payload(
        rung: LadderTier, ladder: tuple[LadderTier, ...], balance: float, advertise: bool
    ) -> dict[str, Any]:
        """tier/k as production answers it: the current tier and its neighbours on the ladder."""
        at = ladder.index(rung)

        def shown(t: LadderTier) -> dict[str, Any]:
            payload = t.payload()
            if not advertise:
                payload.pop("limit_per_minute")
            return payload

        next_tier = None
        if at + 1 < len(ladder):
            up = ladder[at + 1]
            needed = as_number(max(0.0, up.min_credits - balance))
            next_tier = {**shown(up), "credits_needed": needed}
        return {
            "balance": as_number(balance),
            "credits_per_dollar": rung.credits_per_dollar,
            "current_tier": shown(rung),
            "next_tier": next_tier,
            "previous_tier": shown(ladder[at - 1]) if at > 0 else None,
        }

    # -- billing and counters ----------------------------------------------------------------

    def cost_of(self, path: str) -> float:
        """Credits one billable answer on ``path`` costs: its ``route_costs`` entry, else 1."""
        return self.knobs.route_costs.get(route_key(path), 1.0)

    def pay(
        self,
        path: str,
        repeat: Hashable | None = None,
        now: float | None = None,
        cost: float | None = None,
    ) -> tuple[float, float] | None:
        """Pay for one billable answer on ``path``: (credits paid, the balance after), or None
        when the balance cannot pay its cost (nothing is taken then). ``cost``: what this answer
        costs when not its route's (a partial reverse, a prospects page), else ``cost_of(path)``.

        ``repeat`` names the request (method, path, query, key): one answered billed within
        ``free_repeat_seconds`` before ``now`` is a free repeat, paid 0. Batch items resolved
        so far are paid first.
        """
        now = time.monotonic() if now is None else now
        with self.lock:
            if self.jobs:
                self.settle_jobs()
            if self._repeated(repeat, now):
                return 0.0, self.balance
            cost = self.cost_of(path) if cost is None else cost
            if cost > self.balance:
                return None
            self.balance -= cost
            if cost > 0:
                self._remember(repeat, now)
            return cost, self.balance

    def _repeated(self, repeat: Hashable | None, now: float) -> bool:
        """Whether ``repeat`` was billed within ``free_repeat_seconds`` before ``now``."""
        window = self.knobs.free_repeat_seconds
        if repeat is None or window <= 0:
            return False
        billed = self._billed_at.get(repeat)
        return billed is not None and now - billed <= window

    def _remember(self, repeat: Hashable | None, now: float) -> None:
        """``repeat`` was billed at ``now`` (kept only while free repeats are on)."""
        window = self.knobs.free_repeat_seconds
        if repeat is None or window <= 0:
            return
        self._billed_at[repeat] = now
        if len(self._billed_at) > 10_000:  # forget those past any window
            self._billed_at = {k: t for k, t in self._billed_at.items() if now - t <= window}

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
        """Bill every batch item resolved by ``now`` (found or not found; not errors), each
        its :meth:`item_cost`, in the order they resolved.

        A job runs to its end whether or not anyone polls it, so billing catches up here,
        whenever the emulator is asked anything: a request, or a counter read by a test. The
        first item that resolves when the balance cannot pay its cost stops its job there
        (:meth:`.batch.BatchJob.stop`): it and the items after it are never billed. An item the
        same key had billed within ``free_repeat_seconds`` is free (not for ``enrich_live``).
        """
        now = time.monotonic() if now is None else now
        with self.lock:
            rate = self.knobs.batch_resolve_rate
            due: list[tuple[float, int, BatchJob]] = []
            for job in self.jobs.values():
                done = job.processed(now, rate)
                for index in range(job.settled, done):
                    at = job.submitted + ((index + 1) / rate if rate > 0 else 0.0)
                    due.append((at, index, job))
                job.settled = max(job.settled, done)
            due.sort(key=lambda d: (d[0], d[2].submitted, d[1]))
            for at, index, job in due:
                if job.outcomes[index] == "error" or job.stopped is not None:
                    continue
                self._settle_item(job, index, at)

    def item_cost(self, path: str) -> float:
        """What one item of a batch job on ``path`` costs as it resolves: its single call's
        cost (``Kind.priced_as``) for the Email API's, 1 for the Data API's."""
        priced_as = KINDS[path].priced_as
        return 1.0 if priced_as is None else self.cost_of(priced_as)

    def _settle_item(self, job: BatchJob, index: int, at: float) -> None:
        """Bill item ``index`` of ``job``, resolved at ``at``: :meth:`item_cost`, 0 for a free
        repeat; the job stops there when the balance cannot pay."""
        kid = key_id(job.key)
        repeat = ("item", job.path, job.params[index], kid)
        free = not job.enrich_live and self._repeated(repeat, at)
        cost = 0.0 if free else self.item_cost(job.path)
        if cost > self.balance:
            job.stop(index, at)  # insufficient credits: the job stops, nothing more is billed
            return
        if cost > 0:
            self.balance -= cost
            self._remember(repeat, at)
        self.records.append(
            RequestRecord(
                job.path,
                (job.params[index],),
                200,
                cost > 0,
                item=True,
                key_id=kid,
                at=at,
                credits=cost,
            )
        )

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
        """Credits per person: billed ``/people/profile`` requests and people batch items, by
        the handle, or the ``prsn_`` id, they were asked by (``key``: only those paid with
        this key)."""
        if self.jobs:
            self.settle_jobs()
        wanted_key = key_id(key) if key is not None else None
        with self.lock:
            records = list(self.records)
        return Counter(
            handle
            for rec in records
            if rec.billed and rec.path in (PROFILE_PATH, BATCH)
            if wanted_key is None or rec.key_id == wanted_key
            if (handle := rec.param("handle") or rec.param("id")) is not None
        )

    def retry_after(self, wait: float) -> int:
        """Retry-After in whole seconds, as HTTP wants it (at least 1)."""
        return max(1, math.ceil(wait))
