"""The Client: one cached, paced session, the envelope checks, retries, and pagination.

Example::

    client = lp.Client(api_key="lk_...", base_url="https://api.example.com")
    client.profile("ada-lovelace")          # {"id": "prsn_...", "handle": "ada-lovelace", ...}
    for rec in client.paginate("/api/data/v1/people/search", {"title": "engineer", "limit": 50}):
        ...

This is where low-level failures become :mod:`lookup_pandas.errors`: requests' exceptions are
translated here, and :func:`lookup_pandas.envelope.parse_envelope` maps answers. The API key is
kept in the settings object and only ever put in a request header; it is not in ``repr``,
log lines or exception messages.
"""

from __future__ import annotations

import copy
import logging
import math
import os
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3
from requests.adapters import BaseAdapter
from requests_cache import DO_NOT_CACHE, CachedSession
from requests_cache.policy.expiration import get_expiration_datetime

from . import cache_admin
from .cache_admin import CacheInfo, Forgotten
from .claims import Claims
from .endpoints import (
    BATCH_PATH,
    EMPLOYEES_PATH,
    HEALTH_PATH,
    PROFILE_PATH,
    SEARCH_PATH,
    TIER_PATH,
    checked_data,
    is_panel,
)
from .envelope import Envelope
from .errors import (
    AuthenticationError,
    BatchUnavailableError,
    ConfigurationError,
    NotFoundError,
    RateLimitError,
    RequestTimeoutError,
    ResponseError,
    ServiceError,
    TransportError,
    UsageError,
)
from .handles import checked_handle
from .pacing import Pacer, pause
from .pagination import PagePlan, Style
from .progress import Progress
from .retry import RetryPolicy, is_retryable
from .settings import ENV_BASE_URL, RATE_SAFETY_MARGIN, SAFE_DEFAULT_RATE_PER_MINUTE, Settings
from .store import MINE, RECHECK, Store, namespace, open_store
from .transport import (
    DATA_KEY_HEADER,
    PANEL_KEY_HEADER,
    build_session,
    parsed_answer,
    profile_answer_from_batch,
)

logger = logging.getLogger(__name__)

__all__ = [
    "BATCH_PATH",
    "EMPLOYEES_PATH",
    "PROFILE_PATH",
    "SEARCH_PATH",
    "TIER_PATH",
    "Client",
    "ClientStats",
    "configure",
    "default_client",
]

#: Seconds before the one retry of a first contact that met no service.
FIRST_CONTACT_RETRY_DELAY = 0.5
#: How often a call waiting for another process's claim looks at the cache again.
CLAIM_POLL_SECONDS = 0.1
#: Looks at the cache (and the pause between them) after another holder let go of a claim.
RECHECK_LOOKS, RECHECK_PAUSE_SECONDS = 5, 0.05

_TRANSIENT_REQUEST_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)


@dataclass
class ClientStats:
    """What a Client has done so far (a snapshot; see :attr:`Client.stats`)."""

    sent: int = 0  # requests that went to the network (retries included)
    cache_hits: int = 0  # answers read from the on-disk cache (free)
    retries: int = 0  # attempts after a transient failure
    rate_limited: int = 0  # 429 answers received
    credits_consumed: float = 0.0  # sum of X-Credits-Consumed
    #: the part of credits_consumed that batch-job answers reported (production bills batch
    #: items as they resolve; whether a poll's header reports them is not documented)
    batch_credits: float = 0.0
    credits_balance: float | None = None  # last X-Credits-Balance seen


