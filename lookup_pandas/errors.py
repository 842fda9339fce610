"""The exception tree of lookup_pandas: every failure the library raises on purpose.

Example:
    >>> error = AuthenticationError("Invalid API key", status_code=403, request_id="req_1")
    >>> isinstance(error, ServiceError), str(error)
    (True, 'Invalid API key (HTTP 403, request req_1)')

Hierarchy::

    ServiceError                     base: status_code, message, request_id
    ├── AuthenticationError          401 missing key, 403 invalid / rotated / wrong-workspace key
    ├── InsufficientCreditsError     402, code 1080, or a job the balance cannot pay
    ├── PermissionDeniedError        403 about one record (opted out, premium-gated)
    ├── RateLimitError               429 after the retries ran out (retry_after, errors)
    ├── NotFoundError                the service's own not-found: its envelope on a 404, or 200
    │                                with success=false and error_code 1010 / 1020 / 1030
    ├── NotCachedError               offline, and the cache holds no answer: nothing was sent
    ├── ValidationError              400 (errors: {field: reason})
    ├── ServerError                  5xx after the retries ran out
    ├── TransportError               connection dropped, refused or timed out, after the retries
    │   └── RequestTimeoutError      no answer within the timeout, after the retries
    ├── ResponseError                not JSON, no envelope, or an envelope of the wrong shape
    ├── PaginationError              a cursor that repeats, has_more with no way forward
    ├── BudgetExceededError          a job would make more billable calls than max_calls
    ├── ConfigurationError           no base URL or API key, an unusable setting, or a base URL
    │   │                            where the service does not answer (first contact failed)
    │   └── BatchUnavailableError    method="batch", but the service has no batch jobs (404/405)
    └── UsageError                   an argument the caller can fix (also a ValueError)
        └── ColumnError              a column that is missing or would be overwritten

    InsecureCacheWarning             a UserWarning: a cache file or directory others can read
    StorageWarning                   a UserWarning: answers that can be lost, or were, by the
                                     store itself (an evicting Redis, a cache file deleted)
    IncompleteErasureWarning         a UserWarning: erased, but an old copy may remain in a
                                     SQLite write-ahead log

None of them derives from the builtin ``LookupError``. No message holds the API key. Errors
the user can fix show as one line in a notebook cell: ``traceback.print_exception(
sys.last_value)`` prints the whole traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

__all__ = [
    "AuthenticationError",
    "BatchUnavailableError",
    "BudgetExceededError",
    "ColumnError",
    "ConfigurationError",
    "IncompleteErasureWarning",
    "InsecureCacheWarning",
    "InsufficientCreditsError",
    "NotCachedError",
    "NotFoundError",
    "PaginationError",
    "PermissionDeniedError",
    "RateLimitError",
    "RequestTimeoutError",
    "ResponseError",
    "ServerError",
    "ServiceError",
    "StorageError",
    "StorageWarning",
    "TransportError",
    "UsageError",
    "ValidationError",
]


@dataclass(eq=False, repr=False)  # an exception: compared by identity, repr as Exception's
class ServiceError(Exception):
    """Base of every error lookup_pandas raises.

    ``enveloped`` is False when the answer behind the error was not the service's envelope
    (HTML from a proxy or another web server): the service itself did not say it.

    Example:
        >>> str(ServiceError("boom", status_code=500, request_id="req_1"))
        'boom (HTTP 500, request req_1)'
    """

    message: str
    _: KW_ONLY
    status_code: int | None = None
    request_id: str | None = None
    error_code: str | None = None
    errors: Any = None
    url: str | None = None

    enveloped: bool = field(default=True, init=False)
    #: True when the answer behind it was read from the cache (paid for earlier, not now).
    from_cache: bool = field(default=False, init=False)
    #: What to do about it, where that depends on how the call was made (e.g. which setting).
    hint: str | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        super().__init__(self.message)  # exc.args == (message,), however it was passed

    def __str__(self) -> str:
        details = []
        if self.status_code is not None:
            details.append(f"HTTP {self.status_code}")
        if self.error_code:
            details.append(f"code {self.error_code}")
        if self.request_id:
            details.append(f"request {self.request_id}")
        text = self._headline()
        text = f"{text} ({', '.join(details)})" if details else text
        return f"{text}. {self.hint}" if self.hint else text

    def _headline(self) -> str:
        return self.message

    @property
    def _render_traceback_(self) -> Callable[[], list[str]]:
        """IPython's hook: one line for errors the user can fix, the usual traceback otherwise.

        A property, so that ``hasattr`` (which IPython asks) is False for the other errors.

        Example:
            >>> UsageError("max_records must be 0 or more")._render_traceback_()
            ['UsageError: max_records must be 0 or more']
        """
        if not isinstance(self, _USER_FIXABLE):
            raise AttributeError("_render_traceback_")
        return lambda: [f"{type(self).__name__}: {self}"]

    def __reduce__(self) -> tuple[Any, ...]:
        # Keyword-only arguments survive pickling (multiprocessing, joblib) this way.
        return (_rebuild, (type(self), self.message, self.__dict__))


def _rebuild(cls: type[ServiceError], message: str, state: dict[str, Any]) -> ServiceError:
    exc = cls.__new__(cls)
    Exception.__init__(exc, message)
    exc.__dict__.update(state)
    return exc


class AuthenticationError(ServiceError):
    """401 (no key sent) or 403 (key invalid, rotated out, or from another workspace).

    The message says where the key came from. When it stops an enrichment, it also says how
    many of the job's answers are kept in the cache: a re-run after fixing the key buys only
    the rest.
    """


class InsufficientCreditsError(ServiceError):
    """The balance cannot pay: a 402, error code ``1080``, or a 403 whose message is about credits.

    It is also raised for a job refused before sending because its credits exceed the balance.
    ``needed`` and ``balance`` are set then. A job stops at once, whatever ``errors=`` says.
    Every answer paid for is in the cache, so a re-run after topping up buys only the rest.
    """

    needed: float | None = None
    balance: float | None = None
    #: The command line's words, naming its options where the message names Python's.
    cli_message: str | None = None


class PermissionDeniedError(ServiceError):
    """A 403 about one record, not the key or credits: the person opted out, or it is premium-gated.

    It is not billed and not cached. In enrichment, the row gets ``lookup_status="forbidden"``
    and the job goes on.
    """

    #: True when the 403's message said nothing we could tell apart; the Client then asks the
    #: free tier endpoint whether the key still works (an AuthenticationError if not).
    ambiguous: bool = False


class RateLimitError(ServiceError):
    """A 429 that persisted through every retry. ``retry_after`` is the server's hint in seconds.

    Example:
        >>> RateLimitError("Too many requests", retry_after=2.0).retry_after
        2.0
    """

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class NotFoundError(ServiceError):
    """The record does not exist, as the service says it.

    That is its envelope on a 404, or a 200 with error_code 1010 (person), 1020 (company) or 1030
    (skill), which is billed. A 404 alone is never "not found": production's only 404 is a batch
    job gone (1090). An enveloped 404 without a not-found code is a ConfigurationError naming
    the URL (no such endpoint: a wrong base URL), and a bare or HTML 404 a ResponseError.
    """


class NotCachedError(ServiceError):
    """Offline, and the cache holds no answer (or never caches it): nothing was sent.

    Offline is ``Client(offline=True)`` or ``LOOKUP_OFFLINE=1``. Requests never cached are the
    credits tier and batch jobs. In enrichment, the row gets ``lookup_status="not_cached"``, and
    the job goes on.

    Example: ``lp.search_people("engineer", client=offline)``, with page 2 never fetched.
    """


class ValidationError(ServiceError):
    """400: a parameter was rejected. ``errors`` maps each field to its reason.

    ``exc.message`` stays the server's own text.

    Example:
        >>> str(ValidationError("Validation failed", status_code=400,
        ...                     errors={"limit": "must be between 1 and 50"}))
        'Validation failed: limit: must be between 1 and 50 (HTTP 400)'
    """

    def _headline(self) -> str:
        if isinstance(self.errors, dict) and self.errors:
            reasons = "; ".join(f"{k}: {v}" for k, v in self.errors.items())
            return f"{self.message}: {reasons}"
        return self.message


class ServerError(ServiceError):
    """A 5xx that persisted through every retry."""


class TransportError(ServiceError):
    """The connection failed (dropped, refused, reset) through every retry.

    ``before_connecting`` is True when no connection was made at all (refused, a host name that
    does not resolve, a TLS or proxy failure, a connect timeout).
    """

    before_connecting: bool = False


class RequestTimeoutError(TransportError):
    """No answer within ``timeout`` seconds, through every retry."""


class ResponseError(ServiceError):
    """The answer is not the service's JSON envelope (HTML, truncated, wrong shape)."""


