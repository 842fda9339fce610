"""The enrichment's plan, pure: what is cached, what to buy, batch or single, the budget.

>>> ada = Outcome("ok", {"id": "prsn_1", "handle": "ada"})
>>> p = plan(["ada", "grace"], cached={"ada": ada}, stored=[],
...          options=Options(max_calls=5), batch_supported=None)
>>> p.to_fetch, p.batch
(('grace',), False)

Nothing here sends anything or reads a clock: what the cache holds is handed in (read ahead in
one batched read, :meth:`~lookup_pandas.client.cache.ClientCache.read_ahead`), the stored batch
jobs a list. :func:`lookup_pandas.enrichment.estimate.planned` times an estimate with a
Client's facts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ..display.facts import RefreshCounts
from ..errors import BudgetExceededError, InsufficientCreditsError, UsageError
from ..identifiers.kinds import Kind
from ..service.credits import RouteCosts
from ..store import StoredJob
from .batch_plan import METHODS, use_batch
from .results import Errors, Method, Outcome, Refresh

__all__ = [
    "ASSUMED_PAGE",
    "Options",
    "Plan",
    "batch_told",
    "check_balance",
    "check_budget",
    "check_credits",
    "check_method",
    "check_offline",
    "check_options",
    "check_refresh",
    "job_credits",
    "plan",
    "stored_batch_jobs_holding",
]

#: Results per poll assumed by an estimate: production does not document its page size (the
#: emulator's default is 100).
ASSUMED_PAGE = 100


def _option(default: Any, help: str) -> Any:
    """A field of :class:`Options`: its default, and the one line that says what it does."""
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Options:
    """What a lookup job is asked, beside its values, its kind and its Client.

    The one declaration of the enrichment's keywords: each field's name, type, default and help
    line are those of ``get_*``, ``enrich_*``, ``estimate_*``, the accessors and the CLI's flags
    (tests/unit/api/test_functions.py holds them to it). The plan reads the budget, ``errors``,
    ``method`` and ``refresh``; the run reads ``progress`` and ``provenance``; the values are
    normalised with ``fold_case``.

    >>> Options(max_calls=10).method
    'auto'
    >>> Options.of({"column": "handle", "max_calls": 5}).max_calls
    5
    """

    refresh: Refresh = _option(
        False,
        "buy every answer anew; '--refresh changed': only the people whose job changed since "
        "their answer was bought, read from the job-change feed (the others are kept)",
    )
    max_calls: int | None = _option(None, "refuse to start if more billable calls would be needed")
    errors: Errors = _option(
        "coerce", "record failures per row (coerce) or stop at the first (raise)"
    )
    method: Method = _option(
        "auto",
        "batch jobs when more than 20 handles are to fetch and the service has them (auto), "
        "always (batch), or one call per handle (single)",
    )
    max_credits: float | None = _option(
        None,
        "refuse to start if the job would spend more credits than N (route costs; the Data "
        "API's batch items 1 each); a job the balance cannot pay is always refused",
    )
    provenance: bool = _option(False, "keep each value's source and time")
    fold_case: bool = _option(
        True, "public handles are case-insensitive: Ada and ada are one person, paid once"
    )
    progress: bool | None = _option(None, "False: no progress bar; None: where a person watches")

    @classmethod
    def of(cls, given: Mapping[str, Any]) -> Options:
        """The options among a call's arguments by name (``locals()``); the others are left out."""
        return cls(**{f.name: given[f.name] for f in fields(cls) if f.name in given})

    def check(self, kind: Kind) -> None:
        """Raise UsageError for an ``errors``, a budget, a ``method`` or a ``refresh`` no job of
        ``kind`` takes, before anything is read or sent.

        >>> from lookup_pandas.identifiers.kinds import PEOPLE
        >>> Options(method="bulk").check(PEOPLE)
        Traceback (most recent call last):
        lookup_pandas.errors.UsageError: method must be one of 'auto', 'batch', 'single', not 'bulk'
        """
        check_options(self.errors, self.max_calls, self.max_credits)
        check_method(self.method)
        check_refresh(self.refresh, kind)


