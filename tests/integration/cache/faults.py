"""Storage faults for the tests of issue 42: a tiny disk, a run that meets a fault mid-way.

``TinyDisk`` is a real 16 MiB tmpfs where the machine lets the tests mount one (as root, with
CAP_SYS_ADMIN). Elsewhere it injects the fault at the one place answers are written
(``PaidAnswersCache.write_answer``), where a cache file is first written as it opens
(``_check_not_held``) and where journals are written (``journal._append``): the
same SQLite and OS errors a full or read-only disk gives, on paths under it only.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp
from lookup_pandas.cache import journal as journal_module
from lookup_pandas.cache import sqlite as cache_sqlite
from lookup_pandas.cache.sqlite import PaidAnswersCache
from lookup_pandas.store.sqlite_faults import storage_error

#: Room for both WAL files (each checkpointed at 1,000 pages, 4 MiB) before the fill.
SIZE = "16m"
_FULL, _READ_ONLY = "full", "read-only"


class TinyDisk:
    """A folder on a small disk that the test fills, frees, makes read-only and writable again."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch, *, real: bool = True) -> None:
        self.root = root
        root.mkdir()
        done = real and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", str(root)],
            capture_output=True,
            check=False,
        )
        self.real = bool(done) and done.returncode == 0
        self.state: str | None = None  # the injected fault, when not real
        if not self.real:
            self._inject(monkeypatch)

    def _inject(self, monkeypatch: pytest.MonkeyPatch) -> None:
        write_answer, append = PaidAnswersCache.write_answer, journal_module._append
        disk = self

        def failing_write(self: PaidAnswersCache, *args: Any, **kwargs: Any) -> None:
            if disk.state is not None and disk.root in Path(self.db_path).parents:
                full = disk.state == _FULL
                exc = sqlite3.OperationalError(
                    "database or disk is full" if full else "attempt to write a readonly database"
                )
                exc.sqlite_errorname = "SQLITE_FULL" if full else "SQLITE_READONLY"
                raise storage_error(Path(self.db_path), exc) from exc  # as write_answer says it
            write_answer(self, *args, **kwargs)

        def failing_append(path: Path, text: str) -> None:
            if disk.state is not None and disk.root in path.parents:
                code = errno.ENOSPC if disk.state == _FULL else errno.EROFS
                raise OSError(code, os.strerror(code), str(path))
            append(path, text)

        check_not_held = cache_sqlite._check_not_held

        def failing_open(path: Path) -> None:
            if disk.state == _READ_ONLY and disk.root in path.parents:
                exc = sqlite3.OperationalError("attempt to write a readonly database")
                exc.sqlite_errorname = "SQLITE_READONLY"
                raise exc
            check_not_held(path)

        monkeypatch.setattr(cache_sqlite, "_check_not_held", failing_open)
        monkeypatch.setattr(PaidAnswersCache, "write_answer", failing_write)
        monkeypatch.setattr(journal_module, "_append", failing_append)

    def fill(self) -> None:
        """No byte left on the disk."""
        if not self.real:
            self.state = _FULL
            return
        with open(self.root / "filler", "wb") as out:
            chunk = b"\0" * 65536
            try:
                while True:
                    out.write(chunk)
                    out.flush()
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc

    def free(self) -> None:
        if not self.real:
            self.state = None
            return
        (self.root / "filler").unlink()

    def read_only(self) -> None:
        """The whole disk read-only, for root too."""
        if not self.real:
            self.state = _READ_ONLY
            return
        _run("mount", "-o", "remount,ro", str(self.root))

    def writable(self) -> None:
        if not self.real:
            self.state = None
            return
        _run("mount", "-o", "remount,rw", str(self.root))

    def unmount(self) -> None:
        if self.real:
            subprocess.run(["umount", "-l", str(self.root)], check=False)


def _run(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True)


def enrich(client: lp.Client, handles: list[str]) -> pd.DataFrame:
    """One enrichment of ``handles`` by single calls, no bar."""
    frame = pd.DataFrame({"handle": handles})
    return frame.lookup.enrich_profiles("handle", client=client, method="single", progress=False)


def bought_twice(counts: Counter[str]) -> int:
    """Answers the service billed more than once."""
    return sum(n - 1 for n in counts.values() if n > 1)
