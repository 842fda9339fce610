"""Connecting to Redis: one client per URL with bounded waits, its keys' prefix, and what a
failed command means (never showing the password).

Example:
    >>> key_prefix("3f2a")
    'lookup_pandas:3f2a'
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from urllib.parse import parse_qsl, unquote, urlsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from ..config.cache_urls import redact_url, without_namespace
from ..config.settings import ENV_CACHE
from ..errors import ConfigurationError

__all__ = ["connect", "key_prefix", "redis_error", "translated"]

#: Seconds to wait for a connection, and for each answer, before a command fails.
CONNECT_TIMEOUT_S = 5.0
SOCKET_TIMEOUT_S = 10.0
#: Quick further attempts of a command whose connection failed (a restart, a failover).
RETRIES = 2


def key_prefix(namespace: str) -> str:
    """Every key of one namespace starts with this.

    Example:
        >>> key_prefix("3f2a")
        'lookup_pandas:3f2a'
    """
    return f"lookup_pandas:{namespace}"


def connect(url: str) -> redis.Redis:
    """A client for ``url``, without its ``namespace=``, with bounded waits and quick retries.

    It connects at its first command, not here.

    Example:
        >>> client = connect("redis://localhost:6379/2?namespace=acme")
        >>> client.connection_pool.connection_kwargs["db"]
        2
    """
    return redis.Redis.from_url(
        without_namespace(url),
        socket_connect_timeout=CONNECT_TIMEOUT_S,
        socket_timeout=SOCKET_TIMEOUT_S,
        retry=Retry(ExponentialBackoff(cap=1.0, base=0.1), RETRIES),
    )


def redis_error(url: str, exc: redis.exceptions.RedisError) -> ConfigurationError:
    """What a failed Redis command means, naming the URL without its password.

    Example:
        >>> error = redis_error("redis://:pw@redis.internal:6379/0",
        ...                     redis.exceptions.ConnectionError("Error 111"))
        >>> print(error)  # doctest: +ELLIPSIS
        The Redis at redis://:***@redis.internal:6379/0 cannot be reached (Error 111): ...
    """
    shown = redact_url(url)
    detail = _scrubbed(str(exc).strip() or type(exc).__name__, url)
    text = str(exc).upper()
    setting = f"cache= (or the {ENV_CACHE} environment variable)"
    cli_setting = f"the {ENV_CACHE} environment variable"
    if isinstance(exc, redis.exceptions.AuthenticationError) or any(
        word in text for word in ("NOAUTH", "WRONGPASS", "NOPERM")
    ):
        what = f"The Redis at {shown} refused this client ({detail})"
        fix = "Check the password (or ACL user) in {}."
    elif isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        what = f"The Redis at {shown} cannot be reached ({detail})"
        fix = "Check that it is running and that {} names it."
    else:
        what = f"The Redis at {shown} refused a command ({detail})"
        fix = (
            "Check its memory (maxmemory, with maxmemory-policy noeviction), its ACL rules and {}."
        )
    why = "it holds the cache, the shared pace and the claims, so nothing more is sent without it"
    return ConfigurationError(
        f"{what}: {why}. {fix.format(setting)}",
        cli_message=f"{what}: {why}. {fix.format(cli_setting)}",
    )


def _scrubbed(text: str, url: str) -> str:
    """``text`` with any password of ``url`` masked.

    redis-py never puts it there, but a message is no place to find out.
    """
    try:
        parts = urlsplit(url)
        secrets = [parts.password or ""]
    except ValueError:
        return text
    secrets += [v for k, v in parse_qsl(parts.query) if "pass" in k.lower()]
    for secret in {s for s in secrets + [unquote(s) for s in secrets] if s}:
        text = text.replace(secret, "***")
    return text


@contextlib.contextmanager
def translated(url: str) -> Iterator[None]:
    """Redis failures become :func:`redis_error`'s ConfigurationError, without a redis traceback.

    Example: ``with translated(url): connection.ping()``
    """
    try:
        yield
    except redis.exceptions.RedisError as exc:
        raise redis_error(url, exc) from None
