"""``lookup-pandas cache info | prune | clear | forget | check | repair``: the cache, with no key
and no service.

What each action removes, and where: :mod:`lookup_pandas.cache`; checking and repairing a
damaged file: :mod:`lookup_pandas.cache.repair`.

Example: ``cache(CacheOptions(action="forget", handles=("ada",)))`` prints
``forgot 1 handle in ...`` and returns ``0``.
"""

from __future__ import annotations

import sys
import warnings
from typing import TYPE_CHECKING

from ..config.cache_urls import redact_url
from ..errors import IncompleteErasureWarning
from .exits import EXIT_INCOMPLETE, EXIT_SERVICE, InputError
from .options import CacheOptions
from .reading import read_csv

if TYPE_CHECKING:
    from ..cache import CacheLocation, Removed


def cache(options: CacheOptions) -> int:
    """Run the cache action. Returns the exit code.

    ``clear`` not confirmed, or ``check`` finding damage: 1. A removal that a reader kept from
    being complete on disk: 5.

    Example: ``cache(CacheOptions(action="prune"))`` -> ``0``
    """
    from .. import cache as cache_admin

    if options.action in ("check", "repair"):
        return _check_or_repair(options)
    handles = handles_to_forget(options) if options.action == "forget" else []
    location = cache_admin.CacheLocation.from_environment()
    if options.action == "info":
        _print_info(location)
        return 0
    if location.path is None and location.url is None:
        print("the cache is off (LOOKUP_CACHE): nothing is stored")
        return 0
    if options.action == "clear" and not options.yes and not _confirmed(location.label):
        print("lookup-pandas: nothing was removed", file=sys.stderr)
        return EXIT_SERVICE
    with warnings.catch_warnings():  # said below in one line, not as a Python warning
        warnings.simplefilter("ignore", IncompleteErasureWarning)
        if options.action == "forget":
            forgotten = cache_admin.forget(location, handles, fold_case=options.fold_case)
            print(f"{forgotten}{_scope(location)}")
            complete = forgotten.complete
        else:
            act = cache_admin.prune if options.action == "prune" else cache_admin.clear
            removed = act(location)
            print(_removed(options.action, removed) + _scope(location))
            complete = removed.complete
    if complete:
        return 0
    print(
        "lookup-pandas: warning: another process was reading the cache, so an old copy of what "
        "was removed may remain in its -wal file; run this again when nothing else uses it",
        file=sys.stderr,
    )
    return EXIT_INCOMPLETE


def _check_or_repair(options: CacheOptions) -> int:
    """``check`` (0 healthy, 1 damaged) or ``repair`` (0 done) of the SQLite file ``--cache`` or
    LOOKUP_CACHE names. A Redis, or no such file: an exit 2 with one line."""
    from ..cache import repair as cache_repair
    from ..config.settings import cache_setting

    path, url = cache_setting(options.cache if options.cache is not None else True)
    if url is not None:
        raise InputError(f"check and repair are for SQLite cache files, not {redact_url(url)}")
    if path is None:
        print("the cache is off (LOOKUP_CACHE): there is no file to check")
        return 0
    if options.action == "repair":
        print(cache_repair.repair(path))
        return 0
    found = cache_repair.check(path)
    print(found)
    return 0 if found.healthy else EXIT_SERVICE


def _print_info(location: CacheLocation) -> None:
    from .. import cache as cache_admin

    print(cache_admin.cache_info(location))
    if location.url is None:
        return
    ns = location.namespace
    if ns is None:
        shown = "every one in this database"
    elif location.name is not None:
        shown = f"{location.name} (named in LOOKUP_CACHE; its keys: lookup_pandas:{ns}:*)"
    else:
        shown = f"{ns} (of LOOKUP_API_KEY)"
    print(f"namespace:  {shown}")


def _scope(location: CacheLocation) -> str:
    """Which namespaces of a Redis were acted on. A SQLite file is acted on whole."""
    if location.url is None:
        return ""
    if location.namespace is None:
        return " (every namespace)"
    if location.name is not None:
        return f" (namespace {location.name} named in LOOKUP_CACHE)"
    return f" (namespace {location.namespace} of LOOKUP_API_KEY and LOOKUP_BASE_URL)"


def _removed(action: str, removed: Removed) -> str:
    def count(n: int, what: str) -> str:
        return f"{n:,} {what}{'s' * (n != 1)}"

    if action == "prune":
        return f"removed {count(removed.entries, 'expired answer')} from {removed.location}"
    return (
        f"removed {count(removed.entries, 'answer')} and {count(removed.jobs, 'batch job')} "
        f"from {removed.location}"
    )


def _confirmed(label: str) -> bool:
    """Ask y/N on the terminal. Without one, refuse with an InputError that says to pass --yes."""
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


def handles_to_forget(options: CacheOptions) -> list[str]:
    """The handles of ``cache forget``, each distinct one once.

    They are its arguments (each must be a handle, profile URL or id), then the cells of
    ``--from-csv FILE -c COLUMN``. Cells that are no handle (blanks, ``N/A``) are skipped, as
    enrichment skips them, and counted on stderr.

    Example:
        >>> handles_to_forget(CacheOptions("forget", handles=("ada", "https://x.com/in/grace/")))
        ['ada', 'https://x.com/in/grace/']
    """
    from ..identifiers.distinct import HandleMap

    o = options
    if not o.handles and o.from_csv is None:
        raise InputError("name the handles or profile URLs to forget, or --from-csv FILE -c COLUMN")
    values: list[str] = list(o.handles)
    if o.from_csv is not None:
        frame = read_csv(o.from_csv, o.encoding)
        if o.column not in frame.columns:
            columns = ", ".join(map(str, frame.columns[:10]))
            raise InputError(f"no column {o.column!r} in {o.from_csv} (columns: {columns})")
        cells = HandleMap(fold_case=o.fold_case).map(frame[o.column])
        usable = cells.distinct()  # handles, which forget takes as they are
        skipped = len(cells.codes) - cells.valid_rows()
        if skipped:
            print(
                f"lookup-pandas: skipped {skipped} cell{'s' * (skipped != 1)} of {o.column!r} "
                "that are no handle (blank, N/A, ...)",
                file=sys.stderr,
            )
        values += usable
    return values