@dataclass(frozen=True)
class Plan:
    """What one enrichment does before it pays for anything.

    ``cached`` holds the answers read ahead, ``to_fetch`` the rest, to buy (each single call
    reads the cache once more before it claims: another process may have bought it since).
    ``batch``: submit batch jobs for them. ``stored_batch_jobs`` hold some distinct value:
    polled when ``resume``, else forgotten once their inputs are cached.

    >>> Plan(to_fetch=("ada",)).batch_run  # a pool of single calls
    False
    """

    cached: Mapping[str, Outcome] = field(default_factory=dict)
    to_fetch: tuple[str, ...] = ()
    batch: bool = False
    stored_batch_jobs: tuple[StoredJob, ...] = ()
    resume: bool = False
    #: Offline: the values the cache does not hold (``lookup_status="not_cached"``).
    not_cached: tuple[str, ...] = ()
    offline: bool = False
    #: With ``refresh="changed"``: a stored answer counts only if stored after this time
    #: (seconds since the epoch), so the movers in ``to_fetch`` are bought anew, once.
    fresh_after: float | None = None
    #: With ``refresh="changed"``: what the feed found, shown on the bar.
    checked: RefreshCounts | None = None

    @property
    def check_key(self) -> bool:
        """Whether a key never seen to work is checked (free) before answers read ahead are
        used; offline nothing is sent, so no.

        >>> ada = Outcome("ok", {"handle": "ada"})
        >>> Plan(cached={"ada": ada}).check_key, Plan(cached={"ada": ada}, offline=True).check_key
        (True, False)
        """
        return bool(self.cached) and not self.offline

    @property
    def batch_run(self) -> bool:
        """Whether batch jobs are submitted or stored ones looked at.

        >>> Plan(stored_batch_jobs=(StoredJob("job_1", ("ada",), 0.0),)).batch_run
        True
        """
        return self.batch or bool(self.stored_batch_jobs)


def check_offline(options: Options) -> None:
    """Refuse, offline, what needs the network: ``refresh=True`` or ``"changed"``.

    >>> check_offline(Options(refresh=True))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    lookup_pandas.errors.UsageError: refresh=True buys every answer again: ...
    >>> check_offline(Options(refresh="changed"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    lookup_pandas.errors.UsageError: refresh="changed" reads the job-change feed: ...
    """
    if options.refresh == "changed":
        raise UsageError(
            'refresh="changed" reads the job-change feed: it needs the network, not offline. '
            "Nothing was sent."
        )
    if options.refresh:
        raise UsageError("refresh=True buys every answer again: it needs the network, not offline.")


def plan(
    distinct: Sequence[str],
    *,
    cached: Mapping[str, Outcome],
    stored: Sequence[StoredJob],
    options: Options,
    batch_supported: bool | None,
    nouns: str = "handles",
    offline: bool = False,
    fresh_after: float | None = None,
    checked: RefreshCounts | None = None,
) -> Plan:
    """The plan for ``distinct`` values, or BudgetExceededError (nothing sent).

    Args:
        cached: what the cache holds of ``distinct`` (an expired answer too, offline); with
            ``refresh=True`` nothing counts. After ``refresh="changed"`` read the feed, the
            answers it keeps, and ``fresh_after`` and ``checked`` say what it found.
        stored: every stored batch job; those holding none of ``distinct`` are left alone.
        offline: what the cache does not hold is ``not_cached``; nothing is bought.

    >>> p = plan(["ada"], cached={}, stored=[], options=Options(), offline=True,
    ...          batch_supported=None)
    >>> p.not_cached, p.to_fetch
    (('ada',), ())
    >>> plan(["ada", "grace"], cached={}, stored=[], options=Options(max_calls=1),
    ...      batch_supported=None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    lookup_pandas.errors.BudgetExceededError: This enrichment needs 2 billable calls ...
    """
    found = {} if options.refresh is True else {h: cached[h] for h in distinct if h in cached}
    rest = tuple(h for h in distinct if h not in found)
    if offline:
        check_offline(options)
        return Plan(cached=found, not_cached=rest, offline=True)
    check_budget(len(rest), len(found), len(distinct), options.max_calls, nouns)
    jobs = tuple(stored_batch_jobs_holding(stored, distinct))
    return Plan(
        cached=found,
        to_fetch=rest,
        batch=use_batch(options.method, len(rest), batch_supported),
        stored_batch_jobs=jobs,
        resume=bool(jobs) and options.refresh is False,
        fresh_after=fresh_after,
        checked=checked,
    )


