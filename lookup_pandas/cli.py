"""The command line: ``lookup-pandas`` (also ``python -m lookup_pandas``).

Example::

    $ export LOOKUP_BASE_URL=... LOOKUP_API_KEY=...
    $ lookup-pandas enrich leads.csv -c handle -o enriched.csv
    $ lookup-pandas employees acme -o acme.csv
    $ lookup-pandas serve --port 8080 --latency 0.05 --rate-limit 60
    $ lookup-pandas demo
    $ lookup-pandas cache info               # also: prune, clear [--yes], forget HANDLE...

A large file is read, enriched and written in chunks (``--chunksize N`` rows; by default
100,000-row chunks for an input over 64 MiB, :data:`lookup_pandas.stream.AUTO_CHUNK_BYTES`;
``--chunksize 0`` never): memory then grows with the distinct handles, not the rows, and the
output is the same, byte for byte. The file is read twice (its distinct handles first, fetched
once as one job), so it must be a regular file. A file written with ``-o`` appears only when
complete (written beside it as ``.<name>.<random>.part`` first); to stdout, chunks are written as
they are made. See :mod:`lookup_pandas.stream`.

The key comes from ``LOOKUP_API_KEY`` only (a command-line argument would show in the process
list and the shell history). Every failure the library raises on purpose ends the program with
a one-line reason on stderr and a non-zero exit code, never a traceback: 2 configuration or
input (a base URL where the service does not answer included), 3 authentication, 4 budget,
1 any other service error, 130 interrupted, 141 stdout closed early (``| head``). Inputs and
the output file are checked before the first billable call.

``cache info | prune | clear | forget`` need no API key and no service: they work on the cache
``LOOKUP_CACHE`` names (see :mod:`lookup_pandas.cache_admin`). ``clear`` asks first (y/N on the
terminal; without one, only ``--yes`` does it), and exits 1 when not confirmed; a removal
that another process kept from being complete on disk exits 5.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from . import errors
from ._version import __version__

__all__ = ["main"]

EXIT_SERVICE, EXIT_CONFIG, EXIT_AUTH, EXIT_BUDGET, EXIT_INTERRUPTED = 1, 2, 3, 4, 130
#: The input name that means standard input, as other tools take it.
STDIN = "-"
EXIT_BROKEN_PIPE = 141  # what a shell reports for a process ended by SIGPIPE
EXIT_INCOMPLETE = 5  # cache erasure done, but a -wal file may keep an old copy (a reader)


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
        raise InputError(_unwritable(output, exc)) from None


#: How the CLI reads a CSV: every cell as written (text); only empty cells are missing.
_CSV_OPTIONS: dict[str, Any] = {"dtype": str, "keep_default_na": False, "na_values": [""]}


@contextlib.contextmanager
def _reading(path: str, encoding: str) -> Iterator[None]:
    """Failures of reading ``path`` (at any chunk) as one-line InputErrors."""
    import pandas as pd

    try:
        yield
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


def _check_encoding(encoding: str) -> None:
    import codecs

    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r} (try utf-8, latin-1, cp1252)") from None


def _read_csv(path: str, encoding: str, **options: Any) -> Any:
    """The CSV with every cell as written; empty cells are missing.

    Handles then follow one rule, here and after a plain ``pd.read_csv``: blanks and pandas'
    missing-value strings (``NA``, ``N/A``, ``null``...) are invalid handles, never sent.
    Other columns are written back exactly as they were read.
    """
    import pandas as pd

    _check_encoding(encoding)
    with _reading(path, encoding):
        source = sys.stdin.buffer if path == STDIN else path  # "-": standard input
        return pd.read_csv(source, encoding=encoding, **_CSV_OPTIONS, **options)


def _csv_chunks(path: str, encoding: str, rows: int) -> Iterator[Any]:
    """The CSV as ``_read_csv`` reads it, ``rows`` rows at a time (the last chunk shorter; a
    header-only file gives one empty chunk)."""
    import pandas as pd

    _check_encoding(encoding)
    with _reading(path, encoding):
        reader = pd.read_csv(path, encoding=encoding, chunksize=rows, **_CSV_OPTIONS)
    with reader:
        while True:
            with _reading(path, encoding):
                chunk = next(reader, None)
            if chunk is None:
                return
            yield chunk


def _cmd_enrich(args: argparse.Namespace) -> int:
    from . import api, stream
    from .client import default_client

    rows = stream.chunk_rows(args.chunksize, _file_size(args.input), args.chunk_threshold)
    if rows is not None:
        return _enrich_in_chunks(args, rows)
    leads = _read_csv(args.input, args.encoding)
    api.check_columns(leads, args.column, args.prefix)
    _check_output(args.output)
    client = default_client()
    est = api.estimate_profiles(
        leads, args.column, client=client, fold_case=not args.keep_case, method=args.method
    )
    _print_estimate(est, args, client)
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
    print(f"enriched {summary}{_target(args.output)}", file=sys.stderr)
    return 0


def _target(output: str | None) -> str:
    return f" -> {output}" if output not in (None, "-") else ""


def _file_size(path: str) -> int | None:
    """The size of a regular file, else None (a pipe, a directory, no such file)."""
    import stat

    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _enrich_in_chunks(args: argparse.Namespace, rows: int) -> int:
    """``enrich`` reading and writing ``rows`` rows at a time (see lookup_pandas.stream).

    Pass 1 reads the whole file (so that a bad byte or a malformed line anywhere stops the job
    before anything is paid for) and keeps its distinct handles; they are enriched as one job;
    pass 2 reads it again and writes chunk by chunk, to a part file renamed onto ``-o`` when
    complete, or to stdout.
    """
    import dataclasses

    from . import api, stream
    from .client import default_client
    from .enrich import estimate_values, lookup_values

    started = time.perf_counter()
    # no such file, or a directory: _reading's messages, as without chunks
    exists = os.path.exists(args.input) and not os.path.isdir(args.input)
    if args.input == STDIN or (exists and _file_size(args.input) is None):
        raise InputError(
            f"cannot read {args.input} in chunks: it is not a regular file, and chunks "
            "read it twice; pass --chunksize 0 to read it whole"
        )
    fold_case = not args.keep_case
    api.check_columns(_read_csv(args.input, args.encoding, nrows=0), args.column, args.prefix)
    _check_output(args.output)
    client = default_client()  # its settings checked before the file is read through
    handles = stream.HandleMap(fold_case=fold_case)
    chunks = (c[args.column] for c in _csv_chunks(args.input, args.encoding, rows))
    scan = stream.scan_handles(chunks, handles)
    with _output(args.output) as out:
        est = estimate_values(scan.distinct, client=client, fold_case=fold_case, method=args.method)
        _print_estimate(dataclasses.replace(est, rows=scan.rows, valid=scan.valid), args, client)
        records = stream.RecordStore()  # the job keeps no record: they are kept as text here
        result = lookup_values(
            scan.distinct,
            client=client,
            errors=args.errors,
            max_calls=args.max_calls,
            refresh=args.refresh,
            progress=_progress(args),
            fold_case=fold_case,
            method=args.method,
            on_record=records.add,
        )
        summary = result.summary
        table = stream.HandleTable(scan.distinct, result, args.prefix, records)
        del result, records  # the table holds what is written
        parts, statuses = _write_chunks(args, rows, table, handles, out, total=scan.rows)
        written = sum(statuses.values())
        if written != scan.rows:
            raise InputError(_changed(args.input, f"{scan.rows} rows, then {written}"))
        if isinstance(out, stream.PartFile):
            try:
                out.commit()
            except OSError as exc:
                raise InputError(_unwritable(args.output, exc)) from None
    summary = dataclasses.replace(
        summary, rows=written, statuses=dict(statuses), seconds=time.perf_counter() - started
    )
    how = f"{parts} chunk{'s' * (parts != 1)} of {rows} row{'s' * (rows != 1)}"
    print(f"enriched {summary}; in {how}{_target(args.output)}", file=sys.stderr)
    return 0


def _write_chunks(
    args: argparse.Namespace, rows: int, table: Any, handles: Any, out: Any, *, total: int
) -> tuple[int, Counter[str]]:
    """Pass 2: read the file again and write each chunk with its new cells (the header
    first); the number of chunks and the rows' statuses."""
    from . import stream
    from .progress import Progress

    statuses: Counter[str] = Counter()
    parts = 0
    with Progress(_progress(args), total=total, desc="rows written", unit=" row") as bar:
        for chunk in _csv_chunks(args.input, args.encoding, rows):
            try:
                part = stream.enrich_chunk(chunk, args.column, table, handles)
            except stream.InputChanged as exc:
                raise InputError(_changed(args.input, str(exc))) from None
            if parts == 0:
                _write_text(table.header(chunk.columns), out, args.output)
            for text in part.batches():
                _write_text(text, out, args.output)
            statuses.update(part.statuses)
            parts += 1
            bar.update(part.rows)
    return parts, statuses