class PaginationError(ServiceError):
    """A list cannot be walked safely: a cursor repeats, or has_more gives no way forward."""


class BudgetExceededError(ServiceError):
    """A job would make more billable calls than ``max_calls`` allows. Nothing was sent.

    Example:
        >>> error = BudgetExceededError("130 calls needed", needed=130, allowed=100)
        >>> error.needed, error.allowed
        (130, 100)
    """

    def __init__(self, message: str, *, needed: int, allowed: int, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.needed = needed
        self.allowed = allowed


class ConfigurationError(ServiceError):
    """A setting is missing or unusable. The message names the argument or variable to set.

    Unusable: a base URL that is not the service's root (``.../api/data/v1``), or one where the
    service does not answer (first contact failed), a cache URL of a scheme not served.

    ``message`` speaks to Python callers and names the keyword (``api_key=``). ``cli_message``
    speaks to the command line, which reads its settings from the environment only, and names
    the variable (``LOOKUP_API_KEY``). They are the same unless told apart.

    Example:
        >>> ConfigurationError("Set api_key=", cli_message="Set LOOKUP_API_KEY").cli_message
        'Set LOOKUP_API_KEY'
    """

    #: The service's own words, when a 404 without a not-found code said "no such endpoint".
    server_message: str | None = None

    def __init__(self, message: str, *, cli_message: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.cli_message = cli_message or message


class StorageError(ConfigurationError):
    """The cache or the store cannot be used as it is: its file is locked by another process,
    for one. The message names the file, what happened and what to do; nothing was sent. A
    ConfigurationError, so the command line exits 2.

    Example:
        >>> issubclass(StorageError, ConfigurationError)
        True
    """

    #: What happened to the file: full, read-only, corrupt, locked, gone or failed (None when
    #: not a file's fault, e.g. a Redis that is gone).
    kind: str | None = None


class BatchUnavailableError(ConfigurationError):
    """The service answered 404 or 405 to a batch submit: it has no batch jobs.

    ``method="batch"`` raises it, and ``method="auto"`` falls back to single calls instead. The
    Client remembers the answer, so at most one submit is wasted on such a service.
    """


class UsageError(ServiceError, ValueError):
    """An argument the caller can fix, raised before anything is sent. Also a ValueError.

    A negative ``max_records``, a filter name production does not have (with a "did you mean"),
    a value that cannot be a handle given to ``client.profile``, a value that is no company.

    Example:
        >>> isinstance(UsageError("max_records must be 0 or more"), ValueError)
        True
    """


class ColumnError(UsageError):
    """A column that is missing, or that enrichment would overwrite. Nothing was sent.

    It is not a KeyError, which is a builtin ``LookupError``. ``cli_message`` names the command
    line's option (``--prefix``) where ``message`` names the keyword (``prefix=``).
    """

    def __init__(self, message: str, *, cli_message: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.cli_message = cli_message or message


class IncompleteErasureWarning(UserWarning):
    """Removed from the cache, but an old copy may remain in a SQLite file's write-ahead log.

    Another process was reading the file. Run the call again when the cache is idle.

    Example: ``warnings.simplefilter("error", IncompleteErasureWarning)`` raises it.
    """


class InsecureCacheWarning(UserWarning):
    """A cache file, or the cache's own directory, that other users on the machine can get into.

    It existed already: lookup_pandas never changes the mode of what it did not create. The
    message names the path and the ``chmod`` that fixes it, once per path per process.

    Example: ``warnings.simplefilter("error", lp.InsecureCacheWarning)`` makes it an error.
    """


class StorageWarning(UserWarning):
    """Paid answers the cache can lose, or has lost, without an error: a Redis that evicts or
    keeps nothing on disk, a Redis emptied since answers were stored, a cache file deleted while
    a run wrote to it (recreated, so later answers are kept). One line, once per cause per
    process, naming the file or URL and what to do.

    Example: ``warnings.simplefilter("error", lp.StorageWarning)`` makes it an error.
    """


#: Errors shown as one line in a notebook: the user can fix them without reading our code.
_USER_FIXABLE = (
    AuthenticationError,
    BudgetExceededError,
    ConfigurationError,
    InsufficientCreditsError,
    UsageError,
    ValidationError,
)
