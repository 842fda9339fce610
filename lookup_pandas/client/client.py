"""The Client: the public façade over the send chain, the cache, batch jobs and pagination.

>>> import lookup_pandas as lp
>>> from lookup_pandas.testing import MockTransport, envelope
>>> def answer(request):
...     if "/credits/tier/" in request.url:
...         return 200, envelope({"balance": 988, "current_tier": {"limit_per_minute": 600}})
...     if "/people/search" in request.url:
...         page = 2 if "page=2" in request.url else 1
...         found = [{"id": f"prsn_{page}", "handle": f"person-{page}"}]
...         return 200, envelope(found, pagination={"page": page, "has_more": page < 2})
...     return 200, envelope({"id": "prsn_1", "handle": "ada-lovelace"})
>>> with lp.Client(api_key="lk_test", base_url="https://api.example.com", cache=False,
...                transport=MockTransport(answer)) as client:
...     record = client.profile("https://www.example.com/in/Ada-Lovelace/")
...     found = [r["id"] for r in client.paginate(SEARCH_PATH, {"title": "engineer"},
...                                               progress=False)]
...     balance = client.credits_tier()["balance"]
>>> record["handle"], found, balance
('ada-lovelace', ['prsn_1', 'prsn_2'], 988)

It wires the parts (:mod:`lookup_pandas.client.parts`) and decides nothing of its own. Each
method is a part's, in a line or two. docs/architecture.md follows a request through them. The
API key is kept in the settings and only ever put in a request header. It is not in ``repr``,
log lines or exception messages.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import requests
from requests.adapters import BaseAdapter

from ..cache import CacheInfo, Forgotten
from ..config.settings import SETTING_NAMES, Settings, keyword_help
from ..errors import BatchUnavailableError, ServiceError
from ..http.decisions import Call
from ..http.stats import ClientStats
from ..identifiers.kinds import COMPANIES, PEOPLE, Kind
from ..service.endpoints import (
    BATCH_PATH,
    EMPLOYEES_PATH,
    PROFILE_PATH,
    SEARCH_PATH,
    TIER_PATH,
)
from ..service.envelope import Envelope
from . import fetching as lookups
from .fetching import LookupFlags
from .pagination import Page, PagePlan, Style, check_max_records, read_page, walk
from .parts import ClientParts

#: A cached answer's (stored at, expired), or None: :meth:`Client.stored_at`.
StoredTime = tuple[datetime, bool] | None

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

#: Why a Client cannot be pickled, and what to pickle instead.
_NOT_PICKLABLE = (
    "A Client holds the API key, a session and a cache connection: it is not picklable. To "
    "rebuild it in another process, pickle lookup_pandas.client.spec.ClientSpec.from_client("
    "client): the settings without the key, which that process reads from LOOKUP_API_KEY."
)


class Client:
    """A connection to the service. Thread-safe: share one across a thread pool.

    Example: ``with lp.Client(cache="leads.sqlite") as client: client.profile("ada")`` (the
    second call is free). See the module's example.

    Keywords (the settings, listed once in :class:`~lookup_pandas.config.settings.Settings`):

    {keywords}
    ``transport``
        A requests adapter that answers instead of the network, for tests:
        ``lookup_pandas.testing.MockTransport(handler)``. Default: the network.
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
        offline: bool | None = None,
        transport: BaseAdapter | None = None,
    ) -> None:
        given = locals()
        self.settings = Settings.build(**{name: given[name] for name in SETTING_NAMES})
        #: The parts (the send chain, the store, the pace, ...): other modules use them here.
        self._parts = ClientParts.build(self.settings, transport)

    def __repr__(self) -> str:
        # cache_label: the path, the Redis URL without its password, or "off"
        s, offline = self.settings, ", offline=True" if self.settings.offline else ""
        return f"Client(base_url={s.base_url!r}, cache={s.cache_label!r}{offline})"

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError(_NOT_PICKLABLE)  # it would carry its key into a Dask graph, a log, a file

    def close(self) -> None:
        """``client.close()``: close the HTTP connections and let go of the cache."""
        self._parts.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def base_url(self) -> str:
        """``client.base_url  # "https://api.example.com"``: the service's address."""
        return self.settings.base_url

    @property
    def session(self) -> requests.Session:
        """``client.session.get_adapter(url)``: the underlying (cached) requests session."""
        return self._parts.session

    @property
    def max_workers(self) -> int:
        """``client.max_workers  # 4``: the threads enrichment sends single calls from."""
        return self.settings.max_workers

    @property
    def stats(self) -> ClientStats:
        """``client.stats.sent``: a copy of the counters (sent, cache hits, retries, credits)."""
        return self._parts.counter.snapshot()

    @property
    def credits_consumed(self) -> float:
        """``client.credits_consumed  # 12.0``: the sum of the X-Credits-Consumed seen."""
        return self.stats.credits_consumed

    @property
    def credits_balance(self) -> float | None:
        """``client.credits_balance  # 988.0``: the last X-Credits-Balance seen, if any."""
        return self.stats.credits_balance

    @property
    def rate_limit_per_minute(self) -> float | None:
        """``client.rate_limit_per_minute  # 57.0``: the pace applied to network calls."""
        return self._parts.pacer.per_minute

    @property
    def pace_known(self) -> bool:
        """``client.pace_known``: whether the pace was learned (the credits tier, or a 429)."""
        return self._parts.contact.rate_known

    @property
    def waiting(self) -> int:
        """``client.waiting  # 3``: calls waiting for an answer another process is buying."""
        return self._parts.counter.waiting

    def get(
        self, path: str, params: Mapping[str, Any] | None = None, *, refresh: bool = False
    ) -> dict[str, Any]:
        """``client.get(PROFILE_PATH, {"handle": "ada"})["data"]``: GET any endpoint, checked."""
        return dict(self._parts.sender.request(Call(path, params, refresh=refresh)).body)

    def profile(
        self, handle: str, *, refresh: bool = False, fold_case: bool = True
    ) -> dict[str, Any] | None:
        """The person record for a handle, profile URL or ``prsn_`` id, normalised as enrichment.

        None when not found. An id is sent as ``id=``. A value that cannot be a handle is a
        UsageError, and nothing is sent. :meth:`fetch_profile` raises NotFoundError instead of None.
        Example: ``client.profile("https://www.example.com/in/Ada/")["id"]``
        """
        return lookups.record(
            self.lookup_answer, handle, PEOPLE, refresh=refresh, fold_case=fold_case
        )

    def fetch_profile(
        self, handle: str, *, refresh: bool = False, fold_case: bool = True
    ) -> dict[str, Any]:
        """Alias of :meth:`profile` that raises NotFoundError (the server's message), not None."""
        return lookups.fetched(
            self.lookup_answer, handle, PEOPLE, refresh=refresh, fold_case=fold_case
        )

    def company(
        self, slug_or_id: str, *, refresh: bool = False, fold_case: bool = True
    ) -> dict[str, Any] | None:
        """The record for a company slug, page URL or ``org_`` id (sent as ``id=``), or None (1020).

        Example: ``client.company("https://www.linkedin.com/company/acme/")["name"]``
        """
        return lookups.record(
            self.lookup_answer, slug_or_id, COMPANIES, refresh=refresh, fold_case=fold_case
        )

    def profile_answer(
        self,
        handle: str,
        *,
        refresh: bool = False,
        cancel: threading.Event | None = None,
        held: str | None = None,
    ) -> Envelope:
        """``client.profile_answer("ada").from_cache``: :meth:`lookup_answer` for a person."""
        return self.lookup_answer(handle, PEOPLE, refresh=refresh, cancel=cancel, held=held)

    def lookup_answer(
        self,
        value: str,
        kind: Kind = PEOPLE,
        *,
        refresh: bool = False,
        cancel: threading.Event | None = None,
        held: str | None = None,
        fresh_after: float | None = None,
    ) -> Envelope:
        """One lookup's whole answer, its case kept. NotFoundError if there is none.

        The keywords are :class:`~lookup_pandas.client.fetching.LookupFlags`'s.
        Example: ``client.lookup_answer("acme", COMPANIES).data``
        """
        flags = LookupFlags(refresh, cancel, held, fresh_after)  # its fields' order
        return lookups.answer(self._parts.sender.request, value, kind, flags)

    def credits_tier(self) -> dict[str, Any]:
        """The panel's credits tier (``balance``, ``current_tier``, ``next_tier``), never cached.

        Reading it teaches the Client its pace. Example: ``client.credits_tier()["balance"]``
        """
        return self._parts.contact.credits_tier()

    def check_key(self) -> None:
        """``client.check_key()``: raise AuthenticationError for a bad key, asking once per key."""
        self._parts.contact.check_key()

    def learn_pace(self) -> float | None:
        """``client.learn_pace()  # 57.0``: the pace, learned now (None: unpaced)."""
        return self._parts.contact.learn_pace()

    def page(
        self, path: str, params: Mapping[str, Any], plan: PagePlan, *, refresh: bool = False
    ) -> Page:
        """``records, pagination = client.page(SEARCH_PATH, plan.first(params), plan)``."""
        request = self._parts.sender.request
        return read_page(lambda p, q: request(Call(p, q, refresh=refresh)), path, params, plan)

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
        """Yield every record of a list endpoint, page by page. See the module's example.

        Page- or cursor-based paging is told by the first answer (``style=None``).
        ``style="offset"`` walks ``offset_param`` (``start``) instead. ``max_records`` stops without
        fetching another page. A loop is a PaginationError instead.
        """
        page = functools.partial(self.page, path, refresh=refresh)
        new_plan = functools.partial(PagePlan, style, offset_param=offset_param)
        return walk(page, path, params, new_plan, max_records=max_records, progress=progress)

    @property
    def batch_supported(self) -> bool | None:
        """``client.batch_supported  # None``: has the service batch jobs (None: not told yet)?"""
        return self._parts.batch.supported

    def batch_supported_for(self, kind: Kind) -> bool | None:
        """``client.batch_supported_for(COMPANIES)``: :attr:`batch_supported`, for a kind."""
        return self._parts.batch.supported_for(kind)

    def submit_batch(
        self,
        handles: Sequence[str],
        *,
        cancel: threading.Event | None = None,
        kind: Kind = PEOPLE,
    ) -> str:
        """``job_id = client.submit_batch(["ada", "prsn_1"])``: :meth:`BatchCalls.submit`."""
        return self._parts.batch.submit(kind, handles, cancel)

    def batch_status(
        self,
        job_id: str,
        after: int = 0,
        *,
        cancel: threading.Event | None = None,
        kind: Kind = PEOPLE,
    ) -> dict[str, Any]:
        """``client.batch_status(job_id, 0)["status"]``: see :meth:`BatchCalls.status`."""
        return self._parts.batch.status(kind, job_id, after, cancel)

    def batch_result(
        self, handle: str, record: dict[str, Any] | None, job_id: str, kind: Kind = PEOPLE
    ) -> Envelope:
        """``client.batch_result("ada", record, job_id)``: see :meth:`BatchCalls.result`."""
        return self._parts.batch.result(kind, handle, record, job_id)

    def no_batch(
        self, exc: ServiceError | None = None, kind: Kind = PEOPLE
    ) -> BatchUnavailableError:
        """``raise client.no_batch()``: the error saying this service has no batch jobs."""
        return self._parts.batch.no_batch(kind, exc)

    def is_cached(self, path: str, params: Mapping[str, Any] | None = None) -> bool:
        """``client.is_cached(PROFILE_PATH, {"handle": "ada"})``: would a GET be a cache hit?"""
        return self._parts.cache.is_cached(path, params)

    def cached(self, path: str, params: Mapping[str, Any] | None = None) -> Envelope | None:
        """``client.cached(PROFILE_PATH, {"handle": "ada"})``: the cached answer, or None."""
        return self._parts.cache.cached(path, params)

    def stored_at(self, path: str, params: Mapping[str, Any] | None = None) -> StoredTime:
        """``client.stored_at(PROFILE_PATH, {"handle": "ada"})``: (when stored, expired) or None."""
        return self._parts.cache.stored_at(path, params)

    def profile_keys(self, handles: Iterable[str], *, kind: Kind = PEOPLE) -> dict[str, str]:
        """``client.profile_keys(["ada"])``: each handle's cache key (see :class:`ClientCache`)."""
        return self._parts.cache.profile_keys(handles, kind=kind)

    def cache_info(self) -> CacheInfo:
        """What the cache holds, sending nothing. Example: ``print(client.cache_info())``"""
        return self._parts.cache.info()

    def prune(self) -> int:
        """Remove the expired answers, sending nothing, and count them: ``client.prune()``."""
        return self._parts.cache.prune()

    def clear(self) -> int:
        """Remove every answer, batch job and claim, sending nothing. Returns how many answers.

        Example: ``client.clear()``
        """
        return self._parts.cache.clear()

    def forget(self, handles: str | Iterable[object], *, fold_case: bool = True) -> Forgotten:
        """``client.forget(["ada"])``: erase every stored answer about them (ClientCache.forget)."""
        return self._parts.cache.forget(handles, fold_case=fold_case)


Client.__doc__ = (Client.__doc__ or "").replace("    {keywords}\n", keyword_help() + "\n")


# -- the default client --------------------------------------------------------------------

_default: Client | None = None
_default_lock = threading.Lock()


def configure(**kwargs: Any) -> Client:
    """Build the default client used wherever ``client=None``, and return it.

    Example: ``lp.configure(api_key="lk_...", base_url="https://api.example.com", cache=False)``

    The previous default is not closed, since other code (a panel, a running job) may still hold
    it. It closes when collected.
    """
    global _default
    client = Client(**kwargs)
    with _default_lock:
        _default = client
    # Closing a cache in use under another thread is unsafe: the old default closes when collected.
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
