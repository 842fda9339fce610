"""The command line: ``lookup-pandas`` (also ``python -m lookup_pandas``).

Example::

    $ export LOOKUP_BASE_URL=... LOOKUP_API_KEY=...
    $ lookup-pandas enrich leads.csv -c handle -o enriched.csv
    $ lookup-pandas employees acme -o acme.csv
    $ lookup-pandas enrich accounts.csv --companies -c slug -o accounts_enriched.csv
    $ lookup-pandas companies acme org_1a2b          # also: search-companies NAME, alumni NAME,
                                                     # skills NAME, institutions NAME, job-changes
    $ lookup-pandas serve --port 8080 --latency 0.05 --rate-limit 60
    $ lookup-pandas demo
    $ lookup-pandas cache info               # also: prune, clear [--yes], forget HANDLE...

In Python: ``main(["enrich", "leads.csv", "-o", "out.csv"])`` -> the exit code.

A long file is read, enriched and written in chunks (``--chunksize N`` rows; by default
10,000-row chunks for an input of more than 50,000 rows,
:data:`lookup_pandas.csv_chunks.CHUNK_ROWS` and ``AUTO_CHUNK_ROWS``; ``--chunksize 0`` never), with
the same output, byte for byte; it is read twice, so it must be a regular file. A file written
with ``-o`` appears only when complete; to stdout, chunks are written as they are made. See
:mod:`lookup_pandas.csv_chunks`.

The key comes from ``LOOKUP_API_KEY`` only, never an option. Every failure the library raises
on purpose ends the program with a one-line reason on stderr and a non-zero exit code, never a
traceback: 2 configuration or input (a base URL where the service does not answer included), 3
authentication, 4 budget, 1 any other service error, 130 interrupted, 141 stdout closed early
(``| head``). Inputs and the output file are checked before the first billable call.

``cache info | prune | clear | forget`` need no API key and no service: they work on the cache
``LOOKUP_CACHE`` names (see :mod:`lookup_pandas.cache`). ``clear`` asks first (y/N on the
terminal; without one, only ``--yes`` does it), and exits 1 when not confirmed; a removal
that another process kept from being complete on disk exits 5.

The modules: :mod:`.parser` (arguments -> the typed options of :mod:`.options`, built from
:mod:`.arguments`), one per command (:mod:`.enrich`, :mod:`.listing_commands`, :mod:`.tier`,
:mod:`.companies_command`, :mod:`.cache_commands`, :mod:`.serve`), and the shared
:mod:`.reading`, :mod:`.output`, :mod:`.exits`, :mod:`.service_client`.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Sequence

from . import options as _options
from .estimate import describe_estimate
from .exits import (
    EXIT_AUTH,
    EXIT_BROKEN_PIPE,
    EXIT_BUDGET,
    EXIT_CONFIG,
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    EXIT_SERVICE,
    InputError,
    run,
    show_warning,
)
from .options import *  # noqa: F403  the typed options are the command line's names too
from .parser import build_parser, parse_args

__all__ = [
    "EXIT_AUTH",
    "EXIT_BROKEN_PIPE",
    "EXIT_BUDGET",
    "EXIT_CONFIG",
    "EXIT_INCOMPLETE",
    "EXIT_INTERRUPTED",
    "EXIT_SERVICE",
    "InputError",
    "build_parser",
    "describe_estimate",
    "main",
    "parse_args",
]
__all__ += _options.__all__


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (argparse exits 2 itself on a
    bad argument, with the usage)."""
    options = parse_args(argv)
    with warnings.catch_warnings():  # restores Python's own display afterwards
        warnings.showwarning = show_warning
        return run(command(options))


#: Each command's options, and the module and function that run them (imported when used).
_COMMANDS: dict[type[_options.Options], tuple[str, str]] = {
    _options.EnrichOptions: (".enrich", "enrich"),
    _options.CompaniesOptions: (".companies_command", "companies"),
    _options.ListingOptions: (".listing_commands", "listing"),
    _options.TierOptions: (".tier", "tier"),
    _options.ServeOptions: (".serve", "serve"),
    _options.DemoOptions: (".serve", "demo"),
    _options.CacheOptions: (".cache_commands", "cache"),
}


def command(options: _options.Options) -> Callable[[], int]:
    """The command ``options`` are for, ready to run (its module imported only now).

    >>> command(TierOptions()).func.__name__
    'tier'
    """
    module, name = _COMMANDS[type(options)]
    run_command: Callable[[_options.Options], int] = getattr(
        importlib.import_module(module, __name__), name
    )
    return functools.partial(run_command, options)
