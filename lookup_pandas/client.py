"""The Client: the public façade over the send chain, the cache, batch jobs and pagination.

Example::

    client = lp.Client(api_key="lk_...", base_url="https://api.example.com")
    client.profile("ada-lovelace")          # {"id": "prsn_...", "handle": "ada-lovelace", ...}
    for rec in client.paginate("/api/data/v1/people/search", {"title": "engineer", "limit": 50}):
        ...

It wires the rooms and decides nothing of its own: requests go through
:mod:`lookup_pandas.http.sending` (cache lookup -> claim -> paced attempts -> one attempt, with
:mod:`~lookup_pandas.http.decisions`), first contact and the pace through
:mod:`~lookup_pandas.http.contact`, batch jobs through :mod:`lookup_pandas.batch_calls`, pages
through :mod:`lookup_pandas.pagination`, the cache's admin through
:mod:`lookup_pandas.cache`. The API key is kept in the settings and only ever put in a
request header; it is not in ``repr``, log lines or exception messages.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import timedelta
from typing import Any

import requests
from requests.adapters import BaseAdapter

from .batch_calls import BatchCalls
from .cache import CacheInfo, Forgotten, OpenCache, admin
from .claims import Claims
from .endpoints import (
    BATCH_PATH,
    EMPLOYEES_PATH,
    PROFILE_PATH,
    SEARCH_PATH,
    TIER_PATH,
    checked_data,
)
from .envelope import Envelope
from .errors import BatchUnavailableError, NotFoundError, ServiceError
from .handles import checked_handle
from .http.answers import parsed_answer
from .http.contact import Contact
from .http.sending import PacedAttempts, Sender, Wire
from .http.session import build_session
from .pacing import Pacer
from .pagination import PagePlan, Style, check_max_records, read_page, walk
from .retry import RetryPolicy
from .settings import SAFE_DEFAULT_RATE_PER_MINUTE, SETTING_NAMES, Settings, keyword_help
from .stats import ClientStats, StatsCounter
from .store import Store, namespace, open_store

__all__ = [
    "BATCH_PATH",
    "EMPLOYEES_PATH",
    "PROFILE_PATH",
    "SEARCH_PATH",
    "TIER_PATH",
    "Client",
    "ClientStats",
    "check_max_records",
    "configure",
    "default_client",
]


class Client:
    """A connection to the service. Thread-safe; share one across a thread pool.

    Example::

        with lp.Client(cache="leads.sqlite") as client:
            client.profile("ada")      # second call with the same handle is a free cache hit

    Keywords (the settings, listed once in :class:`~lookup_pandas.settings.Settings`):

    {keywords}
    ``transport``
        A requests adapter that answers instead of the network, for tests:
        ``lookup_pandas.testing.MockTransport(handler)``. Default: the network.
    """

    _sender: Sender  # the send chain, built in __init__ (the contact reaches it lazily)

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        cache: bool | str | os.PathLike[str] | None = True,
        expire_after: timedelta | float = timedelta(days=7),
        timeout: float = 30.0,
        max_retries: int = 5,
        rate_limit_per_minute: float | None = None,
        max_workers: int = 4,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        retry_after_max: float = 60.0,
        batch_poll_interval: float = 1.5,
        transport: BaseAdapter | None = None,
    ) -> None:
        given = locals()
        self.settings = s = Settings.build(**{name: given[name] for name in SETTING_NAMES})
        self.retry_policy = RetryPolicy(
            s.max_retries, s.backoff_base, s.backoff_max, s.retry_after_max
        )
        self._session = build_session(s, transport)
        self._wire = wire = Wire(self._session, s)
        self._cache_on = wire.cache_on
        #: What the processes using this key and cache share: the pace, claims, batch jobs.
        self.store: Store = open_store(
            s.cache_url or s.cache_path, namespace(s.api_key, s.base_url)
        )
        #: Claims on answers being bought, kept alive while held (see lookup_pandas.claims).
        self.claims = Claims(self.store)
        self.pacer = Pacer(
            s.rate_limit_per_minute or SAFE_DEFAULT_RATE_PER_MINUTE,
            shared=self.store if self._cache_on else None,
        )
        self._counter = StatsCounter()
        self._contact = Contact(
            s,
            self.pacer,
            self.store,
            cache_on=self._cache_on,
            request=lambda path, params, **options: self._sender.request(path, params, **options),
        )
        attempts = PacedAttempts(wire, self.retry_policy, self.pacer, self._counter, self._contact)
        self._sender = Sender(wire, attempts, self.claims, self._counter, self._contact)
        #: The one place requests are sent (:meth:`~lookup_pandas.http.sending.Sender.request`)
        self._request = self._sender.request
        self._batch = BatchCalls(self._request, wire)
        # The internals other modules and tests reach for, bound once.
        self._prepare, self._send, self._lookup = wire.prepare, wire.send, wire.lookup
        self._claim, self._fresh_lookup = self._sender.claim, self._sender.fresh_lookup
        self._count_waiting = self._counter.count_waiting

    # -- introspection ---------------------------------------------------------------------

    def __repr__(self) -> str:
        # cache_label: the path, the Redis URL without its password, or "off"
        return f"Client(base_url={self.settings.base_url!r}, cache={self.settings.cache_label!r})"

    def __reduce__(self) -> tuple[object, ...]:
        # A pickled Client would carry its key into a Dask graph, a log or a file.
        raise TypeError(
            "A Client holds the API key, a session and a cache connection: it is not "
            "picklable. To rebuild it in another process, pickle "
            "lookup_pandas.client_spec.ClientSpec.from_client(client): the settings without "
            "the key, which that process reads from LOOKUP_API_KEY."
        )

    @property
    def base_url(self) -> str:
        return self.settings.base_url

    @property
    def max_workers(self) -> int:
        return self.settings.max_workers

    @property
    def stats(self) -> ClientStats:
        """A copy of the counters (requests sent, cache hits, retries, credits)."""
        return self._counter.snapshot()

    @property
    def credits_consumed(self) -> float:
        return self.stats.credits_consumed

    @property
    def credits_balance(self) -> float | None:
        return self.stats.credits_balance

    @property
    def rate_limit_per_minute(self) -> float | None:
        """The pace currently applied to network calls (calls per minute)."""
        return self.pacer.per_minute

    @property
    def pace_known(self) -> bool:
        """Whether the pace has been learned (from the credits tier, or a 429)."""
        return self._contact.rate_known

    @property
    def session(self) -> requests.Session:
        """The underlying (cached) requests session."""
        return self._session

    @property
    def waiting(self) -> int:
        """Calls now waiting for an answer another process is buying (shown on the bar)."""
        return self._counter.waiting

    @property
    def claim_ttl(self) -> float:
        """Seconds a claim holds without renewal; a heartbeat renews it while it is held, so
        a stopped holder delays others by at most this much (:mod:`lookup_pandas.claims`)."""
        return self.claims.ttl

    def is_cached(self, path: str, params: Mapping[str, Any] | None = None) -> bool:
        """True when a GET of ``path`` with ``params`` would be answered from the cache."""
        return self._lookup(path, self._prepare(path, params)) is not None

    def cached(self, path: str, params: Mapping[str, Any] | None = None) -> Envelope | None:
        """The cached answer, checked, without touching the network; None when not cached.

        Example: ``client.cached(PROFILE_PATH, {"handle": "ada"})`` -> Envelope or None.
        A cached not-found raises NotFoundError, exactly as the live answer did.
        """
        response = self._lookup(path, self._prepare(path, params))
        if response is None:
            return None
        self._counter.count(cache_hits=1)
        return parsed_answer(response, path, from_cache=True)

    def close(self) -> None:
        """Close the HTTP connections and let go of the cache (closed with its last user)."""
        self._session.close()
        self.claims.close()
        self.store.close()
        release = getattr(self._session, "release_cache", None)
        if release is not None:
            release()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the cache: what it holds, and removing it (lookup_pandas.cache) ---------------------

    def cache_info(self) -> CacheInfo:
        """What the cache holds: ``entries``, ``expired``, ``bytes``, ``oldest`` and ``newest``
        (when stored), batch ``jobs``, ``location``. Sends nothing.

        Example: ``print(client.cache_info())``; ``client.cache_info().entries  # 1234``

        Without a cache (``cache=False``) it reports nothing cached.
        """
        return admin.cache_info(self._open_cache())

    def prune(self) -> int:
        """Remove the expired answers (never used again); return how many. Sends nothing.

        Example: ``client.prune()  # 12``
        """
        return admin.prune(self._open_cache()).entries

    def clear(self) -> int:
        """Remove every cached answer, and the stored batch jobs and claims (the jobs hold
        handles); return how many answers. What was paid for is paid for again when needed.

        Example: ``client.clear()  # 1234``

        A SQLite cache file is cleared whole (it holds the answers of every key used with it);
        a Redis cache, this Client's namespace. Without a cache: 0 (the jobs kept in memory
        are dropped).
        """
        return admin.clear(self._open_cache()).entries

    def forget(self, handles: str | Iterable[object], *, fold_case: bool = True) -> Forgotten:
        """Erase every stored answer about these people: their profile answers (single calls
        and batch results), every search or employees page holding them (whole pages), and
        their handles in stored batch jobs. Handles or profile URLs, normalised as enrichment
        does (``fold_case``); a value that is no handle is a UsageError and nothing is
        erased. Sends nothing; their next lookup is fetched (and billed) again.

        Example: ``client.forget(["ada-lovelace"])  # Forgotten(profiles=1, pages=2, ...)``

        On SQLite no byte of the cache's files keeps them afterwards (deleted with
        ``secure_delete``, the files rewritten, their write-ahead logs emptied); when another
        process was reading the cache, ``complete`` is False and an
        ``IncompleteErasureWarning`` says so. See :mod:`lookup_pandas.cache`. Without a
        cache, only the batch jobs kept in memory are edited.
        """
        return admin.forget(self._open_cache(), handles, fold_case=fold_case)

    def _open_cache(self) -> OpenCache:
        cache = self._session.cache if self._cache_on else None  # type: ignore[attr-defined]
        return OpenCache.of_client(self.settings, cache, self.store)

    # -- public calls ----------------------------------------------------------------------

    def get(
        self, path: str, params: Mapping[str, Any] | None = None, *, refresh: bool = False
    ) -> dict[str, Any]:
        """GET any endpoint; return its checked envelope (``success``, ``data``, ...).

        Example: ``client.get("/api/data/v1/people/profile", {"handle": "ada"})["data"]``
        """
        return dict(self._request(path, params, refresh=refresh).body)

    def profile(
        self, handle: str, *, refresh: bool = False, fold_case: bool = True
    ) -> dict[str, Any] | None:
        """The person record for ``handle``; None when the service does not know it.

        Example: ``client.profile("ada")["id"]  # "prsn_..."``

        ``handle`` is a handle or a profile URL, normalised as enrichment does
        (:mod:`lookup_pandas.handles`): ``client.profile("https://www.example.com/in/Ada/")``
        sends ``handle=ada``; ``fold_case=False`` keeps case as written. A value that cannot be
        a handle (blank, an e-mail address, ``"0"``, a path...) is a UsageError naming why,
        and nothing is sent (production bills a not-found).

        The same request, by two other names: :meth:`fetch_profile` raises NotFoundError
        instead of returning None; :meth:`profile_answer` returns the whole checked answer.
        """
        try:
            return self.fetch_profile(handle, refresh=refresh, fold_case=fold_case)
        except NotFoundError:
            return None

    def fetch_profile(
        self, handle: str, *, refresh: bool = False, fold_case: bool = True
    ) -> dict[str, Any]:
        """Alias of :meth:`profile` that raises NotFoundError (the server's message), not None."""
        sent = checked_handle(handle, fold_case=fold_case)
        return dict(self.profile_answer(sent, refresh=refresh).data)

    def profile_answer(
        self,
        handle: str,
        *,
        refresh: bool = False,
        cancel: threading.Event | None = None,
        known_miss: bool = False,
        held: str | None = None,
    ) -> Envelope:
        """Alias of :meth:`profile` giving its whole answer (``.data``, ``.from_cache``), case kept.

        Example: ``client.profile_answer("ada").from_cache  # True the second time``.
        NotFoundError if none. Enrichment's call: ``cancel`` (set: a call still waiting for
        its slot or a back-off raises ``Cancelled``, sending nothing), ``known_miss`` (the
        caller just read the cache: claim at once) and ``held`` (the caller holds the claim)
        are :meth:`_request`'s.
        """
        handle = checked_handle(handle, fold_case=False)
        env = self._request(
            PROFILE_PATH,
            {"handle": handle},
            refresh=refresh,
            cancel=cancel,
            known_miss=known_miss,
            held=held,
        )
        checked_data(env, PROFILE_PATH)
        return env

    def credits_tier(self) -> dict[str, Any]:
        """The panel's credits-tier payload (balance, current_tier, next_tier); never cached.

        Reading it also teaches the Client its pace, if it did not know it yet.
        """
        return self._contact.credits_tier()

    # -- batch jobs (lookup_pandas.batch_calls; lookup_pandas.batch plans them) --------------

    @property
    def batch_supported(self) -> bool | None:
        """Whether the service has batch jobs: None until the first submit tells."""
        return self._batch.supported

    def submit_batch(self, handles: Sequence[str], *, cancel: threading.Event | None = None) -> str:
        """Submit one batch job of 1 to 1,000 handles; return its ``job_id``. Nothing is billed
        yet: each item is billed when it resolves. A submit takes a pacing slot.

        Example: ``job_id = client.submit_batch(["ada", "grace"])``

        A 404 or 405 means the service has no batch jobs: BatchUnavailableError, and the
        Client remembers it (no further submit is sent). Transient failures are retried like
        any call; a submit whose answer was lost after it was sent may have created a job
        (the service offers no idempotency key), so a retry may pay for those items twice.
        """
        return self._batch.submit(handles, cancel=cancel)

    def batch_status(
        self, job_id: str, after: int = 0, *, cancel: threading.Event | None = None
    ) -> dict[str, Any]:
        """One poll of a batch job: the ``data`` of its answer (``status``, ``total``,
        ``resolved``, ``errors``, ``next_cursor``, ``not_found``, ``profiles``) from result
        ``after`` on. Never cached; takes a pacing slot. An unknown or expired job raises
        NotFoundError (any 404).

        Example: ``client.batch_status(job_id, 0)["status"]  # "processing"``
        """
        return self._batch.status(job_id, after, cancel=cancel)

    def batch_result(self, handle: str, record: dict[str, Any] | None, job_id: str) -> Envelope:
        """One batch job result as the answer ``GET /people/profile?handle=...`` gives, cached
        exactly as that answer would be: the record's Envelope, or (``record=None``) the billed
        not-found, raised as the NotFoundError a single call raises. Afterwards
        ``client.profile(handle)`` and a re-run are free cache hits.

        Example: ``client.batch_result("ada", page["profiles"]["ada"], job_id).data["id"]``
        """
        return self._batch.result(handle, record, job_id)

    def no_batch(self, exc: ServiceError | None = None) -> BatchUnavailableError:
        """The error that says this service has no batch jobs (``exc``: the answer that told)."""
        return self._batch.no_batch(exc)

    # -- pagination (lookup_pandas.pagination) -----------------------------------------------

    def page(
        self,
        path: str,
        params: Mapping[str, Any],
        plan: PagePlan,
        *,
        refresh: bool = False,
    ) -> tuple[list[dict[str, Any]], Mapping[str, Any] | None]:
        """One page of a list endpoint: its records and its pagination block, checked by
        ``plan`` (the page asked for, not another). ``plan.next(params, pagination, n)`` then
        gives the next page's parameters, or None at the end.

        Example::

            plan = PagePlan()
            params = plan.first({"title": "engineer", "limit": 50})
            records, pagination = client.page(SEARCH_PATH, params, plan)
        """
        return read_page(lambda p, q: self._request(p, q, refresh=refresh), path, params, plan)

    def paginate(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        style: Style | None = None,
        offset_param: str = "start",
        max_records: int | None = None,
        progress: bool | None = None,
        refresh: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """Yield every record of a list endpoint, page by page.

        Example::

            list(client.paginate(EMPLOYEES_PATH, {"slug": "acme", "limit": 50}, max_records=120))

        Page- or cursor-based paging is detected from the first answer (``style=None``);
        ``style="offset"`` walks ``offset_param`` (``start``) instead. ``max_records`` stops
        without fetching another page. Raises PaginationError rather than looping.
        """
        return walk(
            lambda q, plan: self.page(path, q, plan, refresh=refresh),
            path,
            params,
            style=style,
            offset_param=offset_param,
            max_records=max_records,
            progress=progress,
        )

    # -- the key and the pace (lookup_pandas.http.contact) -----------------------------------

    def check_key(self) -> None:
        """Make sure the key works, once per key and base URL: a key that some answer has
        accepted (in this Client, or in any process sharing the cache, which remembers it) is
        not asked about again; else the credits tier is read (free). A wrong or revoked key
        raises AuthenticationError, so a run that is all cache hits does not hide it.

        Example: ``client.check_key()  # sends nothing when the key has worked before``

        Other failures (the service unreachable, a 5xx) are logged, once: cached answers can
        still be read (offline, say), and this Client does not ask again; a later one does.
        """
        self._contact.check_key()

    def learn_pace(self) -> float | None:
        """Learn the pace now, as the first paced call would (the credits tier, read once and
        never billed), and return it in calls per minute (None: unpaced).

        Example: ``client.learn_pace()  # 57.0 on a 60/min tier``
        """
        return self._contact.learn_pace()

    def profile_keys(self, handles: Iterable[str], *, ahead: bool = False) -> dict[str, str]:
        """Each handle's profile answer's name among the processes sharing the store (its
        cache key); empty without a cache, where there is nothing to share or claim.
        ``ahead``: each request is kept for the call that will send it (prepared once)."""
        if not self._cache_on:
            return {}
        key, wire = self._wire.cache_key, self._wire
        prepare = wire.prepare_ahead if ahead else wire.prepare
        return {h: key(prepare(PROFILE_PATH, {"handle": h})) for h in handles}


Client.__doc__ = (Client.__doc__ or "").replace("    {keywords}\n", keyword_help() + "\n")


# -- the default client --------------------------------------------------------------------

_default: Client | None = None
_default_lock = threading.Lock()


def configure(**kwargs: Any) -> Client:
    """Build the default client used wherever ``client=None``; returns it.

    Example: ``lp.configure(api_key="lk_...", base_url="https://api.example.com", cache=False)``
    """
    global _default
    client = Client(**kwargs)
    with _default_lock:
        _default = client
    # The previous default is not closed: other code (a panel, a running job) may still hold
    # it, and closing a cache in use under another thread is unsafe. It closes when collected.
    return client


def default_client() -> Client:
    """The configured client, else one built from the LOOKUP_* environment variables."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Client()
        return _default


def resolve_client(client: Client | None) -> Client:
    """``client`` itself, or the default client."""
    return client if client is not None else default_client()
