"""Cache management: what the cache holds, and removing it (expired answers, all, or a person's).

Example:
    >>> from lookup_pandas.testing import MockService
    >>> with MockService({"id": "prsn_1", "handle": "ada-lovelace"}) as service:
    ...     with service.client() as client:
    ...         _ = client.profile("ada-lovelace")
    ...         info = client.cache_info()
    ...         forgotten = client.forget(["https://www.example.com/in/ada-lovelace/"])
    >>> info.entries, forgotten.profiles, forgotten.matched
    (1, 1, ('ada-lovelace',))
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path

from requests_cache.models.response import CachedResponse

from ..errors import IncompleteErasureWarning
from ..identifiers.handles import normalise_handle
from .erasure import kind_of, mentioned, wanted_handles
from .opened import Answers, CacheLocation, OpenCache
from .reports import CacheInfo, Forgotten, Removed, summarise

__all__ = ["cache_info", "clear", "forget", "prune"]


def _every_entry(answers: Answers) -> Iterator[tuple[str, CachedResponse | None]]:
    """Every answer stored: ``(key, response)``, or ``(key, None)`` when it cannot be read."""
    keys = answers.keys()
    seen = set()
    for response in answers.readable():
        seen.add(response.cache_key)
        yield response.cache_key, response
    for key in keys:
        if key in seen:
            continue
        try:
            value = answers.read(key)
        except KeyError:  # deleted while it was being read
            continue
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


def cache_info(where: CacheLocation | OpenCache) -> CacheInfo:
    """What the cache holds (:class:`CacheInfo`). It reads every answer and changes nothing.

    Example:
        >>> print(cache_info(CacheLocation(None)))
        cache:      off (nothing is cached)
    """
    with OpenCache.open(where) as cache:
        oldest, newest, expired = summarise(r for a in cache.answers for r in a.readable())
        return CacheInfo(
            location=cache.label,
            entries=sum(len(answers.keys()) for answers in cache.answers),
            expired=expired,
            bytes=cache.size(),
            oldest=oldest,
            newest=newest,
            jobs=cache.store.count_jobs(every_namespace=cache.every_namespace),
        )


def prune(where: CacheLocation | OpenCache) -> Removed:
    """Remove the expired answers, which are never used again. The rest stays.

    Example: ``prune(CacheLocation(Path("leads.sqlite"))).entries`` -> ``12``
    """
    with OpenCache.open(where) as cache:
        with cache.securely():
            removed = sum(answers.delete_expired() for answers in cache.answers)
            failed = cache.rewrite() if removed else []
        _warn_incomplete(failed)
        return Removed(cache.label, entries=removed, complete=not failed)


def clear(where: CacheLocation | OpenCache) -> Removed:
    """Remove every cached answer, and every stored batch job and claim (the jobs hold handles).

    Example: ``clear(CacheLocation.from_environment()).entries`` -> ``1234``
    """
    with OpenCache.open(where) as cache:
        with cache.securely():
            removed = 0
            for answers in cache.answers:
                keys = answers.keys()
                answers.delete(keys)
                removed += len(keys)
            jobs = cache.store.clear_jobs(every_namespace=cache.every_namespace)
            failed = cache.rewrite()
        _warn_incomplete(failed)
        return Removed(cache.label, entries=removed, jobs=jobs, complete=not failed)


def forget(
    where: CacheLocation | OpenCache, handles: str | Iterable[object], *, fold_case: bool = True
) -> Forgotten:
    """Erase every stored answer about ``handles`` (handles, profile URLs or ids). Nothing is sent.

    It removes their profile answers, every page that lists them (whole), the answers that cannot
    be read, and their handles in stored batch jobs.

    Example: ``forget(location, ["ada-lovelace"]).profiles`` -> ``1``
    """
    wanted = wanted_handles(handles, fold_case=fold_case)
    if not wanted:
        return Forgotten((), location=getattr(where, "label", ""))
    forgotten = frozenset(wanted)
    matched: set[str] = set()
    counts = {"profile": 0, "page": 0, "email": 0, "unreadable": 0}
    with OpenCache.open(where) as cache:
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
            changed = cache.store.drop_inputs(
                lambda h: normalise_handle(h, fold_case=fold_case) in forgotten,
                every_namespace=cache.every_namespace,
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
            emails=counts["email"],
            unreadable=counts["unreadable"],
            jobs=len(changed),
            complete=not failed,
            location=cache.label,
        )
