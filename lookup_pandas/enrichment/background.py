"""Background enrichment for notebooks: ``enrich_profiles(..., background=True)``.

Example::

    job = leads.lookup.enrich_profiles("handle", background=True)   # returns at once
    job            # the last line of a cell: a live view (progress, fetched, cached, failed,
                   # credits, 429s, time left), updated while the kernel stays free
    job.done()     # False while it runs
    job.cancel()   # sends nothing more; the calls in flight land in the cache
    enriched = job.result()   # the frame the foreground call returns (or its error raised)
    job.summary    # the JobSummary, once done

The job runs the same engine in one background thread. Cancelling it stops it as Ctrl-C stops
a foreground run: nothing more is sent, the answers of the calls in flight are cached, stored
batch jobs are collected by the next run, so a re-run pays for nothing twice. An exception in
the job is never lost: ``result()`` raises it and ``exception()`` returns it. The job holds its
Client (never the key itself); two jobs on one Client share its pace and claims.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..store.pacing import Cancelled

if TYPE_CHECKING:
    import pandas as pd

    from ..client.client import Client
    from ..http.stats import ClientStats
    from .results import JobSummary

__all__ = ["EnrichmentJob", "Watch"]

#: The least time between two redraws of a job's widget (each redraw is a comm message).
REDRAW_SECONDS = 0.25
#: At interpreter exit, how long running jobs get to let their calls in flight land.
EXIT_GRACE_SECONDS = 5.0

_RUNNING: weakref.WeakSet[EnrichmentJob] = weakref.WeakSet()


@dataclass(eq=False)
class Watch:
    """What a background run reports and obeys: its counts as its bar would show them, and the
    cancel event the engine checks (see :func:`lookup_pandas.enrichment.run.run`).

    Example: ``watch.progress(None, total=3, desc="profiles", unit=" handle")`` is the bar the
    engine draws on; ``watch.done, watch.total, watch.counts`` are what it last showed.
    """

    cancel: threading.Event = field(default_factory=threading.Event)
    total: int | None = None
    done: int = 0
    counts: dict[str, Any] = field(default_factory=dict)
    desc: str = "profiles"
    on_change: Callable[[], None] | None = None
    #: The run's own counters, kept up to date by the run, once it started.
    traffic: ClientStats | None = None
    #: (when, done) at the first progress: the pace is measured from there, not from the
    #: start (reading the cache ahead, or a batch job's first poll, is not the pace).
    mark: tuple[float, int] | None = None

    def progress(self, _shown: bool | None = None, **bar: Any) -> _WatchBar:
        """The engine's progress bar (``Progress``'s interface), drawing on this watch."""
        self.total, self.desc = bar.get("total"), bar.get("desc", self.desc)
        return _WatchBar(self)

    def seconds_left(self) -> float | None:
        """The time left at the pace since the first progress; None until it can be told."""
        if self.mark is None or self.total is None or self.done <= self.mark[1]:
            return None
        at, done = self.mark
        rate = (self.done - done) / max(time.monotonic() - at, 1e-9)
        return max(0.0, (self.total - self.done) / rate)

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change()


class _WatchBar:
    """:class:`~lookup_pandas.display.progress.Progress`'s interface, recording into a Watch."""

    def __init__(self, watch: Watch) -> None:
        self._watch = watch

    def update(self, n: int = 1, **postfix: Any) -> None:
        self._watch.done += n
        if n and self._watch.mark is None:
            self._watch.mark = (time.monotonic(), self._watch.done)
        if postfix:
            self._watch.counts = dict(postfix)
        self._watch.changed()

    def set_total(self, total: int | None) -> None:
        self._watch.total = total

    def close(self, *, failed: bool = False) -> None:
        self._watch.changed()

    def __enter__(self) -> _WatchBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EnrichmentJob:
    """An enrichment running in a background thread; see the module doc.

    Example: ``job = EnrichmentJob(lambda watch: api_call(watch=watch), client)`` starts it;
    ``job.result(timeout=60)`` waits for its frame. Made by ``background=True``.
    """

    def __init__(
        self,
        work: Callable[[Watch], tuple[pd.DataFrame, JobSummary]],
        client: Client,
    ) -> None:
        self._client = client
        self._rate_limited_before = client.stats.rate_limited
        self._future: Future[tuple[pd.DataFrame, JobSummary]] = Future()
        self._stopped: JobSummary | None = None  # what a cancelled or failed job did
        self.watch = Watch(on_change=self._redraw)
        self._views: list[Any] = []  # its widgets, one per cell that showed it
        self._drawn = 0.0
        self._thread = threading.Thread(
            target=self._run, args=(work,), name="lookup-enrichment-job", daemon=True
        )
        _RUNNING.add(self)
        self._thread.start()

    def _run(self, work: Callable[[Watch], tuple[pd.DataFrame, JobSummary]]) -> None:
        self._future.set_running_or_notify_cancel()
        try:
            self._future.set_result(work(self.watch))
        except Cancelled as exc:
            self._stopped = getattr(exc, "summary", None)
            self._future.set_exception(CancelledError(str(exc)))
        except BaseException as exc:  # kept for result(): never lost in the thread
            self._stopped = getattr(exc, "summary", None)
            self._future.set_exception(exc)
        finally:
            _RUNNING.discard(self)
            self._redraw(force=True)

    # -- the Future-like surface ----------------------------------------------------------------

    def done(self) -> bool:
        """True once the job finished, failed or was cancelled."""
        return self._future.done()

    def running(self) -> bool:
        """True while the job runs."""
        return not self._future.done()

    def cancel(self) -> bool:
        """Stop the job: nothing more is sent, the calls in flight land in the cache; a re-run
        resumes there (as after Ctrl-C). False when it had already finished. ``result()`` then
        raises ``concurrent.futures.CancelledError``."""
        if self._future.done():
            return False
        self.watch.cancel.set()
        return True

    def cancelled(self) -> bool:
        """True when the job was cancelled and has stopped."""
        return self._future.done() and isinstance(self._future.exception(), CancelledError)

    def result(self, timeout: float | None = None) -> pd.DataFrame:
        """The enriched frame (what the foreground call returns), waiting up to ``timeout``
        seconds (None: as long as it takes); the job's exception raised if it failed;
        ``TimeoutError`` when it is still running then."""
        return self._future.result(timeout)[0]

    def exception(self, timeout: float | None = None) -> BaseException | None:
        """The job's exception (None if it succeeded), waiting as :meth:`result` does."""
        return self._future.exception(timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the job is done (or ``timeout`` seconds); True when done."""
        self._thread.join(timeout)
        return self.done()

    @property
    def summary(self) -> JobSummary | None:
        """The run's JobSummary once it stopped: a finished job's, or what a cancelled or
        failed one did up to the stop (its rows decided, its requests and credits); None while
        it runs, or when it failed before its run began (a refused budget, say)."""
        if not self._future.done():
            return None
        if self._future.exception() is not None:
            return self._stopped
        return self._future.result()[1]

    # -- the view -------------------------------------------------------------------------------

    def status(self) -> str:
        """``running``, ``done``, ``failed`` or ``cancelled``."""
        if not self._future.done():
            return "cancelling" if self.watch.cancel.is_set() else "running"
        exc = self._future.exception()
        if exc is None:
            return "done"
        return "cancelled" if isinstance(exc, CancelledError) else "failed"

    def line(self) -> str:
        """One line: ``running: 120/500 profiles; fetched=100, credits=100, cached=20,
        failed=0; 0 answered 429; about 35 s left``."""
        from ..display.job_view import job_line

        return job_line(self)

    def rate_limited(self) -> int:
        """Answers 429 this job met (its run's own count; before the run starts, the
        Client's since the job began)."""
        if self.watch.traffic is not None:
            return self.watch.traffic.rate_limited
        return self._client.stats.rate_limited - self._rate_limited_before

    def __repr__(self) -> str:
        return f"<EnrichmentJob {self.line()}>"

    def _ipython_display_(self) -> None:
        """In a kernel with ipywidgets: a live widget; else the text line."""
        from ..display.job_view import display_job

        view = display_job(self)
        if view is not None:
            self._views.append(view)
            self._redraw(force=True)  # the job may have ended while the view was being made

    def _redraw(self, force: bool = False) -> None:
        if not self._views:
            return
        now = time.monotonic()
        if not force and now - self._drawn < REDRAW_SECONDS:
            return
        self._drawn = now
        from ..display.job_view import redraw

        for view in list(self._views):
            redraw(self, view)


@atexit.register
def _cancel_running() -> None:
    """At exit, stop running jobs and give their calls in flight time to land in the cache."""
    jobs = list(_RUNNING)
    for job in jobs:
        job.cancel()
    deadline = time.monotonic() + EXIT_GRACE_SECONDS
    for job in jobs:
        job.wait(max(0.0, deadline - time.monotonic()))
