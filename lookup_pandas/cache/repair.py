"""Checking a SQLite cache file, and salvaging what SQLite can still read of a damaged one.

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "leads.sqlite")
    ...     _ = path.write_bytes(b"not a database")
    ...     print(check(path).verdict)
    ...     print(repair(path).answers, len(list(Path(tmp).glob("leads.corrupt-*.sqlite"))))
    not a SQLite database: lookup-pandas cache repair keeps it aside and starts an empty cache
    0 1
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from requests_cache.backends.sqlite import SQLiteCache
from requests_cache.serializers import pickle_serializer

from ..errors import StorageError
from ..store import store_path
from ..store.private_files import prepare_sqlite_file, sqlite_files
from . import sqlite as cache_sqlite
from .pages import scan
from .reports import CacheCheck, Repaired

__all__ = ["check", "is_sqlite_header", "kept_name", "repair", "walk"]

#: What every SQLite database file starts with.
HEADER = b"SQLite format 3\x00"
#: requests-cache's tables in a cache file: the answers, and their aliases.
TABLES = ("responses", "redirects")
#: The integrity messages kept: the first few say where the damage is.
MESSAGES = 5
#: The largest rowid SQLite gives: no search for a readable row goes past it.
TOP = 2**63 - 1

Row = tuple[int, str, object, object]  # rowid, key, value, expires: as requests-cache wrote them


# -- decisions ---------------------------------------------------------------------------------


def is_sqlite_header(start: bytes) -> bool:
    """Whether a file starting with ``start`` is a SQLite database (an empty file is not).

    Example:
        >>> is_sqlite_header(b"SQLite format 3\\x00..."), is_sqlite_header(b"")
        (True, False)
    """
    return start.startswith(HEADER)


def kept_name(path: Path, moment: datetime, n: int = 1) -> Path:
    """The name a damaged cache file is kept under: ``<name>.corrupt-<UTC time>.sqlite``.

    ``n`` tells apart two repairs within one second.

    Example:
        >>> kept_name(Path("/c/leads.sqlite"), datetime(2026, 12, 2, 21, 5, tzinfo=UTC))
        PosixPath('/c/leads.corrupt-20261202T210500Z.sqlite')
    """
    stamp = moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ") + (f"-{n}" if n > 1 else "")
    return path.with_name(f"{path.stem}.corrupt-{stamp}{path.suffix or '.sqlite'}")


def walk(
    rows_after: Callable[[int], Iterable[Row]], next_rowid: Callable[[int], int | None]
) -> list[Row]:
    """Every row SQLite can still read, in rowid order, stepping over the pages it cannot.

    ``rows_after(x)`` yields the rows of rowid above ``x``, and raises ``sqlite3.DatabaseError``
    where a page is damaged. ``next_rowid(x)`` is the first rowid above ``x`` (None: none), read
    without the row. A row whose value cannot be read is stepped over; past a damaged page, the
    first rowid that can be reached again is searched for (doubling, then halving): at most
    about 126 tries a damaged page, and never past :data:`TOP`.

    Example:
        >>> table = {1: "a", 2: "b", 3: None, 4: "d"}  # None: a damaged page
        >>> def rows_after(x):
        ...     for rowid in sorted(r for r in table if r > x):
        ...         if table[rowid] is None:
        ...             raise sqlite3.DatabaseError("database disk image is malformed")
        ...         yield rowid, table[rowid], None, None
        >>> def next_rowid(x):
        ...     if x < 3 <= x + 1:  # seeking into the damaged page fails
        ...         raise sqlite3.DatabaseError("database disk image is malformed")
        ...     return next((r for r in sorted(table) if r > x), None)
        >>> [key for _, key, _, _ in walk(rows_after, next_rowid)]
        ['a', 'b', 'd']
    """
    found: list[Row] = []
    after = 0
    while True:
        try:
            for row in rows_after(after):
                found.append(row)
                after = row[0]
            return found
        except sqlite3.DatabaseError:
            pass
        try:
            unreadable = next_rowid(after)  # the row itself is there: only its value is lost
        except sqlite3.DatabaseError:
            resumed = _past_damage(next_rowid, after)
            if resumed is None:
                return found
            after = resumed
            continue
        if unreadable is None:
            return found
        after = unreadable


def _past_damage(next_rowid: Callable[[int], int | None], after: int) -> int | None:
    """The least ``x`` above ``after`` from which ``next_rowid`` reads again (None: none)."""

    def readable(x: int) -> bool:
        try:
            next_rowid(x)
        except sqlite3.DatabaseError:
            return False
        return True

    bad, step = after, 1
    while not readable(min(after + step, TOP)):
        if after + step >= TOP:
            return None
        bad, step = after + step, step * 2
    good = min(after + step, TOP)
    while good - bad > 1:  # readable(good), not readable(bad)
        middle = (bad + good) // 2
        bad, good = (bad, middle) if readable(middle) else (middle, good)
    return good


# -- I/O ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Salvage:
    """The rows read of each table, and how many of each were lost."""

    rows: dict[str, list[Row]]
    lost: dict[str, int]
    counted: bool


def check(path: Path) -> CacheCheck:
    """What the cache file ``path`` holds, readable or not (:class:`CacheCheck`). It changes
    nothing, and waits for another process's lock for ``BUSY_S`` at most.

    A StorageError when there is no such file.

    Example: ``check(Path("leads.sqlite")).healthy`` -> ``True``
    """
    path = _existing(path)
    store = _store_readable(store_path(path))
    if not _starts_as_database(path):
        return CacheCheck(path, database=False, store=store)
    with contextlib.closing(_reader(path)) as conn:
        conn.execute("BEGIN")  # a read until closed: the probe below is never the last user
        problems = _problems(conn)
        salvage = _salvage(conn, path)
        held = _held(path)
    return CacheCheck(
        path,
        problems=problems,
        answers=len(salvage.rows["responses"]),
        aliases=len(salvage.rows["redirects"]),
        lost_answers=salvage.lost["responses"],
        lost_aliases=salvage.lost["redirects"],
        counted=salvage.counted,
        store=store,
        held=held,
    )


def repair(path: Path) -> Repaired:
    """Salvage every row SQLite can still read of the cache file ``path`` into a new file, put it
    in place, and keep the damaged one beside it (:func:`kept_name`). A file with nothing to
    repair is left as it is (the store file beside it is never touched).

    A StorageError naming the file when there is none, or when another process has it open
    (within ``BUSY_S``): close it first.

    Example: ``repair(Path("leads.sqlite")).answers`` -> ``1234``
    """
    path = _existing(path)
    if _starts_as_database(path):
        found = check(path)
        if found.held:
            raise _open_elsewhere(path)
        if not found.needs_repair:
            return Repaired(path, None)
    fresh = path.with_name(f"{path.stem}.repairing{path.suffix}")
    with _only_user(path) as guard:
        salvage = _salvage(guard, path) if guard is not None else None
        _write(fresh, salvage)
    for leftover in sqlite_files(path)[1:]:  # the old write-ahead log: salvaged already
        leftover.unlink(missing_ok=True)
    kept = _keep(path, datetime.now(UTC))
    os.replace(fresh, path)
    rows = salvage.rows if salvage is not None else {t: [] for t in TABLES}
    lost = salvage.lost if salvage is not None else {t: 0 for t in TABLES}
    return Repaired(
        path,
        kept,
        database=salvage is not None,
        answers=len(rows["responses"]),
        aliases=len(rows["redirects"]),
        lost_answers=lost["responses"],
        lost_aliases=lost["redirects"],
    )


def _existing(path: Path) -> Path:
    file = cache_sqlite.sqlite_cache_file(Path(path).expanduser())
    if not file.is_file():
        raise StorageError(f"There is no cache file {file}: nothing to check or repair.")
    return file


def _starts_as_database(path: Path) -> bool:
    with path.open("rb") as f:
        return is_sqlite_header(f.read(len(HEADER)))


def _reader(path: Path) -> sqlite3.Connection:
    """A read-only connection: it never writes the file, nor checkpoints its write-ahead log."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=cache_sqlite.BUSY_S, isolation_level=None)
    _readable_when_short(conn)
    return conn


