"""Answers the cache could not keep: written to a small journal that the next run folds in.

The service bills an answer before the library can store it. When the store then fails (a full
disk, a read-only or damaged file, a lock held too long, a Redis gone), the answer is appended
to a journal file instead: beside a SQLite cache, else (its folder unwritable, or a Redis) in the
user's cache dir. When no journal can be written either, it is held in this process's memory.
The next read or write of the cache, in this process or the next, folds the journal in first:
nothing paid for is bought again. docs/decisions.md (*Answers a failing store could not keep*)
says why a journal, not a write before the count.

Each line is one answer as requests-cache's JSON serializer writes it, its key beside it, the
API key redacted as in the cache itself.

Example:
    >>> import tempfile
    >>> from requests_cache.models.response import CachedResponse
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     journal = Journal([Path(tmp, "leads.journal.jsonl")])
    ...     kept_in = journal.keep("key-of-ada", CachedResponse(status_code=200)).name
    ...     waiting = journal.waiting
    ...     folded = journal.fold(lambda key, response: None)  # each answer, stored
    >>> kept_in, waiting, folded, journal.waiting
    ('leads.journal.jsonl', 1, 1, 0)
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from requests_cache.models.response import CachedResponse
from requests_cache.serializers import json_serializer

from ..config.settings import default_cache_path
from ..store.private_files import make_private_dirs, make_private_file

__all__ = ["Journal", "journal_for_file", "journal_for_redis"]

logger = logging.getLogger(__name__)

#: Store is ``store(key, response)``: one answer written to the cache (StorageError if not).
Store = Callable[[str, CachedResponse], None]


class Journal:
    """The answers of one cache that its store could not keep, in the first of ``paths`` that
    can be written, else in memory. Thread-safe; one object per cache per process
    (:func:`journal_for_file`, :func:`journal_for_redis`).
    """

    def __init__(self, paths: list[Path]) -> None:
        self.paths = paths
        self._lock = threading.Lock()
        self._held: dict[str, str] = {}  # key -> serialized answer no file could take
        self._kept_in: Path | None = None  # where this process last kept one
        self._written = 0  # answers this process wrote to a journal file, not yet folded
        self._files_seen = False  # the files were looked at once: none, or folded

    @property
    def waiting(self) -> int:
        """How many answers wait to be folded in (those this process kept, and, before the
        first fold, a journal file left by another run counts as waiting)."""
        with self._lock:
            on_disk = self._written if self._files_seen else sum(1 for _ in self._lines())
            return on_disk + len(self._held)

    @property
    def due(self) -> bool:
        """Whether :meth:`fold` may have something to do. Cheap: after the first fold, no file
        is read until this process keeps an answer again."""
        return not self._files_seen or bool(self._written or self._held)

    def keep(self, key: str, response: CachedResponse) -> Path | None:
        """Append ``response`` (already redacted) under ``key``, synced to disk. Returns the
        file it went to, or None when only memory could hold it."""
        line = json.dumps({"key": key, "response": json_serializer.dumps(response)})
        with self._lock:
            for path in self.paths:
                try:
                    _append(path, line + "\n")
                except OSError as exc:
                    logger.debug("journal %s not writable: %s", path, exc)
                    continue
                self._kept_in, self._written = path, self._written + 1
                return path
            self._held[key] = line
            self._kept_in = None
            return None

    def told(self, count: int | None = None) -> str:
        """Where the answers kept are, for the error that stopped the run.

        Example:
            >>> print(Journal([Path("/data/leads.journal.jsonl")]).told(3))
            3 answers bought by then are kept in /data/leads.journal.jsonl: the next run folds
            them into the cache, so none is bought again
        """
        n = self.waiting if count is None else count
        answers = f"{n} answer{'s' * (n != 1)} bought by then {'is' if n == 1 else 'are'}"
        with self._lock:
            in_memory, where = bool(self._held), self._kept_in or self.paths[0]
        if in_memory:
            return (
                f"{answers} kept only in this process's memory (no journal file could be "
                "written either): fix the cause and run again in this session to keep them; "
                "they are lost if it ends first"
            )
        return (
            f"{answers} kept in {where}: the next run folds them into the cache, so none is "
            "bought again"
        )

    def fold(self, store: Store) -> int:
        """Store every answer waiting with ``store``, then empty the journal. Returns how many.

        A ``store`` that fails (StorageError) leaves the journal as it was: nothing is lost.
        ``store`` runs without this journal's lock (it takes the cache's): an answer kept
        meanwhile stays for the next fold.
        """
        with self._lock:
            lines = list(self._lines())
        entries = dict(_entries(lines))
        for key, response in entries.items():
            store(key, response)
        with self._lock:
            if list(self._lines()) == lines:  # nothing kept meanwhile
                for path in self.paths:
                    path.unlink(missing_ok=True)
                self._held.clear()
                self._written, self._files_seen = 0, True
        if entries:
            logger.info("folded %d answers from the journal into the cache", len(entries))
        return len(entries)

    def _lines(self) -> Iterator[str]:
        for path in self.paths:
            try:
                text = path.read_text(encoding="utf-8")
            except FileNotFoundError:
                continue
            yield from (line for line in text.splitlines() if line.strip())
        yield from self._held.values()


def _entries(lines: list[str]) -> Iterator[tuple[str, CachedResponse]]:
    """Each answer of ``lines``, the last one of a key winning. A line cut short (the process was
    killed while writing it) is skipped: its answer was never told as kept."""
    for line in lines:
        try:
            entry = json.loads(line)
            yield entry["key"], json_serializer.loads(entry["response"])
        except (ValueError, KeyError, TypeError) as exc:
            logger.warning("skipped an unreadable journal line: %s", exc)


def _append(path: Path, text: str) -> None:
    """``text`` added at the end of ``path`` (private, as every cache file), then synced."""
    make_private_dirs(path.parent)
    make_private_file(path)
    with path.open("a", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())


_JOURNALS: dict[str, Journal] = {}
_JOURNALS_LOCK = threading.Lock()


def _journal(name: str, paths: list[Path]) -> Journal:
    with _JOURNALS_LOCK:
        return _JOURNALS.setdefault(name, Journal(paths))


def _in_user_cache(name: str) -> Path:
    digest = hashlib.sha256(name.encode()).hexdigest()[:24]
    return default_cache_path().parent / "journals" / f"{digest}.jsonl"


def journal_for_file(cache_file: Path) -> Journal:
    """The journal of a SQLite cache file: beside it, else in the user's cache dir.

    Example:
        >>> journal_for_file(Path("/data/leads.sqlite")).paths[0]
        PosixPath('/data/leads.journal.jsonl')
    """
    name = str(cache_file.resolve())
    beside = cache_file.with_name(f"{cache_file.stem}.journal.jsonl")
    return _journal(name, [beside, _in_user_cache(name)])


def journal_for_redis(server: str, namespace: str) -> Journal:
    """The journal of a Redis cache's namespace (``server``: its URL without a password), in
    the user's cache dir.

    Example:
        >>> journal_for_redis("redis://127.0.0.1:6379/0", "ns").paths[0].parent.name
        'journals'
    """
    name = f"{server}#{namespace}"
    return _journal(name, [_in_user_cache(name)])
