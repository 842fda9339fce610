"""Background enrichment for notebooks: ``enrich_profiles(..., background=True)``.

>>> import pandas as pd
>>> import lookup_pandas as lp
>>> from lookup_pandas.testing import MockTransport
>>> client = lp.Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
...                    transport=MockTransport(lambda request: (503, "unused")))
>>> job = EnrichmentJob(lambda watch: (pd.DataFrame({"handle": ["ada"]}), "its summary"), client)
>>> job.result()  # waits, as concurrent.futures.Future.result does
  handle
0    ada
>>> job.status(), job.summary
('done', 'its summary')

``enrich_profiles(..., background=True)`` makes it. In a notebook, a job on a cell's last line
is a live view, updated while the kernel stays free. ``job.cancel()`` stops it as Ctrl-C stops
a foreground run, and a re-run pays for nothing twice. An exception in the job is never lost:
``result()`` raises it. Two jobs on one Client share its pace and claims. See "Notebook-native
(issue 25)" in docs/decisions.md.
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
    """What a background run reports and obeys: the counts its bar would show, and a cancel event.

    >>> watch = Watch()
    >>> with watch.progress(None, total=3, desc="profiles") as bar:
    ...     bar.update(2, fetched=2)
    >>> watch.done, watch.total, watch.counts
    (2, 3, {'fetched': 2})
    """

    cancel: threading.Event = field(default_factory=threading.Event)
    total: int | None = None
    done: int = 0
    counts: dict[str, Any] = field(default_factory=dict)
    desc: str = "profiles"
    on_change: Callable[[], None] | None = None
    #: The run's own counters, kept up to date by the run, once it started.
    traffic: ClientStats | None = None
    #: (when, done) at the first progress. The pace is measured from there, since reading the
    #: cache ahead, or a batch job's first poll, is not the pace.
    mark: tuple[float, int] | None = None

    def progress(self, _shown: bool | None = None, **bar: Any) -> _WatchBar:
        """The engine's progress bar (``Progress``'s interface), drawing on this watch."""
        self.total, self.desc = bar.get("total"), bar.get("desc", self.desc)
        return _WatchBar(self)

    def seconds_left(self) -> float | None:
        """The time left at the pace since the first progress, or None until it can be told."""
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
    """An enrichment running in a background thread: see the module's example."""

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
        """Stop the job as Ctrl-C would. False when it had already finished.

        Nothing more is sent, the calls in flight land in the cache, and a re-run resumes there.
        ``result()`` then raises ``concurrent.futures.CancelledError``.
        """
        if self._future.done():
            return False
        self.watch.cancel.set()
        return True

    def cancelled(self) -> bool:
        """True when the job was cancelled and has stopped."""
        return self._future.done() and isinstance(self._future.exception(), CancelledError)

    def result(self, timeout: float | None = None) -> pd.DataFrame:
        """The enriched frame, waiting up to ``timeout`` seconds (None: as long as it takes).

        Raises the job's exception if it failed, and ``TimeoutError`` if it still runs then.
        """
        return self._future.result(timeout)[0]

    def exception(self, timeout: float | None = None) -> BaseException | None:
        """The job's exception (None if it succeeded), waiting as :meth:`result` does."""
        return self._future.exception(timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the job is done, or ``timeout`` seconds. True when done."""
        self._thread.join(timeout)
        return self.done()

    @property
    def summary(self) -> JobSummary | None:
        """The run's JobSummary once it stopped, or None while it runs.

        A cancelled or failed job's tells what it did up to the stop. It is None too when the
        job failed before its run began (a refused budget, say).
        """
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
        """The job in one line (:func:`lookup_pandas.display.job_view.job_line`)."""
        from ..display.job_view import job_line

        return job_line(self)

    def rate_limited(self) -> int:
        """Answers 429 this job met: its run's own count, or the Client's since the job began."""
        if self.watch.traffic is not None:
            return self.watch.traffic.rate_limited
        return self._client.stats.rate_limited - self._rate_limited_before

    def __repr__(self) -> str:
        return f"<EnrichmentJob {self.line()}>"

    def _ipython_display_(self) -> None:
        """In a kernel with ipywidgets a live widget, else the text line."""
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
