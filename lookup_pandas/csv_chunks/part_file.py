r"""A text file that appears under its name only when complete (``.<name>.<random>.part``).

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
import secrets
import stat
from pathlib import Path
from typing import TextIO


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
        self.path = self.target.with_name(f".{self.target.name}.{secrets.token_hex(4)}.part")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
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