def _readable_when_short(conn: sqlite3.Connection) -> None:
    """A file cut short is read as far as it goes (SQLite refuses it whole otherwise). This
    connection never writes the schema."""
    conn.execute("PRAGMA writable_schema = ON")


def _problems(conn: sqlite3.Connection) -> tuple[str, ...]:
    try:
        rows = conn.execute(f"PRAGMA quick_check({MESSAGES})").fetchall()
    except sqlite3.DatabaseError as exc:  # some damage stops the check itself
        return (str(exc),)
    messages = [m for (text,) in rows for m in str(text).splitlines()]
    return () if messages == ["ok"] else tuple(messages[:MESSAGES])


def _salvage(conn: sqlite3.Connection, path: Path) -> _Salvage:
    """The rows of each table that can be read, and how many the key index lists that cannot.

    The rows its b-tree no longer reaches are looked for on every page of the file
    (:func:`.pages.scan`).
    """
    rows: dict[str, list[Row]] = {}
    lost: dict[str, int] = {}
    counted = True
    for table in TABLES:
        try:
            walked = walk(*_readers(conn, table))
        except sqlite3.DatabaseError:  # the schema itself cannot be read, or has no such table
            walked = []
        listed, whole = _listed(conn, table)
        read = {row[0] for row in walked}
        found = scan(path, {r: k for r, k in listed.items() if r not in read})
        rows[table] = sorted([*walked, *found.values()], key=lambda row: row[0])
        lost[table] = len(listed.keys() - read - found.keys())
        if table == "responses":  # a value SQLite reads, but requests-cache could not
            usable = [row for row in rows[table] if _loads(row[2])]
            lost[table] += len(rows[table]) - len(usable)
            rows[table] = usable
        counted = counted and whole
    return _Salvage(rows, lost, counted)


