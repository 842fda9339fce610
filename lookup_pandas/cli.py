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
input (a base URL where the service does not answer included), 3 authentication, 4 budget,
1 any other service error, 130 interrupted. Inputs and the output file are checked before the
first billable call.
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


def _check_output(output: str | None) -> None:
    """Before anything is paid for: ``output`` can be written (a file, in a directory)."""
    if output in (None, "-"):
        return
    path = Path(output)
    if path.is_dir():
        raise InputError(f"cannot write {output}: it is a directory; name a file with -o")
    if not path.parent.is_dir():
        raise InputError(f"cannot write {output}: there is no directory {path.parent}")
    existed = path.exists()
    try:
        with path.open("a"):
            pass
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None
    if not existed:
        path.unlink()  # only a check: the real file is written when the job is done


def _write(frame: Any, output: str | None) -> None:
    from .frames import to_csv_cells

    cells = to_csv_cells(frame)
    if output in (None, "-"):
        cells.to_csv(sys.stdout, index=False)
        return
    try:
        cells.to_csv(output, index=False)
    except OSError as exc:
        raise InputError(
            f"cannot write {output}: {exc.strerror or exc} (every answer is "
            "cached: running again costs nothing)"
        ) from None


def _read_csv(path: str, encoding: str) -> Any:
    """The CSV with every cell as written; empty cells are missing.

    Handles then follow one rule, here and after a plain ``pd.read_csv``: blanks and pandas'
    missing-value strings (``NA``, ``N/A``, ``null``...) are invalid handles, never sent.
    Other columns are written back exactly as they were read.
    """
    import codecs

    import pandas as pd

    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r} (try utf-8, latin-1, cp1252)") from None
    try:
        return pd.read_csv(
            path, dtype=str, keep_default_na=False, na_values=[""], encoding=encoding
        )
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a CSV file") from None
    except UnicodeDecodeError as exc:
        raise InputError(
            f"cannot read {path} as {encoding} (byte {exc.start}: "
            f"{exc.reason}); pass its encoding, e.g. --encoding latin-1"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"cannot read {path} as CSV: {' '.join(str(exc).split())}") from None


def _cmd_enrich(args: argparse.Namespace) -> int:
    from . import api
    from .client import default_client

    leads = _read_csv(args.input, args.encoding)
    api.check_columns(leads, args.column, args.prefix)
    _check_output(args.output)
    client = default_client()
    _print_estimate(leads, args, client)
    enriched, summary = api.enrich_with_summary(
        leads,
        args.column,
        prefix=args.prefix,
        errors=args.errors,
        max_calls=args.max_calls,
        refresh=args.refresh,
        client=client,
        progress=_progress(args),
        fold_case=not args.keep_case,
        method=args.method,
    )
    _write(enriched, args.output)
    target = f" -> {args.output}" if args.output not in (None, "-") else ""
    print(f"enriched {summary}{target}", file=sys.stderr)
    return 0


def _print_estimate(leads: Any, args: argparse.Namespace, client: Any) -> None:
    """Before the job: what it will fetch, how, and about how long it takes (stderr).

    The pace is learned first when anything must be fetched: the credits-tier look-up the job
    would make first anyway (never billed); a fully cached run still sends nothing, and a job
    that ``--max-calls`` refuses prints only its refusal.
    """
    import dataclasses

    from . import api
    from .enrich import planned

    est = api.estimate_profiles(
        leads, args.column, client=client, fold_case=not args.keep_case, method=args.method
    )
    if args.refresh:  # every handle is fetched anew
        est = dataclasses.replace(est, cached=0, to_fetch=est.unique)
    if args.max_calls is not None and est.to_fetch > args.max_calls:
        return  # the job refuses it before sending anything, in one line of its own
    if est.to_fetch and not client.pace_known:
        client.learn_pace()
    est = planned(est, client, args.method)
    print(f"lookup-pandas: {describe_estimate(est, client.rate_limit_per_minute)}", file=sys.stderr)


