"""One settings object for a Client, built from keyword arguments, else the environment.

>>> s = Settings.build(api_key="lk_test", base_url="http://127.0.0.1:8080/", cache=False)
>>> s
Settings(base_url='http://127.0.0.1:8080', cache_path=None, timeout=30.0, max_retries=5,
rate_limit_per_minute=None, max_workers=4)
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from datetime import timedelta
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import platformdirs

from ..errors import ConfigurationError
from .cache_urls import (
    checked_redis_url,
    is_redis_url,
    redact_url,
    redis_namespace,
    refuse_unserved_url,
)

ENV_API_KEY = "LOOKUP_API_KEY"
ENV_BASE_URL = "LOOKUP_BASE_URL"
ENV_CACHE = "LOOKUP_CACHE"
ENV_OFFLINE = "LOOKUP_OFFLINE"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("", "0", "false", "no", "off")  # LOOKUP_OFFLINE's

#: The cheapest tier's limit: what we pace at when nothing better is known.
SAFE_DEFAULT_RATE_PER_MINUTE = 7.0
#: Fraction of the server's advertised limit we use, so clock skew and jitter do not cost 429s.
RATE_SAFETY_MARGIN = 0.95

_OFF_WORDS = {"0", "off", "false", "no", "none", ""}
#: The URL schemes of a Redis cache (``rediss``: over TLS).


def default_cache_path() -> Path:
    """The cache file in the platform's user cache dir (``~/.cache/lookup_pandas/`` on Linux).

    >>> default_cache_path().name
    'http_cache.sqlite'
    """
    return Path(platformdirs.user_cache_dir("lookup_pandas")) / "http_cache.sqlite"


def cache_setting(
    cache: bool | str | os.PathLike[str] | None,
) -> tuple[Path | None, str | None]:
    """(the SQLite file, None), (None, a checked Redis URL), or (None, None): no cache.

    ``True`` or ``None`` (the default): LOOKUP_CACHE decides, else the user cache dir.

    >>> cache_setting("redis://h:6379/0"), cache_setting(False)
    ((None, 'redis://h:6379/0'), (None, None))
    """
    if cache is False:
        return None, None
    given = not (cache is True or cache is None)
    if given:
        value: str | os.PathLike[str] = cache  # type: ignore[assignment]
    else:
        env = os.environ.get(ENV_CACHE)
        if env is None:
            return default_cache_path(), None
        if env.strip().lower() in _OFF_WORDS:
            return None, None
        value = env
    where = source("cache", ENV_CACHE, given=given)
    if isinstance(value, str):
        refuse_unserved_url(value, where, ENV_CACHE)  # never a folder named "postgres:"
        if is_redis_url(value):
            scheme, rest = value.strip().split("://", 1)
            return None, checked_redis_url(f"{scheme.lower()}://{rest}", where, ENV_CACHE)
    return Path(value).expanduser(), None


def source(keyword: str, env_var: str, *, given: bool) -> str:
    """How a message names where a setting came from: the keyword, else the variable.

    >>> source("cache", "LOOKUP_CACHE", given=True), source("cache", "LOOKUP_CACHE", given=False)
    ('cache=', 'the LOOKUP_CACHE environment variable')
    """
    return f"{keyword}=" if given else f"the {env_var} environment variable"


#: Path segments the library adds itself: a base URL that already holds them would double them
#: (``("api",)``: a path that ends in ``/api``, the start of both).
_API_SURFACES = (("api", "data"), ("api", "panel"), ("api",))


def service_root(url: str) -> str | None:
    """The service's root when ``url`` goes on into a path the library adds itself, else None.

    Those paths are ``/api/data/v1/...``, ``/api/panel/...``, and ``/api`` at the end.

    >>> service_root("http://127.0.0.1:8080/api/data/v1"), service_root("http://h:8080/x/api")
    ('http://127.0.0.1:8080', 'http://h:8080/x')
    >>> service_root("https://gw.example.com/lookup") is None  # a prefix of one's own
    True
    """
    split = urlsplit(url)
    segments = split.path.rstrip("/").split("/")
    lowered = [s.lower() for s in segments]
    for i in range(len(lowered)):
        if tuple(lowered[i : i + 2]) in _API_SURFACES:  # the last segment alone: ("api",)
            root_path = "/".join(segments[:i]).rstrip("/")
            return urlunsplit((split.scheme, split.netloc, root_path, "", ""))
    return None


def _checked_url(url: str, url_source: str) -> str:
    """``url`` with its scheme in lower case (a scheme has no case: RFC 3986), or a
    ConfigurationError: another scheme, no host, a query or fragment the paths would follow, or a
    path the library adds itself (:func:`service_root`).

    >>> _checked_url("HTTPS://api.example.com", "base_url=")
    'https://api.example.com'
    >>> _checked_url("https://gw.example.com/lookup?tenant=7", "base_url=")
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.ConfigurationError: The base URL https://gw.example.com/lookup?tenant=7
    has a query (?tenant=7): the library adds its paths to the base URL, so they would come
    after it. Give the URL without it, https://gw.example.com/lookup (check base_url=).
    """
    scheme, colon, rest = url.partition(":")
    url = scheme.lower() + colon + rest
    if not url.startswith(("http://", "https://")):
        raise ConfigurationError(
            f"The base URL must start with http:// or https://: check {url_source}."
        )
    split = urlsplit(url)
    if not split.hostname:
        raise ConfigurationError(f"The base URL {url} names no host: check {url_source}.")
    bare = urlunsplit((split.scheme, split.netloc, split.path, "", ""))
    if tail := url[len(bare) :]:  # "?..." or "#...", even empty
        what = "a query" if tail.startswith("?") else "a fragment"
        bare = bare.rstrip("/")
        told = (
            f"The base URL {url} has {what} ({tail}): the library adds its paths to the base "
            "URL, so they would come after it."
        )
        raise ConfigurationError(
            f"{told} Give the URL without it, {bare} (check {url_source}).",
            cli_message=f"{told} Set {ENV_BASE_URL}={bare}.",
        )
    root = service_root(url)  # a path the library adds itself would be doubled
    if root is not None:
        told = f"The base URL {url} holds a path the library adds itself ({url[len(root) :]})"
        raise ConfigurationError(
            f"{told}: give the service's root instead, {root} (check {url_source}).",
            cli_message=f"{told}: set {ENV_BASE_URL}={root}.",
        )
    return url


def _required(given: str | None, what: str, keyword: str, env_var: str) -> str:
    """``given``, else ``env_var``'s value, stripped. Blank in both: a ConfigurationError (Python
    callers may pass the keyword, and the CLI reads the environment)."""
    value = (given if given is not None else os.environ.get(env_var) or "").strip()
    if not value:
        raise ConfigurationError(
            f"No {what}: pass {keyword}=... or set the {env_var} environment variable.",
            cli_message=f"No {what}: set the {env_var} environment variable.",
        )
    return value


CacheSetting = bool | str | os.PathLike[str] | None


def _setting(
    default: Any,
    *,
    env: str | None = None,
    check: Callable[[str, Any], Any] | None = None,
    repr: bool = True,  # noqa: A002 - dataclasses.field's own name
    doc: str = "",
) -> Any:
    """A field of :class:`Settings`: its default, environment variable, check and help."""
    return field(default=default, repr=repr, metadata={"env": env, "check": check, "doc": doc})


def _number(low: float, *, inclusive: bool = True, integer: bool = False) -> Callable[..., Any]:
    """A field check: the value as a finite number above ``low``, else a ConfigurationError
    naming the field."""

    def check(name: str, value: Any) -> float | int:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        n = float(value) if ok else math.nan
        if not (ok and math.isfinite(n) and n >= low and (inclusive or n > low)) or (
            integer and not n.is_integer()
        ):
            kind = "a whole number" if integer else "a finite number"
            bound = f"{'>=' if inclusive else '>'} {low:g}"
            raise ConfigurationError(f"{name} must be {kind} {bound}, not {value!r}.")
        return int(n) if integer else n

    return check


def _optional(check: Callable[[str, Any], Any]) -> Callable[[str, Any], Any]:
    return lambda name, value: None if value is None else check(name, value)


def _offline(name: str, value: Any) -> bool:
    """``offline``, or for None ``LOOKUP_OFFLINE`` (1, true, yes, on, else 0, false, no, off)."""
    if value is not None:
        return bool(value)
    text = os.environ.get(ENV_OFFLINE, "").strip().lower()
    if text not in _TRUE + _FALSE:
        raise ConfigurationError(f"{ENV_OFFLINE} must be 1 or 0 (true/false...), not {text!r}.")
    return text in _TRUE


def _duration(name: str, value: Any) -> timedelta:
    return value if isinstance(value, timedelta) else timedelta(seconds=float(value))


@dataclass(frozen=True, repr=False)
class Settings:
    """A Client's settings, checked: ``Client``'s keywords are these fields.

    Built by :meth:`build`. ``cache`` is then the SQLite file (a Path), the Redis URL, or
    False. ``repr`` never shows the key.

    >>> s = Settings.build(api_key="lk_test", base_url="http://127.0.0.1:8080", cache=False)
    >>> s.timeout, s.cache, "lk_test" in repr(s)
    (30.0, False, False)
    """

    api_key: str = _setting(
        "",
        env=ENV_API_KEY,
        repr=False,  # never shown, should the custom __repr__ ever go
        doc=("The key, only ever sent in a request header. Default: ``LOOKUP_API_KEY``."),
    )
    base_url: str = _setting(
        "",
        env=ENV_BASE_URL,
        doc=(
            "The service's address (its root, without ``/api/...``). Default: ``LOOKUP_BASE_URL``."
        ),
    )
    cache: CacheSetting = _setting(
        True,
        env=ENV_CACHE,
        doc=(
            "``True`` (default): the file named by ``LOOKUP_CACHE`` (or none if it says "
            "``off``), else ``http_cache.sqlite`` in the user cache dir. ``False``: no cache. "
            "A path: that SQLite file. Every answer paid for is kept there, so a re-run costs "
            "nothing. A ``redis://[:password@]host:port/db`` URL (``rediss://`` for TLS; "
            "extra ``[redis]``): the cache, the pace and the claims in that Redis, shared by "
            "every machine using it. Its answers are the key's own, unless the URL names the "
            "team's namespace (``?namespace=acme-sales``, one per workspace): then they are "
            "the namespace's, and a rotated key keeps them."
        ),
    )
    expire_after: timedelta = _setting(
        timedelta(days=7),
        check=_duration,
        doc=("How long a cached answer is reused: a timedelta or seconds (default 7 days)."),
    )
    timeout: float = _setting(
        30.0,
        check=_number(0, inclusive=False),
        doc=("Seconds to wait for the connection and for each answer before that attempt fails."),
    )
    max_retries: int = _setting(
        5,
        check=_number(0, integer=True),
        doc=(
            "Further attempts after a transient failure: a 429, a 5xx, a dropped connection "
            "or a timeout (0: try once). Until the base URL has answered once with the "
            "service's envelope, an unreachable host or an answer that is not the service's "
            "gets one quick retry, then a ConfigurationError."
        ),
    )
    rate_limit_per_minute: float | None = _setting(
        None,
        check=_optional(_number(0, inclusive=False)),
        doc=(
            "A ceiling of your own. The pace is the lower of it and 95% of the limit the "
            "credits-tier endpoint reports; a tier that reports no limit is not paced (unless "
            "this is set); one that cannot be read is paced at 7 calls/min. A 429 always "
            "slows the pace: to 95% of the limit it names, else to half."
        ),
    )
    max_workers: int = _setting(
        4,
        check=_number(1, integer=True),
        doc=("How many calls enrichment keeps in flight at once (default 4)."),
    )
    backoff_base: float = _setting(
        0.5,
        check=_number(0),
        doc=("Seconds of the first back-off between retries (doubling, with jitter)."),
    )
    backoff_max: float = _setting(
        30.0, check=_number(0), doc=("The longest back-off between retries, in seconds.")
    )
    retry_after_max: float = _setting(
        60.0,
        check=_number(0),
        doc=(
            "The longest wait a 429's ``Retry-After`` is honoured for, in seconds, so a "
            "notebook never hangs for hours."
        ),
    )
    batch_poll_interval: float = _setting(
        1.5,
        check=_number(0, inclusive=False),
        doc=(
            "Seconds between two polls of a batch job whose results have caught up (1.5, as "
            "the service's own SDK waits); it grows by half while the job does not move, up "
            "to 30 s."
        ),
    )
    offline: bool = _setting(
        None,
        env=ENV_OFFLINE,
        check=_offline,
        doc="Answer from the cache only (expired answers too), never sending a request "
        "(``LOOKUP_OFFLINE=1`` too). Rows not cached are ``not_cached``; other reads raise "
        "NotCachedError. No first contact: a dead base URL works.",
    )
    #: where the key and the URL came from, as a message names it ("api_key=", ...)
    api_key_source: str = field(default="api_key=", init=False, compare=False)
    base_url_source: str = field(default="base_url=", init=False, compare=False)

    @cached_property
    def _cache_parts(self) -> tuple[Path | None, str | None]:
        return cache_setting(self.cache)

    @property
    def cache_path(self) -> Path | None:
        """The SQLite cache file, or None (no cache, or a Redis one).

        >>> Settings.build(api_key="k", base_url="http://h", cache="/tmp/c.sqlite").cache_path.name
        'c.sqlite'
        """
        return self._cache_parts[0]

    @property
    def cache_url(self) -> str | None:
        """The Redis URL, password and all, when the cache, pace and claims live in Redis.

        None for a SQLite cache, or none. The password is only ever used to connect.

        >>> Settings.build(api_key="k", base_url="http://h", cache="redis://:pw@h/0").cache_url
        'redis://:pw@h/0'
        """
        return self._cache_parts[1]

    @property
    def cache_namespace(self) -> str | None:
        """The namespace a Redis cache URL names (``?namespace=acme-sales``), else None.

        >>> url = "redis://h/0?namespace=Acme-Sales"
        >>> Settings.build(api_key="k", base_url="http://h", cache=url).cache_namespace
        'acme-sales'
        """
        return redis_namespace(self.cache_url) if self.cache_url is not None else None

    @property
    def cache_label(self) -> str:
        """Where the cache is, as messages and reprs show it.

        >>> url = "redis://:s3cret@h:6379/0"
        >>> Settings.build(api_key="k", base_url="http://h", cache=url).cache_label
        'redis://:***@h:6379/0'
        >>> Settings.build(api_key="k", base_url="http://h", cache=False).cache_label
        'off'
        """
        if self.cache_url is not None:
            return redact_url(self.cache_url)
        return str(self.cache_path) if self.cache_path is not None else "off"

    @classmethod
    def build(
        cls, api_key: str | None = None, base_url: str | None = None, **options: Any
    ) -> Settings:
        """The settings, with gaps filled from the environment and every value checked.

        A value that cannot be used is a ConfigurationError. The environment is
        ``LOOKUP_API_KEY``, ``LOOKUP_BASE_URL``, ``LOOKUP_CACHE`` (a path, a Redis URL, or
        ``0``, ``off``, ``false``, ``no``, ``none``: no cache) and ``LOOKUP_OFFLINE``.

        Args:
            api_key, base_url: None takes the environment's.
            options: the other fields. An unknown name is a TypeError, as for a function.

        >>> Settings.build(api_key="k", base_url="http://h", cache=False, timeout=5).timeout
        5.0
        >>> Settings.build(api_key="k", base_url="http://h:8080/api/data/v1", cache=False)
        Traceback (most recent call last):
        ...
        lookup_pandas.errors.ConfigurationError: The base URL http://h:8080/api/data/v1 holds a
        path the library adds itself (/api/data/v1): give the service's root instead,
        http://h:8080 (check base_url=).
        """
        known = {f.name: f for f in fields(cls) if f.init}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise TypeError(f"Settings.build() got unexpected keyword arguments {unknown}")
        key = _required(api_key, "API key", "api_key", ENV_API_KEY)
        url = _required(base_url, "base URL", "base_url", ENV_BASE_URL)
        url_source = source("base_url", ENV_BASE_URL, given=base_url is not None)
        url = _checked_url(url.rstrip("/"), url_source)
        values: dict[str, Any] = {"api_key": key, "base_url": url}
        for name, f in known.items():
            check = f.metadata["check"]
            if check is not None:
                values[name] = check(name, options.get(name, f.default))
        cache_path, cache_url = cache_setting(options.get("cache", True))
        values["cache"] = cache_path or cache_url or False
        settings = cls(**values)
        # Derived, not settings of their own (frozen: set once, here).
        object.__setattr__(
            settings, "api_key_source", source("api_key", ENV_API_KEY, given=api_key is not None)
        )
        object.__setattr__(settings, "base_url_source", url_source)
        return settings

    def keywords(self) -> dict[str, Any]:
        """The fields as ``Client``'s keywords: ``Client(**settings.keywords())`` is the same.

        >>> s = Settings.build(api_key="k", base_url="http://h", cache=False)
        >>> list(s.keywords())[:4], s.keywords()["cache"]
        (['api_key', 'base_url', 'cache', 'expire_after'], False)
        """
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    def __repr__(self) -> str:
        redis = f", cache_url={self.cache_label!r}" if self.cache_url is not None else ""
        return (
            f"Settings(base_url={self.base_url!r}, cache_path={self.cache_path!s}{redis}, "
            f"timeout={self.timeout}, max_retries={self.max_retries}, "
            f"rate_limit_per_minute={self.rate_limit_per_minute}, max_workers={self.max_workers})"
        )


#: The names of a Client's settings, in order: ``Client``'s keywords (but ``transport``).
SETTING_NAMES = tuple(f.name for f in fields(Settings) if f.init)


def keyword_help() -> str:
    """The settings as ``help(lp.Client)`` lists them: each name, then its help, indented.

    >>> lines = keyword_help().splitlines()
    >>> lines[0]
    '    ``api_key``'
    >>> print(lines[1].strip())
    The key, only ever sent in a request header. Default: ``LOOKUP_API_KEY``.
    """
    return "\n".join(
        f"    ``{f.name}``\n"
        + textwrap.fill(f.metadata["doc"], 92, initial_indent=" " * 8, subsequent_indent=" " * 8)
        for f in fields(Settings)
        if f.init
    )