def check_budget(
    needed: int, cached: int, distinct: int, max_calls: int | None, nouns: str = "handles"
) -> None:
    """Raise BudgetExceededError when ``needed`` billable calls are more than ``max_calls``.

    >>> check_budget(3, 1, 4, max_calls=None)  # no budget: never
    >>> check_budget(3, 1, 4, max_calls=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    lookup_pandas.errors.BudgetExceededError: This enrichment needs 3 billable calls (1 of 4 ...
    """
    if max_calls is not None and needed > max_calls:
        raise BudgetExceededError(
            f"This enrichment needs {needed} billable calls ({cached} of {distinct} distinct "
            f"{nouns} are cached), more than max_calls={max_calls}. Nothing was sent.",
            needed=needed,
            allowed=max_calls,
        )


def job_credits(items: int, *, batch: bool, costs: RouteCosts, kind: Kind) -> float:
    """Credits ``items`` billable values of ``kind`` cost at ``costs``: single calls at the
    route's cost, batch items at theirs (:meth:`~.RouteCosts.item_cost`: the Data API's 1).

    >>> from lookup_pandas.identifiers.kinds import PEOPLE, VERIFY
    >>> costs = RouteCosts({"people/profile": 2.0, "emails/v1/verify": 2.0})
    >>> job_credits(50, batch=False, costs=costs, kind=PEOPLE)
    100.0
    >>> job_credits(50, batch=True, costs=costs, kind=PEOPLE), job_credits(50, batch=True,
    ...     costs=costs, kind=VERIFY)
    (50.0, 100.0)
    """
    endpoint = kind.endpoint
    return items * (costs.item_cost(endpoint) if batch else costs.cost_of(endpoint.path))


def check_credits(credits: float, items: int, max_credits: float | None) -> None:
    """Raise BudgetExceededError when ``credits`` (for ``items`` billable items) are more than
    ``max_credits``.

    >>> check_credits(50, 50, max_credits=None)  # no budget: never
    >>> check_credits(50, 50, max_credits=20)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    lookup_pandas.errors.BudgetExceededError: This enrichment needs 50 credits (50 billable ...
    """
    if max_credits is not None and credits > max_credits:
        raise BudgetExceededError(
            f"This enrichment needs {credits:g} credits ({items} billable items), more than "
            f"max_credits={max_credits:g}. Nothing billable was sent.",
            needed=math.ceil(credits),
            allowed=math.floor(max_credits),
        )


def check_balance(credits: float, items: int, balance: float | None) -> None:
    """Raise InsufficientCreditsError when the balance cannot pay ``credits``, naming both and
    a subset it can pay; an unknown balance (None) passes.

    >>> check_balance(50, 50, None)
    >>> check_balance(50, 50, 20)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    lookup_pandas.errors.InsufficientCreditsError: This enrichment needs 50 credits ...
    >>> try:
    ...     check_balance(50, 50, 20)
    ... except InsufficientCreditsError as exc:
    ...     print(exc.needed, exc.balance, "df.head(20)" in str(exc), exc.cli_message[-57:])
    50 20 True --max-credits 20 to refuse any job that would spend more.
    """
    if balance is None or credits <= balance:
        return
    each = credits / items if items else 1.0
    affordable = max(0, math.floor(balance / each)) if each else items
    subset = (
        f"enrich a subset the balance can pay, e.g. df.head({affordable}) (cached rows are "
        f"free), with max_credits={balance:g} to refuse any job that would spend more"
        if affordable
        else "set max_credits= to refuse any job that would spend more than you have"
    )
    cli_subset = (  # the command line's options, not Python's
        f"enrich a smaller input the balance can pay, e.g. the file's first {affordable} rows "
        f"(head -n {affordable + 1} keeps the header; cached rows are free), with --max-credits "
        f"{balance:g} to refuse any job that would spend more"
        if affordable
        else "pass --max-credits to refuse any job that would spend more than you have"
    )
    told = (
        f"This enrichment needs {credits:g} credits ({items} billable items), and the balance "
        f"is {balance:g}. Nothing billable was sent. Top up, or "
    )
    exc = InsufficientCreditsError(f"{told}{subset}.")
    exc.needed, exc.balance, exc.cli_message = credits, balance, f"{told}{cli_subset}."
    raise exc