def _changed(path: str, what: str) -> str:
    return (
        f"{path} changed while it was read in chunks ({what}); run again: what was fetched "
        "is cached"
    )


def _unwritable(output: str | None, exc: OSError) -> str:
    return (
        f"cannot write {output}: {exc.strerror or exc} (every answer is cached: running again "
        "costs nothing)"
    )


@contextlib.contextmanager
def _output(output: str | None) -> Iterator[Any]:
    """stdout, or a part file beside ``output`` (made now: the directory must take it),
    removed unless committed."""
    from .stream import PartFile

    if output in (None, "-"):
        yield sys.stdout
        return
    try:
        part = PartFile(output)
    except OSError as exc:
        raise InputError(_unwritable(output, exc)) from None
    with part:
        yield part


def _write_text(text: str, out: Any, output: str | None) -> None:
    """Write to stdout, or to the part file (a failure: one line, exit 2)."""
    if out is sys.stdout:
        out.write(text)
        return
    try:
        out.handle.write(text)
    except OSError as exc:
        raise InputError(_unwritable(output, exc)) from None


def _print_estimate(est: Any, args: argparse.Namespace, client: Any) -> None:
    """Before the job: what it will fetch, how, and about how long it takes (stderr).

    The pace is learned first when anything must be fetched: the credits-tier look-up the job
    would make first anyway (never billed); a fully cached run still sends nothing, and a job
    that ``--max-calls`` refuses prints only its refusal.
    """
    import dataclasses

    from .enrich import planned

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
    ~3 polls), about 6 s at 57 calls/min``; a resumed run says ``152 to fetch by batch
    (collecting 1 stored job of 152, ~3 polls)``."""
    line = f"{est.rows} rows, {est.unique} distinct handles, {est.cached} cached: "
    if est.to_fetch == 0:
        return line + "nothing to fetch"
    line += f"{est.to_fetch} to fetch by {est.method}"
    batch = []
    if est.stored_jobs:
        stored = f"{est.stored_jobs} stored job{'s' * (est.stored_jobs != 1)}"
        batch.append(f"collecting {stored} of {est.stored_items}")
    if est.jobs:
        batch.append(f"{est.jobs} {'new ' * bool(est.stored_jobs)}job{'s' * (est.jobs != 1)}")
    if est.polls:
        batch.append(f"~{est.polls} polls")
    if batch:
        line += f" ({', '.join(batch)})"
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
    # Filter names, limit and values are checked by the API function before anything is sent
    # (lookup_pandas.filters): a UsageError there exits 2 with the reason.
    positional = "slug" if args.command == "employees" else "title"
    filters: dict[str, Any] = dict(_pair(f, positional) for f in args.filter or [])
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


#: Keywords of the listing functions themselves, which a --filter must not set (nor the
#: command's own argument: ``slug`` for employees, ``title`` for search, where it is one).
_OWN_KEYWORDS = {"limit", "max_records", "client", "progress", "frame"}


def _pair(text: str, positional: str = "") -> tuple[str, str]:
    """``KEY=VALUE`` as a pair; a KEY the command sets itself (``positional`` too) is refused.

    Example: ``_pair("geo_country_code=DE", "title") == ("geo_country_code", "DE")``; whether
    KEY is a filter of the endpoint is the API function's check (lookup_pandas.filters).
    """
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise InputError(f"--filter takes KEY=VALUE, not {text!r}")
    if key in _OWN_KEYWORDS or key == positional:
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
    """Run the emulator until Ctrl-C, SIGTERM or ``--duration``; print what it billed then
    (and on SIGUSR1, going on). ``GET /_emulator/stats`` answers the same numbers as JSON."""
    from .testing import FakeService

    knobs = {"batch_resolve_rate": args.batch_resolve_rate, "batch_page_size": args.batch_page_size}
    svc = FakeService(
        port=args.port,
        latency=args.latency,
        rate_limit_per_minute=args.rate_limit or None,
        fault_rate=args.fault_rate,
        api_key=args.api_key,
        sparse_records=args.sparse,
        batch=args.batch,
        **{name: value for name, value in knobs.items() if value is not None},
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
        k = svc.knobs
        limit = f"{args.rate_limit:g}/min" if args.rate_limit else "none"
        rate = f"{k.batch_resolve_rate:g} items/s" if k.batch_resolve_rate else "at once"
        batch = f"on ({rate}, {k.batch_page_size} a poll)" if k.batch else "off (404)"
        print(
            f"  latency {args.latency:g}s, rate limit {limit}, fault rate {args.fault_rate:g}, "
            f"batch jobs {batch}, {'sparse' if k.sparse_records else 'full'} records.",
            flush=True,
        )
        print(
            f"  Billed counts: GET {svc.base_url}/_emulator/stats, or kill -USR1 {os.getpid()}. "
            "Ctrl-C stops it and prints them.",
            flush=True,
        )
        _serve_until_stopped(svc, args.duration)
    return 0


def _serve_until_stopped(svc: Any, duration: float | None) -> None:
    """Wait for SIGINT / SIGTERM / the duration's end; SIGUSR1 prints the counts and goes on.

    The handlers only set flags (printing or taking a lock inside one could deadlock); the
    loop acts on them within a tenth of a second. Signals are handled in the main thread only.
    """
    flags = {"stop": False, "report": False}
    wanted = {signal.SIGINT: "stop", signal.SIGTERM: "stop"}
    if hasattr(signal, "SIGUSR1"):
        wanted[signal.SIGUSR1] = "report"
    previous: dict[int, Any] = {}

    def on_signal(signum: int, frame: Any) -> None:
        flags[wanted[signal.Signals(signum)]] = True

    try:
        if threading.current_thread() is threading.main_thread():
            for signum in wanted:
                previous[signum] = signal.signal(signum, on_signal)
        deadline = time.monotonic() + duration if duration else None
        while not flags["stop"] and (deadline is None or time.monotonic() < deadline):
            if flags["report"]:
                flags["report"] = False
                _print_serve_stats(svc.stats())
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass  # a SIGINT before the handler was in place
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    _print_serve_stats(svc.stats())
    print("stopped", flush=True)


def _print_serve_stats(stats: dict[str, Any]) -> None:
    """The counts block ``serve`` prints: on SIGUSR1 and when it stops."""
    print(
        "emulator counts:\n"
        f"  requests seen {stats['requests']}, 429s {stats['rate_limited']}\n"
        f"  billed calls {stats['billed_calls']}, billed batch items "
        f"{stats['billed_batch_items']}, credits {stats['credits']:g}, "
        f"distinct handles billed {stats['distinct_handles']}",
        flush=True,
    )


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(Path(args.workdir), progress=not args.no_progress, sparse=args.sparse)


def _cmd_cache(args: argparse.Namespace) -> int:
    """``cache info | prune | clear | forget``: the cache LOOKUP_CACHE names, with no API key
    and no service (see lookup_pandas.cache_admin for what each removes, and where)."""
    import warnings

    from . import cache_admin

    handles = _handles_to_forget(args) if args.cache_command == "forget" else ()
    location = cache_admin.CacheLocation.from_environment()
    if args.cache_command == "info":
        print(cache_admin.cache_info(location))
        if location.url is not None:
            ns = location.namespace
            shown = "every one in this database" if ns is None else f"{ns} (of LOOKUP_API_KEY)"
            print(f"namespace:  {shown}")
        return 0
    if location.path is None and location.url is None:
        print("the cache is off (LOOKUP_CACHE): nothing is stored")
        return 0
    if args.cache_command == "clear" and not args.yes and not _confirmed(location.label):
        print("lookup-pandas: nothing was removed", file=sys.stderr)
        return EXIT_SERVICE
    with warnings.catch_warnings():  # said below in one line, not as a Python warning
        warnings.simplefilter("ignore", cache_admin.IncompleteErasureWarning)
        if args.cache_command == "forget":
            forgotten = cache_admin.forget(location, handles, fold_case=not args.keep_case)
            print(f"{forgotten}{_scope(location)}")
            complete = forgotten.complete
        else:
            act = cache_admin.prune if args.cache_command == "prune" else cache_admin.clear
            removed = act(location)
            print(_removed(args.cache_command, removed) + _scope(location))
            complete = removed.complete
    if complete:
        return 0
    print(
        "lookup-pandas: warning: another process was reading the cache, so an old copy of what "
        "was removed may remain in its -wal file; run this again when nothing else uses it",
        file=sys.stderr,
    )
    return EXIT_INCOMPLETE


def _scope(location: Any) -> str:
    """Which namespaces of a Redis were acted on (a SQLite file is acted on whole)."""
    if location.url is None:
        return ""
    if location.namespace is None:
        return " (every namespace)"
    return f" (namespace {location.namespace} of LOOKUP_API_KEY and LOOKUP_BASE_URL)"


def _removed(command: str, removed: Any) -> str:
    def count(n: int, what: str) -> str:
        return f"{n:,} {what}{'s' * (n != 1)}"

    if command == "prune":
        return f"removed {count(removed.entries, 'expired answer')} from {removed.location}"
    return (
        f"removed {count(removed.entries, 'answer')} and {count(removed.jobs, 'batch job')} "
        f"from {removed.location}"
    )


def _confirmed(label: str) -> bool:
    """Ask y/N on the terminal; without one, refuse (InputError: pass --yes)."""
    if not sys.stdin or not sys.stdin.isatty():
        raise InputError(
            "cache clear removes every cached answer and stored batch job; stdin is not a "
            "terminal to ask on: pass --yes to confirm"
        )
    print(
        f"Remove every cached answer and stored batch job in {label}? "
        "What was paid for is paid for again when needed. [y/N] ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def _handles_to_forget(args: argparse.Namespace) -> list[str]:
    """The handles of ``cache forget``: its arguments (each must be a handle or profile URL),
    and the cells of ``--from-csv FILE -c COLUMN`` (those that are no handle, such as blanks,
    are skipped, as enrichment skips them, and counted on stderr)."""
    from .handles import normalise_handle

    if not args.handles and args.from_csv is None:
        raise InputError("name the handles or profile URLs to forget, or --from-csv FILE -c COLUMN")
    values: list[str] = list(args.handles)
    if args.from_csv is not None:
        frame = _read_csv(args.from_csv, args.encoding)
        if args.column not in frame.columns:
            columns = ", ".join(map(str, frame.columns[:10]))
            raise InputError(f"no column {args.column!r} in {args.from_csv} (columns: {columns})")
        cells = frame[args.column].tolist()
        usable = [c for c in cells if normalise_handle(c, fold_case=not args.keep_case)]
        if len(usable) < len(cells):
            skipped = len(cells) - len(usable)
            print(
                f"lookup-pandas: skipped {skipped} cell{'s' * (skipped != 1)} of {args.column!r} "
                "that are no handle (blank, N/A, ...)",
                file=sys.stderr,
            )
        values += usable
    return values


def _rows(text: str) -> int:
    """A whole number >= 0, for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _rate(text: str) -> float:
    """A number >= 0, for argparse."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def _page_size(text: str) -> int:
    """A whole number >= 1, for argparse."""
    value = _rows(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


ENVIRONMENT = """environment:
  LOOKUP_API_KEY   the API key (required; read from the environment only, never an option)
  LOOKUP_BASE_URL  the service's address, e.g. https://api.example.com (required)
  LOOKUP_CACHE     the cache file (default: http_cache.sqlite in the user cache dir),
                   or "off" for no cache"""


CACHE_ENVIRONMENT = """environment:
  LOOKUP_CACHE     the cache: a file (default: http_cache.sqlite in the user cache dir) or
                   a redis:// URL. No API key and no service are needed
  LOOKUP_API_KEY, LOOKUP_BASE_URL
                   with a Redis cache, when both are set: only that key's namespace;
                   otherwise every namespace in that Redis database (a SQLite file is
                   always acted on whole: it holds the answers of every key used with it)

