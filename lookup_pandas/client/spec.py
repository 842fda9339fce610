"""A Client's settings without its key: what another process needs to build the same Client.

Each worker reads ``LOOKUP_API_KEY`` from its own environment. A Redis password stays out too.

Example:
    >>> import pickle
    >>> import lookup_pandas as lp
    >>> client = lp.Client(api_key="lk_example", base_url="https://api.example.com",
    ...                    cache="redis://:pw@redis.internal:6379/0")
    >>> spec = ClientSpec.from_client(client)  # picklable: no key, no password
    >>> spec.settings.api_key, spec.cache, spec.cache_from_env
    ('', 'redis://:***@redis.internal:6379/0', True)
    >>> pickle.loads(pickle.dumps(spec)) == spec
    True
    >>> client.close()

Example: ``spec.client()`` in a Dask worker or a Spark executor builds its Client, the key from
its environment.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..config.cache_urls import redact_url
from ..config.settings import ENV_API_KEY, ENV_CACHE, Settings
from ..errors import ConfigurationError
from ..store import namespace
from .client import Client

__all__ = ["ClientSpec"]


@dataclass(frozen=True)
class ClientSpec:
    """A Client's :class:`Settings`, without the key or a Redis password."""

    #: the settings with ``api_key=""`` (and the Redis URL without its password)
    settings: Settings
    #: the Redis URL has a password: the worker takes the URL from its own LOOKUP_CACHE
    cache_from_env: bool
    #: the hash of key and base URL the driver's store files entries under (not the key)
    key_namespace: str

    @classmethod
    def from_client(cls, client: Client) -> ClientSpec:
        """The spec of ``client``: its settings, and its key only as the store's hash."""
        s = client.settings
        secret = s.cache_url is not None and urlsplit(s.cache_url).password is not None
        cache = redact_url(s.cache_url) if secret and s.cache_url is not None else s.cache
        return cls(
            settings=dataclasses.replace(s, api_key="", cache=cache),
            cache_from_env=secret,
            key_namespace=namespace(s.api_key, s.base_url),
        )

    @property
    def base_url(self) -> str:
        return self.settings.base_url

    @property
    def cache(self) -> str | None:
        """The cache file, the Redis URL without a password, or None when the cache is off."""
        cache = self.settings.cache
        return None if cache is False or cache is None else os.fspath(cache)  # type: ignore[arg-type]

    def client(self) -> Client:
        """This process's Client for the spec: built on first use, then shared by its threads.

        Raises ConfigurationError when ``LOOKUP_API_KEY`` is not set here or is not the spec's key,
        or when ``LOOKUP_CACHE`` is not set to the spec's Redis (a Redis with a password).
        """
        with _LOCK:
            client = _CLIENTS.get(self)
            if client is None:
                client = _CLIENTS[self] = self._build()
            return client

    def _build(self) -> Client:
        key = os.environ.get(ENV_API_KEY, "").strip()
        where = "this worker's environment"
        if not key:
            raise ConfigurationError(
                f"{ENV_API_KEY} is not set in {where}. The key never travels in a Dask graph "
                f"or a Spark plan: set {ENV_API_KEY} in the environment of every worker (Dask: "
                "before `dask worker` starts, or in the LocalCluster's parent process; Spark: "
                f"spark.executorEnv.{ENV_API_KEY})."
            )
        if namespace(key, self.base_url) != self.key_namespace:
            raise ConfigurationError(
                f"{ENV_API_KEY} in {where} is not the key the enrichment was set up with: "
                "every worker must use the driver's key (one key, one pace, one cache)."
            )
        keywords = self.settings.keywords()
        if self.cache_from_env:
            cache = os.environ.get(ENV_CACHE, "").strip()
            if not cache or redact_url(cache) != self.cache:
                raise ConfigurationError(
                    f"The cache is the Redis at {self.cache}, whose password never travels in "
                    f"a Dask graph or a Spark plan: set {ENV_CACHE} to its URL in {where} "
                    f"(Spark: spark.executorEnv.{ENV_CACHE})."
                )
            keywords["cache"] = cache
        keywords["api_key"] = key
        return Client(**keywords)


_LOCK = threading.Lock()
#: The Clients this process built from specs: one per spec, for the life of the process.
_CLIENTS: dict[ClientSpec, Client] = {}
