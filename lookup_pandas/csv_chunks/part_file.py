r"""A text file that appears under its name only when complete (``.<name>.<random>.part``).

A part file is locked while its process writes it. One left by a process that was killed
(``kill -9``, a power cut) is removed by the next part file of the same target.

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with PartFile(Path(tmp, "out.csv")) as part:
    ...         _ = part.handle.write("a,b\n")
    ...         before = Path(tmp, "out.csv").exists()
    ...         part.commit()  # renamed onto out.csv at once (os.replace)
    ...     after = Path(tmp, "out.csv").read_text()
    >>> before, after
    (False, 'a,b\n')
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from pathlib import Path
from typing import TextIO

try:
    import fcntl
except ImportError:  # Windows: an open file cannot be removed there, which tells the same
    fcntl = None  # type: ignore[assignment]


class PartFile:
    """A text file that appears under its name only when complete.

    Leaving the block without ``commit()`` (an error, Ctrl-C) removes the part file, and the
    target stays as it was. The file is UTF-8 without newline translation: the bytes
    ``DataFrame.to_csv(path)`` would write.

    It is made beside the real target (a symbolic link is followed), and takes the mode of the
    file it replaces, or the mode a new file gets.

    Example: ``with PartFile("out.csv") as part:``, write to ``part.handle``, then ``part.commit()``
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.target = Path(os.path.realpath(path))
        remove_abandoned(self.target)
        self.path, fd = _created(self.target)
        try:
            self.handle: TextIO = open(fd, "w", encoding="utf-8", newline="")  # noqa: SIM115
        except BaseException:
            os.close(fd)
            self.path.unlink(missing_ok=True)
            raise
        self.committed = False

    def commit(self) -> None:
        """Close the part file and put it in place of the target, at once."""
        self.handle.close()
        with contextlib.suppress(FileNotFoundError):  # a new file: the mode it was made with
            os.chmod(self.path, stat.S_IMODE(os.stat(self.target).st_mode))
        os.replace(self.path, self.target)
        self.committed = True

    def discard(self) -> None:
        """Close and remove the part file (nothing happens to the target)."""
        self.handle.close()
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> PartFile:
        return self

    def __exit__(self, *exc_info: object) -> None:  # the same whether or not it failed
        if not self.committed:
            self.discard()


def _created(target: Path) -> tuple[Path, int]:
    """A new part file of ``target``, locked till this process closes it or dies: its path and
    descriptor."""
    while True:
        path = target.with_name(f".{target.name}.{secrets.token_hex(4)}.part")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        if fcntl is None:
            return path, fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            with contextlib.suppress(FileNotFoundError):
                if os.stat(path).st_ino == os.fstat(fd).st_ino:
                    return path, fd
        except BaseException:
            os.close(fd)
            path.unlink(missing_ok=True)
            raise
        os.close(fd)  # another run took it for abandoned before it was locked: make another


def remove_abandoned(target: Path) -> list[Path]:
    """Remove the part files of ``target`` that no process writes any more; returns them.

    A part file being written is locked by its writer (on Windows, open, so not removable), and
    is kept.

    Example: ``remove_abandoned(Path("out.csv"))`` -> ``[Path(".out.csv.1f2e3d4c.part")]``
    """
    pattern = re.compile(rf"\.{re.escape(target.name)}\.[0-9a-f]{{8}}\.part")
    removed = []
    with contextlib.suppress(OSError):
        for part in target.parent.iterdir():
            if pattern.fullmatch(part.name) and _abandoned(part):
                removed.append(part)
    return removed


def _abandoned(part: Path) -> bool:
    """Remove ``part`` if no process holds it. Whether it was removed."""
    try:
        fd = os.open(part, os.O_RDONLY)
    except OSError:
        return False
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # refused while its writer lives
        part.unlink()  # removed while locked: no writer can be taking it meanwhile
        return True
    except OSError:  # BlockingIOError: it is being written
        return False
    finally:
        os.close(fd)
