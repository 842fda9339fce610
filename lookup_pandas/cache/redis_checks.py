"""What a Redis can lose of the answers, told before it does: its eviction and persistence
settings, and a namespace emptied since this machine stored answers there.

Example:
    >>> evicting = Keeping(2_097_152, "allkeys-lru", appendonly=True, save="")
    >>> print(settings_warning("redis://127.0.0.1:6379/0", evicting))  # doctest: +ELLIPSIS
    Redis at redis://127.0.0.1:6379/0 can lose paid answers: they can be evicted and bought ...

Example: ``RedisContact(connect(url), url, ns).check()`` before a Client's first command.
"""

from __future__ import annotations

import hashlib
import logging
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

from ..config.cache_urls import redact_url, without_namespace
from ..config.settings import default_cache_path
from ..errors import StorageWarning
from ..store.redis_connection import key_prefix, translated

__all__ = ["Keeping", "RedisContact", "emptied_warning", "settings_warning"]

logger = logging.getLogger(__name__)

#: What CONFIG GET reads, in this order, in the first contact's one round trip.
_SETTINGS = ("maxmemory", "maxmemory-policy", "appendonly", "save")
#: The libraries a warning's call passes through on its way from the user's line.
_DRIVEN = ("lookup_pandas", "requests_cache", "requests", "redis", "urllib3")

#: The servers whose settings this process read already (their URL shown), and its lock.
_read: set[str] = set()
_read_lock = threading.Lock()


@dataclass(frozen=True)
class Keeping:
    """How a Redis keeps what it is given: its memory limit and policy, and what goes to disk.

    ``save`` is CONFIG's snapshot rules (``""``: none), or None where CONFIG is refused: then
    ``snapshots`` (INFO's ``rdb_saves``) says whether it took any since it started.

    Example:
        >>> Keeping(0, "noeviction", appendonly=True, save="3600 1").appendonly
        True
    """

    maxmemory: int
    policy: str
    appendonly: bool
    save: str | None
    snapshots: int = 0


def settings_warning(shown: str, keeping: Keeping) -> str | None:
    """The one line a Redis at ``shown`` (a URL without its password) is warned with, or None.

    Every answer has a TTL (``expire_after``), so a ``volatile-*`` policy evicts answers too.
    An append-only file (any fsync) keeps them; snapshots alone lose what came after the last.

    Example:
        >>> url = "redis://h:6379/0"
        >>> settings_warning(url, Keeping(0, "allkeys-lru", appendonly=True, save=""))  # no limit
        >>> print(settings_warning(url, Keeping(0, "noeviction", False, save="")))
        Redis at redis://h:6379/0 can lose paid answers: a restart loses every answer ...
        >>> print(settings_warning(url, Keeping(0, "noeviction", False, save="3600 1")))
        Redis at ... a crash loses those bought since the last snapshot (appendonly no, ...
        >>> print(settings_warning(url, Keeping(1 << 20, "volatile-lru", True, save="")))
        Redis at ... (maxmemory 1048576, maxmemory-policy volatile-lru: every answer has a TTL)...
    """
    risks = []
    if keeping.maxmemory > 0 and keeping.policy != "noeviction":
        ttl = ": every answer has a TTL" if keeping.policy.startswith("volatile-") else ""
        risks.append(
            "they can be evicted and bought again (maxmemory "
            f"{keeping.maxmemory}, maxmemory-policy {keeping.policy}{ttl}): "
            "set maxmemory-policy noeviction"
        )
    if not keeping.appendonly:
        if keeping.save is None and not keeping.snapshots:
            risks.append(
                "a restart can lose every answer (no append-only file, no snapshot since it "
                "started): set appendonly yes"
            )
        elif keeping.save == "":
            risks.append(
                'a restart loses every answer (appendonly no, save ""): set appendonly yes'
            )
        else:
            rules = "" if keeping.save is None else f', save "{keeping.save}"'
            risks.append(
                "a crash loses those bought since the last snapshot "
                f"(appendonly no{rules}): set appendonly yes"
            )
    if not risks:
        return None
    return f"Redis at {shown} can lose paid answers: {'; '.join(risks)} (docs/scaling.md)"


def emptied_warning(shown: str) -> str:
    """The one line for a Redis that holds none of the answers this machine stored there.

    Example:
        >>> print(emptied_warning("redis://h:6379/0"))  # doctest: +ELLIPSIS
        Redis at redis://h:6379/0 holds none of the answers this machine stored there ...
    """
    return (
        f"Redis at {shown} holds none of the answers this machine stored there (restarted "
        "empty, flushed or evicted): this run buys them again"
    )


