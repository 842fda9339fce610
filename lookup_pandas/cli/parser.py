"""The command line's parser, and the typed options it turns each command's arguments into.

Nothing below this module sees an ``argparse.Namespace``.

Example:
    >>> parse_args(["cache", "forget", "ada", "--keep-case"])  # doctest: +NORMALIZE_WHITESPACE
    CacheOptions(action='forget', yes=False, handles=('ada',), from_csv=None, column='handle',
                 encoding='utf-8', keep_case=True)
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .._version import __version__
from .arguments import ENVIRONMENT, page_size, rate, rows
from .arguments import Sub as _Sub
from .arguments import add_common as _add_common
from .arguments import add_errors as _add_errors
from .arguments import command as _command
from .arguments import progress as _progress
from .arguments import service_command as _service_command
from .listing_commands import add_companies, add_listings
from .options import (
    CacheOptions,
    DemoOptions,
    EnrichOptions,
    Options,
    ServeOptions,
    TierOptions,
)

if TYPE_CHECKING:
    from ..enrichment.results import Refresh

_Copied = TypeVar("_Copied", EnrichOptions, ServeOptions)


def _copied(cls: type[_Copied], ns: argparse.Namespace, **made: Any) -> _Copied:
    """``cls`` with each field the argument of the same name, but those ``made`` here.

    Example: ``_copied(EnrichOptions, ns, progress=_progress(ns))``
    """
    given = {f.name: getattr(ns, f.name) for f in dataclasses.fields(cls) if f.name not in made}
    return cls(**given, **made)


CACHE_ENVIRONMENT = """environment:
  LOOKUP_CACHE     the cache: a file (default: http_cache.sqlite in the user cache dir) or
                   a redis:// URL. No API key and no service are needed
  LOOKUP_API_KEY, LOOKUP_BASE_URL
                   with a Redis cache, when both are set: only that key's namespace;
                   otherwise every namespace in that Redis database (a SQLite file is
                   always acted on whole: it holds the answers of every key used with it).
                   A Redis URL naming the team's namespace (?namespace=NAME) is acted on
                   in that namespace, and needs LOOKUP_BASE_URL only

