"""The command line: ``lookup-pandas`` (also ``python -m lookup_pandas``).

The key comes from ``LOOKUP_API_KEY`` only. Every failure is one line on stderr and an exit
code (:mod:`.exits`). The commands and their flags are in docs/cli.md and ``--help``.

Example:
    >>> options = parse_args(["enrich", "leads.csv", "-c", "handle", "-o", "enriched.csv"])
    >>> options.input, options.output, options.method
    ('leads.csv', 'enriched.csv', 'auto')

Example: ``main(["enrich", "leads.csv", "-o", "out.csv"])`` -> the exit code.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Sequence

from . import options as _options
from .exits import run, show_warning, warning_lines
from .parser import parse_args

__all__ = ["command", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script. Returns the exit code.

    argparse exits 2 itself on a bad argument, with the usage.

    Example: ``main(["cache", "info"])`` -> ``0``
    """
    options = parse_args(argv)
    with warnings.catch_warnings(), warning_lines():  # Python's own display restored after
        warnings.showwarning = show_warning
        return run(command(options))


def command(options: _options.CommandOptions) -> Callable[[], int]:
    """The command ``options`` are for, ready to run (its module imported only now).

    Example:
        >>> command(_options.TierOptions()).func.__name__
        'tier'
    """
    module, name = options.RUN
    run_command: Callable[[_options.CommandOptions], int] = getattr(
        importlib.import_module(module, __name__), name
    )
    return functools.partial(run_command, options)
