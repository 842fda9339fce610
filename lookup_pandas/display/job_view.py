"""How a background job looks: one text line, or a live ipywidgets view in a notebook.

Example::

    job_line(job)   # "running: 120/500 profiles; fetched=100, credits=100, cached=20,
                    #  failed=0; 0 answered 429; about 35 s left"
    view = display_job(job)   # in Jupyter: a progress bar and that line, redrawn by the job

The widget is redrawn from the job's thread (at most every ``REDRAW_SECONDS``, and once at
the end with its summary); the kernel is never blocked. Without ipywidgets (or outside a
kernel) the job shows as its text line.
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
    """The job in one line: its state, progress, counts, 429s and time left (or its summary,
    or its error, once it ended)."""
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
    """Show ``job`` where the cell's output goes: a widget the job redraws (returned), or, with
    no widgets, its text line (None returned)."""
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
    """Bring the widget up to date with the job (from any thread; a failure is only logged)."""
    try:
        bar, text = view.children
        watch = job.watch
        bar.max = max(1, watch.total or 0)
        bar.value = min(watch.done, bar.max)
        bar.bar_style = _STYLES.get(job.status(), "")
        text.value = f"<code>{html.escape(job.line())}</code>"
    except Exception:
        logger.debug("job widget redraw failed", exc_info=True)
