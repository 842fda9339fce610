"""A SQLite file that fails, said as one StorageError: which file, what happened, what to do.

SQLite names each fault (``sqlite_errorname``, Python 3.11+); the OS names its own (``errno``).
:func:`fault_kind` reads either, :func:`storage_error` says it, :func:`translated` raises it.

Example:
    >>> import sqlite3
    >>> full = sqlite3.OperationalError("database or disk is full")
    >>> full.sqlite_errorname = "SQLITE_FULL"
    >>> print(storage_error(Path("/data/leads.sqlite"), full))
    The disk holding the cache file /data/leads.sqlite is full (database or disk is full): free
    some space, or pass cache= a file on another disk, and run again
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from ..errors import StorageError

__all__ = ["CORRUPT", "FULL", "LOCKED", "READ_ONLY", "fault_kind", "storage_error", "translated"]

Kind = Literal["full", "read-only", "corrupt", "locked", "gone", "failed"]
FULL: Kind = "full"
READ_ONLY: Kind = "read-only"
CORRUPT: Kind = "corrupt"
LOCKED: Kind = "locked"

_BY_NAME: dict[str, Kind] = {
    "SQLITE_FULL": FULL,
    "SQLITE_READONLY": READ_ONLY,
    "SQLITE_PERM": READ_ONLY,
    "SQLITE_CORRUPT": CORRUPT,
    "SQLITE_NOTADB": CORRUPT,
    "SQLITE_BUSY": LOCKED,
    "SQLITE_LOCKED": LOCKED,
    "SQLITE_CANTOPEN": "gone",
}
_BY_ERRNO: dict[int, Kind] = {
    errno.ENOSPC: FULL,
    errno.EDQUOT: FULL,
    errno.EACCES: READ_ONLY,
    errno.EPERM: READ_ONLY,
    errno.EROFS: READ_ONLY,
    errno.ENOENT: "gone",
}
#: What each kind is, for a file of this ``what``, and what the user does about it.
_SAID: dict[Kind, tuple[str, str]] = {
    FULL: (
        "The disk holding the {what} {path} is full",
        "free some space, or {use} a file on another disk, and run again",
    ),
    READ_ONLY: (
        "The {what} {path} cannot be written (its mode, its folder's, or a read-only disk)",
        "make it writable by this user, or {use} a file in a folder you can write",
    ),
    CORRUPT: (
        "The {what} {path} is damaged",
        "`lookup-pandas cache check` tells how many answers can still be read, and "
        "`lookup-pandas cache repair` keeps them in a new file (the damaged one is kept aside)",
    ),
    LOCKED: (
        "The {what} {path} is locked by another process",
        "close the program or notebook kernel using it, or {use} another file",
    ),
    "gone": (
        "The {what} {path} cannot be opened (its folder is gone, or it is not a file)",
        "{use} a file in a folder that exists",
    ),
    "failed": (
        "The {what} {path} could not be read or written",
        "check the disk it is on, then run again",
    ),
}


def fault_kind(exc: BaseException) -> Kind:
    """What ``exc``, raised by SQLite or the OS on a file, says happened.

    Example:
        >>> fault_kind(OSError(errno.ENOSPC, "No space left on device"))
        'full'
        >>> fault_kind(sqlite3.DatabaseError("file is not a database"))
        'corrupt'
    """
    name = getattr(exc, "sqlite_errorname", None) or ""
    for prefix, kind in _BY_NAME.items():
        if name == prefix or name.startswith(prefix + "_"):
            return kind
    number = getattr(exc, "errno", None)
    if number in _BY_ERRNO:
        return _BY_ERRNO[number]
    text = str(exc).lower()  # a message without a code: sqlite3.connect's, an old SQLite's
    for words, kind in (
        (("disk is full", "no space"), FULL),
        (("readonly", "read-only", "permission denied"), READ_ONLY),
        (("malformed", "not a database", "encrypted"), CORRUPT),
        (("locked", "busy"), LOCKED),
        (("unable to open",), "gone"),
    ):
        if any(w in text for w in words):
            return kind
    return "failed"


def storage_error(path: Path, exc: BaseException, *, what: str = "cache file") -> StorageError:
    """The StorageError of ``exc`` on the file ``path``: one line, the file named, SQLite's own
    words in parentheses, and what to do.

    Example:
        >>> print(storage_error(Path("s.sqlite"), OSError(errno.EROFS, "Read-only file system"),
        ...                     what="store file"))
        The store file s.sqlite cannot be written (its mode, its folder's, or a read-only disk)
        ([Errno 30] Read-only file system): make it writable by this user, or pass cache= a file
        in a folder you can write
    """
    kind = fault_kind(exc)
    if kind in (FULL, "gone", "failed") and _read_only_disk(path):
        kind = READ_ONLY  # SQLite says "full", or "unable to open", of a read-only mount
    happened, todo = _SAID[kind]
    said = f"{happened.format(what=what, path=path)} ({exc})"
    error = StorageError(
        f"{said}: {todo.format(use='pass cache=')}",
        cli_message=f"{said}: {todo.format(use='set LOOKUP_CACHE to')}",
    )
    error.kind = kind
    return error


def _read_only_disk(path: Path) -> bool:
    """Whether the disk holding ``path`` (or its folder) is mounted read-only."""
    for place in (path, path.parent):
        try:
            return bool(os.statvfs(place).f_flag & os.ST_RDONLY)
        except (OSError, AttributeError):  # gone, or no statvfs (Windows)
            continue
    return False


@contextlib.contextmanager
def translated(path: Path, *, what: str = "cache file") -> Iterator[None]:
    """Inside, a ``sqlite3.Error`` or ``OSError`` on ``path`` is its :func:`storage_error`.

    Example:
        >>> with translated(Path("leads.sqlite")):
        ...     raise sqlite3.OperationalError("attempt to write a readonly database")
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.StorageError: The cache file leads.sqlite cannot be written (its
        mode, its folder's, or a read-only disk) (attempt to write a readonly database): make it
        writable by this user, or pass cache= a file in a folder you can write
    """
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        raise storage_error(path, exc, what=what) from exc
