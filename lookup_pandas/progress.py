"""Progress bars for multi-call jobs: tqdm.auto, and never a reason for a call to fail.

Example::

    with Progress(progress=None, desc="employees", unit="rec") as bar:
        bar.update(50, pages=1)          # postfix "pages=1"

``progress``: ``None`` or ``True`` shows a bar (a widget in Jupyter, text in a terminal),
``False`` shows none. Every tqdm call is guarded: a broken display (a closed stderr, a
front-end without widgets) is logged at DEBUG and the job goes on. A job that ends by an
exception removes its bar (the exception says what happened; no half-full bar is left behind).
"""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["Progress"]


class Progress:
    """A guarded tqdm.auto bar."""

    def __init__(self, progress: bool | None = None, **tqdm_kwargs: Any) -> None:
        self._bar: Any = None
        if progress is False:
            return
        try:
            from tqdm.auto import tqdm

            tqdm_kwargs.setdefault("dynamic_ncols", True)
            tqdm_kwargs.setdefault("leave", True)
            self._bar = tqdm(**tqdm_kwargs)
        except Exception:  # a progress failure never breaks a call
            logger.debug("progress bar unavailable", exc_info=True)

    def update(self, n: int = 1, **postfix: Any) -> None:
        if self._bar is None:
            return
        try:
            if postfix:
                self._bar.set_postfix(postfix, refresh=False)
            self._bar.update(n)
        except Exception:
            logger.debug("progress update failed", exc_info=True)
            self._bar = None

    def set_total(self, total: int | None) -> None:
        """A new total, e.g. the real length of a list that ended early."""
        if self._bar is None:
            return
        try:
            self._bar.total = total
            self._bar.refresh()
        except Exception:
            logger.debug("progress update failed", exc_info=True)

    def close(self, *, failed: bool = False) -> None:
        """Close the bar; ``failed`` removes it instead of leaving it on screen."""
        if self._bar is None:
            return
        try:
            if failed:
                self._bar.leave = False
                # tqdm.notebook keeps a bar that stopped short (painted red); one that reached
                # its total and does not leave is hidden.
                self._bar.total = self._bar.n
            self._bar.close()
        except Exception:
            logger.debug("progress close failed", exc_info=True)
        self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.close(failed=exc_type is not None)
