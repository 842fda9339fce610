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
from collections.abc import Iterable, Iterator, Mapping
from datetime import timedelta
from typing import Any

import requests
from requests.adapters import BaseAdapter

from ..cache import CacheInfo, Forgotten
from ..config.settings import SETTING_NAMES, Settings, keyword_help
from ..http.decisions import Call
from ..http.stats import ClientStats
from ..identifiers.kinds import COMPANIES, PEOPLE
from ..service.paths import BATCH_PATH, EMPLOYEES_PATH, PROFILE_PATH, SEARCH_PATH, TIER_PATH
from .fetching import record
from .pagination import PagePlan, Style, check_max_records, read_page, walk
from .parts import ClientParts

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
    def parts(self) -> ClientParts:
        """The package's seam to this Client's parts (send chain, cache, store, ...): not user API.

        The engine (:mod:`lookup_pandas.enrichment`) and the package's other callers use them
        here, and nowhere reach ``_parts``.
        """
        return self._parts

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
    def rate_limit_per_minute(self) -> float | None:
        """``client.rate_limit_per_minute  # 57.0``: the pace applied to network calls."""
        return self._parts.pacer.per_minute

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
        UsageError, and nothing is sent.
        Example: ``client.profile("https://www.example.com/in/Ada/")["id"]``
        """
        request = self._parts.sender.request
        return record(request, handle, PEOPLE, refresh=refresh, fold_case=fold_case)

    def company(
        self, slug_or_id: str, *, refresh: bool = False, fold_case: bool = True
    ) -> dict[str, Any] | None:
        """The record for a company slug, page URL or ``org_`` id (sent as ``id=``), or None (1020).

        Example: ``client.company("https://www.linkedin.com/company/acme/")["name"]``
        """
        request = self._parts.sender.request
        return record(request, slug_or_id, COMPANIES, refresh=refresh, fold_case=fold_case)

    def credits_tier(self) -> dict[str, Any]:
        """The panel's credits tier (``balance``, ``current_tier``, ``next_tier``), never cached.

        Reading it teaches the Client its pace. Example: ``client.credits_tier()["balance"]``
        """
        return self._parts.contact.credits_tier()

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
        request = self._parts.sender.request
        page = functools.partial(read_page, request, path, refresh=refresh)
        new_plan = functools.partial(PagePlan, style, offset_param=offset_param)
        return walk(page, path, params, new_plan, max_records=max_records, progress=progress)

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