class Client:
    """A connection to the service. Thread-safe; share one across a thread pool.

    Example::

        with lp.Client(cache="leads.sqlite") as client:
            client.profile("ada")      # second call with the same handle is a free cache hit

    Keywords:

    ``api_key``, ``base_url``
        The key (only ever sent in a request header) and the service's address. When not
        given: the ``LOOKUP_API_KEY`` and ``LOOKUP_BASE_URL`` environment variables.
    ``cache``
        ``True`` (default): the file named by ``LOOKUP_CACHE`` (or none if it says ``off``),
        else ``http_cache.sqlite`` in the user cache dir. ``False``: no cache. A path: that
        SQLite file. Every answer paid for is kept there, so a re-run costs nothing. A
        ``redis://[:password@]host:port/db`` URL (``rediss://`` for TLS; extra ``[redis]``):
        the cache, the pace and the claims in that Redis, shared by every machine using it.
    ``expire_after``
        How long a cached answer is reused: a timedelta or seconds (default 7 days).
    ``timeout``
        Seconds to wait for the connection and for each answer before that attempt fails.
    ``max_retries``
        Further attempts after a transient failure: a 429, a 5xx, a dropped connection or a
        timeout (0: try once). Until the base URL has answered once with the service's
        envelope, a host that cannot be reached (refused, unknown name, TLS failure) or an
        answer that is not the service's gets one quick retry, then a ConfigurationError.
    ``rate_limit_per_minute``
        A ceiling of your own. The pace is the lower of it and 95% of the limit the
        credits-tier endpoint reports. A tier that reports no limit is not paced (unless this
        is set); a tier that cannot be read at all is paced at 7 calls/min, the cheapest tier.
        A 429 always slows the pace: to 95% of the limit it names, else to half.
    ``max_workers``
        How many calls enrichment keeps in flight at once (default 4).
    ``backoff_base``, ``backoff_max``
        Seconds of exponential back-off between retries (doubling from ``backoff_base`` up to
        ``backoff_max``, with jitter).
    ``retry_after_max``
        The longest wait a 429's ``Retry-After`` is honoured for, in seconds, so a notebook
        never hangs for hours.
    ``batch_poll_interval``
        Seconds between two polls of a batch job whose results have caught up with what it
        resolved (1.5, as the service's own SDK waits); it grows by half while the job's
        ``resolved`` count does not move, up to 30 s. See :mod:`lookup_pandas.batch`.
    ``transport``
        A requests adapter that answers instead of the network, for tests:
        ``lookup_pandas.testing.MockTransport(handler)`` drives retries, pacing, discovery and
        the stats without a socket (httpx's ``MockTransport`` idea). Default: the network.

    How a call goes: the cache is looked up once (requests-cache's ``only_if_cached``); on a
    miss the Client learns the pace (once, from the credits tier, under a lock), waits for
    its slot and sends, and requests-cache stores the answer if it is worth keeping, without
    a second lookup. The panel endpoint is neither cached nor paced.
    """

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
        self.settings = Settings.build(
            api_key,
            base_url,
            cache=cache,
            expire_after=expire_after,
            timeout=timeout,
            max_retries=max_retries,
            rate_limit_per_minute=rate_limit_per_minute,
            max_workers=max_workers,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            retry_after_max=retry_after_max,
            batch_poll_interval=batch_poll_interval,
        )
        s = self.settings
        self.retry_policy = RetryPolicy(
            s.max_retries, s.backoff_base, s.backoff_max, s.retry_after_max
        )
        self._session = build_session(s, transport)
        self._cache_on = isinstance(self._session, CachedSession)
        #: What the processes using this key and cache share: the pace, claims, batch jobs.
        self.store: Store = open_store(
            s.cache_url or s.cache_path, namespace(s.api_key, s.base_url)
        )
        #: Claims on answers being bought, kept alive while held (see lookup_pandas.claims).
        self.claims = Claims(self.store)
        self._waiting = 0  # calls now waiting for an answer another process is buying
        self.pacer = Pacer(
            s.rate_limit_per_minute or SAFE_DEFAULT_RATE_PER_MINUTE,
            shared=self.store if self._cache_on else None,
        )
        self._contacted = False  # has the base URL answered with the service's envelope yet?
        self._key_proven = False  # has an answer (here, or in the store's memory) accepted it?
        self._key_lock = threading.Lock()
        self._key_rejected: AuthenticationError | None = None  # what the key check was told
        # The pace is learned once, from the credits tier, before the first paced send.
        self._rate_lock = threading.Lock()
        self._rate_known = False
        self._rate_failures = 0  # failed attempts to learn it (each is retried by a later call)
        self._rate_error: BaseException | None = None
        self._stats = ClientStats()
        self._stats_lock = threading.Lock()
        self._batch_supported: bool | None = None  # learned from the first submit

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
        with self._stats_lock:
            return ClientStats(**vars(self._stats))

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
        return self._rate_known

    @property
    def session(self) -> requests.Session:
        """The underlying (cached) requests session."""
        return self._session

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
        self._count(cache_hits=1)
        return parsed_answer(response, path, from_cache=True)

    def _prepare(
        self,
        path: str,
        params: Mapping[str, Any] | None,
        *,
        method: str = "GET",
        body: Any = None,
    ) -> requests.PreparedRequest:
        """The request, prepared once by the session (its headers, hooks and cookies merged);
        each send takes a copy, as requests-cache writes its options into the headers.
        ``body`` is sent as JSON."""
        header = PANEL_KEY_HEADER if is_panel(path) else DATA_KEY_HEADER
        request = requests.Request(
            method,
            self._url(path),
            params=dict(params or {}),
            headers={header: self.settings.api_key},
            json=body,
        )
        return self._session.prepare_request(request)

    def _send(self, prepared: requests.PreparedRequest, **options: Any) -> requests.Response:
        """Send a copy of ``prepared`` with requests' own send settings (and the cache's
        per-request ``options``): what ``Session.request`` would do, without preparing again."""
        s = self._session
        return s.send(
            prepared.copy(),
            timeout=self.settings.timeout,
            allow_redirects=True,
            proxies=s.proxies,
            stream=False,
            verify=s.verify,
            cert=s.cert,
            **options,
        )

    def _lookup(self, path: str, prepared: requests.PreparedRequest) -> requests.Response | None:
        """The stored answer (not expired), through requests-cache's own ``only_if_cached``;
        None on a miss (requests-cache answers 504 then), or when nothing is cached there."""
        if not self._cache_on or is_panel(path):
            return None
        response = self._send(
            prepared, only_if_cached=True, expire_after=self.settings.expire_after
        )
        # A miss is requests-cache's own "504 Not Cached" answer (itself a CachedResponse);
        # nothing but 200s is ever stored, so a 504 here is always that.
        return None if response.status_code == 504 else response

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

    # -- the cache: what it holds, and removing it (lookup_pandas.cache_admin) ---------------

    def cache_info(self) -> CacheInfo:
        """What the cache holds: ``entries``, ``expired``, ``bytes``, ``oldest`` and ``newest``
        (when stored), batch ``jobs``, ``location``. Sends nothing.

        Example: ``print(client.cache_info())``; ``client.cache_info().entries  # 1234``

        Without a cache (``cache=False``) it reports nothing cached.
        """
        return cache_admin.cache_info(self._open_cache())

    def prune(self) -> int:
        """Remove the expired answers (never used again); return how many. Sends nothing.

        Example: ``client.prune()  # 12``
        """
        return cache_admin.prune(self._open_cache()).entries

    def clear(self) -> int:
        """Remove every cached answer, and the stored batch jobs and claims (the jobs hold
        handles); return how many answers. What was paid for is paid for again when needed.

        Example: ``client.clear()  # 1234``

        A SQLite cache file is cleared whole (it holds the answers of every key used with it);
        a Redis cache, this Client's namespace. Without a cache: 0 (the jobs kept in memory
        are dropped).
        """
        return cache_admin.clear(self._open_cache()).entries

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
        ``IncompleteErasureWarning`` says so. See :mod:`lookup_pandas.cache_admin`. Without a
        cache, only the batch jobs kept in memory are edited.
        """
        return cache_admin.forget(self._open_cache(), handles, fold_case=fold_case)

    def _open_cache(self) -> cache_admin.OpenCache:
        cache = self._session.cache if self._cache_on else None  # type: ignore[attr-defined]
        return cache_admin.OpenCache.of_client(self.settings, cache, self.store)

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
        """
        try:
            return self.fetch_profile(handle, refresh=refresh, fold_case=fold_case)
        except NotFoundError:
            return None

    def fetch_profile(
        self, handle: str, *, refresh: bool = False, fold_case: bool = True
    ) -> dict[str, Any]:
        """The person record for ``handle`` (normalised as :meth:`profile` does); NotFoundError
        (with the server's message) if none."""
        sent = checked_handle(handle, fold_case=fold_case)
        return dict(self.profile_answer(sent, refresh=refresh).data)

    def profile_answer(
        self,
        handle: str,
        *,
        refresh: bool = False,
        cancel: threading.Event | None = None,
        known_miss: bool = False,
    ) -> Envelope:
        """The checked answer for ``handle``: ``.data`` is the record, ``.from_cache`` whether
        it came from the cache (nothing paid) or the network. NotFoundError if there is none.

        Example: ``client.profile_answer("ada").from_cache  # True the second time``

        ``handle`` is normalised with its case kept (``fold_case=False``): enrichment calls
        this with the handles it normalised under its own ``fold_case``, and normalising a
        normalised handle changes nothing, so its cache key is the one the plan read. A
        profile URL gives its handle; a value that cannot be a handle is a UsageError and
        nothing is sent.

        ``cancel``: once set, a call still waiting for its pacing slot or a back-off raises
        ``lookup_pandas.pacing.Cancelled`` instead of sending (a stopping job's threads).
        ``known_miss``: the caller read the cache for it a moment ago and found nothing, so the
        call claims it at once (an answer another process stored since shows in its claim).
        """
        handle = checked_handle(handle, fold_case=False)
        env = self._request(
            PROFILE_PATH, {"handle": handle}, refresh=refresh, cancel=cancel, known_miss=known_miss
        )
        checked_data(env, PROFILE_PATH)
        return env

    def credits_tier(self) -> dict[str, Any]:
        """The panel's credits-tier payload (balance, current_tier, next_tier); never cached.

        Reading it also teaches the Client its pace, if it did not know it yet.
        """
        tier: dict[str, Any] = checked_data(self._request(TIER_PATH, None), TIER_PATH)
        if not self._rate_known:
            with self._rate_lock:
                if not self._rate_known:
                    self._set_rate(self._rate_from(tier))
        return tier

    # -- batch jobs (see lookup_pandas.batch for the plan that drives them) ------------------

    @property
    def batch_supported(self) -> bool | None:
        """Whether the service has batch jobs: None until the first submit tells."""
        return self._batch_supported

    def submit_batch(self, handles: Sequence[str], *, cancel: threading.Event | None = None) -> str:
        """Submit one batch job of 1 to 1,000 handles; return its ``job_id``. Nothing is billed
        yet: each item is billed when it resolves. A submit takes a pacing slot.

        Example: ``job_id = client.submit_batch(["ada", "grace"])``

        A 404 or 405 means the service has no batch jobs: BatchUnavailableError, and the
        Client remembers it (no further submit is sent). Transient failures are retried like
        any call; a submit whose answer was lost after it was sent may have created a job
        (the service offers no idempotency key), so a retry may pay for those items twice.
        """
        if self._batch_supported is False:
            raise self.no_batch(None)
        body = {"ids": [], "handles": list(handles), "enrich_live": False}
        try:
            env = self._request(
                BATCH_PATH,
                None,
                method="POST",
                body=body,
                cache=False,
                cancel=cancel,
                final_statuses=frozenset({404, 405}),
            )
        except ServiceError as exc:
            if exc.status_code in (404, 405):
                self._batch_supported = False
                raise self.no_batch(exc) from exc
            raise
        job_id = env.data.get("job_id")
        if not isinstance(job_id, str) or not job_id:
            raise ResponseError(
                f"The batch submit's answer has no job_id (data: {sorted(env.data)}).",
                status_code=env.status_code,
                request_id=env.request_id,
                url=BATCH_PATH,
            )
        self._batch_supported = True
        return job_id

    def batch_status(
        self, job_id: str, after: int = 0, *, cancel: threading.Event | None = None
    ) -> dict[str, Any]:
        """One poll of a batch job: the ``data`` of its answer (``status``, ``total``,
        ``resolved``, ``errors``, ``next_cursor``, ``not_found``, ``profiles``) from result
        ``after`` on. Never cached; takes a pacing slot. An unknown or expired job raises
        NotFoundError (any 404).

        Example: ``client.batch_status(job_id, 0)["status"]  # "processing"``
        """
        try:
            env = self._request(
                BATCH_PATH,
                {"job_id": job_id, "after": after},
                cache=False,
                cancel=cancel,
                final_statuses=frozenset({404}),
            )
        except ConfigurationError as exc:
            if exc.status_code != 404:
                raise
            # A 404 without the job-not-found code (1090): the job is gone all the same.
            raise NotFoundError(
                exc.message, status_code=404, request_id=exc.request_id, url=BATCH_PATH
            ) from None
        data: dict[str, Any] = env.data
        return data

    def batch_result(self, handle: str, record: dict[str, Any] | None, job_id: str) -> Envelope:
        """One batch job result as the answer ``GET /people/profile?handle=...`` gives, cached
        exactly as that answer would be: the record's Envelope, or (``record=None``) the billed
        not-found, raised as the NotFoundError a single call raises. Afterwards
        ``client.profile(handle)`` and a re-run are free cache hits.

        Example: ``client.batch_result("ada", page["profiles"]["ada"], job_id).data["id"]``
        """
        prepared = self._prepare(PROFILE_PATH, {"handle": handle})
        response = profile_answer_from_batch(prepared, record, job_id)
        if self._cache_on:
            cache = self._session.cache  # type: ignore[attr-defined]
            key = cache.create_key(prepared, verify=self._session.verify)
            expires = get_expiration_datetime(self.settings.expire_after)
            cache.save_response(response, cache_key=key, expires=expires)
        return parsed_answer(response, PROFILE_PATH)

    def no_batch(self, exc: ServiceError | None = None) -> BatchUnavailableError:
        """The error that says this service has no batch jobs (``exc``: the answer that told)."""
        answer = f" (POST {BATCH_PATH} answered {exc.status_code})" if exc is not None else ""
        return BatchUnavailableError(
            f"The service at {self.settings.base_url} has no batch jobs{answer}; use "
            "method='single' or 'auto'.",
            cli_message=f"The service at {self.settings.base_url} has no batch jobs{answer}; "
            "use --method single or auto.",
            status_code=exc.status_code if exc is not None else None,
            url=BATCH_PATH,
        )

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
        env = self._request(path, params, refresh=refresh)
        records: list[dict[str, Any]] = checked_data(env, path, list)
        plan.check(params, env.pagination)  # before anyone uses its records
        return records, env.pagination

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
        check_max_records(max_records)
        if max_records == 0:
            return
        plan = PagePlan(style, offset_param=offset_param)
        next_params: dict[str, Any] | None = plan.first(dict(params or {}))
        yielded = 0
        name = path.rstrip("/").rsplit("/", 1)[-1]
        with Progress(progress, desc=name, unit=" rec", total=max_records) as bar:
            while next_params is not None:
                records, pagination = self.page(path, next_params, plan, refresh=refresh)
                page = records if max_records is None else records[: max_records - yielded]
                bar.update(len(page), pages=plan.pages + 1)
                yield from page
                yielded += len(page)
                if max_records is not None and yielded >= max_records:
                    return
                next_params = plan.next(next_params, pagination, len(records))
            bar.set_total(yielded)  # a list shorter than max_records ends at what it held

    # -- the one place requests are sent ---------------------------------------------------

    def _url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            raise ConfigurationError("Pass a path such as '/api/data/v1/...', not a full URL.")
        return self.settings.base_url + "/" + path.lstrip("/")

    def _request(
        self,
        path: str,
        params: Mapping[str, Any] | None,
        *,
        refresh: bool = False,
        cancel: threading.Event | None = None,
        method: str = "GET",
        body: Any = None,
        cache: bool = True,
        final_statuses: frozenset[int] = frozenset(),
        paced: bool = True,
        known_miss: bool = False,
    ) -> Envelope:
        """The one place requests are sent: one cache lookup, then paced attempts.

        ``cache=False``: neither looked up nor stored (batch jobs, whose answers change).
        ``known_miss``: the lookup is skipped (the caller just made it); the claim remains.
        ``final_statuses``: answers with these statuses are raised as they are, neither
        retried nor taken for a wrong base URL (a 404 to a batch submit means "no batch").
        """
        prepared = self._prepare(path, params, method=method, body=body)
        panel = is_panel(path)
        cache = cache and not panel and method == "GET"
        claimed: str | None = None
        if not refresh and cache:
            stored = None if known_miss else self._lookup(path, prepared)
            if stored is None:
                claimed, stored = self._claim(path, prepared, cancel)
            if stored is not None:
                if not self._key_proven:
                    self.check_key()
                return self._from_cache(stored, path)
        bought = False  # is the answer in the cache now (a record, or a billed not-found)?
        try:
            env = self._send_paced(prepared, path, cache, cancel, final_statuses, paced)
            bought = True
            return env
        except NotFoundError as exc:
            bought = exc.status_code == 200
            raise
        finally:
            if claimed is not None:
                self.claims.release([claimed], bought=bought)

    def _from_cache(self, stored: requests.Response, path: str) -> Envelope:
        self._count(cache_hits=1)
        try:
            return parsed_answer(stored, path, from_cache=True)
        except ServiceError as exc:  # a stored not-found: paid for earlier
            exc.from_cache = True
            raise

    def profile_keys(self, handles: Iterable[str]) -> dict[str, str]:
        """Each handle's profile answer's name among the processes sharing the store (its
        cache key); empty without a cache, where there is nothing to share or claim."""
        if not self._cache_on:
            return {}
        cache = self._session.cache  # type: ignore[attr-defined]
        verify = self._session.verify
        return {
            h: str(cache.create_key(self._prepare(PROFILE_PATH, {"handle": h}), verify=verify))
            for h in handles
        }

    def _claim(
        self, path: str, prepared: requests.PreparedRequest, cancel: threading.Event | None
    ) -> tuple[str | None, requests.Response | None]:
        """Claim the answer before buying it: (the claim to release, None), or (None, the
        answer another process bought meanwhile, from the cache).

        While another process holds the claim, wait for it to let go (or to die: its claim
        is then taken over, see :mod:`lookup_pandas.claims`) and read the cache; a claim let
        go of lately means "look first". :attr:`waiting` counts the calls waiting meanwhile.
        """
        if not self._cache_on:
            return None, None
        cache = self._session.cache  # type: ignore[attr-defined]
        key = str(cache.create_key(prepared, verify=self._session.verify))
        waiting = False
        try:
            while True:
                state = self.claims.take([key])[key]
                if state == MINE:
                    return key, None
                if state == RECHECK:
                    stored = self._fresh_lookup(path, prepared, cancel)
                    if stored is None:
                        return key, None  # the other holder did not store it: buy it
                    self.claims.release([key])
                    return None, stored
                if not waiting:  # BUSY: another process is buying it
                    waiting = True
                    self._count_waiting(1)
                pause(CLAIM_POLL_SECONDS, cancel)
                stored = self._lookup(path, prepared)
                if stored is not None:
                    return None, stored
        finally:
            if waiting:
                self._count_waiting(-1)

    def _count_waiting(self, n: int) -> None:
        with self._stats_lock:
            self._waiting += n

    @property
    def waiting(self) -> int:
        """Calls now waiting for an answer another process is buying (shown on the bar)."""
        with self._stats_lock:
            return self._waiting

    def _fresh_lookup(
        self, path: str, prepared: requests.PreparedRequest, cancel: threading.Event | None
    ) -> requests.Response | None:
        """The cache lookup after another holder let go of a claim: that holder stored the
        answer first, but this process's reads can briefly see the file as it was (requests-
        cache reads on its shared connection without a lock, inside another thread's write
        transaction when there is one). A few quick looks before concluding it is not there."""
        for attempt in range(RECHECK_LOOKS):
            stored = self._lookup(path, prepared)
            if stored is not None or attempt == RECHECK_LOOKS - 1:
                return stored
            pause(RECHECK_PAUSE_SECONDS, cancel)
        return None

    @property
    def claim_ttl(self) -> float:
        """Seconds a claim holds without renewal; a heartbeat renews it while it is held, so
        a stopped holder delays others by at most this much (:mod:`lookup_pandas.claims`)."""
        return self.claims.ttl

    def _send_paced(
        self,
        prepared: requests.PreparedRequest,
        path: str,
        cache: bool,
        cancel: threading.Event | None,
        final_statuses: frozenset[int],
        paced: bool = True,
    ) -> Envelope:
        """Paced attempts of one request, retried as the policy says; see :meth:`_request`.
        ``paced=False``: free probes sent while the pace is being learned."""
        panel = is_panel(path) or not paced
        extra: dict[str, Any] = {}
        if self._cache_on:
            # Per request, as the cache backend (and its settings) is shared by every Client on
            # the file. The lookup is done: send without a second one, and store the answer if
            # it is worth keeping; the panel endpoint and batch jobs are never stored.
            extra = (
                {"expire_after": self.settings.expire_after, "force_refresh": True}
                if cache
                else {"expire_after": DO_NOT_CACHE}
            )
        policy = self.retry_policy
        attempt = 0  # retries of transient failures so far
        first_contact_retried = False
        while True:
            retry_after: float | None = None
            try:
                if not panel:  # the panel endpoint is how the pace is learned: never paced
                    self._pace(cancel)
                return self._send_once(prepared, path, extra)
            except AuthenticationError as exc:
                exc.hint = f"Check {self.settings.api_key_source}"
                raise
            except ConfigurationError as exc:
                if exc.server_message is not None and 404 not in final_statuses:
                    raise self._no_endpoint(exc, path) from None
                raise
            except ServiceError as exc:
                if exc.status_code in final_statuses:
                    raise
                if not self._contacted and _not_the_service(exc):
                    # Nothing has answered like the service yet: a wrong or dead base URL is
                    # far likelier than a fault. One quick retry, then say so.
                    if first_contact_retried:
                        raise self._misconfigured(exc, path) from exc
                    first_contact_retried, delay = True, FIRST_CONTACT_RETRY_DELAY
                elif not is_retryable(exc) or attempt == policy.max_retries:
                    raise
                else:
                    if isinstance(exc, RateLimitError):
                        retry_after = exc.retry_after
                        self._on_rate_limited(exc)
                    delay = policy.delay(attempt, retry_after)
                    attempt += 1
                failure = exc
            with self._stats_lock:
                self._stats.retries += 1
            logger.debug(
                "retrying %s after %s in %.2fs (retry %d of %d)",
                path,
                type(failure).__name__,
                delay,
                attempt,
                policy.max_retries,
            )
            if isinstance(failure, RateLimitError):
                self.pacer.defer(delay)  # every thread waits, and the retry takes a new slot
            if panel or not isinstance(failure, RateLimitError):
                # The panel endpoint takes no slot, so it waits out a Retry-After itself.
                pause(delay, cancel)  # ends early, sending nothing, if the job is stopping

    # -- the key: checked once per key and base URL, even when every answer is cached --------

    def check_key(self) -> None:
        """Make sure the key works, once per key and base URL: a key that some answer has
        accepted (in this Client, or in any process sharing the cache, which remembers it) is
        not asked about again; else the credits tier is read (free). A wrong or revoked key
        raises AuthenticationError, so a run that is all cache hits does not hide it.

        Example: ``client.check_key()  # sends nothing when the key has worked before``

        Other failures (the service unreachable, a 5xx) are logged, once: cached answers can
        still be read (offline, say), and this Client does not ask again; a later one does.
        """
        if self._key_proven or not self._cache_on:  # no cache: every answer is the key's
            return
        with self._key_lock:  # one tier read, however many threads meet their first cache hit
            if self._key_proven:
                return
            if self._key_rejected is not None:  # told once: every thread gets a copy
                raise copy.copy(self._key_rejected)
            if self.store.key_seen():
                self._key_proven = True
                return
            try:
                self.credits_tier()
            except AuthenticationError as exc:
                self._key_rejected = exc
                raise
            except ServiceError as exc:
                self._key_proven = True  # not proven, but not asked again by this Client
                logger.warning("Could not check the API key (%s); answering from the cache.", exc)

    def _prove_key(self) -> None:
        """An answer accepted the key: remember it here and in the store (once per Client)."""
        self._key_proven = True
        try:
            self.store.mark_key_seen()
        except ServiceError:  # a shared store that is down costs a later tier read, no more
            logger.debug("could not remember that the key works", exc_info=True)

    # -- the pace: learned once, from the credits tier, before the first paced send ----------

    def learn_pace(self) -> float | None:
        """Learn the pace now, as the first paced call would (the credits tier, read once and
        never billed), and return it in calls per minute (None: unpaced).

        Example: ``client.learn_pace()  # 57.0 on a 60/min tier``
        """
        if not self._rate_known:
            self._learn_rate(None)
        return self.pacer.per_minute

    def _pace(self, cancel: threading.Event | None) -> None:
        if not self._rate_known:
            self._learn_rate(cancel)
        self.pacer.wait(cancel)

    def _learn_rate(self, cancel: threading.Event | None) -> None:
        """Read the tier once; other threads wait for it. A failure is raised (every thread
        that waited for that attempt gets a copy, sending nothing), and the next call tries
        again: the key or the service may be fixed by then."""
        pause(0, cancel)  # a stopped job's thread does not start it
        failures = self._rate_failures
        with self._rate_lock:
            if self._rate_known:
                return
            if self._rate_failures != failures:
                assert self._rate_error is not None
                raise copy.copy(self._rate_error)
            try:
                rate = self._discover_rate()
            except BaseException as exc:
                self._rate_error = exc
                self._rate_failures += 1
                raise
            self._set_rate(rate)

    def _set_rate(self, rate: float) -> None:
        """Apply a learned pace (``math.inf``: unpaced); called with the rate lock held."""
        self.pacer.set_rate(None if rate == math.inf else rate)
        self._rate_known = True
        logger.debug("pacing at %s calls/min", "no limit" if rate == math.inf else f"{rate:.1f}")

    def _misconfigured(self, exc: ServiceError, path: str) -> ConfigurationError:
        """The first contact failed twice: name the base URL, what came back, and the setting."""
        s = self.settings
        what = exc.message.rstrip(".")
        return ConfigurationError(
            f"The base URL {s.base_url} does not answer like the service (GET {path}, tried "
            f"twice): {what}. Check {s.base_url_source}.",
            status_code=exc.status_code,
            request_id=exc.request_id,
            url=path,
        )

    def _no_endpoint(self, exc: ConfigurationError, path: str) -> ConfigurationError:
        """An enveloped 404 without a not-found code: the URL is no endpoint of the service (a
        person or company not found is a 200 with a code), so name the URL and the setting."""
        s = self.settings
        error = ConfigurationError(
            f"No endpoint at {s.base_url}{path}: the service answered HTTP 404 without a "
            f"not-found code ({exc.server_message}). The base URL "
            f"should be the service's root; check {s.base_url_source}",
            cli_message=f"No endpoint at {s.base_url}{path}: the service answered HTTP 404 "
            f"without a not-found code. The base URL should be the service's root; check "
            f"the {ENV_BASE_URL} environment variable",
            status_code=404,
            request_id=exc.request_id,
            url=path,
        )
        return error

    def _send_once(
        self, prepared: requests.PreparedRequest, path: str, extra: dict[str, Any]
    ) -> Envelope:
        url = prepared.url or ""
        started = time.perf_counter()
        failure: ServiceError | None = None
        try:
            response = self._send(prepared, **extra)
        except _TRANSIENT_REQUEST_ERRORS as exc:
            self._count(sent=1)
            unreachable = _connect_failure(exc)
            error: TransportError
            if unreachable is not None:
                error = TransportError(f"{_host(url)} cannot be reached: {unreachable}", url=path)
                error.before_connecting = True
            elif isinstance(exc, requests.Timeout) or _wraps_read_timeout(exc):
                # A stall while reading the body arrives as a ConnectionError around urllib3's
                # ReadTimeoutError; it is a timeout all the same.
                error = RequestTimeoutError(
                    f"No answer from {_host(url)} within {self.settings.timeout:g}s "
                    f"({type(exc).__name__}) for {path}.",
                    url=path,
                )
            else:
                what = (
                    "the answer was cut short"
                    if isinstance(exc, requests.exceptions.ChunkedEncodingError)
                    else "the connection failed"
                )
                error = TransportError(
                    f"Request to {_host(url)} for {path}: {what} ({type(exc).__name__}).",
                    url=path,
                )
            failure = error
        except requests.RequestException as exc:
            failure = ServiceError(f"Request for {path} could not be sent ({type(exc).__name__}).")
        if failure is not None:
            # Raised here, not in the except block: with no __context__, the requests exception
            # (its .request carries the key header) never travels with ours. `from None` is not
            # enough: it hides the context from tracebacks, yet tblib's pickling (installed by
            # Dask's distributed) still pickles it when a worker sends the error to the client.
            raise failure
        from_cache = bool(getattr(response, "from_cache", False))
        if from_cache:
            self._count(cache_hits=1)
        else:
            self._account(response, batch=path.rstrip("/").endswith(BATCH_PATH.rstrip("/")))
        logger.debug(
            "%s %s -> %s%s in %.1f ms",
            prepared.method,
            prepared.path_url,  # the path and query: the key is only ever in a header
            response.status_code,
            " (cache)" if from_cache else "",
            1000 * (time.perf_counter() - started),
        )
        try:
            env = parsed_answer(response, path, from_cache=from_cache)
        except NotFoundError as exc:
            # A billed not-found (200 with its code) is the service's own answer, too.
            if exc.status_code == 200 and not from_cache:
                self._contacted = True
            raise
        if not from_cache:
            # Only an answer the service gives on success proves the base URL (an enveloped
            # error, a 404 above all, may come from a gateway or a path that is no endpoint).
            self._contacted = True
            if not self._key_proven and path != HEALTH_PATH:  # health takes no key
                self._prove_key()
        return env

    # -- bookkeeping -----------------------------------------------------------------------

    def _count(self, **increments: int) -> None:
        with self._stats_lock:
            for name, n in increments.items():
                setattr(self._stats, name, getattr(self._stats, name) + n)

    def _account(self, response: requests.Response, *, batch: bool = False) -> None:
        consumed = _finite_number(response.headers.get("X-Credits-Consumed"))
        balance = _finite_number(response.headers.get("X-Credits-Balance"))
        with self._stats_lock:
            self._stats.sent += 1
            if response.status_code == 429:
                self._stats.rate_limited += 1
            if consumed is not None:
                self._stats.credits_consumed += consumed
                if batch:
                    self._stats.batch_credits += consumed
            if balance is not None:
                self._stats.credits_balance = balance

    def _on_rate_limited(self, exc: RateLimitError) -> None:
        """A 429 always slows the pace: to 95% of the limit it names, else to half."""
        errors = exc.errors if isinstance(exc.errors, dict) else {}
        limit = _finite_number(errors.get("current_limit"))
        current = self.pacer.per_minute
        if limit and limit > 0:
            if current is None or limit * RATE_SAFETY_MARGIN < current:
                logger.info("rate limited: pacing at %.1f/min", limit * RATE_SAFETY_MARGIN)
                self.pacer.set_rate(limit * RATE_SAFETY_MARGIN, share=True)
        else:
            rate = self.pacer.slow_down(SAFE_DEFAULT_RATE_PER_MINUTE)
            logger.info("rate limited (no limit named): pacing at %.1f/min", rate)

    def _discover_rate(self) -> float:
        """The pace from the credits tier: see :meth:`_rate_from`.

        An AuthenticationError or ConfigurationError (the first contact failed) is raised; a
        tier that cannot be read otherwise gives the configured pace, else the cheapest
        tier's 7/min, with a warning.
        """
        try:
            tier = checked_data(self._request(TIER_PATH, None), TIER_PATH)
        except (AuthenticationError, ConfigurationError):
            raise
        except ServiceError as exc:
            if not self._contacted and not isinstance(exc, TransportError):
                # Something answered, but not with a tier: is it the service at all? (A
                # transport failure says nothing more; the next call meets it again.)
                self._probe_health()
            rate = self.settings.rate_limit_per_minute or SAFE_DEFAULT_RATE_PER_MINUTE
            logger.warning(
                "Could not read the credits tier to learn the rate limit (%s); pacing at "
                "%.0f calls/min.",
                exc,
                rate,
            )
            return rate
        return self._rate_from(tier)

    def _probe_health(self) -> None:
        """The tier could not be read before anything proved the base URL: ask the Data API's
        free health probe (unpaced, no credits). A success proves the service; a 404 is a
        ConfigurationError ("no endpoint"), an answer that is not the service's too (after
        one quick retry); the service's own error (a 503: it is down) is raised as it is."""
        self._request(HEALTH_PATH, None, cache=False, paced=False)

    def _rate_from(self, tier: Mapping[str, Any]) -> float:
        """min(95% of the tier's limit, rate_limit_per_minute); ``math.inf`` means unpaced.

        A tier that reports no limit (null or missing) is unmetered: unpaced, unless
        ``rate_limit_per_minute`` is set. A payload without a current tier gives the
        configured pace, else 7/min, with a warning.
        """
        explicit = self.settings.rate_limit_per_minute
        current = tier.get("current_tier")
        if not isinstance(current, dict):
            rate = explicit or SAFE_DEFAULT_RATE_PER_MINUTE
            logger.warning(
                "The credits tier names no current tier; pacing at %.0f calls/min.", rate
            )
            return rate
        limit = _finite_number(current.get("limit_per_minute"))
        server = limit * RATE_SAFETY_MARGIN if limit and limit > 0 else math.inf
        return min(server, explicit or math.inf)


