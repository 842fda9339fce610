r"""Reading the command's CSV: every cell as written, and each failure as one InputError line.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = str(Path(tmp, "leads.csv"))
    ...     _ = Path(path).write_text("handle,zip\nada,01234\n,N/A\n")
    ...     frame = read_csv(path, "utf-8")
    ...     rows = count_rows(path, 50_000)
    >>> frame["zip"].tolist(), frame["handle"].isna().tolist(), rows
    (['01234', 'N/A'], [False, True], 2)
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .exits import InputError
from .options import STDIN

if TYPE_CHECKING:
    import pandas as pd

#: How the CLI reads a CSV: every cell as written (text); only empty cells are missing.
_CSV_OPTIONS: dict[str, Any] = {"dtype": str, "keep_default_na": False, "na_values": [""]}


@contextlib.contextmanager
def _reading(path: str, encoding: str) -> Iterator[None]:
    """Failures of reading ``path``, at any chunk, as one-line InputErrors."""
    import pandas as pd

    try:
        yield
    except FileNotFoundError:
        raise InputError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a CSV file") from None
    except UnicodeDecodeError as exc:
        # pandas' exc.start counts within its own buffer: the file is read again to say where
        where = _undecodable(path, encoding) or f"0x{exc.object[exc.start]:02x}: {exc.reason}"
        raise InputError(
            f"cannot read {path} as {encoding} ({where}); pass its encoding, e.g. "
            "--encoding latin-1"
        ) from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"cannot read {path} as CSV: {' '.join(str(exc).split())}") from None


def _undecodable(path: str, encoding: str) -> str | None:
    r"""Where and why ``path`` first cannot be read as ``encoding``: its line, the byte's offset
    from the start of the file, the byte. None when it can, or cannot be read again (stdin).

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile(suffix=".csv") as file:
        ...     _ = file.write("handle\nJosé\n".encode("latin-1")) and file.flush()
        ...     _undecodable(file.name, "utf-8"), _undecodable(file.name, "latin-1")
        ('line 2, byte offset 10: 0xe9: invalid continuation byte', None)
    """
    if path == STDIN:
        return None
    decoder = codecs.getincrementaldecoder(encoding)()
    offset, lines = 0, 1  # bytes and line ends before the block being decoded
    try:
        with open(path, "rb") as source:
            while True:
                block = source.read(_BLOCK)
                held = decoder.getstate()[0]  # the end of the last block, not yet decoded
                try:
                    decoder.decode(block, final=not block)
                except UnicodeDecodeError as exc:
                    at = offset - len(held) + exc.start
                    line = lines + block[: max(0, at - offset)].count(b"\n")
                    bad = (held + block)[exc.start]
                    return f"line {line}, byte offset {at}: 0x{bad:02x}: {exc.reason}"
                if not block:
                    return None
                offset, lines = offset + len(block), lines + block.count(b"\n")
    except OSError:
        return None


def _check_encoding(encoding: str) -> None:
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r} (try utf-8, latin-1, cp1252)") from None


def read_csv(path: str, encoding: str, *, nrows: int | None = None) -> pd.DataFrame:
    """The CSV with every cell as written. Only empty cells are missing.

    Other columns are written back exactly as they were read. Handles follow one rule, here and
    after a plain ``pd.read_csv``: blanks and pandas' missing-value strings (``NA``, ``N/A``,
    ``null``...) are invalid handles, never sent.

    Example: ``read_csv("leads.csv", "utf-8")``, or ``read_csv("-", "utf-8")`` for stdin.
    """
    import pandas as pd

    _check_encoding(encoding)
    with _reading(path, encoding):
        source: Any = sys.stdin.buffer if path == STDIN else path  # "-": standard input
        frame: pd.DataFrame = pd.read_csv(source, encoding=encoding, nrows=nrows, **_CSV_OPTIONS)
        return frame


def csv_chunks(path: str, encoding: str, rows: int) -> Iterator[pd.DataFrame]:
    """The CSV as ``read_csv`` reads it, ``rows`` rows at a time.

    The last chunk is shorter. A file with only a header gives one empty chunk.

    Example: ``for chunk in csv_chunks("leads.csv", "utf-8", 10_000): ...``
    """
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


def count_rows(path: str, enough: int) -> int | None:
    """About how many rows a regular file holds, counted up to ``enough + 1``.

    None when it is no regular file (standard input, a pipe, a directory). A line break inside
    a quoted field counts as a row: only ever an over-count, which chunks.

    Example: ``count_rows("leads.csv", 50_000)`` -> ``250``, or ``50_001`` for any longer file.
    """
    if path == STDIN or file_size(path) is None:
        return None
    lines, last = 0, b"\n"
    try:
        with open(path, "rb") as source:
            while lines <= enough + 1 and (block := source.read(_BLOCK)):
                lines, last = lines + block.count(b"\n"), block[-1:]
    except OSError:
        return None  # the read that follows says why, as one line
    lines += last != b"\n"  # a last line without its line end
    return min(max(lines - 1, 0), enough + 1)


#: Bytes read at a time when rows are counted.
_BLOCK = 2**20


def file_size(path: str) -> int | None:
    """The size of a regular file, else None (a pipe, a directory, no such file).

    Example:
        >>> file_size("/dev/null") is None, file_size("/no/such/file") is None
        (True, True)
    """
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None
