"""The command line: ``lookup-pandas`` (also ``python -m lookup_pandas``).

Example::

    $ lookup-pandas serve --port 8080 --latency 0.05 --rate-limit 60
    $ lookup-pandas demo

Every failure the library raises on purpose ends the program with a one-line reason and a
non-zero exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from . import errors
from ._version import __version__

__all__ = ["main"]


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

    return run_demo(cache_dir=Path(args.cache_dir) if args.cache_dir else None)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lookup-pandas",
        description="People and company data in pandas: cached, paced, resumable.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

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

    demo = sub.add_parser("demo", help="emulator + lookups end to end, with a re-run from cache")
    demo.add_argument("--cache-dir", default=None, help="where the demo's cache goes "
                      "(default: a temporary directory)")
    demo.set_defaults(func=_cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except errors.ServiceError as exc:
        print(f"lookup-pandas: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lookup-pandas: interrupted; what was fetched is in the cache", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
