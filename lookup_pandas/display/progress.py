"""Progress bars for multi-call jobs: tqdm.auto, and never a reason for a call to fail.

>>> import io
>>> out, shape = io.StringIO(), "{desc}: {n}/{total}{postfix}"  # a shape without times
>>> with Progress(desc="employees", total=100, file=out, bar_format=shape) as bar:
...     bar.update(100, pages=2)
>>> out.getvalue().splitlines()[-1]
'employees: 100/100, pages=2'
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import Any, Protocol

logger = logging.getLogger(__name__)

__all__ = ["NARROW_COLUMNS", "Bar", "Progress", "fit_postfix"]

#: Below this many columns the bar leaves out its rate and elapsed time.
NARROW_COLUMNS = 100
#: The compact layout of a narrow terminal: percentage, bar, count, time left, counts.
_NARROW_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{remaining} left{postfix}]"
#: The fewest bar characters kept when the counts are fitted in.
_MIN_BAR = 6


def fit_postfix(fields: Mapping[str, Any], room: int | None) -> str:
    """``fields`` as ``name=value`` pairs, most important first, as many as fit in ``room``.

    >>> fit_postfix({"fetched": 1, "credits": 1, "failed": 0}, room=22)
    'fetched=1, credits=1'
    >>> fit_postfix({"fetched": 1, "credits": 1, "failed": 0}, room=None)
    'fetched=1, credits=1, failed=0'
    """
    text = ""
    for name, value in fields.items():
        part = f"{name}={value}"
        candidate = f"{text}, {part}" if text else part
        if room is not None and len(candidate) > room:
            break
        text = candidate
    return text


class Bar(Protocol):
    """What a job draws its progress on: a :class:`Progress`, or a background job's watch."""

    def update(self, n: int = 1, **postfix: Any) -> None: ...


def _columns(fp: Any) -> int | None:
    """The width of the terminal ``fp`` is, or None for a stream that is no terminal (a log file).

    Example:
        >>> import io
        >>> _columns(io.StringIO()) is None
        True
    """
    try:
        if fp is None or not fp.isatty():
            return None
        return os.get_terminal_size(fp.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return None


class Progress:
    """A guarded tqdm.auto bar: a failure to draw it is logged at DEBUG, and the job goes on.

    Args:
        progress: None or True shows a bar (a widget in Jupyter, text in a terminal). False
            shows none.
        tqdm_kwargs: tqdm's own keywords.

    >>> with Progress(progress=False) as bar:
    ...     bar.update(50, pages=1)  # no bar, and nothing fails
    """

    def __init__(self, progress: bool | None = None, **tqdm_kwargs: Any) -> None:
        self._bar: Any = None
        #: A notebook bar's output (an IPython DisplayHandle): updated when the bar closes, so
        #: a saved notebook's text shows the end ("136/136"), not the start ("0/136").
        self._shown: Any = None
        if progress is False:
            return
        try:
            from tqdm.auto import tqdm

            tqdm_kwargs.setdefault("dynamic_ncols", True)
            tqdm_kwargs.setdefault("leave", True)
            # tqdm.auto's class in a kernel derives from tqdm.notebook's (and asyncio's)
            notebook = any(c.__module__ == "tqdm.notebook" for c in tqdm.__mro__)
            if notebook:
                tqdm_kwargs.setdefault("display", False)  # shown below, with a display id
            else:  # a widget has room for everything; a terminal may not
                columns = _columns(tqdm_kwargs.get("file") or sys.stderr)
                if columns is not None and columns < NARROW_COLUMNS:
                    tqdm_kwargs.setdefault("bar_format", _NARROW_FORMAT)
            self._bar = tqdm(**tqdm_kwargs)
            if notebook and tqdm_kwargs["display"] is False:
                from IPython.display import display

                self._shown = display(self._bar.container, display_id=True)  # type: ignore[no-untyped-call]
        except Exception:  # a progress failure never breaks a call
            logger.debug("progress bar unavailable", exc_info=True)

    def update(self, n: int = 1, **postfix: Any) -> None:
        """Advance by ``n`` and show ``postfix``, most important first.

        The terminal's width decides how many of ``postfix`` are shown.

        >>> import io
        >>> out = io.StringIO()
        >>> with Progress(total=2, file=out, bar_format="{n}/{total}{postfix}") as bar:
        ...     bar.update(2, fetched=2, failed=0)
        >>> out.getvalue().splitlines()[-1]
        '2/2, fetched=2, failed=0'
        """
        if self._bar is None:
            return
        try:
            if postfix:
                self._bar.set_postfix_str(fit_postfix(postfix, self._room()), refresh=False)
            self._bar.update(n)
            if n == 0:
                self._bar.refresh()
        except Exception:
            logger.debug("progress update failed", exc_info=True)
            self._bar = None

    def _room(self) -> int | None:
        """Characters left for the postfix once the rest of the line and a short bar are in."""
        notebook = hasattr(self._bar, "container")  # a widget: room for everything
        columns = None if notebook else _columns(getattr(self._bar, "fp", None))
        if columns is None:
            return None
        meter = dict(self._bar.format_dict, ncols=None, postfix=None)
        bare = self._bar.format_meter(**meter)  # with tqdm's default 10-character bar
        return max(0, columns - len(bare) + 10 - _MIN_BAR - len(", "))

    def set_total(self, total: int | None) -> None:
        """A new total: the real length of a list that ended early.

        >>> import io
        >>> out = io.StringIO()
        >>> with Progress(total=100, file=out, bar_format="{n}/{total}") as bar:
        ...     bar.update(40)
        ...     bar.set_total(40)
        >>> out.getvalue().splitlines()[-1]
        '40/40'
        """
        if self._bar is None:
            return
        try:
            self._bar.total = total
            self._bar.refresh()
        except Exception:
            logger.debug("progress update failed", exc_info=True)

    def close(self, *, failed: bool = False) -> None:
        """Close the bar. ``failed`` removes it instead of leaving it on screen.

        >>> import io
        >>> out = io.StringIO()
        >>> bar = Progress(total=10, file=out, bar_format="{n}/{total}")
        >>> bar.update(3)
        >>> bar.close(failed=True)
        >>> out.getvalue().splitlines()[-1].strip()  # blanked
        ''
        """
        if self._bar is None:
            return
        try:
            if failed:
                self._bar.leave = False
                # tqdm.notebook keeps a bar that stopped short (painted red); one that reached
                # its total and does not leave is hidden.
                self._bar.total = self._bar.n
            self._bar.close()
            if self._shown is not None and not failed:
                self._shown.update(self._bar.container)
        except Exception:
            logger.debug("progress close failed", exc_info=True)
        self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.close(failed=exc_type is not None)
