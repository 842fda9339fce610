"""The parts one Client is made of, built from its settings and wired together.

>>> from lookup_pandas.config.settings import Settings
>>> from lookup_pandas.http.decisions import Call
>>> from lookup_pandas.testing import MockTransport, people_service
>>> transport = MockTransport(people_service({"id": "prsn_1", "handle": "ada"}))
>>> settings = Settings.build(api_key="lk_test", base_url="https://api.example.com", cache=False)
>>> parts = ClientParts.build(settings, transport)
>>> parts.sender.request(Call("/api/data/v1/people/profile", {"handle": "ada"})).data["id"]
'prsn_1'
>>> parts.close()

The :class:`~lookup_pandas.client.client.Client` is the façade over them and holds one
``ClientParts``. The send chain needs the contact, and the contact sends through the chain,
so the contact is given the chain lazily (see "The Client, a façade of one line per call" in
docs/decisions.md).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import requests
from requests.adapters import BaseAdapter

from ..config.settings import SAFE_DEFAULT_RATE_PER_MINUTE, Settings
from ..http.contact import Contact
from ..http.sending import Sender, Wire
from ..http.session import build_session
from ..http.stats import StatsCounter
from ..service.retry import RetryPolicy
from ..store import Store, answers_namespace, namespace, open_store
from ..store.claims import Claims
from ..store.pacing import Pacer
from .batch_jobs import BatchCalls
from .cache import ClientCache

__all__ = ["ClientParts", "PublicFacts"]


class PublicFacts:
    """The public credits facts one Client has read, kept on its parts for its life.

    Each path maps to its answer's ``data`` (None: the service has no such route).

    >>> facts = PublicFacts()
    >>> facts.has("/tiers")
    False
    >>> facts.keep("/tiers", None), facts.keep("/tiers", {"results": []})  # the first wins
    (None, None)
    >>> facts.has("/tiers"), facts.get("/tiers")
    (True, None)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[str, Any] = {}

    def has(self, path: str) -> bool:
        """Whether ``path`` was read."""
        with self._lock:
            return path in self._data

    def get(self, path: str) -> Any:
        """What ``path`` answered (KeyError when it was not read)."""
        with self._lock:
            return self._data[path]

    def keep(self, path: str, data: Any) -> Any:
        """Keep what ``path`` answered. The first answer kept wins, as two threads may read it."""
        with self._lock:
            return self._data.setdefault(path, data)


@dataclass(frozen=True, eq=False)
class ClientParts:
    """One Client's parts: the wire, what processes share, the pace, the send chain's fronts."""

    settings: Settings
    retry_policy: RetryPolicy
    session: requests.Session
    wire: Wire
    #: What the processes using this key and cache share: the pace, claims, batch jobs.
    store: Store
    #: Claims on answers being bought, kept alive while held (see lookup_pandas.store.claims).
    claims: Claims
    pacer: Pacer
    counter: StatsCounter
    contact: Contact
    #: The one place requests are sent (:meth:`~lookup_pandas.http.sending.Sender.request`).
    sender: Sender
    batch: BatchCalls
    cache: ClientCache
    #: The route costs and tier ladder, read once (see lookup_pandas.client.credits).
    public_facts: PublicFacts = field(default_factory=PublicFacts)

    @classmethod
    def build(cls, s: Settings, transport: BaseAdapter | None = None) -> ClientParts:
        """Every part of a Client with settings ``s``, sending nothing. See the module's example.

        ``transport`` answers instead of the network (tests). The first request makes first
        contact.
        """
        retry_policy = RetryPolicy(s.max_retries, s.backoff_base, s.backoff_max, s.retry_after_max)
        session = build_session(s, transport)
        wire = Wire(session, s)
        store = open_store(
            s.cache_url or s.cache_path,
            namespace(s.api_key, s.base_url),
            answers=answers_namespace(s),
        )
        claims = Claims(store)
        pacer = Pacer(
            s.rate_limit_per_minute or SAFE_DEFAULT_RATE_PER_MINUTE,
            shared=store if wire.cache_on else None,
        )
        counter = StatsCounter()
        sender: Sender  # built below, after the contact it needs: the contact reaches it lazily
        contact = Contact(
            s,
            pacer,
            store,
            cache_on=wire.cache_on,
            request=lambda call: sender.request(call),
        )
        sender = Sender(wire, retry_policy, pacer, claims, counter, contact)
        batch = BatchCalls(sender.request, wire)
        cache = ClientCache(wire, store, counter)
        return cls(
            s,
            retry_policy,
            session,
            wire,
            store,
            claims,
            pacer,
            counter,
            contact,
            sender,
            batch,
            cache,
        )

    def close(self) -> None:
        """Close the HTTP connections and let go of the cache (closed with its last user).

        What ``Client.close`` and ``with Client(...)`` do.
        """
        self.session.close()
        self.claims.close()
        self.store.close()
        release = getattr(self.session, "release_cache", None)
        if release is not None:
            release()
