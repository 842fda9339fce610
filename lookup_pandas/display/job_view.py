"""How a background job looks: one text line, or a live ipywidgets view in a notebook.

>>> from types import SimpleNamespace
>>> watch = SimpleNamespace(total=500, done=120, desc="profiles", counts={"fetched": 100},
...                         seconds_left=lambda: 35.0)
>>> job = SimpleNamespace(status=lambda: "running", watch=watch, rate_limited=lambda: 0)
>>> job_line(job)
'running: 120/500 profiles; fetched=100; 0 answered 429; about 35 s left'
"""

from __future__ import annotations

import html
import logging
from typing import Any, Protocol

from .facts import about


class ShownJob(Protocol):
    """What is shown of a :class:`lookup_pandas.enrichment.background.EnrichmentJob`."""

    watch: Any

    @property
    def summary(self) -> Any: ...
    def status(self) -> str: ...
    def exception(self, timeout: float | None = None) -> BaseException | None: ...
    def rate_limited(self) -> int: ...
    def line(self) -> str: ...


__all__ = ["display_job", "job_line", "redraw"]

logger = logging.getLogger(__name__)

#: The colour of the bar in each state (ipywidgets' bar_style).
_STYLES = {"running": "info", "cancelling": "warning", "done": "success", "failed": "danger",
           "cancelled": "warning"}  # fmt: skip


def job_line(job: ShownJob) -> str:
    """The job in one line: its state, progress, counts, 429s and time left.

    A job that ended shows its summary, or its error.

    >>> from types import SimpleNamespace
    >>> job = SimpleNamespace(status=lambda: "failed", watch=None,
    ...                       exception=lambda: KeyboardInterrupt("stopped by Ctrl-C"))
    >>> job_line(job)
    'failed: stopped by Ctrl-C'
    """
    state, watch = job.status(), job.watch
    if state == "done" and job.summary is not None:
        return f"done: {job.summary}"
    if state in ("failed", "cancelled"):
        return f"{state}: {job.exception()}"
    total = "?" if watch.total is None else str(watch.total)
    counts = ", ".join(f"{k}={v}" for k, v in watch.counts.items())
    line = f"{state}: {watch.done}/{total} {watch.desc}"
    line += f"; {counts}" if counts else ""
    line += f"; {job.rate_limited()} answered 429"
    left = watch.seconds_left()
    if left is None:
        return line
    return line + f"; {about(left)} left"


def display_job(job: ShownJob) -> Any:
    """Show ``job`` where the cell's output goes, and return the widget the job redraws.

    Without ipywidgets, or outside a kernel, the job shows as its text line (None returned).

    >>> class Job:
    ...     def __repr__(self):
    ...         return "<EnrichmentJob running: 120/500 profiles>"
    >>> display_job(Job()) is None
    <EnrichmentJob running: 120/500 profiles>
    True
    """
    try:
        import ipywidgets as widgets
        from IPython import get_ipython
        from IPython.display import display

        if getattr(get_ipython(), "kernel", None) is None:  # a terminal: no widget can show
            raise RuntimeError("not in a kernel")

        bar = widgets.IntProgress(value=0, min=0, max=1, description=job.watch.desc)
        text = widgets.HTML()
        view = widgets.VBox([bar, text])
        redraw(job, view)
        display(view)  # type: ignore[no-untyped-call]
        return view
    except Exception:  # no ipywidgets, no kernel: the text line
        logger.debug("job widget unavailable", exc_info=True)
        print(repr(job))
        return None


def redraw(job: ShownJob, view: Any) -> None:
    """Bring the widget up to date with the job, from any thread. A failure is only logged.

    >>> from types import SimpleNamespace
    >>> job = SimpleNamespace(watch=SimpleNamespace(total=10, done=4), status=lambda: "running",
    ...                       line=lambda: "running: 4/10 profiles")
    >>> bar, text = SimpleNamespace(), SimpleNamespace()
    >>> redraw(job, SimpleNamespace(children=(bar, text)))
    >>> bar.value, bar.max, bar.bar_style, text.value
    (4, 10, 'info', '<code>running: 4/10 profiles</code>')
    """
    try:
        bar, text = view.children
        watch = job.watch
        bar.max = max(1, watch.total or 0)
        bar.value = min(watch.done, bar.max)
        bar.bar_style = _STYLES.get(job.status(), "")
        text.value = f"<code>{html.escape(job.line())}</code>"
    except Exception:
        logger.debug("job widget redraw failed", exc_info=True)