def _keeping(replies: list[Any]) -> Keeping | None:
    """CONFIG GET's four replies read, or None when CONFIG was refused."""
    if any(isinstance(r, Exception) for r in replies):
        return None
    got = {k: v for reply in replies for k, v in reply.items()}  # str or bytes, by client
    text = {_str(k): _str(v) for k, v in got.items()}
    return Keeping(
        int(text.get("maxmemory") or 0),
        text.get("maxmemory-policy", "noeviction"),
        appendonly=text.get("appendonly", "no") == "yes",
        save=text.get("save", ""),
    )


def _from_info(connection: redis.Redis) -> Keeping | None:
    """INFO memory and persistence, where CONFIG is refused; None when INFO is refused too."""
    pipe = connection.pipeline(transaction=False)
    pipe.info("memory")
    pipe.info("persistence")
    try:
        memory, persistence = pipe.execute()
    except redis.exceptions.ResponseError:
        return None
    return Keeping(
        int(memory.get("maxmemory", 0)),
        _str(memory.get("maxmemory_policy", "noeviction")),
        appendonly=int(persistence.get("aof_enabled", 0)) == 1,
        save=None,
        snapshots=int(persistence.get("rdb_saves", 0)),
    )


def _str(value: object) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


class RedisContact:
    """A Client's first contact with the Redis of its answers: what it can lose, told once.

    :meth:`check` runs before the first command: the server's settings once per process, and
    whether the namespace still holds the answers this machine stored there. :meth:`stored`,
    after the first answer stored, writes the marker and the note that it did.

    Example: ``contact = RedisContact(connect(url), url, ns); contact.check(); contact.stored()``
    """

    def __init__(self, connection: redis.Redis, url: str, namespace: str) -> None:
        self.connection = connection
        self.url = url
        self.shown = redact_url(without_namespace(url))
        self.marker = f"{key_prefix(namespace)}:answers-held"
        digest = hashlib.sha256(f"{self.shown}\x1f{namespace}".encode()).hexdigest()[:32]
        #: This machine's note that it stored answers there: a hash's name, nothing in it.
        self.note = default_cache_path().parent / "redis-answers" / digest
        self._checked = self._stored = False
        self._lock = threading.Lock()

    def check(self) -> None:
        """Warn (StorageWarning) of what this Redis can lose: one round trip, once per Client."""
        if self._checked:
            return
        with self._lock:
            if self._checked:
                return
            with _read_lock:
                fresh = self.shown not in _read
                _read.add(self.shown)
            try:
                self._check(fresh)
            except BaseException:  # told nothing (a filter made it an error): the next tells
                if fresh:
                    with _read_lock:
                        _read.discard(self.shown)
                raise
            self._checked = True

    def _check(self, fresh: bool) -> None:
        held = _exists(self.note)
        if not fresh and not held:
            return
        pipe = self.connection.pipeline(transaction=False)
        for name in _SETTINGS if fresh else ():
            pipe.config_get(name)
        if held:
            pipe.exists(self.marker)
        with translated(self.url):
            replies = pipe.execute(raise_on_error=False)  # a refused CONFIG: its error, here
            keeping = None
            if fresh:
                keeping = _keeping(replies[: len(_SETTINGS)]) or _from_info(self.connection)
        line = None if keeping is None else settings_warning(self.shown, keeping)
        if line is not None:
            warnings.warn(line, StorageWarning, stacklevel=_stacklevel())
        if held and not replies[-1]:
            warnings.warn(emptied_warning(self.shown), StorageWarning, stacklevel=_stacklevel())

    def stored(self) -> None:
        """After an answer is stored: the marker in Redis and this machine's note (once)."""
        if self._stored:
            return
        try:
            self.connection.set(self.marker, b"1")
        except redis.exceptions.RedisError:  # the answer is written: the next one marks it
            logger.debug("could not mark that answers are stored in %s", self.shown, exc_info=True)
            return
        self._stored = True
        if not _exists(self.note):
            try:
                self.note.parent.mkdir(parents=True, exist_ok=True)
                self.note.touch()
            except OSError:  # a note this machine cannot keep: no warning of an emptied Redis
                logger.debug("could not write %s", self.note, exc_info=True)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def _stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside the package and the libraries it drives."""
    level, frame = 1, sys._getframe(1)  # the function calling warnings.warn: level 1
    while frame.f_back is not None and frame.f_globals.get("__name__", "").partition(".")[0] in (
        _DRIVEN
    ):
        frame = frame.f_back
        level += 1
    return level
