"""One Client's cache: reading it without sending, what it holds, and removing it.

Example::

    client.is_cached(PROFILE_PATH, {"handle": "ada"})   # True: a GET would be a free hit
    client.cache_info().entries                          # 1234
    client.forget(["ada-lovelace"])                      # Forgotten(profiles=1, pages=2, ...)

The Client's cache methods are this part's, in one line each. :mod:`lookup_pandas.cache.admin`
does the admin work on any cache (also without a Client: ``lookup-pandas cache ...``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..cache import CacheInfo, Forgotten, OpenCache, admin
from ..http.sending import Wire
from ..http.stats import StatsCounter
from ..identifiers.kinds import PEOPLE, Kind
from ..service.answers import parsed_answer
from ..service.envelope import Envelope
from ..store import Store

__all__ = ["ClientCache"]


class ClientCache:
    """The answers one Client's session keeps, and its shared store's batch jobs and claims."""

    def __init__(self, wire: Wire, store: Store, counter: StatsCounter) -> None:
        self._wire = wire
        self._store = store
        self._counter = counter

    def is_cached(self, path: str, params: Mapping[str, Any] | None = None) -> bool:
        """True when a GET of ``path`` with ``params`` would be answered from the cache.

        Example: ``client.is_cached(PROFILE_PATH, {"handle": "ada"})  # True``
        """
        return self._wire.cached(path, self._wire.prepare(path, params)) is not None

    def cached(self, path: str, params: Mapping[str, Any] | None = None) -> Envelope | None:
        """The cached answer, checked, without touching the network; None when not cached.

        Example: ``client.cached(PROFILE_PATH, {"handle": "ada"})`` -> Envelope or None.
        A cached not-found raises NotFoundError, exactly as the live answer did.
        """
        response = self._wire.cached(path, self._wire.prepare(path, params))
        if response is None:
            return None
        self._counter.count(cache_hits=1)
        return parsed_answer(response, path, from_cache=True)

    def stored_at(
        self, path: str, params: Mapping[str, Any] | None = None
    ) -> tuple[datetime, bool] | None:
        """When the cached answer was stored (UTC), and whether it has expired; None when the
        cache does not hold it (an expired answer counts only offline, as for every read).

        Example: ``client.stored_at(PROFILE_PATH, {"handle": "ada"})`` -> ``(datetime(2026, 11,
        25, 7, 41, tzinfo=UTC), False)``
        """
        response = self._wire.cached(path, self._wire.prepare(path, params))
        if response is None:
            return None
        created = getattr(response, "created_at", None)
        if not isinstance(created, datetime):
            return None
        when = created if created.tzinfo else created.replace(tzinfo=UTC)
        return when, bool(getattr(response, "is_expired", False))

    def profile_keys(
        self, handles: Iterable[str], *, ahead: bool = False, kind: Kind = PEOPLE
    ) -> dict[str, str]:
        """Each handle's profile answer's name among the processes sharing the store (its
        cache key); empty without a cache, where there is nothing to share or claim.
        ``ahead``: each request is kept for the call that will send it (prepared once).
        ``kind``: whose lookups (:data:`~lookup_pandas.identifiers.kinds.COMPANIES`: each
        company's).

        Example: ``client.profile_keys(["ada"])  # {"ada": "5f3c..."}``
        """
        wire = self._wire
        if not wire.cache_on:
            return {}
        prepare = wire.prepare_ahead if ahead else wire.prepare
        path = kind.endpoint.path
        return {h: wire.cache_key(prepare(path, kind.params(h))) for h in handles}

    def info(self) -> CacheInfo:
        """What the cache holds: ``entries``, ``expired``, ``bytes``, ``oldest`` and ``newest``
        (when stored), batch ``jobs``, ``location``. Sends nothing.

        Example: ``print(client.cache_info())``; ``client.cache_info().entries  # 1234``

        Without a cache (``cache=False``) it reports nothing cached.
        """
        return admin.cache_info(self._open())

    def prune(self) -> int:
        """Remove the expired answers (never used again); return how many. Sends nothing.

        Example: ``client.prune()  # 12``
        """
        return admin.prune(self._open()).entries

    def clear(self) -> int:
        """Remove every cached answer, and the stored batch jobs and claims (the jobs hold
        handles); return how many answers. What was paid for is paid for again when needed.

        Example: ``client.clear()  # 1234``

        A SQLite cache file is cleared whole (it holds the answers of every key used with it);
        a Redis cache, this Client's namespace (a named one with the stored jobs of every key
        that used it). Without a cache: 0 (the jobs kept in memory are dropped).
        """
        return admin.clear(self._open()).entries

    def forget(self, handles: str | Iterable[object], *, fold_case: bool = True) -> Forgotten:
        """Erase every stored answer about these people: their profile answers (single calls
        and batch results), every page of a list holding them (whole pages), and their
        handles in stored batch jobs. Handles, profile URLs or ``prsn_`` ids (either name finds
        the answers bought by the other), normalised as enrichment does (``fold_case``); a
        value that is no handle is a UsageError and nothing is erased. Sends nothing; their
        next lookup is fetched (and billed) again.

        Example: ``client.forget(["ada-lovelace"])  # Forgotten(profiles=1, pages=2, ...)``

        On SQLite no byte of the cache's files keeps them afterwards (deleted with
        ``secure_delete``, the files rewritten, their write-ahead logs emptied); when another
        process was reading the cache, ``complete`` is False and an
        ``IncompleteErasureWarning`` says so. See :mod:`lookup_pandas.cache`. Without a
        cache, only the batch jobs kept in memory are edited.
        """
        return admin.forget(self._open(), handles, fold_case=fold_case)

    def _open(self) -> OpenCache:
        wire = self._wire
        cache = wire.session.cache if wire.cache_on else None  # type: ignore[attr-defined]
        return OpenCache.of_client(wire.settings, cache, self._store)