def stored_batch_jobs_holding(
    stored: Sequence[StoredJob], handles: Sequence[str]
) -> list[StoredJob]:
    """The stored batch jobs (of earlier, interrupted runs) that hold any of ``handles``.

    >>> jobs = [StoredJob("job_1", ("ada",), 0.0), StoredJob("job_2", ("bob",), 0.0)]
    >>> [job.job_id for job in stored_batch_jobs_holding(jobs, ["bob", "eve"])]
    ['job_2']
    """
    if not stored:
        return []
    wanted = set(handles)
    return [job for job in stored if not wanted.isdisjoint(job.inputs)]


def check_method(method: str) -> None:
    """Raise UsageError unless ``method`` is one of auto, batch or single.

    >>> check_method("batch")
    >>> check_method("bulk")
    Traceback (most recent call last):
    lookup_pandas.errors.UsageError: method must be one of 'auto', 'batch', 'single', not 'bulk'
    """
    if method not in METHODS:
        raise UsageError(f"method must be one of {', '.join(map(repr, METHODS))}, not {method!r}")


def check_refresh(refresh: object, kind: Kind) -> None:
    """Refuse a ``refresh`` that is not False, True or ``"changed"``, and ``"changed"`` for a
    kind the job-change feed does not tell of (:attr:`~.kinds.Kind.changes_feed`: companies).

    >>> from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE
    >>> check_refresh("changed", PEOPLE)
    >>> check_refresh("changed", COMPANIES)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    lookup_pandas.errors.UsageError: refresh="changed" reads people's job changes: ...
    >>> check_refresh("moved", PEOPLE)
    Traceback (most recent call last):
    lookup_pandas.errors.UsageError: refresh must be False, True or "changed", not 'moved'
    """
    if not (isinstance(refresh, bool) or refresh == "changed"):
        raise UsageError(f'refresh must be False, True or "changed", not {refresh!r}')
    if refresh == "changed" and not kind.changes_feed:
        raise UsageError(
            f'refresh="changed" reads people\'s job changes: it is not for {kind.nouns}. '
            f"A {kind.noun}'s answer is kept (refresh=False) or bought anew (refresh=True)."
        )


def check_options(errors: str, max_calls: int | None, max_credits: float | None = None) -> None:
    """Raise UsageError for an ``errors``, ``max_calls`` or ``max_credits`` a job cannot take.

    >>> check_options("raise", 10, max_credits=2.5)
    >>> check_options("coerce", None, max_credits=-5)
    Traceback (most recent call last):
    lookup_pandas.errors.UsageError: max_credits must be a number >= 0 or None, not -5
    """
    if errors not in ("coerce", "raise"):
        raise UsageError(f"errors must be 'coerce' or 'raise', not {errors!r}")
    if max_calls is not None and (
        isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 0
    ):
        raise UsageError(f"max_calls must be a whole number >= 0 or None, not {max_calls!r}")
    if max_credits is not None and (
        isinstance(max_credits, bool)
        or not isinstance(max_credits, int | float)
        or not max_credits >= 0
        or math.isinf(max_credits)
    ):
        raise UsageError(f"max_credits must be a number >= 0 or None, not {max_credits!r}")


def batch_told(known: bool | None, costs: RouteCosts | None, kind: Kind) -> bool | None:
    """Whether the service has ``kind``'s batch jobs, as far as is known without sending
    anything: what a submit told (``known``), else whether the route costs list the batch
    route (production lists it, at 0 credits), else None.

    >>> from lookup_pandas.identifiers.kinds import PEOPLE
    >>> known = [batch_told(None, RouteCosts({}), PEOPLE), batch_told(None, None, PEOPLE)]
    >>> known + [batch_told(True, None, PEOPLE)]
    [False, None, True]
    """
    if known is not None or costs is None or kind.endpoint.batch is None:
        return known
    return costs.lists(kind.endpoint.batch)
