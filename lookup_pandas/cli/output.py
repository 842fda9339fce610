"""Where a command's CSV goes: stdout, or a file checked before anything is paid for.

Example:
    >>> to_stdout(None), to_stdout("-"), target("out.csv")
    (True, True, ' -> out.csv')

Example: ``check_output("out.csv", source="leads.csv")`` before the job, then
``write_frame(frame, "out.csv")``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..csv_chunks.part_file import PartFile
from .exits import InputError
from .options import STDIN

if TYPE_CHECKING:
    import pandas as pd


def to_stdout(output: str | None) -> bool:
    """No ``-o``, or ``-o -``: the output is standard output."""
    return output in (None, "-")


def target(output: str | None) -> str:
    """`` -> FILE`` for a summary line, or nothing for stdout."""
    return "" if to_stdout(output) else f" -> {output}"


@contextlib.contextmanager
def _writing(output: str | None) -> Iterator[None]:
    """A failure to write ``output`` as one InputError line (exit 2)."""
    try:
        yield
    except OSError as exc:
        raise InputError(
            f"cannot write {output}: {exc.strerror or exc} (every answer is cached: running "
            "again costs nothing)"
        ) from None


def check_output(output: str | None, *, source: str | None = None) -> None:
    r"""Check, before anything is paid for, that ``output`` can be written and is not ``source``.

    ``source`` is the command's input file, however either is written (``./in.csv``, an absolute
    path, a symbolic or hard link). Writing over it would destroy the input.

    Example:
        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     source = os.path.join(tmp, "in.csv")
        ...     _ = Path(source).write_text("handle\n")
        ...     check_output(os.path.join(tmp, ".", "in.csv"), source=source)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        lookup_pandas.cli.exits.InputError: cannot write ...: it is the input file ...
    """
    if output is None or to_stdout(output):
        return
    if source is not None and _same_file(source, output):
        named = "" if source == output else f" {source}"
        raise InputError(
            f"cannot write {output}: it is the input file{named}; name another file with -o"
        )
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


def _same_file(source: str, output: str) -> bool:
    """Whether both names lead to one file (device and inode).

    A name that does not exist yet, or standard input, is no file of the other's.
    """
    if source == STDIN:
        return False
    try:
        return os.path.samefile(source, output)
    except OSError:  # either does not exist (yet), or cannot be looked at
        return False


def write_frame(frame: pd.DataFrame, output: str | None) -> None:
    """``frame`` as CSV (lists and dicts as JSON text) to ``output`` or stdout.

    Example:
        >>> import pandas as pd
        >>> write_frame(pd.DataFrame({"handle": ["ada"], "skills": [["python"]]}), None)
        handle,skills
        ada,"[""python""]"
    """
    from ..frames.records import to_csv_cells

    cells = to_csv_cells(frame)
    if output is None or to_stdout(output):
        cells.to_csv(sys.stdout, index=False)
        return
    with _writing(output):
        cells.to_csv(output, index=False)


@contextlib.contextmanager
def open_output(output: str | None) -> Iterator[Callable[[str], object]]:
    """What writes text to stdout, or to a part file beside ``output`` put in its place when the
    block ends, and removed when it fails.

    The part file is made now, so a directory that cannot take it fails before the job.
    """
    if output is None or to_stdout(output):
        yield sys.stdout.write
        return
    with _writing(output):
        part = PartFile(output)
    with part:

        def write(text: str) -> None:
            with _writing(output):
                part.handle.write(text)

        yield write
        with _writing(output):
            part.commit()
