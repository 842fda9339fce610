"""What processes using one key share: the pace, claims on answers being bought, batch jobs, marks.

Example:
    >>> store = open_store(None, namespace("lk_example", "https://api.example.com"))
    >>> store.claim_many(["key-of-ada"], ttl=30)
    {'key-of-ada': 'mine'}
    >>> store.remember(StoredJob("job_1", ("ada", "grace"), submitted=0.0))
    >>> store.drop_inputs(lambda h: h == "ada")
    [('job_1', ('ada',))]
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigurationError
from . import common
from .common import *  # noqa: F403  the vocabulary every store shares is the package's too

if TYPE_CHECKING:
    from ..config.settings import Settings
    from .local import MemoryStore

__all__ = [
    "MemoryStore",
    "answers_namespace",
    "named_namespace",
    "namespace",
    "open_store",
    "require_redis",
    "service_namespace",
    "store_path",
]
__all__ += common.__all__


def __getattr__(name: str) -> object:
    """``MemoryStore``, from :mod:`.local`, loaded when first asked for (as a store opens)."""
    if name == "MemoryStore":
        from .local import MemoryStore

        return MemoryStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def namespace(api_key: str, base_url: str) -> str:
    """The name entries are filed under: a hash of the key and the base URL, never the key.

    Example:
        >>> namespace("lk_example", "https://api.example.com")
        '61d70fd691a22e770f408b0351ecb3b3'
    """
    return _digest(base_url, api_key)


def named_namespace(name: str, base_url: str) -> str:
    """The name a team's namespace is filed under: a hash of its name and the base URL.

    Example:
        >>> named_namespace("acme-sales", "https://api.example.com")
        'c96ec0eccf2a0ea3a557a7fb43c5a66d'
    """
    return _digest("named", base_url, name)


def service_namespace(base_url: str) -> str:
    """The name a service's own facts (its batch speed) are filed under: a hash of its base URL.

    Every key using the service shares them; no key goes into it.

    Example:
        >>> service_namespace("https://api.example.com") != namespace("", "https://api.example.com")
        True
    """
    return _digest("service", base_url)


def _digest(*parts: str) -> str:
    """32 hex digits of the SHA-256 of ``parts``, joined as the namespaces always were."""
    return hashlib.sha256("\x1f".join(("lookup_pandas", *parts)).encode()).hexdigest()[:32]


def answers_namespace(settings: Settings) -> str:
    """Where a Client's answers and claims are filed: its Redis URL's namespace, else its key's.

    Example:
        >>> from lookup_pandas.config.settings import Settings
        >>> settings = Settings.build(api_key="lk_example", base_url="https://api.example.com",
        ...                           cache="redis://localhost:6379/0?namespace=acme-sales")
        >>> answers_namespace(settings) == named_namespace("acme-sales", "https://api.example.com")
        True
    """
    name = settings.cache_namespace
    if name is None:
        return namespace(settings.api_key, settings.base_url)
    return named_namespace(name, settings.base_url)


def store_path(cache_path: Path) -> Path:
    """The store's file beside the cache.

    Example:
        >>> store_path(Path("leads.sqlite"))
        PosixPath('leads.store.sqlite')
    """
    return cache_path.with_name(f"{cache_path.stem}.store{cache_path.suffix or '.sqlite'}")


def open_store(cache: Path | str | None, ns: str, *, answers: str | None = None) -> common.Store:
    """The store for a cache: beside its file, in the Redis its URL names, or in memory without one.

    ``ns`` is the key's namespace. ``answers`` is the namespace of the answers and their claims in
    a Redis (:func:`answers_namespace`). It defaults to ``ns``.

    Example:
        >>> type(open_store(None, "ns")).__name__
        'MemoryStore'
        >>> type(open_store(Path("leads.sqlite"), "ns")).__name__
        'LocalStore'
    """
    from ..config.cache_urls import is_redis_url
    from .local import LocalStore, MemoryStore

    if cache is None:
        return MemoryStore()

    if isinstance(cache, str) and is_redis_url(cache):
        require_redis()
        from .redis import Namespaces, RedisStore

        return RedisStore(cache, Namespaces(ns, answers or ns))
    return LocalStore(store_path(Path(cache)), ns)


def require_redis() -> None:
    """Raise a ConfigurationError that says how to install ``redis`` when it is missing.

    Example:
        >>> require_redis()  # redis is installed: nothing happens
    """
    try:
        importlib.import_module("redis")
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "redis":
            raise
        raise ConfigurationError(
            "The cache is a Redis URL, but the redis package is not installed: "
            "pip install 'lookup_pandas[redis]'."
        ) from None
