"""Cache URLs: which name a Redis server, whether one can be used, and how to show one.

>>> redact_url("redis://:s3cret@cache.internal:6379/0")
'redis://:***@cache.internal:6379/0'
>>> redis_namespace("redis://h/0?namespace=Acme-Sales")
'acme-sales'
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import ConfigurationError

__all__ = [
    "REDIS_SCHEMES",
    "checked_redis_url",
    "is_redis_url",
    "redact_url",
    "redis_namespace",
    "refuse_unserved_url",
    "url_scheme",
    "without_namespace",
]

REDIS_SCHEMES = ("redis", "rediss")
#: The query parameter of a Redis URL that names the team's namespace (ours, not redis-py's).
NAMESPACE_PARAM = "namespace"
#: A namespace's name: letters, digits, ``.``, ``_`` and ``-``, up to 64, case folded.
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
#: ``scheme:/`` or ``scheme://``: a URL, not a path (one letter is a Windows drive: ``C:/x``).
_URL = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.\-]+):/")


def url_scheme(value: str) -> str | None:
    """The scheme of a cache setting that looks like a URL (lower case), else None (a path).

    >>> url_scheme("Redis://h/0"), url_scheme("redis:/h")
    ('redis', 'redis')
    >>> url_scheme("C:/cache.sqlite"), url_scheme("./c.sqlite")  # a drive letter is a path
    (None, None)
    """
    match = _URL.match(value)
    return match.group(1).lower() if match else None


def refuse_unserved_url(value: str, where: str, env_var: str) -> None:
    """A ConfigurationError for a cache setting that looks like a URL we do not serve.

    A path or a Redis URL passes.

    >>> refuse_unserved_url("~/cache.sqlite", "cache=", "LOOKUP_CACHE")
    >>> refuse_unserved_url("postgres://db/x", "cache=", "LOOKUP_CACHE")
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.ConfigurationError: The cache setting postgres://db/x cannot be used:
    postgres:// is not a cache lookup_pandas can use. Served: ...
    """
    scheme = url_scheme(value)
    if scheme is None or is_redis_url(value):
        return
    shown = redact_url(value.strip())
    served = "redis://[:password@]host[:port][/db], rediss:// for TLS, or a file path"
    if scheme in REDIS_SCHEMES:
        problem = f"{scheme}: needs two slashes ({scheme}://host:6379/0)"
    else:
        problem = f"{scheme}:// is not a cache lookup_pandas can use"
    raise ConfigurationError(
        f"The cache setting {shown} cannot be used: {problem}. Served: {served}. Check {where}.",
        cli_message=f"The cache setting {shown} cannot be used: {problem}. Served: {served}. "
        f"Check the {env_var} environment variable.",
    )


def is_redis_url(value: str) -> bool:
    """Whether a cache setting names a Redis server (``redis://`` or ``rediss://``).

    >>> is_redis_url("rediss://h:6380/0"), is_redis_url("redis:/h"), is_redis_url("c.sqlite")
    (True, False, False)
    """
    scheme, sep, _ = value.strip().partition("://")
    return bool(sep) and scheme.lower() in REDIS_SCHEMES


def redact_url(url: str) -> str:
    """``url`` with its password, and any ``password=`` in the query, shown as ``***``.

    A user name is kept. Userinfo without a colon is hidden whole.

    >>> redact_url("redis://ana:s3cret@host/0"), redact_url("redis://t0ken@host/0")
    ('redis://ana:***@host/0', 'redis://***@host/0')
    >>> redact_url("redis://host/0?password=s3cret&db=1")
    'redis://host/0?password=***&db=1'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<a URL that cannot be read>"
    userinfo, at, hostport = parts.netloc.rpartition("@")
    netloc = parts.netloc
    if at:
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:***@{hostport}" if colon else f"***@{hostport}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        masked = [(k, "***" if "pass" in k.lower() else v) for k, v in pairs]
        query = urlencode(masked, safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def checked_redis_url(url: str, where: str, env_var: str) -> str:
    """``url`` if it names a Redis host (and a database number, if any), else a ConfigurationError.

    >>> checked_redis_url("redis://:pw@h:6379/0", "cache=", "LOOKUP_CACHE")
    'redis://:pw@h:6379/0'
    >>> checked_redis_url("redis://:pw@h:6379/zero", "cache=", "LOOKUP_CACHE")
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.ConfigurationError: The Redis cache URL redis://:***@h:6379/zero cannot
    be used: the database after the host must be a number, not 'zero' ...
    """
    problem = _redis_url_problem(url)
    if problem is None:
        return url
    shown = redact_url(url)
    raise ConfigurationError(
        f"The Redis cache URL {shown} cannot be used: {problem} (expected "
        "redis://[:password@]host[:port][/db][?namespace=NAME], or rediss:// for TLS). "
        f"Check {where}.",
        cli_message=f"The Redis cache URL {shown} cannot be used: {problem}. Check the "
        f"{env_var} environment variable.",
    )


def _redis_url_problem(url: str) -> str | None:
    """What keeps ``url`` from naming a Redis database, or None."""
    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError when it is not a number in range
    except ValueError:
        return "its host or port cannot be read"
    db = parts.path.strip("/")
    if not parts.hostname:
        return "it names no host"
    if port == 0:
        return "its port must be a number from 1 to 65535"
    if db and not db.isdigit():
        return f"the database after the host must be a number, not {db!r}"
    names = _namespace_values(parts.query)
    if len(names) > 1:
        return f"it names {len(names)} namespaces (namespace= once, at most)"
    if names and not _NAME.match(names[0].strip().lower()):
        return (
            f"the namespace {names[0]!r} is not a name (letters, digits, '.', '_' and '-', "
            "up to 64, starting with a letter or digit)"
        )
    return None


def _namespace_values(query: str) -> list[str]:
    return [v for k, v in parse_qsl(query, keep_blank_values=True) if k == NAMESPACE_PARAM]


def redis_namespace(url: str) -> str | None:
    """The namespace a checked Redis URL names (``?namespace=``, case folded), else None.

    >>> redis_namespace("redis://h:6379/0?namespace=Acme-Sales"), redis_namespace("redis://h/0")
    ('acme-sales', None)
    """
    names = _namespace_values(urlsplit(url).query)
    return names[0].strip().lower() if names else None


def without_namespace(url: str) -> str:
    """``url`` without its ``namespace=`` parameter: what redis-py connects to.

    >>> without_namespace("redis://h/0?namespace=acme&ssl_cert_reqs=none")
    'redis://h/0?ssl_cert_reqs=none'
    """
    parts = urlsplit(url)
    if not _namespace_values(parts.query):
        return url
    kept = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != NAMESPACE_PARAM
    ]
    return urlunsplit(parts._replace(query=urlencode(kept)))
