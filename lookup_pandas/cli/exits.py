"""Exit codes, and every failure the user can act on as one line on stderr and a code.

Example:
    >>> def missing():
    ...     raise InputError("no such file: x.csv")
    >>> run(lambda: 0), run(missing)  # the second prints one line on stderr
    (0, 2)
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator
from typing import TextIO

from .. import errors

EXIT_SERVICE, EXIT_CONFIG, EXIT_AUTH, EXIT_BUDGET, EXIT_INTERRUPTED = 1, 2, 3, 4, 130
EXIT_BROKEN_PIPE = 141  # what a shell reports for a process ended by SIGPIPE
EXIT_INCOMPLETE = 5  # cache erasure done, but a -wal file may keep an old copy (a reader)


class InputError(Exception):
    """A problem with the command's own input (a file, a column): exit 2 with one line."""


def run(command: Callable[[], int]) -> int:
    """Run ``command``. Each failure the user can act on is one line on stderr and an exit code.

    Example:
        >>> run(lambda: 0)
        0
    """
    try:
        return int(command() or 0)
    except KeyboardInterrupt as exc:
        interrupted(exc)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Whoever read stdout stopped (``| head``): stop quietly, as other tools do, and let
        # nothing more be flushed into the closed pipe at exit.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (InputError, errors.ConfigurationError, errors.UsageError) as exc:
        return fail(exc, EXIT_CONFIG)
    except errors.AuthenticationError as exc:
        return fail(exc, EXIT_AUTH)
    except (errors.BudgetExceededError, errors.InsufficientCreditsError) as exc:
        return fail(exc, EXIT_BUDGET)
    except errors.ServiceError as exc:
        return fail(exc, EXIT_SERVICE)


def interrupted(exc: KeyboardInterrupt) -> None:
    """What the run Ctrl-C stopped did and spent (``exc.summary``), what its batch jobs go on
    billing (its notes), then that what was fetched is kept: lines on stderr.

    Example:
        >>> interrupted(KeyboardInterrupt())  # a command stopped before any run
    """
    summary = getattr(exc, "summary", None)
    lines = [f"up to the interrupt, {summary}"] if summary is not None else []
    lines += getattr(exc, "__notes__", [])
    for line in [*lines, "interrupted; what was fetched is in the cache"]:
        print(f"lookup-pandas: {' '.join(str(line).split())}", file=sys.stderr)


def fail(exc: Exception, code: int) -> int:
    """Print ``exc`` as one line (``lookup-pandas: KIND: text``) on stderr, and return ``code``.

    Example: ``fail(InputError("no such file: x.csv"), EXIT_CONFIG)`` -> ``2``
    """
    kind = "error" if isinstance(exc, InputError) else type(exc).__name__
    # The CLI reads its settings from the environment: name the variable, not the keyword.
    text = getattr(exc, "cli_message", None) or str(exc)
    hint = getattr(exc, "hint", None)
    if hint and hint not in text:  # said after the message was made (the answers kept, where)
        text = f"{text}. {hint}"
    print(f"lookup-pandas: {kind}: {' '.join(text.split())}", file=sys.stderr)
    return code


def show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """A warning as one line of the CLI's own (``lookup-pandas: warning: ...``), not Python's."""
    print(f"lookup-pandas: warning: {' '.join(str(message).split())}", file=file or sys.stderr)


class WarningLines(logging.Handler):
    """The package's log records of WARNING and above, as the CLI's warning lines.

    Example:
        >>> record = logging.makeLogRecord({"msg": "pacing at %d calls/min", "args": (7,)})
        >>> WarningLines(sys.stdout).handle(record)  # a command prints it on stderr
        lookup-pandas: warning: pacing at 7 calls/min
        True
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__(logging.WARNING)
        self.stream = stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            show_warning(
                record.getMessage(), UserWarning, record.pathname, record.lineno, self.stream
            )
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def warning_lines() -> Iterator[None]:
    """While a command runs, the package's WARNING records are lines on stderr.

    The library itself only logs (its logger has a NullHandler); the command line shows a
    person at the terminal what they must know (:class:`WarningLines`).
    """
    handler = WarningLines()
    package = logging.getLogger(__name__.partition(".")[0])
    package.addHandler(handler)
    try:
        yield
    finally:
        package.removeHandler(handler)
