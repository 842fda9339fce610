"""Running batch jobs for an enrichment: submit, poll, cache every result, resume stored jobs.

>>> from concurrent.futures import ThreadPoolExecutor
>>> from lookup_pandas.identifiers.kinds import PEOPLE
>>> from lookup_pandas.testing import MockService
>>> with MockService({"id": "prsn_1", "handle": "ada"}) as service, ThreadPoolExecutor(2) as pool:
...     with service.client() as client:
...         run = BatchRun(client, ["ada", "grace"], submit=True, kind=PEOPLE, pool=pool)
...         answers = dict(run)
...         run.finish()  # drop the finished jobs
...         ada, grace = client.profile("ada"), client.profile("grace")
>>> answers["ada"].data == ada, answers["grace"].message, grace  # "grace": billed, not found
(True, 'Profile not found', None)
>>> service.count("/people/profile")  # each result was cached as a single call's answer
0
>>> run.fallback  # what errored in the job, or was left out: fetched one by one
[]

The calling thread drives it, so Ctrl-C lands there; submits and polls are tasks of the run's
pool. How jobs are stored, resumed, claimed and
polled is in docs/architecture.md ("Batch jobs"), and why in docs/decisions.md.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from typing import Any

from ..client.client import Client
from ..client.credits import balance, kept_costs, unless_failing
from ..errors import InsufficientCreditsError, NotFoundError, ValidationError
from ..http.stats import ClientStats
from ..identifiers.kinds import Kind
from ..service.credits import RouteCosts
from ..service.envelope import Envelope
from ..store import BUSY, RECHECK, StoredJob
from ..store.pacing import check_cancel
from .batch_plan import BatchPage, Tracker, smaller_job, split, tagged
from .timing import jobs_at_once, learn

__all__ = ["Answer", "BatchRun", "out_of_credits"]

logger = logging.getLogger(__name__)

#: One needed result: the Envelope a single call would give, or the NotFoundError it would raise.
Answer = tuple[str, Envelope | NotFoundError]

#: The longest the driver sleeps before looking at its jobs again.
_TICK = 1.0


class BatchRun:
    """The batch part of one enrichment: see the module's example.

    Args:
        stored: jobs of earlier runs (``client.parts.store.jobs()``), of ``kind``, untagged.
            Those holding any of ``handles`` are polled instead of submitting them again.
        submit: False only resumes stored jobs. Handles none covers go to :attr:`fallback`.
        resume: False (a ``refresh``) polls none. :meth:`finish` still drops those whose
            every input is cached by then.
        tally: the run's own counts, which its submits and polls count in.
        pool: the run's, where they are sent.
        keys: each handle's cache key, if the run has worked them out (they are claimed by it).
    """

    def __init__(
        self,
        client: Client,
        handles: Sequence[str],
        *,
        submit: bool,
        kind: Kind,
        stored: Sequence[StoredJob] = (),
        resume: bool = True,
        cancel: threading.Event | None = None,
        tally: ClientStats | None = None,
        pool: Executor,
        keys: Mapping[str, str] | None = None,
    ) -> None:
        self.client, self.parts, self.kind, self._tally = client, client.parts, kind, tally
        #: What one item costs as it resolves (the route costs read before the run, if at all).
        self.each = (kept_costs(client) or RouteCosts()).item_cost(kind.endpoint)
        self._keys = client.parts.cache.keys(handles, kind) if keys is None else keys
        self._pool = pool
        self._cancel = cancel  # a background job's: once set, stop as on Ctrl-C
        self.handles = list(handles)
        self._submits = submit
        self._needed = set(handles)
        self._yielded: set[str] = set()
        self._finished: list[Tracker] = []
        self.fallback: list[str] = []
        #: Handles no job was submitted for because the balance could not pay them, and that
        #: refusal. The run stops with it at the end.
        self.unaffordable: list[str] = []
        self.refusal: InsufficientCreditsError | None = None
        self._mine: list[Tracker] = []  # the jobs this run submitted
        self.batch_jobs_done = 0
        self.submitted = 0  # batch jobs this run submitted (the service accepted)
        self._resumed: list[Tracker] = []
        self._idle: list[StoredJob] = []  # stored batch jobs this run does not poll
        self._held: dict[str, str] = {}  # handle -> claim key, of handles this run submitted
        covered: set[str] = set()
        now, interval = time.monotonic(), client.settings.batch_poll_interval
        for job in stored:
            if resume and self._needed.intersection(job.inputs) - covered:
                self._resumed.append(Tracker(job.job_id, job.inputs, now, interval, mine=False))
                covered.update(job.inputs)
            else:
                self._idle.append(job)
        rest = [h for h in handles if h not in covered]
        chunks = split(rest) if submit else []
        self.fallback.extend([] if submit else rest)
        self.batch_jobs_total = len(self._resumed) + len(chunks)
        if self._resumed:
            logger.info("resuming %d stored batch jobs", len(self._resumed))
        # The driver's state: chunks to submit, jobs under way, answers awaited (chunk, Tracker).
        self._most = jobs_at_once(client)  # batch jobs under way at once
        self._queue: deque[tuple[str, ...]] = deque(chunks)
        self._active: list[Tracker] = list(self._resumed)
        self._polling: set[str] = set()  # job ids with a poll in flight
        self._flight: dict[Future[Any], tuple[str, ...] | Tracker] = {}
        self._submitting = 0

    @property
    def billed(self) -> int:
        """Items of the batch jobs this run polled that resolved while it ran.

        Each was billed as it resolved. A stored job's items resolved earlier are not counted.
        """
        return sum(job.billed for job in (*self._resumed, *self._mine))  # unpolled: 0

    @property
    def batch_jobs(self) -> int:
        """Batch jobs this run polled: the stored ones it resumed and those it submitted."""
        return len(self._resumed) + self.submitted

    def in_flight(self) -> str | None:
        """After a stop (Ctrl-C): what the batch jobs not finished go on billing, or None.

        A submitted job runs to its end at the service, each item billed as it resolves,
        collected or not. It stays stored, so the next run that needs its handles polls it.
        """
        jobs = [job.unresolved for job in self._active]
        for future, what in self._flight.items():  # submits the driver had not taken in yet
            landed = future.done() and not future.cancelled() and not future.exception()
            if not isinstance(what, Tracker) and landed:
                job_id, mine, _, _ = future.result()
                jobs.extend([len(mine)] if job_id is not None else [])
        if not jobs:
            return None
        n, items = len(jobs), sum(jobs)
        one = n == 1
        return (
            f"{n} batch job{'' if one else 's'} go{'es' if one else ''} on at the service: "
            f"{items} more item{'s' * (items != 1)} billed as they resolve, "
            f"{self.each:g} credit{'s' * (self.each != 1)} each. "
            f"{'It is' if one else 'They are'} stored: the next run that needs "
            f"{'its' if one else 'their'} {self.kind.nouns} collects them without paying again"
        )

    def __bool__(self) -> bool:  # False when there is nothing to submit or resume
        return bool(self._resumed or self._queue)

    # -- the tasks run in the pool ----------------------------------------------------------

    def _submit(
        self, chunk: tuple[str, ...], stop: threading.Event
    ) -> tuple[str | None, tuple[str, ...], dict[str, str], list[str]]:
        """Claim the chunk's handles, submit those this run may buy, and store the job.

        Returns (job_id or None, what was submitted, their claim keys, what was left to others).
        """
        parts = self.parts
        keys = {h: self._keys[h] for h in chunk if h in self._keys}
        states = parts.claims.take(list(keys.values()))
        # BUSY: another process is buying it. RECHECK: another just bought it, so it is
        # most likely cached. Both are left to the single-call path, which waits for the
        # other holder, or reads the cache, before it would buy anything.
        left = [h for h in keys if states[keys[h]] in (BUSY, RECHECK)]
        parts.claims.release([keys[h] for h in left if states[keys[h]] == RECHECK])
        if left:
            logger.debug("%d claimed by another holder: left to single calls", len(left))
        others = set(left)
        mine = tuple(h for h in chunk if h not in others)
        mine_keys = {h: keys[h] for h in mine if h in keys}
        if not mine:
            return None, (), {}, left
        try:
            job_id = parts.batch.submit(self.kind, mine, stop, self._tally)
        except BaseException:
            parts.claims.release(list(mine_keys.values()), bought=False)  # none submitted
            raise
        # Here, not in the driver: stored even when the driver is interrupted meanwhile.
        parts.store.remember(StoredJob(job_id, tagged(mine, self.kind.tag), time.time()))
        return job_id, mine, mine_keys, left

    def _poll(self, job_id: str, after: int, stop: threading.Event) -> BatchPage:
        kind = self.kind
        data = self.parts.batch.status(kind, job_id, after, stop, self._tally)
        return BatchPage.parse(data, kind.endpoint)

    # -- the driver ---------------------------------------------------------------------------

    def __iter__(self) -> Iterator[Answer]:
        stop, pool = threading.Event(), self._pool
        try:
            while self._queue or self._active or self._flight:
                check_cancel(self._cancel, "cancelled: a re-run collects the stored batch jobs")
                timeout = self._send(pool, stop)
                if not self._flight:  # wait() returns at once on no futures: sleep till one is due
                    time.sleep(timeout)
                    continue
                done, _ = wait(self._flight, timeout=timeout, return_when=FIRST_COMPLETED)
                for future in done:
                    yield from self._landed(future)
        except BaseException:
            # Ctrl-C, an error to raise, a rejected key: send nothing more. Submits in flight
            # finish and store their batch job, so a re-run polls it instead of paying again.
            stop.set()
            raise
        finally:
            for future in self._flight:
                future.cancel()  # not started: never sent
            wait(self._flight)
            # Results not collected are left to whoever needs them next (the single calls of
            # this run re-claim what they fetch).
            self.parts.claims.release(list(self._held.values()), bought=False)  # not cached
            self._held.clear()

    def _send(self, pool: Executor, stop: threading.Event) -> float:
        """Submit what may be submitted and poll the jobs that are due. Returns how long to wait."""
        # One submit alone until the service is known to have batch jobs.
        allowed = 1 if self.parts.batch.supported_for(self.kind) is None else self._most
        while (
            self._queue
            and self._submitting < allowed
            and len(self._active) + self._submitting < self._most
        ):
            chunk = self._queue.popleft()
            self._flight[pool.submit(self._submit, chunk, stop)] = chunk
            self._submitting += 1
        now = time.monotonic()
        waits = [_TICK]
        for job in self._active:
            if job.job_id in self._polling:
                continue
            if job.due <= now:
                self._flight[pool.submit(self._poll, job.job_id, job.after, stop)] = job
                self._polling.add(job.job_id)
            else:
                waits.append(job.due - now)
        return max(0.0, min(waits))

    def _landed(self, future: Future[Any]) -> Iterator[Answer]:
        """Take in one answer: a submit's (start polling its batch job) or a poll's page."""
        what = self._flight.pop(future)
        if not isinstance(what, Tracker):  # a submit: BatchUnavailableError, a rejected key...
            self._submitting -= 1
            try:
                job_id, mine, keys, elsewhere = future.result()
            except InsufficientCreditsError as exc:
                self._refused(what, exc)
                return
            except ValidationError:  # no item it takes (a host it does not): each tried singly
                logger.info("batch submit refused as invalid: %d to single calls", len(what))
                self.batch_jobs_total -= 1
                self.fallback.extend(what)
                return
            self.fallback.extend(elsewhere)
            self._held.update(keys)
            if job_id is not None:
                self.submitted += 1
                interval = self.client.settings.batch_poll_interval
                tracker = Tracker(job_id, mine, time.monotonic(), interval)
                self._mine.append(tracker)
                self._active.append(tracker)
            return
        job = what
        self._polling.discard(job.job_id)
        try:
            page = future.result()
        except NotFoundError:
            self._active.remove(job)
            self._expired(job)
            return
        yield from self._collect(job, page)
        if job.done:
            logger.debug("batch job %s collected", job.job_id)
            learn(self.client, job)  # its speed, for the next estimates
            self._active.remove(job)
            self._finished.append(job)
            self.batch_jobs_done += 1
            self.fallback.extend(h for h in job.missing() if self._wanted(h))

    def _collect(self, job: Tracker, page: BatchPage) -> Iterator[Answer]:
        """Cache a page's results, let go of their claims, then hand the needed ones on."""
        results = job.take(page, time.monotonic())
        held = self._held  # kept alive by the Client's heartbeat while the job runs
        results, erased = self._still_stored(job, results)
        answers: list[Answer] = []
        result = self.parts.batch.result
        for handle, record in results:
            try:
                key = self._keys.get(handle)
                answers.append((handle, result(self.kind, handle, record, job.job_id, key)))
            except NotFoundError as exc:
                answers.append((handle, exc))
        self.parts.claims.release([held.pop(h) for h, _ in answers if h in held])
        self.parts.claims.release([held.pop(h) for h in erased if h in held], bought=False)
        self.fallback.extend(h for h in erased if self._wanted(h))
        for handle, answer in answers:
            if self._wanted(handle):
                self._yielded.add(handle)
                yield handle, answer

    def _still_stored(
        self, job: Tracker, results: list[tuple[str, Any]]
    ) -> tuple[list[tuple[str, Any]], list[str]]:
        """``(results to cache, handles not to)``: only what the job's stored inputs hold now.

        Why: see "Erased people stay erased" in docs/decisions.md. A handle not cached here,
        if this run needs it, is fetched by the single calls.
        """
        if not results:
            return results, []
        stored = self.parts.store.job(job.job_id)
        tag = self.kind.tag
        inputs = {i[len(tag) :] for i in stored.inputs if i.startswith(tag)} if stored else set()
        kept = [(h, r) for h, r in results if h in inputs]
        return kept, [h for h, _ in results if h not in inputs]

    def _refused(self, chunk: tuple[str, ...], exc: InsufficientCreditsError) -> None:
        """A submit refused for want of credits: try a smaller job, else stop.

        The smaller job (:func:`~.batch_plan.smaller_job`: what the balance read pays, else
        half) goes first in line, and nothing else is submitted; the rest is
        :attr:`unaffordable`. Refused in turn, it is halved again. Once a half is too small for
        a batch job, single calls take over everything not bought, until the service refuses one.
        """
        rest = [*chunk, *(h for queued in self._queue for h in queued), *self.unaffordable]
        self.batch_jobs_total -= 1 + len(self._queue)
        self._queue.clear()
        self.refusal = exc
        known = unless_failing(lambda c: balance(c, self._tally), self.client, None)  # free
        size = smaller_job(len(chunk), known, self.each)
        if size is None:
            self.unaffordable = []
            self.fallback.extend(rest)
            return
        if size:
            self._queue.appendleft(tuple(rest[:size]))
            self.batch_jobs_total += 1
        self.unaffordable = rest[size:]

    def _wanted(self, handle: str) -> bool:
        """Needed by this run and not given to it yet."""
        return handle in self._needed and handle not in self._yielded

    def _expired(self, job: Tracker) -> None:
        """A job the service no longer knows: drop it, and fetch what is still needed.

        A stored job's needs are submitted anew. A job this run submitted goes to single calls
        (see "An expired batch job" in docs/decisions.md).
        """
        self.parts.store.drop_job(job.job_id)
        collected = job.collected
        again = [h for h in job.inputs if self._wanted(h) and h not in collected]
        logger.info("batch job %s is gone (expired): %d still needed", job.job_id, len(again))
        self.batch_jobs_done += 1
        if job.mine or not self._submits:
            self.fallback.extend(again)
            return
        chunks = split(again)
        self._queue.extend(chunks)
        self.batch_jobs_total += len(chunks)

    def finish(self) -> None:
        """Forget each finished job, and each unpolled stored job whose inputs are all cached.

        A finished job's items were all collected or ended in its ``errors``, so polling it
        again could only count them twice. The other jobs stay stored until then, or expire.
        """
        for job in self._finished:
            self.parts.store.drop_job(job.job_id)
        path, params = self.kind.endpoint.path, self.kind.params
        for idle in self._idle:
            if all(self.parts.cache.is_cached(path, params(h)) for h in idle.inputs):
                self.parts.store.drop_job(idle.job_id)


