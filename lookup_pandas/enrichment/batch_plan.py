"""Batch jobs, the plan: when to use them, how to split a list, when to poll, what a poll says.

>>> use_batch("auto", to_fetch=5000, supported=None)  # more than AUTO_THRESHOLD
True
>>> [len(chunk) for chunk in split(["ada"] * 2500)]  # balanced, at most 1,000 each
[834, 833, 833]
>>> job = Tracker("job_1", ("ada", "grace"), now=0.0, interval=1.5)
>>> from lookup_pandas.service.endpoints import ENDPOINTS
>>> people = ENDPOINTS["profile"]  # the lookup whose batch twin ran the job
>>> page = BatchPage.parse({"status": "completed", "total": 2, "resolved": 1, "next_cursor": 2,
...                         "profiles": {"ada": {"id": "prsn_1"}}, "not_found": ["grace"]}, people)
>>> job.take(page, now=1.6)  # None is a not-found
[('ada', {'id': 'prsn_1'}), ('grace', None)]
>>> job.done, job.missing(), job.billed
(True, [], 1)

Pure: no HTTP, and ``now`` is passed in. :mod:`lookup_pandas.enrichment.batch_run` drives it
with the Client. The protocol is in docs/decisions.md, the polling rules in
docs/architecture.md ("Batch jobs").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import PaginationError, ResponseError
from ..service.endpoints import PART_SEPARATOR, Endpoint
from ..store import StoredJob

__all__ = [
    "AUTO_THRESHOLD",
    "MAX_JOB_ITEMS",
    "MAX_POLL_INTERVAL",
    "METHODS",
    "BatchPage",
    "Tracker",
    "jobs_tagged",
    "smaller_job",
    "split",
    "tagged",
    "use_batch",
]

#: The most items one job takes (production's limit).
MAX_JOB_ITEMS = 1000
#: ``method="auto"`` uses batch jobs when more than this many handles must be fetched. Below
#: it, a submit and at least one poll (two pacing slots and a wait) save little or nothing.
AUTO_THRESHOLD = 20
#: The longest wait between two polls of a job that makes no progress.
MAX_POLL_INTERVAL = 30.0
_BACKOFF = 1.5
METHODS = ("auto", "batch", "single")
TERMINAL = frozenset({"completed", "error"})
_STATUSES = TERMINAL | {"processing"}


def use_batch(method: str, to_fetch: int, supported: bool | None) -> bool:
    """Whether an enrichment with ``to_fetch`` handles to fetch submits batch jobs.

    ``"batch"`` always does, and fails if the service has none. ``"auto"`` does when more than
    :data:`AUTO_THRESHOLD` handles must be fetched and the service is not known to lack them.
    ``"single"`` never does.

    >>> use_batch("auto", 20, None), use_batch("auto", 21, False), use_batch("batch", 1, None)
    (False, False, True)
    """
    if method == "batch":
        return to_fetch > 0
    if method == "auto":
        return to_fetch > AUTO_THRESHOLD and supported is not False
    return False


def smaller_job(refused: int, balance: float | None, each: float = 1.0) -> int | None:
    """How many items to submit after a job of ``refused`` items was refused for credits.

    A balance read below the job's cost sizes it (``each`` an item: the Data API's 1, the Email
    API's its route's; 0: nothing to buy). One that cannot (unknown, or high: spent elsewhere
    at the same moment) halves it. None: the half would not be worth a batch job (at most
    :data:`AUTO_THRESHOLD`), single calls take over.

    >>> smaller_job(100, 40.5), smaller_job(100, 0.5), smaller_job(100, 500), smaller_job(40, None)
    (40, 0, 50, None)
    >>> smaller_job(100, 81, each=2.0)  # verify's items at 2
    40
    """
    if balance is not None and each > 0 and balance < refused * each:
        return max(0, math.floor(balance / each))
    half = refused // 2
    return half if half > AUTO_THRESHOLD else None


def split(handles: Sequence[str], size: int = MAX_JOB_ITEMS) -> list[tuple[str, ...]]:
    """The fewest jobs of at most ``size`` items, of balanced sizes, in input order.

    >>> split(["ada", "grace", "alan"], size=2)
    [('ada', 'grace'), ('alan',)]
    """
    if not handles:
        return []
    jobs = math.ceil(len(handles) / size)
    base, extra = divmod(len(handles), jobs)
    chunks, start = [], 0
    for i in range(jobs):
        end = start + base + (i < extra)
        chunks.append(tuple(handles[start:end]))
        start = end
    return chunks


@dataclass(frozen=True)
class BatchPage:
    """One poll's answer, checked."""

    status: str
    total: int
    resolved: int
    errors: int
    next_cursor: int
    records: Mapping[str, Any]  # the results found, by input, each as its single call's data
    not_found: Sequence[str]
    path: str  # the batch route it came from

    @classmethod
    def parse(cls, data: Mapping[str, Any], lookup: Endpoint) -> BatchPage:
        """The poll's ``data``, or ResponseError naming what is missing or of the wrong type.

        ``lookup`` is the endpoint whose batch twin (``batch``) ran the job: its ``results`` are
        the key of the records (a company job's is ``companies``), read by :func:`_records`.

        >>> from lookup_pandas.service.endpoints import ENDPOINTS
        >>> data = {"status": "sleeping", "total": 1, "next_cursor": 0}
        >>> BatchPage.parse(data, ENDPOINTS["profile"])
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.ResponseError: Unknown batch job status 'sleeping'.
        """

        path = lookup.batch or lookup.path

        def field_(name: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
            value = data.get(name, default)
            if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
                raise ResponseError(
                    f"The batch job's answer has no usable {name!r} "
                    f"({type(value).__name__}: {value!r:.60}).",
                    url=path,
                )
            return value

        status = field_("status", str)
        if status not in _STATUSES:
            raise ResponseError(f"Unknown batch job status {status!r}.", url=path)
        not_found = field_("not_found", list, [])
        shape = list if lookup.parts else dict  # find's results are a list (of queries)
        records = _records(field_(lookup.results or "", shape, shape()), lookup, path)
        if not all(isinstance(i, str) for i in not_found):
            raise ResponseError("The batch job's not_found holds a non-string.", url=path)
        return cls(
            status=status,
            total=field_("total", int),
            resolved=field_("resolved", int, 0),
            errors=field_("errors", int, 0),
            next_cursor=field_("next_cursor", int),
            records=records,
            not_found=not_found,
            path=path,
        )


def _records(results: Any, lookup: Endpoint, path: str) -> Mapping[str, Any]:
    """A poll's ``results`` by the value each answers, each as the single call's ``data``.

    The Data API's are a map of records already. Verify's map each address to its verdict,
    which gains the address (the single call's ``email``) unless it holds it. Find's list is
    keyed by each item's ``query``, its parts joined as the value is; an item keeps what the
    batch gives (``email``, ``found``), less the query.

    >>> from lookup_pandas.service.endpoints import ENDPOINTS
    >>> _records({"jane@acme.com": {"deliverable": True}}, ENDPOINTS["email_verify"], "/v")
    {'jane@acme.com': {'email': 'jane@acme.com', 'deliverable': True}}
    >>> query = {"first_name": "jane", "last_name": "doe", "domain": "acme.com"}
    >>> _records([{"query": query, "found": False, "email": ""}], ENDPOINTS["email_find"], "/f")
    {'jane\\tdoe\\tacme.com': {'found': False, 'email': ''}}
    """
    if isinstance(results, dict):
        key = lookup.key
        if lookup.batch_items is None or key is None:
            return results
        return {v: {key: v, **r} if isinstance(r, dict) else r for v, r in results.items()}
    records: dict[str, Any] = {}
    for item in results:
        query = item.get("query") if isinstance(item, dict) else None
        parts = [query.get(p) for p in lookup.parts] if isinstance(query, dict) else [None]
        texts = [p for p in parts if isinstance(p, str)]
        if len(texts) != len(parts):
            raise ResponseError(
                f"The batch job's results hold an item without a usable query ({item!r:.60}).",
                url=path,
            )
        records[PART_SEPARATOR.join(texts)] = {k: v for k, v in item.items() if k != "query"}
    return records


def _loose(value: str) -> str:
    """``value`` case-blind, each part's inner whitespace one space: how a result the service
    echoed otherwise than it was sent is matched to its input.

    >>> _loose("Jane  Marie\\tDOE\\tacme.com")
    'jane marie\\tdoe\\tacme.com'
    """
    return PART_SEPARATOR.join(" ".join(p.split()).casefold() for p in value.split(PART_SEPARATOR))


@dataclass
class Tracker:
    """What is known of one job: its cursor, what was collected, and when to poll it next.

    See the module's example.
    """

    job_id: str
    inputs: tuple[str, ...]
    now: float  # when it was submitted (or resumed), on the caller's monotonic clock
    interval: float  # seconds between polls that find nothing new, before back-off
    mine: bool = True  # submitted by this run (False: resumed from the store)
    after: int = 0
    status: str = "processing"
    errors: int = 0
    due: float = field(init=False)
    _base: float = field(init=False)
    _progress: int = field(default=-1, init=False)  # resolved + errors at the last poll
    _step: int = field(default=0, init=False)  # the largest cursor step seen (a full page)
    _stood_still: bool = field(default=False, init=False)
    _collected: set[str] = field(default_factory=set, init=False)
    _loosely: dict[str, str] | None = field(default=None, init=False)  # see :meth:`_sent_as`
    #: ``resolved`` at the first poll of a resumed job (billed before this run). 0 for a job
    #: this run submitted, None until that poll.
    _resolved_before: int | None = field(default=None, init=False)
    _resolved: int = field(default=0, init=False)  # ``resolved`` at the latest poll
    #: Items resolved a second since the submit, and whether it is only a lower bound: seen at
    #: the latest poll that found this run's job resolving, else at the first that found it
    #: done (it may have finished sooner). None until then (:mod:`.timing` keeps it).
    speed: tuple[float, bool] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self._base = self.interval
        self.due = self.now + (self.interval if self.mine else 0.0)

    @property
    def collected(self) -> frozenset[str]:
        return frozenset(self._collected)

    @property
    def done(self) -> bool:
        if self.status not in TERMINAL:
            return False
        return self._stood_still or len(self._collected) + self.errors >= len(self.inputs)

    @property
    def billed(self) -> int:
        """Items this run saw resolve, each billed as it resolved.

        That is ``resolved`` now, less what a resumed job had resolved when this run first
        polled it. A stored job polled again after all of it resolved gives 0.
        """
        return self._resolved - (self._resolved_before or 0)

    @property
    def unresolved(self) -> int:
        """Inputs not seen resolved (nor in ``errors``) at the latest poll: all of them before."""
        return max(0, len(self.inputs) - self._resolved - self.errors)

    def missing(self) -> list[str]:
        """Inputs neither found nor not-found (errored, or left out): fetch them singly."""
        return [h for h in self.inputs if h not in self._collected]

    def take(self, page: BatchPage, now: float) -> list[tuple[str, dict[str, Any] | None]]:
        """Apply one poll's page. Returns the new results, ``(input, record or None)``."""
        if page.next_cursor < self.after:
            raise PaginationError(
                f"Batch job {self.job_id}: the cursor went back from {self.after} to "
                f"{page.next_cursor}.",
                url=page.path,
            )
        step = page.next_cursor - self.after
        progress = page.resolved + page.errors
        moved = progress != self._progress
        self.after, self.status, self.errors = page.next_cursor, page.status, page.errors
        if self._resolved_before is None:
            self._resolved_before = 0 if self.mine else page.resolved
        self._resolved = max(self._resolved, page.resolved)
        self._progress = progress
        self._stood_still = step == 0
        self._time(page.status, progress, now)
        wanted = set(self.inputs) - self._collected
        new: list[tuple[str, dict[str, Any] | None]] = []
        for handle, record in page.records.items():
            if handle not in wanted:
                handle = self._sent_as(handle)
            if handle in wanted and isinstance(record, dict):
                new.append((handle, record))
                wanted.discard(handle)
        for handle in page.not_found:
            if handle in wanted:
                new.append((handle, None))
                wanted.discard(handle)
        self._collected.update(h for h, _ in new)
        self._schedule(step, moved, now)
        return new

    def _sent_as(self, echoed: str) -> str:
        """The input a result keyed otherwise than any input answers (:func:`_loose`), else
        ``echoed``. The inputs' loose forms are made the first time one is needed."""
        if self._loosely is None:
            self._loosely = {_loose(i): i for i in self.inputs}
        return self._loosely.get(_loose(echoed), echoed)

    def _time(self, status: str, progress: int, now: float) -> None:
        if not self.mine or progress <= 0 or now <= self.now:
            return  # a resumed job's submit time is not on this clock
        if status not in TERMINAL:
            self.speed = (progress / (now - self.now), False)
        elif self.speed is None:
            self.speed = (progress / (now - self.now), True)

    def _schedule(self, step: int, moved: bool, now: float) -> None:
        if step > 0 and step >= self._step:
            self._step = step
            self.due = now  # a full page: more may be waiting
            return
        if self.status in TERMINAL and not self.done:
            self.due = now  # finished, but not all collected: walk on
            return
        self.interval = self._base if moved or step > 0 else self._backed_off()
        self.due = now + self.interval

    def _backed_off(self) -> float:
        return max(self._base, min(MAX_POLL_INTERVAL, self.interval * _BACKOFF))


def tagged(inputs: Sequence[str], tag: str) -> tuple[str, ...]:
    """A job's inputs as the store keeps them, each with its kind's ``tag`` in front.

    People's tag is ``""``, a company's ``"company:"``. So one kind's stored jobs are never
    taken for another's (``acme`` may be a handle and a slug).

    >>> tagged(["acme"], "company:")
    ('company:acme',)
    """
    return tuple(tag + i for i in inputs)


def jobs_tagged(jobs: Sequence[StoredJob], tag: str) -> list[StoredJob]:
    """The stored jobs of one kind, their inputs as submitted.

    Every input carries ``tag``. With ``""``, no input carries another kind's ``:`` tag.

    >>> jobs_tagged([StoredJob("j", ("company:acme",), 0.0)], "company:")[0].inputs
    ('acme',)
    """
    if not tag:
        return [j for j in jobs if not any(":" in i for i in j.inputs)]
    return [
        StoredJob(j.job_id, tuple(i[len(tag) :] for i in j.inputs), j.submitted)
        for j in jobs
        if j.inputs and all(i.startswith(tag) for i in j.inputs)
    ]