def describe_estimate(est: Any, per_minute: float | None) -> str:
    """One line: ``250 rows, 190 distinct handles, 60 cached: 130 to fetch by batch (1 job,
    ~3 polls), about 6 s at 57 calls/min``."""
    line = f"{est.rows} rows, {est.unique} distinct handles, {est.cached} cached: "
    if est.to_fetch == 0:
        return line + "nothing to fetch"
    line += f"{est.to_fetch} to fetch by {est.method}"
    if est.method == "batch":
        line += f" ({est.jobs} job{'s' * (est.jobs != 1)}, ~{est.polls} polls)"
    if est.seconds is None:
        return line + (", unpaced (no rate limit)" if per_minute is None else "")
    return line + f", about {_duration(est.seconds)} at {per_minute:.0f} calls/min"


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _cmd_listing(args: argparse.Namespace) -> int:
    from . import api
    from .client import check_max_records

    check_max_records(args.max_records)
    _check_output(args.output)
    filters: dict[str, Any] = dict(_pair(f) for f in args.filter or [])
    if args.command == "employees":
        frame = api.company_employees(
            args.slug,
            limit=args.limit,
            max_records=args.max_records,
            progress=_progress(args),
            **filters,
        )
    else:
        frame = api.search_people(
            args.title,
            limit=args.limit,
            max_records=args.max_records,
            progress=_progress(args),
            **filters,
        )
    _write(frame, args.output)
    print(f"{len(frame)} records", file=sys.stderr)
    return 0


#: Keywords of the listing functions themselves, which a --filter must not set.
_OWN_KEYWORDS = {"slug", "title", "limit", "max_records", "client", "progress"}


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise InputError(f"--filter takes KEY=VALUE, not {text!r}")
    if key in _OWN_KEYWORDS:
        raise InputError(
            f"--filter {key}=... is not a filter; use the command's own argument "
            "or option for it (see --help)"
        )
    return key, value


def _cmd_tier(args: argparse.Namespace) -> int:
    from . import api

    _check_output(args.output)
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
        sparse_records=args.sparse,
    )
    try:
        svc.start()
    except OSError as exc:
        raise InputError(
            f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}"
            " (pick another --port, or 0 for any free one)"
        ) from None
    with svc:
        # This is the emulator's own test key, made up for this process: printing it is the point.
        print(f"lookup_pandas emulator listening on {svc.base_url}", flush=True)
        print(f"  export LOOKUP_BASE_URL={svc.base_url}", flush=True)
        print(f"  export LOOKUP_API_KEY={svc.api_key}", flush=True)
        limit = f"{args.rate_limit:g}/min" if args.rate_limit else "none"
        print(
            f"  latency {args.latency:g}s, rate limit {limit}, fault rate {args.fault_rate:g}. "
            "Ctrl-C stops it.",
            flush=True,
        )
        deadline = time.monotonic() + args.duration if args.duration else None
        try:
            while deadline is None or time.monotonic() < deadline:
                time.sleep(0.2)
        except KeyboardInterrupt:
            print("stopped", flush=True)
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(Path(args.workdir), progress=not args.no_progress, sparse=args.sparse)


