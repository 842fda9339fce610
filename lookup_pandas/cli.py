"""The command line: ``lookup-pandas`` (also ``python -m lookup_pandas``).

Example::

    $ export LOOKUP_BASE_URL=... LOOKUP_API_KEY=...
    $ lookup-pandas enrich leads.csv -c handle -o enriched.csv
    $ lookup-pandas employees acme -o acme.csv
    $ lookup-pandas serve --port 8080 --latency 0.05 --rate-limit 60
    $ lookup-pandas demo

The key comes from ``LOOKUP_API_KEY`` only (a command-line argument would show in the process
list and the shell history). Every failure the library raises on purpose ends the program with
a one-line reason on stderr and a non-zero exit code, never a traceback: 2 configuration or
input, 3 authentication, 4 budget, 1 any other service error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import errors
from ._version import __version__

__all__ = ["main"]

EXIT_SERVICE, EXIT_CONFIG, EXIT_AUTH, EXIT_BUDGET, EXIT_INTERRUPTED = 1, 2, 3, 4, 130


class InputError(Exception):
    """A problem with the command's own input (a file, a column): exit 2 with one line."""


def _progress(args: argparse.Namespace) -> bool | None:
    return False if args.no_progress else None


def _write(frame: Any, output: str | None) -> None:
    from .frames import to_csv_cells

    cells = to_csv_cells(frame)
    if output in (None, "-"):
        cells.to_csv(sys.stdout, index=False)
    else:
        cells.to_csv(output, index=False)


def _read_csv(path: str) -> Any:
    import pandas as pd

    try:
        # Only empty cells are missing: a handle or a name such as "NA" stays as written.
        return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path} as CSV: {exc}") from None


def _cmd_enrich(args: argparse.Namespace) -> int:
    from .client import default_client

    leads = _read_csv(args.input)
    if args.column not in leads.columns:
        raise InputError(f"no column {args.column!r} in {args.input}; "
                         f"columns are {', '.join(map(str, leads.columns))}")
    client = default_client()
    before = client.stats
    started = time.perf_counter()
    out = leads.lookup.enrich_profiles(
        args.column, prefix=args.prefix, errors=args.errors, max_calls=args.max_calls,
        refresh=args.refresh, client=client, progress=_progress(args),
    )
    _write(out, args.output)
    after = client.stats
    counts = out["lookup_status"].value_counts()
    summary = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ok", "not_found", "invalid", "error"))
    print(
        f"enriched {len(out)} rows ({summary}) in {time.perf_counter() - started:.1f}s: "
        f"{after.sent - before.sent} requests sent, {after.cache_hits - before.cache_hits} "
        f"answers from the cache, {after.credits_consumed - before.credits_consumed:g} credits"
        + (f" -> {args.output}" if args.output not in (None, "-") else ""),
        file=sys.stderr,
    )
    return 0


def _cmd_listing(args: argparse.Namespace) -> int:
    from . import api

    filters = dict(_pair(f) for f in args.filter or [])
    if args.command == "employees":
        frame = api.company_employees(args.slug, limit=args.limit, max_records=args.max_records,
                                      progress=_progress(args), **filters)
    else:
        frame = api.search_people(args.title, limit=args.limit, max_records=args.max_records,
                                  progress=_progress(args), **filters)
    _write(frame, args.output)
    print(f"{len(frame)} records", file=sys.stderr)
    return 0


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise InputError(f"--filter takes KEY=VALUE, not {text!r}")
    return key, value


