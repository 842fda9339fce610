"""Cache management: what the cache holds, and removing it (expired answers, all, or a person's).

Example::

    client.cache_info()       # CacheInfo(entries=1234, expired=12, bytes=5201152, ...)
    client.prune()            # 12: the expired answers, removed
    client.forget(["ada-lovelace", "https://www.example.com/in/grace-hopper/"])
    # Forgotten(profiles=2, pages=1, jobs=1, ...): every stored answer about them, erased
    client.clear()            # 1222: every answer, and the stored batch jobs and claims

    # without a Client or an API key: the cache LOOKUP_CACHE names (``lookup-pandas cache ...``)
    print(cache_info(CacheLocation.from_environment()))

What :func:`forget` removes: every cached answer that mentions one of the handles, found by
reading each answer (the request URL's ``handle`` parameter, and any JSON object in the body
whose ``"handle"`` is one of them): their profile answers (single calls and batch results are
both stored as ``GET /people/profile?handle=...``) and every search or employees page (or any
other answer) holding them, whole: the others on it are fetched again when next needed.
Answers that cannot be read at all are removed too: they could hold anyone, and the Client
cannot use them either.
The handles are also erased from the stored batch jobs, and a job never caches a result that
its stored inputs no longer hold (:mod:`lookup_pandas.batch_run`), so resuming it cannot bring
the person back. Handles are normalised as enrichment normalises them (profile URLs accepted,
lower case unless ``fold_case=False``). What asks for the person again (an enrichment, one
running at the time included) fetches and caches them again.

Erasure that erases, on SQLite: the deleting connections run with ``PRAGMA secure_delete=ON``
(deleted rows are overwritten with zeros, whatever the build's default), then the cache file and
its store file are rewritten (``VACUUM``: copies that earlier updates left in free pages go too)
and their write-ahead logs emptied (``PRAGMA wal_checkpoint(TRUNCATE)``), so that no byte of the
files, ``-wal`` and ``-shm`` included, holds what was removed. The rewrite takes about as long
as copying the files. A checkpoint cannot finish while another process is reading the file: it
is tried :data:`CHECKPOINT_ATTEMPTS` times, then the result says ``complete=False`` and an
:class:`IncompleteErasureWarning` names the file (run again when the cache is idle). On Redis,
keys are deleted (``DEL``); its own persistence (RDB snapshots, the AOF) can keep the old bytes
on disk until the next ``BGSAVE`` / ``BGREWRITEAOF``.

Scope: one SQLite cache file holds the answers of every key used with it, so prune, clear and
forget act on the whole file, and on the stored jobs of every key in its store file. A Redis
files everything per key (``lookup_pandas:<namespace>:``): a Client acts on its own namespace;
a :class:`CacheLocation` without a namespace (the CLI without both ``LOOKUP_API_KEY`` and
``LOOKUP_BASE_URL``) on every namespace in that database.

The decisions (which handles, which answers mention them, what the figures are) are plain
functions of their inputs; :class:`OpenCache` does the I/O, through requests-cache's own
backends (``filter``, ``delete``) wherever they offer it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import parse_qs, urlsplit

from requests_cache.backends.base import BaseCache
from requests_cache.backends.sqlite import SQLiteCache
from requests_cache.models.response import CachedResponse

from .endpoints import PROFILE_PATH
from .errors import IncompleteErasureWarning, UsageError
from .handles import invalid_reason, normalise_handle
from .settings import ENV_API_KEY, ENV_BASE_URL, Settings, _cache_setting, redact_url
from .store import Store, namespace, store_path

logger = logging.getLogger(__name__)

__all__ = [
    "CHECKPOINT_ATTEMPTS",
    "CacheInfo",
    "CacheLocation",
    "Forgotten",
    "IncompleteErasureWarning",
    "OpenCache",
    "Removed",
    "cache_info",
    "checkpointed",
    "clear",
    "forget",
    "handles_in",
    "mentioned",
    "prune",
    "wanted_handles",
]

#: Tries of ``PRAGMA wal_checkpoint(TRUNCATE)`` before an erasure is reported incomplete, the
#: longest each waits for a reader to finish (ms), and the pause between two tries (s).
CHECKPOINT_ATTEMPTS = 5
CHECKPOINT_WAIT_MS = 500
CHECKPOINT_PAUSE_S = 0.2
#: Redis keys measured with MEMORY USAGE per round trip.
_MEMORY_CHUNK = 500


# -- what is reported ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CacheInfo:
    """What a cache holds (a snapshot).

    ``entries``: cached answers; ``expired``: those past their expiry (pruned by
    :func:`prune`; never used again); ``bytes``: on SQLite the sizes of the cache file and its
    store file, each with its ``-wal`` and ``-shm``; on Redis the sum of ``MEMORY USAGE`` over
    the namespace's keys (None when the server refuses the command); ``oldest`` and
    ``newest``: when the oldest and newest answers were stored (None when there are none);
    ``jobs``: batch jobs stored and not yet collected; ``location``: the path, or the Redis URL
    without its password (``"off"``: no cache).
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
    """What :func:`prune` or :func:`clear` removed: ``entries`` answers and ``jobs`` stored
    batch jobs (their claims too). ``complete``: False when an old copy may remain in a SQLite
    write-ahead log (see :class:`IncompleteErasureWarning`)."""

    location: str
    entries: int = 0
    jobs: int = 0
    complete: bool = True