def out_of_credits(
    unaffordable: list[str],
    refusal: InsufficientCreditsError | None,
    kind: Kind,
    bought: int = 0,
    each: float = 1.0,
) -> InsufficientCreditsError:
    """The error that ends a batch run whose balance could not pay for ``unaffordable``.

    ``bought``: the answers this run bought before it stopped; ``each``: an item's credits.

    >>> from lookup_pandas.identifiers.kinds import PEOPLE
    >>> str(out_of_credits(["ada", "bob"], None, PEOPLE)).split(". ")[-1]
    'Nothing was bought'
    >>> str(out_of_credits(["ada"], None, PEOPLE, bought=25)).split(". ")[-1]
    'The 25 answers the balance allowed were bought first'
    """
    n = len(unaffordable)
    said = f" ({refusal.message})" if refusal is not None and refusal.message else ""
    what = (
        f"The {bought} answer{'s' * (bought != 1)} the balance allowed "
        f"{'were' if bought != 1 else 'was'} bought first"
        if bought
        else "Nothing was bought"
    )
    exc = InsufficientCreditsError(
        f"The balance cannot pay for {n} more {kind.noun if n == 1 else kind.nouns}: the "
        f"service refused a batch job of them{said}. {what}",
        status_code=refusal.status_code if refusal is not None else None,
        url=refusal.url if refusal is not None else None,
    )
    exc.needed = n * each
    return exc