def _cmd_tier(args: argparse.Namespace) -> int:
    from . import api

    _write(api.credits_tier(), args.output)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from .testing import FakeService

    svc = FakeService(
        port=args.port,
        latency=args.latency,
        rate_limit_per_minute=args.rate_limit or None,
        fault_rate=args.fault_rate,
        api_key=args.api_key,
    )
    with svc:
        # This is the emulator's own test key, made up for this process: printing it is the point.
        print(f"lookup_pandas emulator listening on {svc.base_url}", flush=True)
        print(f"  export LOOKUP_BASE_URL={svc.base_url}", flush=True)
        print(f"  export LOOKUP_API_KEY={svc.api_key}", flush=True)
        limit = f"{args.rate_limit:g}/min" if args.rate_limit else "none"
        print(f"  latency {args.latency:g}s, rate limit {limit}, fault rate {args.fault_rate:g}. "
              "Ctrl-C stops it.", flush=True)
        deadline = time.monotonic() + args.duration if args.duration else None
        try:
            while deadline is None or time.monotonic() < deadline:
                time.sleep(0.2)
        except KeyboardInterrupt:
            print("stopped", flush=True)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(Path(args.workdir), progress=not args.no_progress)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lookup-pandas",
        description="People and company data in pandas: cached, paced, resumable. "
                    "Configure with LOOKUP_API_KEY, LOOKUP_BASE_URL and LOOKUP_CACHE.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, *, output: bool = True) -> None:
        if output:
            p.add_argument("-o", "--output", default=None,
                           help="CSV file to write (default: stdout)")
        p.add_argument("--no-progress", action="store_true", help="no progress bar")

    enrich = sub.add_parser("enrich", help="enrich a CSV of handles or profile URLs")
    enrich.add_argument("input", help="the CSV file to read")
    enrich.add_argument("-c", "--column", default="handle", help="column of handles (handle)")
    enrich.add_argument("--prefix", default="profile_", help="prefix of new columns (profile_)")
    enrich.add_argument("--errors", choices=("coerce", "raise"), default="coerce",
                        help="record failures per row (coerce) or stop at the first (raise)")
    enrich.add_argument("--max-calls", type=int, default=None,
                        help="refuse to start if more billable calls would be needed")
    enrich.add_argument("--refresh", action="store_true", help="ignore the cache, fetch anew")
    common(enrich)
    enrich.set_defaults(func=_cmd_enrich)

    for name, arg, helptext in (("employees", "slug", "a company's employees"),
                                ("search", "title", "people whose title matches")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument(arg)
        p.add_argument("--limit", type=int, default=50, help="page size, 1-50 (50)")
        p.add_argument("--max-records", type=int, default=None, help="stop after this many")
        p.add_argument("--filter", action="append", metavar="KEY=VALUE",
                       help="extra query parameter, repeatable")
        common(p)
        p.set_defaults(func=_cmd_listing)

    tier = sub.add_parser("tier", help="the credits tier (balance, limit per minute)")
    common(tier)
    tier.set_defaults(func=_cmd_tier)

    serve = sub.add_parser("serve", help="run the service emulator in the foreground")
    serve.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free)")
    serve.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    serve.add_argument("--rate-limit", type=float, default=6000.0,
                       help="calls per minute per key, enforced smoothly (0: none)")
    serve.add_argument("--fault-rate", type=float, default=0.0,
                       help="share of requests answered with a transient fault")
    serve.add_argument("--api-key", default=None, help="the key it accepts (default: a new one)")
    serve.add_argument("--duration", type=float, default=None, help=argparse.SUPPRESS)
    serve.set_defaults(func=_cmd_serve)

    demo = sub.add_parser("demo", help="the emulator + a sample lead list enriched end to end")
    demo.add_argument("--workdir", default="lookup-demo",
                      help="where the demo's cache and enriched CSV go (lookup-demo)")
    demo.add_argument("--no-progress", action="store_true", help="no progress bars")
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("lookup-pandas: interrupted; what was fetched is in the cache", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (InputError, errors.ConfigurationError) as exc:
        return _fail(exc, EXIT_CONFIG)
    except errors.AuthenticationError as exc:
        return _fail(exc, EXIT_AUTH)
    except errors.BudgetExceededError as exc:
        return _fail(exc, EXIT_BUDGET)
    except errors.ServiceError as exc:
        return _fail(exc, EXIT_SERVICE)


def _fail(exc: Exception, code: int) -> int:
    kind = "error" if isinstance(exc, InputError) else type(exc).__name__
    print(f"lookup-pandas: {kind}: {' '.join(str(exc).split())}", file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