ENVIRONMENT = """environment:
  LOOKUP_API_KEY   the API key (required; read from the environment only, never an option)
  LOOKUP_BASE_URL  the service's address, e.g. https://api.example.com (required)
  LOOKUP_CACHE     the cache file (default: http_cache.sqlite in the user cache dir),
                   or "off" for no cache"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lookup-pandas",
        description="People and company data in pandas: cached, paced, resumable.",
        epilog=ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, *, output: bool = True) -> None:
        if output:
            p.add_argument(
                "-o", "--output", default=None, help="CSV file to write (default: stdout)"
            )
        p.add_argument("--no-progress", action="store_true", help="no progress bar")

    def service_command(name: str, helptext: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=helptext,
            description=helptext,
            epilog=ENVIRONMENT,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    enrich = service_command("enrich", "enrich a CSV of handles or profile URLs")
    enrich.add_argument("input", help="the CSV file to read")
    enrich.add_argument("-c", "--column", default="handle", help="column of handles (handle)")
    enrich.add_argument("--prefix", default="profile_", help="prefix of new columns (profile_)")
    enrich.add_argument(
        "--errors",
        choices=("coerce", "raise"),
        default="coerce",
        help="record failures per row (coerce) or stop at the first (raise)",
    )
    enrich.add_argument(
        "--max-calls",
        type=int,
        default=None,
        help="refuse to start if more billable calls would be needed",
    )
    enrich.add_argument("--refresh", action="store_true", help="ignore the cache, fetch anew")
    enrich.add_argument(
        "--method",
        choices=("auto", "batch", "single"),
        default="auto",
        help="batch jobs when more than 20 handles are to fetch and the service has them "
        "(auto), always (batch), or one call per handle (single)",
    )
    enrich.add_argument(
        "--encoding",
        default="utf-8",
        help="the input file's text encoding (utf-8), e.g. latin-1, cp1252",
    )
    enrich.add_argument(
        "--keep-case",
        action="store_true",
        help="send handles as written (default: lower case; public handles "
        "are case-insensitive, so Ada and ada are one person, paid once)",
    )
    common(enrich)
    enrich.set_defaults(func=_cmd_enrich)

    for name, arg, helptext in (
        ("employees", "slug", "a company's employees"),
        ("search", "title", "people whose title matches"),
    ):
        p = service_command(name, helptext)
        p.add_argument(arg)
        p.add_argument("--limit", type=int, default=50, help="page size, 1-50 (50)")
        p.add_argument(
            "--max-records", type=int, default=None, help="stop after this many (0 or more)"
        )
        p.add_argument(
            "--filter",
            action="append",
            metavar="KEY=VALUE",
            help="extra query parameter, repeatable",
        )
        common(p)
        p.set_defaults(func=_cmd_listing)

    tier = service_command("tier", "the credits tier (balance, limit per minute)")
    common(tier)
    tier.set_defaults(func=_cmd_tier)

    serve = sub.add_parser("serve", help="run the service emulator in the foreground")
    serve.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free)")
    serve.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    serve.add_argument(
        "--rate-limit",
        type=float,
        default=6000.0,
        help="calls per minute per key, enforced smoothly (0: none)",
    )
    serve.add_argument(
        "--fault-rate",
        type=float,
        default=0.0,
        help="share of requests answered with a transient fault",
    )
    serve.add_argument("--api-key", default=None, help="the key it accepts (default: a new one)")
    serve.add_argument(
        "--sparse",
        action="store_true",
        help="records carry only id, handle and some of the other fields",
    )
    serve.add_argument("--duration", type=float, default=None, help=argparse.SUPPRESS)
    serve.set_defaults(func=_cmd_serve)

    demo = sub.add_parser("demo", help="the emulator + a sample lead list enriched end to end")
    demo.add_argument(
        "--workdir",
        default="lookup-demo",
        help="where the demo's cache and enriched CSV go (lookup-demo)",
    )
    demo.add_argument("--no-progress", action="store_true", help="no progress bars")
    demo.add_argument(
        "--sparse",
        action="store_true",
        help="records carry only some fields (id and handle always)",
    )
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
    except (InputError, errors.ConfigurationError, errors.UsageError) as exc:
        return _fail(exc, EXIT_CONFIG)
    except errors.AuthenticationError as exc:
        return _fail(exc, EXIT_AUTH)
    except errors.BudgetExceededError as exc:
        return _fail(exc, EXIT_BUDGET)
    except errors.ServiceError as exc:
        return _fail(exc, EXIT_SERVICE)


def _fail(exc: Exception, code: int) -> int:
    kind = "error" if isinstance(exc, InputError) else type(exc).__name__
    # The CLI reads its settings from the environment: name the variable, not the keyword.
    text = exc.cli_message if isinstance(exc, errors.ConfigurationError) else str(exc)
    print(f"lookup-pandas: {kind}: {' '.join(text.split())}", file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
