"""One Client's cache: reading it without sending, what it holds, and removing it.

The Client's cache methods are this part's. :mod:`lookup_pandas.cache.admin` does the work,
on any cache.

Example:
    >>> from lookup_pandas.testing import MockService
    >>> from lookup_pandas.identifiers.kinds import PEOPLE
    >>> profile = "/api/data/v1/people/profile"
    >>> with MockService({"id": "prsn_1", "handle": "ada"}) as service:
    ...     with service.client() as client:
    ...         cache = client.parts.cache
    ...         before = cache.is_cached(profile, {"handle": "ada"})
    ...         _ = client.profile("ada")
    ...         after = cache.is_cached(profile, {"handle": "ada"})
    ...         expired = cache.stored_at(profile, {"handle": "ada"})[1]
    ...         stored = cache.stored_answer(profile, {"handle": "ada"})
    ...         keys = cache.keys(["ada", "x"], PEOPLE).values()
    ...         renewed = cache.renew(profile, keys)
    ...         entries, cleared = client.cache_info().entries, client.clear()
    >>> before, after, expired, entries, cleared
    (False, True, False, 1, 1)
    >>> stored[0].data["id"], stored[2], renewed  # the answer, not expired; kept longer
    ('prsn_1', False, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..cache import CacheInfo, Forgotten, OpenCache, admin
from ..errors import NotFoundError, ServiceError, ValidationError
from ..http.sending import Wire
from ..http.stats import ClientStats, StatsCounter
from ..identifiers.kinds import Kind
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
        """Whether a GET of ``path`` with ``params`` would be answered from the cache.

        Example: ``cache.is_cached(PROFILE_PATH, {"handle": "ada"})`` -> ``True``
        """
        return self._read(path, params) is not None

    def cached(self, path: str, params: Mapping[str, Any] | None = None) -> Envelope | None:
        """The cached answer, checked, without touching the network. None when it is not cached.

        A cached not-found raises NotFoundError, exactly as the live answer did.

        Example: ``cache.cached(PROFILE_PATH, {"handle": "ada"})`` -> an Envelope, or None
        """
        response = self._read(path, params)
        if response is None:
            return None
        self._counter.count(cache_hits=1)
        return parsed_answer(response, path, from_cache=True)

    def stored_at(
        self, path: str, params: Mapping[str, Any] | None = None
    ) -> tuple[datetime, bool] | None:
        """When the cached answer was stored (UTC), and whether it expired. None if not cached.

        An expired answer counts only offline, as for every read.

        Example: ``cache.stored_at(PROFILE_PATH, {"handle": "ada"})`` -> ``(datetime(...), False)``
        """
        response = self._read(path, params)
        when = None if response is None else _created_at(response)
        if response is None or when is None:
            return None
        return when, bool(getattr(response, "is_expired", False))

    def stored_answer(
        self, path: str, params: Mapping[str, Any] | None = None
    ) -> tuple[Envelope | None, datetime, bool] | None:
        """The stored answer, expired or not, online too: ``(answer, stored at (UTC), expired)``.

        ``answer`` is None for a stored not-found. None when nothing readable is stored. It sends
        nothing and counts no cache hit: what the caller does with the answer decides that.

        Example: ``cache.stored_answer(PROFILE_PATH, {"handle": "ada"})`` ->
        ``(Envelope(...), datetime(...), True)``
        """
        if not self._wire.cache_on:
            return None
        return self.stored_at_key(path, self._wire.cache_keys(path, [params])[0])

    def stored_at_key(self, path: str, key: str) -> tuple[Envelope | None, datetime, bool] | None:
        """:meth:`stored_answer`, read by its cache key (:meth:`keys`), prepared once.

        Example: ``cache.stored_at_key(PROFILE_PATH, cache.keys(["ada"], PEOPLE)["ada"])``
        """
        response = self._wire.stored(path, key)
        when = None if response is None else _created_at(response)
        if response is None or when is None:
            return None
        try:
            env: Envelope | None = parsed_answer(response, path, from_cache=True)
        except NotFoundError:
            env = None  # a billed not-found, stored
        except ServiceError:
            return None  # unreadable: as if nothing were stored
        return env, when, bool(getattr(response, "is_expired", False))

    def renew(self, path: str, keys: Iterable[str]) -> int:
        """Keep the stored answers of ``keys`` (:meth:`keys`) another ``expire_after`` from
        now. Returns how many were stored.

        When each was stored (bought) is kept. Sends nothing; one transaction on SQLite.

        Example: ``cache.renew(PROFILE_PATH, cache.keys(["ada"], PEOPLE).values())``
        """
        return self._wire.renew(path, keys)

    def keys(self, values: Iterable[str], kind: Kind) -> dict[str, str]:
        """Each value's cache key: its name in the cache and among the processes sharing the store.

        The one place a run's keys are worked out. Empty without a cache, where there is nothing
        to read, share or claim. ``kind``: whose lookups.

        Example: ``cache.keys(["ada"], PEOPLE)`` -> ``{"ada": "5f3c..."}``
        """
        wire = self._wire
        if not wire.cache_on:
            return {}
        values = list(values)
        keys = wire.cache_keys(kind.endpoint.path, [kind.params(v) for v in values])
        return dict(zip(values, keys, strict=True))

    def read_ahead(
        self, keys: Mapping[str, str], kind: Kind, tally: ClientStats | None = None
    ) -> dict[str, Envelope | NotFoundError | ValidationError]:
        """Each value's answer the cache holds, read in one batched read (no network): an
        Envelope, the NotFoundError of a stored not-found, or the ValidationError of a stored 422
        (an address the reverse lookup does not take). ``keys``: each value's cache key
        (:meth:`keys`, worked out once a run). Misses and unreadable answers are left out; an
        expired answer counts only offline, as for every read. The hits count in ``tally`` too
        (a run's), if given.

        Example: ``cache.read_ahead(cache.keys(["ada", "new"], PEOPLE), PEOPLE)`` ->
        ``{"ada": Envelope(...)}``
        """
        if not keys:
            return {}
        stored = self._wire.session.cache.get_responses(list(keys.values()))  # type: ignore[attr-defined]
        path, offline = kind.endpoint.path, self._wire.settings.offline
        found: dict[str, Envelope | NotFoundError | ValidationError] = {}
        for value, key in keys.items():
            response = stored.get(key)
            if response is None or (response.is_expired and not offline):
                continue
            try:
                found[value] = parsed_answer(response, path, from_cache=True)
            except (NotFoundError, ValidationError) as exc:  # kept: a billed not-found, a 422
                found[value] = exc
            except ServiceError:
                continue  # unreadable: fetched anew
        self._counter.count(tally, cache_hits=len(found))
        return found

    def info(self) -> CacheInfo:
        """What the cache holds (:class:`~lookup_pandas.cache.CacheInfo`). Sends nothing.

        Without a cache (``cache=False``), it reports nothing cached.

        Example: ``print(client.cache_info())``
        """
        return admin.cache_info(self._open())

    def prune(self) -> int:
        """Remove the expired answers, which are never used again. Returns how many. Sends nothing.

        Example: ``client.prune()`` -> ``12``
        """
        return admin.prune(self._open()).entries

    def clear(self) -> int:
        """Remove every cached answer, and the stored batch jobs and claims. Returns how many.

        The count is of answers. What was paid for is paid for again when needed. A SQLite
        cache file is cleared whole. A Redis cache is cleared in this Client's namespace (a
        named one with the stored jobs of every key that used it). Without a cache: 0, and the
        jobs kept in memory are dropped.

        Example: ``client.clear()`` -> ``1234``
        """
        return admin.clear(self._open()).entries

    def forget(self, handles: str | Iterable[object], *, fold_case: bool = True) -> Forgotten:
        """Erase every stored answer about these people. Sends nothing.

        Their profile answers go, every page of a list that holds them (whole), and their handles
        in stored batch jobs. People are named by handle, profile URL or ``prsn_`` id, and either
        name finds the answers bought by the other. Their Email API answers go too: a person's
        finds by profile and the reversals that name their profile; an address's verdicts,
        reversals, finds that gave it and prospects pages that list it; a ``(first name, last
        name, domain)``'s finds and the prospects pages that list that name at that domain. A
        value that is none of these is a UsageError, and nothing is erased. Their next lookup is
        fetched, and billed, again. On SQLite, no byte of the cache's files keeps them afterwards,
        unless ``complete`` is False (another process was reading). Without a cache, only the
        batch jobs kept in memory are edited.

        Example: ``client.forget(["ada-lovelace", "ada@acme.com", ("Ada", "Lovelace",
        "acme.com")])`` -> ``Forgotten(profiles=1, pages=2, ...)``
        """
        return admin.forget(self._open(), handles, fold_case=fold_case)

    def _read(self, path: str, params: Mapping[str, Any] | None) -> Any:
        """The stored answer of a GET of ``path`` with ``params`` that counts (``Wire.cached``)."""
        wire = self._wire
        return wire.cached(path, wire.cache_keys(path, [params])[0]) if wire.cache_on else None

    def _open(self) -> OpenCache:
        wire = self._wire
        cache = wire.session.cache if wire.cache_on else None  # type: ignore[attr-defined]
        return OpenCache.of_client(wire.settings, cache, self._store)


def _created_at(response: object) -> datetime | None:
    """When a stored answer was stored, in UTC (None when it does not say)."""
    created = getattr(response, "created_at", None)
    if not isinstance(created, datetime):
        return None
    return created if created.tzinfo else created.replace(tzinfo=UTC)