exit codes: 0 done, 2 a bad argument or setting, 1 clear not confirmed, 5 removed, but an
old copy may remain in a -wal file (another process was reading the cache: run it again)"""


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """The options of the command ``argv`` names. argparse exits 2 on a bad argument.

    Example:
        >>> parse_args(["enrich", "accounts.csv", "--companies"]).column
        'slug'
    """
    namespace = build_parser().parse_args(_refresh_spelled(argv))
    make: Callable[[argparse.Namespace], Options] = namespace.options
    return make(namespace)


def _refresh_spelled(argv: Sequence[str] | None) -> list[str] | None:
    """``argv`` with a bare ``--refresh`` spelled ``--refresh=all``, so that the word after it
    (the input file, in ``enrich --refresh leads.csv``) is never taken for its value.

    A word of letters that names no file is taken for a mode, and refused by
    :func:`refresh_mode` (``--refresh moved``), not for an input that is not there.

    >>> _refresh_spelled(["enrich", "--refresh", "leads.csv", "--refresh", "changed"])
    ['enrich', '--refresh=all', 'leads.csv', '--refresh', 'changed']
    >>> _refresh_spelled(["enrich", "leads.csv", "--refresh", "moved"])
    ['enrich', 'leads.csv', '--refresh', 'moved']
    """
    if argv is None:
        argv = sys.argv[1:]
    out = list(argv)
    for i, word in enumerate(out):
        if word == "--refresh" and (i + 1 == len(out) or not _a_mode(out[i + 1])):
            out[i] = "--refresh=all"
    return out


def _a_mode(word: str) -> bool:
    """Whether the word after ``--refresh`` is meant as its value: a mode, or a word of letters
    that names no file (a mode misspelt).

    >>> _a_mode("changed"), _a_mode("moved"), _a_mode("leads.csv"), _a_mode("-")
    (True, True, False, False)
    """
    return word in REFRESH_MODES or (word.isalpha() and not os.path.exists(word))


#: What ``--refresh`` takes: every answer bought anew, or only the people whose job changed.
REFRESH_MODES: dict[str, Refresh] = {"all": True, "changed": "changed"}


def refresh_mode(text: str) -> Refresh:
    """``--refresh``'s value: ``all`` (the same as a bare ``--refresh``) or ``changed``.

    >>> refresh_mode("changed"), refresh_mode("all")
    ('changed', True)
    """
    try:
        return REFRESH_MODES[text]
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"--refresh takes 'changed' or nothing (every answer anew), not {text!r}"
        ) from None


def build_parser() -> argparse.ArgumentParser:
    """The ``lookup-pandas`` parser: each command's arguments, and the options it makes.

    Example:
        >>> build_parser().prog
        'lookup-pandas'
    """
    parser = argparse.ArgumentParser(
        prog="lookup-pandas",
        description="People and company data in pandas: cached, paced, resumable.",
        epilog=ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_enrich(sub)
    add_listings(sub)
    add_companies(sub)
    _add_tier(sub)
    _add_serve(sub)
    _add_demo(sub)
    _add_cache(sub)
    return parser


# -- the commands --------------------------------------------------------------------------------

_CHUNKSIZE_HELP = (
    "read, enrich and write N rows at a time, so that memory does not grow with the "
    "file's length (default: 10000-row chunks for an input of more than 50000 rows, else "
    "the whole file at once; 0: never). The output is the same; each distinct value is "
    "normalised once and each distinct handle fetched once, as one job (one budget, one "
    "estimate). The input is read twice, so it must be "
    "a file. With -o FILE the output is written beside FILE as .FILE.<random>.part and "
    "renamed onto FILE only when complete (an interrupted run leaves no half file); to "
    "stdout, chunks are written as they are made and a failure can leave a partial CSV"
)


def _add_enrich(sub: _Sub) -> None:
    p = _service_command(sub, "enrich", "enrich a CSV of handles or profile URLs")
    p.add_argument("input", help="the CSV file to read ('-': standard input)")
    p.add_argument(
        "--companies",
        action="store_true",
        help="the column holds companies (slugs, company page URLs or org_ ids), not people",
    )
    p.add_argument("-c", "--column", help="column of handles (handle; --companies: slug)")
    p.add_argument("--prefix", help="prefix of new columns (profile_; --companies: company_)")
    _add_errors(p)
    p.add_argument(
        "--max-calls",
        type=int,
        default=None,
        help="refuse to start if more billable calls would be needed",
    )
    p.add_argument(
        "--max-credits",
        type=rate,
        default=None,
        metavar="N",
        help="refuse to start if the job would spend more credits than N (route costs; "
        "batch items 1 each); a job the balance cannot pay is always refused",
    )
    p.add_argument(
        "--refresh",
        nargs="?",
        const=True,
        default=False,
        type=refresh_mode,
        metavar="changed",
        help="buy every answer anew; '--refresh changed': only the people whose job changed "
        "since their answer was bought, read from the job-change feed (the others are kept)",
    )
    p.add_argument(
        "--method",
        choices=("auto", "batch", "single"),
        default="auto",
        help="batch jobs when more than 20 handles are to fetch and the service has them "
        "(auto), always (batch), or one call per handle (single)",
    )
    p.add_argument(
        "--encoding",
        default="utf-8",
        help="the input file's text encoding (utf-8), e.g. latin-1, cp1252",
    )
    p.add_argument(
        "--keep-case",
        action="store_true",
        help="send handles as written (default: lower case; public handles "
        "are case-insensitive, so Ada and ada are one person, paid once)",
    )
    p.add_argument("--chunksize", type=rows, default=None, metavar="N", help=_CHUNKSIZE_HELP)
    # rows above which an input is chunked unasked (default csv_chunks.AUTO_CHUNK_ROWS); for tests
    p.add_argument("--chunk-threshold", type=rows, default=None, help=argparse.SUPPRESS)
    _add_common(p)
    p.set_defaults(options=_enrich_options)


def _enrich_options(ns: argparse.Namespace) -> EnrichOptions:
    """The column and prefix default by what the column holds (people or companies)."""
    column, prefix = ("slug", "company_") if ns.companies else ("handle", "profile_")
    return _copied(
        EnrichOptions,
        ns,
        progress=_progress(ns),
        column=column if ns.column is None else ns.column,
        prefix=prefix if ns.prefix is None else ns.prefix,
    )


def _add_tier(sub: _Sub) -> None:
    p = _service_command(
        sub,
        "tier",
        "the credits tier in one line (tier, limit per minute, balance, the next tier); "
        "-o FILE writes it as a one-row CSV",
    )
    _add_common(p)
    p.set_defaults(
        options=lambda ns: TierOptions(output=ns.output, progress=_progress(ns), offline=ns.offline)
    )


def _add_serve(sub: _Sub) -> None:
    p = _command(
        sub,
        "serve",
        "run the service emulator in the foreground",
        "Run the service emulator on 127.0.0.1 until Ctrl-C or SIGTERM. It prints "
        "what it billed when it stops, and on SIGUSR1 while it runs (requests seen, billed "
        "calls and batch items, credits, distinct handles billed, 429s); GET "
        "/_emulator/stats answers the same numbers as JSON (no key; not billed or counted).",
    )
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free)")
    p.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    p.add_argument(
        "--rate-limit",
        type=float,
        default=6000.0,
        help="calls per minute per key, enforced smoothly (0: none)",
    )
    p.add_argument(
        "--fault-rate",
        type=float,
        default=0.0,
        help="share of requests answered with a transient fault",
    )
    p.add_argument("--api-key", default=None, help="the key it accepts (default: a new one)")
    sparse = "records carry only id, handle and some of the other fields"
    p.add_argument("--sparse", action="store_true", help=sparse)
    p.add_argument(
        "--batch",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the batch-enrich endpoints exist (default); --no-batch answers them 404, "
        "as a service without them",
    )
    p.add_argument(
        "--batch-resolve-rate",
        type=rate,
        default=None,
        metavar="N",
        help="items a batch job resolves per second (default 300; 0: at once)",
    )
    p.add_argument(
        "--batch-page-size",
        type=page_size,
        default=None,
        metavar="N",
        help="batch results per poll (default 100)",
    )
    p.add_argument(
        "--move-rate",
        type=rate,
        default=0.0,
        metavar="R",
        help="people of its population who move to another company each minute (default 0): "
        "their records change and the job-change feed lists their moves, so a refresh finds "
        "movers; each move is printed",
    )
    p.add_argument("--duration", type=float, default=None, help=argparse.SUPPRESS)
    p.set_defaults(options=lambda ns: _copied(ServeOptions, ns))


def _add_demo(sub: _Sub) -> None:
    p = sub.add_parser("demo", help="the emulator + a sample lead list enriched end to end")
    p.add_argument(
        "--workdir",
        default="lookup-demo",
        help="where the demo's cache and enriched CSV go (lookup-demo)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument(
        "--sparse",
        action="store_true",
        help="records carry only some fields (id and handle always)",
    )
    p.set_defaults(
        options=lambda ns: DemoOptions(
            workdir=Path(ns.workdir), progress=not ns.no_progress, sparse=ns.sparse
        )
    )


_CLEAR = (
    "Remove every cached answer, and the stored batch jobs and claims (the jobs hold "
    "handles). What was paid for is paid for again when needed. Asks first (y/N) on a "
    "terminal; elsewhere only --yes does it."
)
_FORGET = (
    "Erase every stored answer about these people: their profile answers, the search and "
    "employees pages holding them (whole pages), their handles in stored batch jobs. On "
    "SQLite the files are then rewritten and their write-ahead logs emptied, so that no "
    "byte of them keeps what was removed. Nothing is sent; their next lookup is billed "
    "again."
)


def _add_cache(sub: _Sub) -> None:
    cache = _command(
        sub,
        "cache",
        "what the cache holds, and removing it (no API key needed)",
        "What the cache holds, and removing it: expired answers, everything, or\n"
        "every stored answer about some people. Only the cache is touched: nothing is\n"
        "sent, and no API key is needed.",
        CACHE_ENVIRONMENT,
    )
    actions = cache.add_subparsers(dest="cache_command", required=True)

    def action(name: str, helptext: str, description: str | None = None) -> argparse.ArgumentParser:
        wrapped = textwrap.fill(description or helptext, width=90)
        p = _command(actions, name, helptext, wrapped, CACHE_ENVIRONMENT)
        p.set_defaults(options=_cache_options)
        return p

    action("info", "where the cache is, how many answers it holds (and how many expired), its size")
    action("prune", "remove the expired answers (they are never used again)")
    clear = action(
        "clear", "remove every cached answer, and the stored batch jobs and claims", _CLEAR
    )
    clear.add_argument(
        "--yes", action="store_true", help="do not ask (required when stdin is not a terminal)"
    )
    forget = action("forget", "erase every stored answer about these people", _FORGET)
    forget.add_argument(
        "handles", nargs="*", metavar="HANDLE", help="handles, profile URLs or prsn_ ids"
    )
    forget.add_argument(
        "--from-csv", metavar="FILE", default=None, help="also the handles in a CSV column"
    )
    forget.add_argument(
        "-c", "--column", default="handle", help="the column of --from-csv (handle)"
    )
    forget.add_argument("--encoding", default="utf-8", help="the CSV's text encoding (utf-8)")
    forget.add_argument(
        "--keep-case",
        action="store_true",
        help="match handles as written (default: lower case, as enrichment sends them)",
    )


def _cache_options(ns: argparse.Namespace) -> CacheOptions:
    """Only ``clear`` has --yes, and only ``forget`` its handles. The others take the defaults."""
    return CacheOptions(
        action=ns.cache_command,
        yes=getattr(ns, "yes", False),
        handles=tuple(getattr(ns, "handles", ())),
        from_csv=getattr(ns, "from_csv", None),
        column=getattr(ns, "column", "handle"),
        encoding=getattr(ns, "encoding", "utf-8"),
        keep_case=getattr(ns, "keep_case", False),
    )