@dataclass(frozen=True)
class Forgotten:
    """What :func:`forget` erased.

    ``handles``: the handles asked for, normalised; ``matched``: those found in anything
    removed; ``profiles``: profile answers removed (single calls and batch results);
    ``pages``: search, employees and other pages removed (whole); ``unreadable``: answers that
    could not be read, removed; ``jobs``: stored batch jobs that lost handles (a job left with
    none is removed); ``complete``: False when an old copy may remain in a SQLite write-ahead
    log (see :class:`IncompleteErasureWarning`).
    """

    handles: tuple[str, ...]
    matched: tuple[str, ...] = ()
    profiles: int = 0
    pages: int = 0
    unreadable: int = 0
    jobs: int = 0
    complete: bool = True
    location: str = field(default="", compare=False)

    @property
    def entries(self) -> int:
        """Cached answers removed, of every kind."""
        return self.profiles + self.pages + self.unreadable

    def __str__(self) -> str:
        n = len(self.handles)
        parts = [_count(self.profiles, "profile answer"), _count(self.pages, "page")]
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


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}{'s' * (n != 1)}"


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


# -- decisions (no I/O) ---------------------------------------------------------------------------


def wanted_handles(values: str | Iterable[object], *, fold_case: bool = True) -> tuple[str, ...]:
    """The handles to forget, normalised as enrichment normalises them, each once, in order.

    Example: ``wanted_handles(["Ada", "https://www.example.com/in/ada/", "grace"])`` ->
    ``("ada", "grace")``. A single string is one handle. A value that is no handle (blank,
    ``N/A``, a URL without ``/in/<handle>``) is a UsageError naming it, before anything is
    erased: a typo must not pass for an erasure.
    """
    items: Iterable[object] = [values] if isinstance(values, str) else values
    handles: list[str] = []
    bad: list[str] = []
    for value in items:
        handle = normalise_handle(value, fold_case=fold_case)
        if handle is None:
            bad.append(f"{value!r} ({invalid_reason(value, fold_case=fold_case)})")
        else:
            handles.append(handle)
    if bad:
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        raise UsageError(
            f"Not a handle or profile URL: {', '.join(bad[:3])}{more}. Nothing was erased."
        )
    return tuple(dict.fromkeys(handles))


def handles_in(body: Any) -> Iterator[str]:
    """Every ``"handle"`` string of every JSON object in ``body`` (a decoded JSON value).

    Example: ``list(handles_in({"data": [{"handle": "ada"}, {"handle": "grace"}]}))`` ->
    ``["ada", "grace"]``
    """
    stack = [body]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            handle = value.get("handle")
            if isinstance(handle, str):
                yield handle
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)


