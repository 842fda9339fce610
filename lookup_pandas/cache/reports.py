"""What cache management reports: what a cache holds, what was removed or forgotten, what a
check found and a repair did.

Example:
    >>> print(CacheInfo("/c.sqlite", entries=1234, expired=12, bytes=5201152))
    cache:      /c.sqlite
    answers:    1,234, 12 of them expired (lookup-pandas cache prune)
    size:       5.0 MiB
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from requests_cache.models.response import CachedResponse

from ..store import store_path

__all__ = ["CacheCheck", "CacheInfo", "Forgotten", "Removed", "Repaired", "summarise"]


@dataclass(frozen=True)
class CacheInfo:
    """What a cache holds, at one moment.

    Attributes:
        entries: cached answers.
        expired: those past their expiry (removed by :func:`.admin.prune`, never used again).
        bytes: on SQLite, the cache file and the store file, each with its ``-wal`` and ``-shm``.
            On Redis, ``MEMORY USAGE`` summed over the namespace's keys (None when refused).
        oldest, newest: when the oldest and newest answers were stored (None without answers).
        jobs: batch jobs stored and not yet collected.
        location: the path, the Redis URL without its password, or ``"off"``.

    Example:
        >>> CacheInfo("off").entries
        0
    """

    location: str
    entries: int = 0
    expired: int = 0
    bytes: int | None = 0
    oldest: datetime | None = None
    newest: datetime | None = None
    jobs: int = 0

    def __str__(self) -> str:
        if self.location == "off":
            return "cache:      off (nothing is cached)"
        answers = f"{self.entries:,}" if self.entries else "none"
        if self.expired:
            answers += f", {self.expired:,} of them expired (lookup-pandas cache prune)"
        lines = [f"cache:      {self.location}", f"answers:    {answers}"]
        lines.append(f"size:       {_size(self.bytes)}")
        if self.oldest is not None and self.newest is not None:
            lines.append(f"stored:     from {_when(self.oldest)} to {_when(self.newest)}")
        if self.jobs:
            lines.append(f"batch jobs: {self.jobs:,} stored, not yet collected")
        return "\n".join(lines)


@dataclass(frozen=True)
class Removed:
    """What :func:`.admin.prune` or :func:`.admin.clear` removed: answers, jobs and their claims.

    ``complete`` is False when an old copy may remain in a SQLite write-ahead log.

    Example:
        >>> Removed("/c.sqlite", entries=12).complete
        True
    """

    location: str
    entries: int = 0
    jobs: int = 0
    complete: bool = True


@dataclass(frozen=True)
class Forgotten:
    """What :func:`.admin.forget` erased.

    Attributes:
        handles: the handles asked for, normalised.
        matched: those found in anything removed.
        profiles: profile answers removed (single calls and batch results).
        pages: search, employees and other pages removed, whole.
        emails: Email API answers removed (finds, verdicts, reversals).
        unreadable: answers that could not be read, removed.
        jobs: stored batch jobs that lost handles (a job left with none is removed).
        complete: False when an old copy may remain in a SQLite write-ahead log.

    Example:
        >>> print(Forgotten(("ada", "bob"), ("ada",), profiles=1))  # doctest: +ELLIPSIS
        forgot 2 handles: removed 1 profile answer, ... nothing was stored about bob
    """

    handles: tuple[str, ...]
    matched: tuple[str, ...] = ()
    profiles: int = 0
    pages: int = 0
    emails: int = 0
    unreadable: int = 0
    jobs: int = 0
    complete: bool = True
    location: str = field(default="", compare=False)

    @property
    def entries(self) -> int:
        """Cached answers removed, of every kind."""
        return self.profiles + self.pages + self.emails + self.unreadable

    def __str__(self) -> str:
        n = len(self.handles)
        parts = [_count(self.profiles, "profile answer"), _count(self.pages, "page")]
        if self.emails:
            parts.append(_count(self.emails, "email answer"))
        if self.unreadable:
            parts.append(_count(self.unreadable, "unreadable answer"))
        parts.append(_count(self.jobs, "batch job"))
        where = f" in {self.location}" if self.location else ""
        line = f"forgot {_count(n, 'handle')}{where}: removed {', '.join(parts)}"
        missing = [h for h in self.handles if h not in set(self.matched)]
        if missing:
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            shown = ", ".join(missing[:5]) + more
            line += f"; nothing was stored about {shown}"
        return line


@dataclass(frozen=True)
class CacheCheck:
    """What :func:`.repair.check` found in a cache file. Nothing was changed.

    Attributes:
        database: whether the file is a SQLite database at all (an empty file is not).
        problems: the first messages of ``PRAGMA quick_check`` (empty: none).
        answers, aliases: the rows of ``responses`` and ``redirects`` that can be read.
        lost_answers, lost_aliases: those that cannot (counted from the table's key index).
        counted: False when the key index was damaged too: then more may be lost.
        store: whether the store file beside it can be read (None: there is none).
        held: whether another process holds the file's write lock (repair refuses then).

    Example:
        >>> CacheCheck(Path("leads.sqlite"), answers=12).healthy
        True
    """

    path: Path
    database: bool = True
    problems: tuple[str, ...] = ()
    answers: int = 0
    aliases: int = 0
    lost_answers: int = 0
    lost_aliases: int = 0
    counted: bool = True
    store: bool | None = None
    held: bool = False

    @property
    def needs_repair(self) -> bool:
        """Whether the file is no database, or SQLite found a problem or lost rows in it."""
        return not self.database or bool(self.problems or self.lost_answers or self.lost_aliases)

    @property
    def healthy(self) -> bool:
        """Nothing to repair, and a readable store (or none)."""
        return not self.needs_repair and self.store is not False

    @property
    def verdict(self) -> str:
        """What it means, in one line.

        Example:
            >>> CacheCheck(Path("c.sqlite"), problems=("malformed",), answers=9, lost_answers=2
            ...            ).verdict  # doctest: +NORMALIZE_WHITESPACE
            'damaged: lookup-pandas cache repair keeps the 9 answers it can read; the 2 lost
             are bought again when needed'
        """
        if not self.database:
            return (
                "not a SQLite database: lookup-pandas cache repair keeps it aside and starts an "
                "empty cache"
            )
        if self.healthy:
            return "healthy"
        if not self.needs_repair:
            return (
                "its answers are sound, but the store file beside it is damaged: move it aside "
                "and the next run starts a new one (stored batch jobs not yet collected are "
                "bought again)"
            )
        more = "" if self.counted else " (at least)"
        return (
            f"damaged: lookup-pandas cache repair keeps the {_count(self.answers, 'answer')} it "
            f"can read; the {self.lost_answers:,}{more} lost are bought again when needed"
        )

    def __str__(self) -> str:
        lines = [f"cache:      {self.path}"]
        if self.database:
            problems = "; ".join(self.problems) or "ok"
            lost = f", {self.lost_answers:,} lost" if self.lost_answers else ""
            lines.append(f"integrity:  {problems}")
            lines.append(f"answers:    {self.answers:,} readable{lost}")
            lost = f", {self.lost_aliases:,} lost" if self.lost_aliases else ""
            lines.append(f"aliases:    {self.aliases:,} readable{lost}")
        state = {None: "none beside it", True: "readable", False: "damaged"}[self.store]
        lines.append(f"store:      {store_path(self.path)}: {state}")
        if self.held:
            lines.append("held:       another process holds its write lock")
        lines.append(f"verdict:    {self.verdict}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Repaired:
    """What :func:`.repair.repair` did: the answers and aliases kept, those lost, where the damaged
    file is kept (None: nothing needed repair, and nothing was done).

    Example:
        >>> print(Repaired(Path("c.sqlite"), None))
        the answers in c.sqlite are sound: nothing was changed
    """

    path: Path
    kept_as: Path | None
    database: bool = True
    answers: int = 0
    aliases: int = 0
    lost_answers: int = 0
    lost_aliases: int = 0

    def __str__(self) -> str:
        if self.kept_as is None:
            return f"the answers in {self.path} are sound: nothing was changed"
        if not self.database:
            return (
                f"{self.path} was not a SQLite database: no answer could be kept; it is kept as "
                f"{self.kept_as}, and an empty cache is in its place"
            )
        lost = ", ".join(
            _count(n, what)
            for n, what in ((self.lost_answers, "answer"), (self.lost_aliases, "alias"))
            if n
        )
        lost = f"; lost {lost} (bought again when needed)" if lost else ""
        return (
            f"repaired {self.path}: kept {_count(self.answers, 'answer')} and "
            f"{_count(self.aliases, 'alias')}{lost}; the damaged file is kept as {self.kept_as}"
        )


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{('es' if what.endswith('s') else 's') * (n != 1)}"


def _size(n: int | None) -> str:
    if n is None:
        return "unknown (the Redis refuses MEMORY USAGE)"
    if n < 1024:
        return f"{n} bytes"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    return f"{value:.1f} {unit}"


def _when(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


def summarise(
    responses: Iterable[CachedResponse],
) -> tuple[datetime | None, datetime | None, int]:
    """``(oldest, newest, expired)``: when the first and last answers were stored, how many expired.

    Example:
        >>> summarise([])
        (None, None, 0)
    """
    oldest = newest = None
    expired = 0
    for response in responses:
        created = response.created_at
        oldest = created if oldest is None or created < oldest else oldest
        newest = created if newest is None or created > newest else newest
        expired += bool(response.is_expired)
    return oldest, newest, expired