def _readers(
    conn: sqlite3.Connection, table: str
) -> tuple[Callable[[int], Iterator[Row]], Callable[[int], int | None]]:
    def rows_after(x: int) -> Iterator[Row]:
        # One row a query: a cursor reads a row ahead, and would lose the one before a damage.
        query = f"SELECT rowid, key, value, expires FROM {table} WHERE rowid > ? ORDER BY rowid"
        while (row := conn.execute(f"{query} LIMIT 1", (x,)).fetchone()) is not None:
            yield row
            x = row[0]

    def next_rowid(x: int) -> int | None:
        query = f"SELECT rowid FROM {table} WHERE rowid > ? ORDER BY rowid LIMIT 1"
        found = conn.execute(query, (x,)).fetchone()
        return None if found is None else int(found[0])

    return rows_after, next_rowid


def _loads(value: object) -> bool:
    """Whether requests-cache can read an answer's stored value (its SQLite serializer's)."""
    try:
        pickle_serializer.loads(value)
    except Exception:  # whatever a damaged pickle raises: requests-cache reads it as a miss
        return False
    return True


def _listed(conn: sqlite3.Connection, table: str) -> tuple[dict[int, str], bool]:
    """The rowids the table's key index lists, with their keys, and whether all of it could be
    read."""
    listed: dict[int, str] = {}
    try:
        indexes = conn.execute(f"PRAGMA index_list({table})").fetchall()
        (index,) = [row[1] for row in indexes if row[3] == "pk"] or [None]
        if index is None:
            return listed, False
        for rowid, key in conn.execute(f"SELECT rowid, key FROM {table} INDEXED BY {index}"):
            listed[int(rowid)] = key
    except sqlite3.DatabaseError:
        return listed, False
    return listed, True


def _held(path: Path) -> bool:
    """Whether another process holds the write lock of ``path``, tried for ``BUSY_S``."""
    conn = sqlite3.connect(path, timeout=cache_sqlite.BUSY_S, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
    except sqlite3.OperationalError as exc:
        return "locked" in str(exc)
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()
    return False


def _store_readable(stored: Path) -> bool | None:
    if not stored.exists():
        return None
    try:
        with contextlib.closing(_reader(stored)) as conn:
            return not _problems(conn)
    except sqlite3.DatabaseError:
        return False


@contextlib.contextmanager
def _only_user(path: Path) -> Iterator[sqlite3.Connection | None]:
    """A connection holding ``path``'s exclusive lock while the rows are salvaged; None when the
    file is no database. A StorageError when another process has it open for ``BUSY_S``."""
    if not _starts_as_database(path):
        yield None
        return
    conn = sqlite3.connect(path, timeout=cache_sqlite.BUSY_S, isolation_level=None)
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        _readable_when_short(conn)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # takes the lock
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                raise _open_elsewhere(path) from exc
        except sqlite3.DatabaseError:  # its schema cannot be read: nothing will be salvaged
            pass
        yield conn
    finally:
        conn.close()


def _open_elsewhere(path: Path) -> StorageError:
    return StorageError(
        f"The cache file {path} is open in another process, which held it for "
        f"{cache_sqlite.BUSY_S:g} s: close the program or notebook kernel using it, then run "
        "lookup-pandas cache repair again. Nothing was changed."
    )


def _write(fresh: Path, salvage: _Salvage | None) -> None:
    """A new private cache file at ``fresh``, made by requests-cache, holding the rows."""
    for leftover in sqlite_files(fresh):  # of a repair stopped half-way
        leftover.unlink(missing_ok=True)
    prepare_sqlite_file(fresh)
    SQLiteCache(fresh, wal=False).close()  # type: ignore[no-untyped-call]  # its tables
    with contextlib.closing(sqlite3.connect(fresh, isolation_level=None)) as conn:
        conn.execute("BEGIN")
        for table, rows in (salvage.rows if salvage is not None else {}).items():
            conn.executemany(
                f"INSERT OR REPLACE INTO {table} (key, value, expires) VALUES (?, ?, ?)",
                (row[1:] for row in rows),
            )
        conn.execute("COMMIT")


def _keep(path: Path, moment: datetime) -> Path:
    """A second name for the damaged file, so it stays when the new one takes its place."""
    n = 1
    while True:
        kept = kept_name(path, moment, n)
        try:
            os.link(path, kept)
        except FileExistsError:
            n += 1
            continue
        return kept
