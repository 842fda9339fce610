"""Private by default: the directories and SQLite files the library creates are its user's alone.

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp, "new", "leads.sqlite")
    ...     prepare_sqlite_file(path)  # whatever the umask
    ...     oct(path.parent.stat().st_mode & 0o777), oct(path.stat().st_mode & 0o777)
    ('0o700', '0o600')
"""

from __future__ import annotations

import os
import shlex
import sqlite3
import stat
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from types import FrameType
from typing import TypeVar

from ..errors import InsecureCacheWarning

__all__ = [
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "chmod_command",
    "insecure_message",
    "make_private_dirs",
    "make_private_file",
    "open_to_others",
    "prepare_sqlite_file",
    "sqlite_files",
    "while_locked",
]

T = TypeVar("T")

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
#: The permission bits of the group and of other users.
_OTHERS = stat.S_IRWXG | stat.S_IRWXO
#: POSIX modes mean nothing on Windows: there, files are made as before and nothing is checked.
_POSIX = os.name == "posix"
_PACKAGE_DIR = str(Path(__file__).resolve().parents[1]) + os.sep  # lookup_pandas/

_warned: set[str] = set()  # paths already named in a warning by this process
_warned_lock = threading.Lock()


# -- decisions ---------------------------------------------------------------------------------


def open_to_others(mode: int) -> bool:
    """Whether a file or directory of ``mode`` lets its group or other users in at all.

    Example:
        >>> open_to_others(0o644), open_to_others(0o600), open_to_others(0o100600)
        (True, False, False)
    """
    return bool(stat.S_IMODE(mode) & _OTHERS)


def sqlite_files(path: Path) -> list[Path]:
    """A SQLite database and the files SQLite keeps beside it in WAL mode.

    Example:
        >>> [p.name for p in sqlite_files(Path("/tmp/leads.sqlite"))]
        ['leads.sqlite', 'leads.sqlite-wal', 'leads.sqlite-shm']
    """
    return [path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")]


def chmod_command(*, dirs: Iterable[Path] = (), files: Iterable[Path] = ()) -> str:
    """The shell command that makes ``dirs`` 0700 and ``files`` 0600, paths quoted.

    Example:
        >>> chmod_command(dirs=[Path("/home/ana/.cache/lookup_pandas")],
        ...               files=[Path("/tmp/my leads.sqlite")])
        "chmod 700 /home/ana/.cache/lookup_pandas && chmod 600 '/tmp/my leads.sqlite'"
    """
    parts = []
    for mode, paths in ((PRIVATE_DIR_MODE, list(dirs)), (PRIVATE_FILE_MODE, list(files))):
        if paths:
            parts.append(f"chmod {mode:o} " + " ".join(shlex.quote(str(p)) for p in paths))
    return " && ".join(parts)


def insecure_message(modes: dict[Path, int], dirs: Iterable[Path] = ()) -> str:
    """What the warning says about ``modes`` (each path's ``st_mode``): paths, modes and the fix.

    ``dirs`` tells which of the paths are directories.

    Example:
        >>> print(insecure_message({Path("/tmp/leads.sqlite"): 0o100644}))  # doctest: +ELLIPSIS
        /tmp/leads.sqlite (mode 0644) can be read or changed by ... chmod 600 /tmp/leads.sqlite
    """
    dir_set = set(dirs)
    named = ", ".join(
        f"{p} ({'directory, ' if p in dir_set else ''}mode {stat.S_IMODE(m):04o})"
        for p, m in modes.items()
    )
    files = [p for p in modes if p not in dir_set]
    command = chmod_command(dirs=[p for p in modes if p in dir_set], files=files)
    them = "them" if len(modes) > 1 else "it"
    return (
        f"{named} can be read or changed by other users on this machine, and the "
        "lookup_pandas cache holds personal data. lookup_pandas does not change the "
        f"permissions of what already exists; to make {them} private, run: {command}"
    )


# -- I/O ---------------------------------------------------------------------------------------


def make_private_dirs(directory: Path) -> list[Path]:
    """Create ``directory`` and its missing parents, each exactly 0700, and return those created.

    A directory that already exists, or that another process creates first, is left as it is.

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     [p.name for p in make_private_dirs(Path(tmp, "a", "b"))]
        ['a', 'b']
    """
    if not _POSIX:
        directory.mkdir(parents=True, exist_ok=True)
        return []
    created = []
    for path in reversed((directory, *directory.parents)):  # the outermost first
        if path.exists():
            continue
        try:
            os.mkdir(path, PRIVATE_DIR_MODE)  # the umask can only take bits away...
        except FileExistsError:
            if not path.is_dir():
                raise
            continue  # another process made it
        os.chmod(path, PRIVATE_DIR_MODE)  # ...and this puts back any it took (0o277: 0500)
        created.append(path)
    return created


def make_private_file(path: Path) -> bool:
    """Create ``path`` empty and exactly 0600 unless it exists. True when it was created.

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     make_private_file(Path(tmp, "a")), make_private_file(Path(tmp, "a"))
        (True, False)
    """
    if not _POSIX:
        return False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, PRIVATE_FILE_MODE)
    except FileExistsError:
        return False
    try:
        os.fchmod(fd, PRIVATE_FILE_MODE)
    finally:
        os.close(fd)
    return True


def prepare_sqlite_file(path: Path, *, check_dir: bool = False) -> None:
    """Make ``path``'s missing directories 0700 and ``path`` 0600, and warn about open ones.

    The warning names what already existed and others can get into, once per path per process.
    It checks the ``-wal`` and ``-shm`` files too. ``check_dir`` checks the directory as well
    (for the library's own default directory).

    Example: ``prepare_sqlite_file(default_cache_path(), check_dir=True)``
    """
    created_dirs = make_private_dirs(path.parent)
    if not _POSIX:
        return
    make_private_file(path)
    modes: dict[Path, int] = {}
    dirs = []
    if check_dir and path.parent not in created_dirs:
        dirs.append(path.parent)
    for candidate in (*dirs, *sqlite_files(path)):
        try:
            mode = os.stat(candidate).st_mode
        except OSError:  # not there (yet): SQLite makes -wal and -shm with the file's mode
            continue
        if open_to_others(mode):
            modes[candidate] = mode
    _warn_once(modes, dirs)


def while_locked(open_: Callable[[], T], attempts: int = 8) -> T:
    """``open_()``, tried again while another connection holds a new SQLite file's lock.

    Example:
        >>> while_locked(lambda: "connection")
        'connection'
    """
    for attempt in range(attempts):
        try:
            return open_()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(min(1.0, 0.05 * 2**attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def _warn_once(modes: dict[Path, int], dirs: list[Path]) -> None:
    """One InsecureCacheWarning naming the paths of ``modes`` not named before.

    A warning that a filter turned into an error does not count: the next Client raises it again.
    """
    with _warned_lock:
        fresh = {p: m for p, m in modes.items() if str(p.resolve()) not in _warned}
        keys = {str(p.resolve()) for p in fresh}
        _warned.update(keys)
    if not fresh:
        return
    try:
        warnings.warn(
            InsecureCacheWarning(insecure_message(fresh, dirs)),
            stacklevel=_caller_stacklevel(),
        )
    except BaseException:
        with _warned_lock:
            _warned.difference_update(keys)
        raise


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside the package: the user's line."""
    level = 1
    frame: FrameType | None = sys._getframe(1)  # the function calling warnings.warn: level 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level