def mentioned(
    urls: Iterable[str], content: bytes, forgotten: frozenset[str], *, fold_case: bool = True
) -> set[str]:
    """Which of ``forgotten`` (normalised handles) an answer mentions: in a request URL's
    ``handle`` parameter, or as the ``"handle"`` of any object in its JSON body.

    Example: ``mentioned(["https://api/people/profile?handle=Ada"], b"{}", frozenset({"ada"}))``
    -> ``{"ada"}``
    """
    found: set[str] = set()

    def check(value: object) -> None:
        handle = normalise_handle(value, fold_case=fold_case)
        if handle is not None and handle in forgotten:
            found.add(handle)

    for url in urls:
        for value in parse_qs(urlsplit(url).query).get("handle", []):
            check(value)
    try:
        body = json.loads(content) if content else None
    except ValueError:  # not JSON (UnicodeDecodeError is a ValueError): the URL is all there is
        body = None
    for value in handles_in(body):
        check(value)
    return found


def kind_of(url: str) -> Literal["profile", "page"]:
    """A profile answer (``GET /people/profile``), or a page of a list."""
    return "profile" if urlsplit(url).path.endswith(PROFILE_PATH) else "page"


def summarise(
    responses: Iterable[CachedResponse],
) -> tuple[datetime | None, datetime | None, int]:
    """``(oldest, newest, expired)`` of cached answers: when the first and the last were
    stored, and how many are past their expiry."""
    oldest = newest = None
    expired = 0
    for response in responses:
        created = response.created_at
        oldest = created if oldest is None or created < oldest else oldest
        newest = created if newest is None or created > newest else newest
        expired += bool(response.is_expired)
    return oldest, newest, expired


