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
:data:`lookup_pandas.stream.CHUNK_ROWS` and ``AUTO_CHUNK_ROWS``; ``--chunksize 0`` never), with
the same output, byte for byte; it is read twice, so it must be a regular file. A file written
with ``-o`` appears only when complete; to stdout, chunks are written as they are made. See
:mod:`lookup_pandas.stream`.

The key comes from ``LOOKUP_API_KEY`` only, never an option. Every failure the library raises
on purpose ends the program with a one-line reason on stderr and a non-zero exit code, never a
traceback: 2 configuration or input (a base URL where the service does not answer included), 3
authentication, 4 budget, 1 any other service error, 130 interrupted, 141 stdout closed early
(``| head``). Inputs and the output file are checked before the first billable call.

``cache info | prune | clear | forget`` need no API key and no service: they work on the cache
``LOOKUP_CACHE`` names (see :mod:`lookup_pandas.cache`). ``clear`` asks first (y/N on the
terminal; without one, only ``--yes`` does it), and exits 1 when not confirmed; a removal
that another process kept from being complete on disk exits 5.

The modules: :mod:`.parser` (arguments -> the typed options of :mod:`.options`), :mod:`.enrich`
(the CSV pipeline), :mod:`.listings` (the commands of :mod:`.list_commands`), :mod:`.tier`,
:mod:`.companies`, :mod:`.cache`, :mod:`.serve` (serve and demo), and the
shared :mod:`.reading`, :mod:`.output`, :mod:`.exits`.
"""

from __future__ import annotations

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


def command(options: _options.Options) -> Callable[[], int]:
    """The command ``options`` are for, ready to run (each imported only when used)."""
    if isinstance(options, _options.EnrichOptions):
        from .enrich import enrich

        return lambda: enrich(options)
    if isinstance(options, _options.CompaniesOptions):
        from .companies import companies

        return lambda: companies(options)
    if isinstance(options, _options.ListingOptions):
        from .listings import listing

        return lambda: listing(options)
    if isinstance(options, _options.TierOptions):
        from .tier import tier

        return lambda: tier(options)
    if isinstance(options, _options.ServeOptions):
        from .serve import serve

        return lambda: serve(options)
    if isinstance(options, _options.DemoOptions):
        from .serve import demo

        return lambda: demo(options)
    from .cache import cache

    return lambda: cache(options)