def _wraps_read_timeout(exc: BaseException) -> bool:
    return any(isinstance(arg, urllib3.exceptions.ReadTimeoutError) for arg in exc.args)


def _connect_failure(exc: BaseException) -> str | None:
    """Why no connection was made at all (refused, unknown host, TLS, proxy), else None.

    These mean a wrong address far more often than a passing fault; a connection that was
    made and then dropped, or an answer that was slow, is not one of them.
    """
    if isinstance(exc, requests.exceptions.SSLError):
        return "the TLS handshake failed"
    if isinstance(exc, requests.exceptions.ProxyError):
        return "the proxy could not be reached"
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return "no connection within the timeout"
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    if isinstance(reason, urllib3.exceptions.NameResolutionError):
        return "the host name does not resolve"
    if isinstance(reason, urllib3.exceptions.NewConnectionError):
        errno = re.search(r"\[Errno -?\d+\] ([^')\]]+)", str(reason))
        return errno.group(1).strip().lower() if errno else "no connection could be made"
    return None


def _not_the_service(exc: ServiceError) -> bool:
    """Evidence that nothing at the base URL is the service: no connection, or no envelope.

    A 429 is never that: a gateway in front of the service may send its own.
    """
    if isinstance(exc, RateLimitError):
        return False
    return not exc.enveloped or getattr(exc, "before_connecting", False)


def check_max_records(max_records: int | None) -> None:
    """``max_records`` is None or a whole number >= 0, else a UsageError (nothing is sent)."""
    if max_records is None:
        return
    if isinstance(max_records, bool) or not isinstance(max_records, int) or max_records < 0:
        raise UsageError(f"max_records must be a whole number >= 0 or None, not {max_records!r}.")


def _host(url: str) -> str:
    return urlsplit(url).netloc


def _finite_number(value: Any) -> float | None:
    try:
        n = float(value)
    except (TypeError, ValueError):
        return None
    return n if math.isfinite(n) else None


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
