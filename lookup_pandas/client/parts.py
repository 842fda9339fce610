"""The parts one Client is made of, built from its settings and wired together.

Example::

    parts = ClientParts.build(Settings.build(api_key="lk_...", base_url="http://127.0.0.1:8080"))
    parts.sender.request(Call(PROFILE_PATH, {"handle": "ada"})).data["id"]     # "prsn_..."
    parts.batch.submit(["ada", "grace"])                                       # "job_..."

The :class:`~lookup_pandas.client.client.Client` is the façade over them and holds one
``ClientParts``.
The send chain (:class:`~lookup_pandas.http.sending.Sender`) needs the contact to pace and
note first contact, and the contact sends through the chain (the credits tier, the health
probe): the contact is given the chain lazily, so neither is built before the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import requests
from requests.adapters import BaseAdapter

from ..config.settings import SAFE_DEFAULT_RATE_PER_MINUTE, Settings
from ..http.contact import Contact
from ..http.sending import PacedAttempts, Sender, Wire
from ..http.session import build_session
from ..http.stats import StatsCounter
from ..service.retry import RetryPolicy
from ..store import Store, answers_namespace, namespace, open_store
from ..store.claims import Claims
from ..store.pacing import Pacer
from .batch_jobs import BatchCalls
from .cache import ClientCache
from .credits import PublicFacts

__all__ = ["ClientParts"]


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
        """Every part of a Client with settings ``s``; ``transport`` answers instead of the
        network (tests). Sends nothing: the first request makes first contact.

        Example: ``ClientParts.build(settings).cache.is_cached(PROFILE_PATH, {"handle": "ada"})``
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
        attempts = PacedAttempts(wire, retry_policy, pacer, counter, contact)
        sender = Sender(wire, attempts, claims, counter, contact)
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

        Example: ``parts.close()`` (what ``Client.close`` and ``with Client(...)`` do)
        """
        self.session.close()
        self.claims.close()
        self.store.close()
        release = getattr(self.session, "release_cache", None)
        if release is not None:
            release()