exit codes: 0 done, 2 a bad argument or setting, 1 clear not confirmed, 5 removed, but an
old copy may remain in a -wal file (another process was reading the cache: run it again)"""


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
    enrich.add_argument("input", help="the CSV file to read ('-': standard input)")
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
    enrich.add_argument(
        "--chunksize",
        type=_rows,
        default=None,
        metavar="N",
        help="read, enrich and write N rows at a time, so that memory does not grow with the "
        "file's length (default: 100000-row chunks for an input over 64 MiB, else the whole "
        "file at once; 0: never). The output is the same; distinct handles are still fetched "
        "once, as one job (one budget, one estimate). The input is read twice, so it must be "
        "a file. With -o FILE the output is written beside FILE as .FILE.<random>.part and "
        "renamed onto FILE only when complete (an interrupted run leaves no half file); to "
        "stdout, chunks are written as they are made and a failure can leave a partial CSV",
    )
    # bytes above which an input is chunked unasked (default stream.AUTO_CHUNK_BYTES); for tests
    enrich.add_argument("--chunk-threshold", type=_rows, default=None, help=argparse.SUPPRESS)
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

    serve = sub.add_parser(
        "serve",
        help="run the service emulator in the foreground",
        description="Run the service emulator on 127.0.0.1 until Ctrl-C or SIGTERM. It prints "
        "what it billed when it stops, and on SIGUSR1 while it runs (requests seen, billed "
        "calls and batch items, credits, distinct handles billed, 429s); GET "
        "/_emulator/stats answers the same numbers as JSON (no key; not billed or counted).",
    )
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
    serve.add_argument(
        "--batch",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="the batch-enrich endpoints exist (default); --no-batch answers them 404, "
        "as a service without them",
    )
    serve.add_argument(
        "--batch-resolve-rate",
        type=_rate,
        default=None,
        metavar="N",
        help="items a batch job resolves per second (default 300; 0: at once)",
    )
    serve.add_argument(
        "--batch-page-size",
        type=_page_size,
        default=None,
        metavar="N",
        help="batch results per poll (default 100)",
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

    cache = sub.add_parser(
        "cache",
        help="what the cache holds, and removing it (no API key needed)",
        description="What the cache holds, and removing it: expired answers, everything, or\n"
        "every stored answer about some people. Only the cache is touched: nothing is\n"
        "sent, and no API key is needed.",
        epilog=CACHE_ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = cache.add_subparsers(dest="cache_command", required=True)

    def cache_action(
        name: str, helptext: str, description: str | None = None
    ) -> argparse.ArgumentParser:
        import textwrap

        action = actions.add_parser(
            name,
            help=helptext,
            description=textwrap.fill(description or helptext, width=90),
            epilog=CACHE_ENVIRONMENT,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        action.set_defaults(func=_cmd_cache)
        return action

    cache_action(
        "info", "where the cache is, how many answers it holds (and how many expired), its size"
    )
    cache_action("prune", "remove the expired answers (they are never used again)")
    clear = cache_action(
        "clear",
        "remove every cached answer, and the stored batch jobs and claims",
        "Remove every cached answer, and the stored batch jobs and claims (the jobs hold "
        "handles). What was paid for is paid for again when needed. Asks first (y/N) on a "
        "terminal; elsewhere only --yes does it.",
    )
    clear.add_argument(
        "--yes", action="store_true", help="do not ask (required when stdin is not a terminal)"
    )
    forget = cache_action(
        "forget",
        "erase every stored answer about these people",
        "Erase every stored answer about these people: their profile answers, the search and "
        "employees pages holding them (whole pages), their handles in stored batch jobs. On "
        "SQLite the files are then rewritten and their write-ahead logs emptied, so that no "
        "byte of them keeps what was removed. Nothing is sent; their next lookup is billed "
        "again.",
    )
    forget.add_argument("handles", nargs="*", metavar="HANDLE", help="handles or profile URLs")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():  # restores Python's own display afterwards
        warnings.showwarning = _show_warning
        return _run(args)


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """A warning as one line of the CLI's own (``lookup-pandas: warning: ...``), not Python's
    ``file.py:123: InsecureCacheWarning: ...`` with a line of our source under it."""
    print(f"lookup-pandas: warning: {' '.join(str(message).split())}", file=file or sys.stderr)


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command; each failure the user can act on is one line and an exit code."""
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("lookup-pandas: interrupted; what was fetched is in the cache", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Whoever read stdout stopped (``| head``): stop quietly, as other tools do, and let
        # nothing more be flushed into the closed pipe at exit.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
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
    text = getattr(exc, "cli_message", None) or str(exc)
    print(f"lookup-pandas: {kind}: {' '.join(text.split())}", file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