def checkpointed(
    attempt: Callable[[], bool],
    *,
    attempts: int,
    pause: float,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """Whether ``attempt()`` (one checkpoint) succeeded within ``attempts`` tries, ``pause``
    seconds apart.

    Example: ``checkpointed(lambda: conn.execute(...).fetchone()[0] == 0, attempts=5,
    pause=0.2)``
    """
    for i in range(attempts):
        if attempt():
            return True
        if i < attempts - 1:
            sleep(pause)
    return False


# -- where a cache is ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CacheLocation:
    """Where a cache is, without a key or a service: what the cache commands work on.

    Example: ``CacheLocation.from_environment()`` -> the file (or Redis) ``LOOKUP_CACHE``
    names, else the default file in the user cache dir.

    ``namespace``: the key's namespace in a Redis (None: every namespace there). A SQLite
    cache is acted on whole, whatever it says.
    """

    path: Path | None
    url: str | None = field(default=None, repr=False)  # password and all: only to connect
    namespace: str | None = None

    @property
    def label(self) -> str:
        """The path, the Redis URL without its password, or ``"off"``."""
        if self.url is not None:
            return redact_url(self.url)
        return str(self.path) if self.path is not None else "off"

    def __repr__(self) -> str:
        return f"CacheLocation({self.label!r}, namespace={self.namespace!r})"

    @classmethod
    def from_settings(cls, settings: Settings) -> CacheLocation:
        """The cache of a Client with these settings (its own namespace in a Redis)."""
        ns = namespace(settings.api_key, settings.base_url)
        return cls(settings.cache_path, settings.cache_url, ns)

    @classmethod
    def from_environment(cls) -> CacheLocation:
        """``LOOKUP_CACHE`` (a path, a Redis URL, ``off``), else the default file. In a Redis,
        the namespace of ``LOOKUP_API_KEY`` and ``LOOKUP_BASE_URL`` when both are set (the
        Client's), else every namespace. Nothing else is needed: no key for a SQLite file."""
        path, url = _cache_setting(True)
        ns = None
        if url is not None and _set(ENV_API_KEY) and _set(ENV_BASE_URL):
            settings = Settings.build(cache=False)  # the key and URL, read as a Client reads them
            ns = namespace(settings.api_key, settings.base_url)
        return cls(path, url, ns)


def _set(name: str) -> bool:
    return bool(os.environ.get(name, "").strip())


# -- the I/O ------------------------------------------------------------------------------------

_GONE = object()  # an answer deleted while it was being read


class _Answers(Protocol):
    """One requests-cache backend's answers, as the functions here use them."""

    def keys(self) -> list[str]: ...

    def readable(self) -> Iterator[CachedResponse]: ...

    def read(self, key: str) -> object: ...

    def delete(self, keys: Sequence[str]) -> None: ...

    def delete_expired(self) -> int: ...


class _SQLiteAnswers:
    """A requests-cache SQLite backend (the one the process shares for that file)."""

    def __init__(self, cache: SQLiteCache) -> None:
        self.cache = cache

    def keys(self) -> list[str]:
        return list(self.cache.responses.keys())

    def readable(self) -> Iterator[CachedResponse]:
        # SQLiteCache.filter: one query over every row, expired ones too (unreadable: skipped)
        return self.cache.filter(valid=True, expired=True)

    def read(self, key: str) -> object:
        try:
            return self.cache.responses[key]  # None: it cannot be deserialized
        except KeyError:
            return _GONE

    def delete(self, keys: Sequence[str]) -> None:
        if keys:
            self.cache.delete(*keys, vacuum=False)  # OpenCache.rewrite vacuums it after

    def delete_expired(self) -> int:
        # requests-cache's own delete(expired=True) runs this statement, without a count
        responses = self.cache.responses
        with responses.connection(commit=True) as conn:
            removed = conn.execute(
                f"DELETE FROM {responses.table_name} WHERE expires <= ?", (round(time.time()),)
            ).rowcount
        self.cache.delete()  # the redirects that now lead nowhere
        return int(removed)

    @contextlib.contextmanager
    def securely(self) -> Iterator[None]:
        """Its connections (``responses`` and ``redirects``: one each) delete with
        ``secure_delete`` on, writers of this process waiting meanwhile; set back after."""
        tables = (self.cache.responses, self.cache.redirects)
        with self.cache.responses._lock:
            before = []
            for table in tables:
                with table.connection() as conn:
                    before.append(int(conn.execute("PRAGMA secure_delete").fetchone()[0]))
                    conn.execute("PRAGMA secure_delete = ON")
            try:
                yield
            finally:
                for table, value in zip(tables, before, strict=True):
                    with table.connection() as conn:
                        conn.execute(f"PRAGMA secure_delete = {value}")

    def rewrite(self) -> bool:
        with self.cache.responses._lock, self.cache.responses.connection() as conn:
            return _rewrite(conn, Path(self.cache.db_path))


class _RedisAnswers:
    """requests-cache's Redis backend of one namespace (``RedisAnswersCache``)."""

    def __init__(self, cache: BaseCache, url: str) -> None:
        self.cache = cache
        self.url = url

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        import redis

        from .store.redis import redis_error

        try:
            yield
        except redis.exceptions.RedisError as exc:
            raise redis_error(self.url, exc) from None

    def keys(self) -> list[str]:
        with self._translated():
            return list(self.cache.responses.keys())

    def readable(self) -> Iterator[CachedResponse]:
        with self._translated():
            yield from self.cache.filter(valid=True, expired=True)

    def read(self, key: str) -> object:
        with self._translated():
            try:
                return self.cache.responses[key]
            except KeyError:
                return _GONE

    def delete(self, keys: Sequence[str]) -> None:
        if keys:
            with self._translated():
                self.cache.delete(*keys)

    def delete_expired(self) -> int:
        with self._translated():
            expired = [r.cache_key for r in self.cache.filter(valid=False, expired=True)]
        self.delete(expired)
        return len(expired)


def _rewrite(conn: sqlite3.Connection, path: Path) -> bool:
    """``VACUUM`` (a fresh copy: no free page keeps old rows), then empty the write-ahead log
    (``wal_checkpoint(TRUNCATE)``), tried a few times while another process reads; whether
    both were done."""
    try:
        conn.execute("VACUUM")
        vacuumed = True
    except sqlite3.OperationalError as exc:
        logger.debug("could not rewrite %s (VACUUM): %s", path, exc)
        vacuumed = False
    (timeout,) = conn.execute("PRAGMA busy_timeout").fetchone()
    conn.execute(f"PRAGMA busy_timeout = {CHECKPOINT_WAIT_MS}")

    def truncate() -> bool:
        try:
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.OperationalError as exc:
            logger.debug("checkpoint of %s: %s", path, exc)
            return False
        return int(busy) == 0

    try:
        emptied = checkpointed(truncate, attempts=CHECKPOINT_ATTEMPTS, pause=CHECKPOINT_PAUSE_S)
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
    return vacuumed and emptied


def _with_companions(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


class OpenCache:
    """A cache opened for managing: its answers (one backend per namespace), its store, and
    how to measure and rewrite its files. Built from a Client (:meth:`of_client`) or a
    :class:`CacheLocation` (:meth:`open`, which closes what it opened)."""

    def __init__(
        self,
        label: str,
        answers: list[_Answers],
        store: Store | None,
        *,
        every_namespace: bool,
        sqlite: _SQLiteAnswers | None = None,
        store_file: Path | None = None,
        redis: tuple[Any, str, list[str]] | None = None,
    ) -> None:
        self.label = label
        self.answers = answers
        self.store = store
        self.every_namespace = every_namespace
        self._sqlite = sqlite
        self._store_file = store_file
        self._redis = redis  # (connection, url, namespaces)

    @classmethod
    def of_client(cls, settings: Settings, cache: BaseCache | None, store: Store) -> OpenCache:
        """What a Client holds: its cache backend (None: no cache) and its store."""
        label = settings.cache_label
        if cache is None:
            return cls(label, [], store, every_namespace=False)
        if isinstance(cache, SQLiteCache):
            assert settings.cache_path is not None
            sqlite = _SQLiteAnswers(cache)
            return cls(
                label,
                [sqlite],
                store,
                every_namespace=True,
                sqlite=sqlite,
                store_file=store_path(settings.cache_path),
            )
        assert settings.cache_url is not None
        ns = namespace(settings.api_key, settings.base_url)
        connection = cache.responses.connection  # type: ignore[attr-defined]
        return cls(
            label,
            [_RedisAnswers(cache, settings.cache_url)],
            store,
            every_namespace=False,
            redis=(connection, settings.cache_url, [ns]),
        )

    @classmethod
    @contextlib.contextmanager
    def open(cls, location: CacheLocation) -> Iterator[OpenCache]:
        """The cache at ``location``, closed afterwards. A SQLite file that does not exist is
        not created."""
        if location.url is not None:
            with _open_redis(location) as opened:
                yield opened
        elif location.path is not None:
            with _open_sqlite(location.path) as opened:
                yield opened
        else:
            yield cls("off", [], None, every_namespace=False)

    # -- what every operation needs ---------------------------------------------------------

    @contextlib.contextmanager
    def securely(self) -> Iterator[None]:
        """Deleting with SQLite's ``secure_delete`` on (nothing to do on Redis)."""
        if self._sqlite is None:
            yield
            return
        with self._sqlite.securely():
            yield

    def rewrite(self) -> list[Path]:
        """Rewrite the SQLite files and empty their write-ahead logs; the files where that
        could not be finished (none on Redis, or without a cache)."""
        failed = []
        if self._sqlite is not None and not self._sqlite.rewrite():
            failed.append(Path(self._sqlite.cache.db_path))
        if self._store_file is not None and self._store_file.exists():
            conn = sqlite3.connect(self._store_file, timeout=30.0, isolation_level=None)
            try:
                if not _rewrite(conn, self._store_file):
                    failed.append(self._store_file)
            finally:
                conn.close()
        return failed

    def size(self) -> int | None:
        """Bytes on disk (SQLite, with ``-wal`` and ``-shm``) or in memory (Redis)."""
        if self._redis is not None:
            return _redis_memory(*self._redis)
        files = []
        if self._sqlite is not None:
            files += _with_companions(Path(self._sqlite.cache.db_path))
        if self._store_file is not None:
            files += _with_companions(self._store_file)
        return sum(f.stat().st_size for f in files if f.exists())


@contextlib.contextmanager
def _open_sqlite(path: Path) -> Iterator[OpenCache]:
    from .store.local import LocalStore
    from .transport import _BACKENDS, sqlite_cache_file

    file = sqlite_cache_file(path)
    stored = store_path(path)
    store = LocalStore(stored, namespace="")  # every namespace: see the module doc
    sqlite = None
    shared = None  # the process's shared backend for the file, to let go of
    try:
        if file.exists():  # never create a cache only to say it is empty
            backend, shared = _BACKENDS.acquire(path)
            sqlite = _SQLiteAnswers(backend)
        answers: list[_Answers] = [sqlite] if sqlite is not None else []
        yield OpenCache(
            str(path), answers, store, every_namespace=True, sqlite=sqlite, store_file=stored
        )
    finally:
        store.close()
        if shared is not None:
            _BACKENDS.release(shared)


@contextlib.contextmanager
def _open_redis(location: CacheLocation) -> Iterator[OpenCache]:
    from .transport import _redis_store_module

    module = _redis_store_module()  # a ConfigurationError saying how to install redis
    url = location.url
    assert url is not None
    connection = module.connect(url)
    try:
        names = (
            [location.namespace]
            if location.namespace is not None
            else module.namespaces(connection, url)
        )
        answers: list[_Answers] = [
            _RedisAnswers(module.RedisAnswersCache(url, ns, connection=connection), url)
            for ns in names
        ]
        store = module.RedisStore(url, location.namespace or "", connection=connection)
        yield OpenCache(
            location.label,
            answers,
            store,
            every_namespace=location.namespace is None,
            redis=(connection, url, names),
        )
    finally:
        connection.close()


def _redis_memory(connection: Any, url: str, names: list[str]) -> int | None:
    """``MEMORY USAGE`` summed over every key of the namespaces; None when refused."""
    import redis

    from .store.redis import key_prefix, redis_error

    total = 0
    try:
        for ns in names:
            keys = list(connection.scan_iter(match=f"{key_prefix(ns)}:*", count=1000))
            for start in range(0, len(keys), _MEMORY_CHUNK):
                pipe = connection.pipeline(transaction=False)
                for key in keys[start : start + _MEMORY_CHUNK]:
                    pipe.memory_usage(key)
                total += sum(int(n or 0) for n in pipe.execute())
    except redis.exceptions.ResponseError:  # MEMORY refused (an ACL, a managed Redis)
        return None
    except redis.exceptions.RedisError as exc:
        raise redis_error(url, exc) from None
    return total


@contextlib.contextmanager
def _opened(where: CacheLocation | OpenCache) -> Iterator[OpenCache]:
    if isinstance(where, OpenCache):
        yield where
    else:
        with OpenCache.open(where) as opened:
            yield opened


def _every_entry(answers: _Answers) -> Iterator[tuple[str, CachedResponse | None]]:
    """Every answer stored: ``(key, response)``, or ``(key, None)`` when it cannot be read."""
    keys = answers.keys()
    seen = set()
    for response in answers.readable():
        seen.add(response.cache_key)
        yield response.cache_key, response
    for key in keys:
        if key not in seen:
            value = answers.read(key)
            if value is not _GONE:
                yield key, value if isinstance(value, CachedResponse) else None


def _warn_incomplete(failed: list[Path]) -> None:
    if not failed:
        return
    names = " and ".join(f"{f}-wal" for f in failed)
    message = (
        f"What was removed is out of the cache, but an old copy may remain in {names}: "
        "another process was reading the cache, so its write-ahead log could not be emptied. "
        "Run this again (or lookup-pandas cache prune) when nothing else uses the cache."
    )
    warnings.warn(message, IncompleteErasureWarning, stacklevel=3)


# -- the operations -----------------------------------------------------------------------------


def cache_info(where: CacheLocation | OpenCache) -> CacheInfo:
    """What the cache holds: see :class:`CacheInfo`. Reads every answer (for when each was
    stored), changes nothing.

    Example: ``print(cache_info(CacheLocation.from_environment()))``
    """
    with _opened(where) as cache:
        entries, stored = 0, []
        for answers in cache.answers:
            entries += len(answers.keys())
            stored.append(summarise(answers.readable()))
        oldest = min((s[0] for s in stored if s[0] is not None), default=None)
        newest = max((s[1] for s in stored if s[1] is not None), default=None)
        jobs = cache.store.count_jobs(every_namespace=cache.every_namespace) if cache.store else 0
        return CacheInfo(
            location=cache.label,
            entries=entries,
            expired=sum(s[2] for s in stored),
            bytes=cache.size(),
            oldest=oldest,
            newest=newest,
            jobs=jobs,
        )


def prune(where: CacheLocation | OpenCache) -> Removed:
    """Remove the expired answers (they are never used again); the rest stays.

    Example: ``prune(CacheLocation(Path("leads.sqlite"))).entries  # 12``
    """
    with _opened(where) as cache:
        with cache.securely():
            removed = sum(answers.delete_expired() for answers in cache.answers)
            failed = cache.rewrite() if removed else []
        _warn_incomplete(failed)
        return Removed(cache.label, entries=removed, complete=not failed)


def clear(where: CacheLocation | OpenCache) -> Removed:
    """Remove every cached answer, and every stored batch job and claim (the jobs hold
    handles). What was paid for is paid for again when it is needed again.

    Example: ``clear(CacheLocation.from_environment()).entries  # 1234``
    """
    with _opened(where) as cache:
        with cache.securely():
            removed = 0
            for answers in cache.answers:
                keys = answers.keys()
                answers.delete(keys)
                removed += len(keys)
            jobs = (
                cache.store.clear_jobs(every_namespace=cache.every_namespace) if cache.store else 0
            )
            failed = cache.rewrite()
        _warn_incomplete(failed)
        return Removed(cache.label, entries=removed, jobs=jobs, complete=not failed)


def forget(
    where: CacheLocation | OpenCache, handles: str | Iterable[object], *, fold_case: bool = True
) -> Forgotten:
    """Erase every stored answer about ``handles`` (handles or profile URLs): see the module
    doc. Nothing is sent to the service.

    Example: ``forget(location, ["ada-lovelace"]).profiles  # 1``
    """
    wanted = wanted_handles(handles, fold_case=fold_case)
    if not wanted:
        return Forgotten((), location=getattr(where, "label", ""))
    forgotten = frozenset(wanted)
    matched: set[str] = set()
    counts = {"profile": 0, "page": 0, "unreadable": 0}
    with _opened(where) as cache:
        with cache.securely():
            for answers in cache.answers:
                doomed = []
                for key, response in _every_entry(answers):
                    if response is None:
                        doomed.append(key)
                        counts["unreadable"] += 1
                        continue
                    urls = [u for u in (response.url, response.request.url) if u]
                    who = mentioned(urls, response.content or b"", forgotten, fold_case=fold_case)
                    if who:
                        doomed.append(key)
                        matched |= who
                        counts[kind_of(urls[0] if urls else "")] += 1
                answers.delete(doomed)
            changed = (
                cache.store.drop_inputs(
                    lambda h: normalise_handle(h, fold_case=fold_case) in forgotten,
                    every_namespace=cache.every_namespace,
                )
                if cache.store is not None
                else []
            )
            for _, dropped in changed:
                matched.update(
                    h for d in dropped if (h := normalise_handle(d, fold_case=fold_case))
                )
            failed = cache.rewrite()
        _warn_incomplete(failed)
        return Forgotten(
            handles=wanted,
            matched=tuple(h for h in wanted if h in matched),
            profiles=counts["profile"],
            pages=counts["page"],
            unreadable=counts["unreadable"],
            jobs=len(changed),
            complete=not failed,
            location=cache.label,
        )
