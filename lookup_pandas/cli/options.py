"""What each command is asked: a frozen dataclass per command, whose fields declare its flags.

Each field is one argument: its name is the argument's ``dest``, its default argparse's, and
:func:`arg` holds argparse's other keywords (flags, help, type, choices). An option of the
engine (:class:`lookup_pandas.enrichment.plan.Options`) takes its default and help from there
(:func:`engine`). :mod:`.parser` adds the fields' arguments and makes the options from them.

Example:
    >>> EnrichOptions(input="leads.csv", output="out.csv", method="batch").job["method"]
    'batch'
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar, get_args

from ..enrichment.plan import Options
from ..enrichment.results import Errors, Method, Refresh
from ..identifiers.kinds import COMPANIES, FIND, FIND_BY_PROFILE, PEOPLE, REVERSE, VERIFY, Kind

__all__ = [
    "STDIN",
    "CacheOptions",
    "CommandOptions",
    "CompaniesOptions",
    "DemoOptions",
    "EmailsOptions",
    "EnrichOptions",
    "ListingOptions",
    "ProspectsOptions",
    "ServeOptions",
    "TierOptions",
]

#: The input name that means standard input, as other tools take it.
STDIN = "-"

N = TypeVar("N", int, float)
CacheAction = Literal["info", "prune", "clear", "forget", "check", "repair"]
EmailAction = Literal["find", "verify", "reverse"]


def arg(flags: str, help: str, default: Any = dataclasses.MISSING, **argparse_: Any) -> Any:
    """A field, and the argument that sets it: its ``flags`` (``""``: a positional), its help,
    its default, and argparse's other keywords."""
    metadata = {"flags": tuple(flags.split()), "help": help, **argparse_}
    return dataclasses.field(default=default, metadata=metadata)


def switch(flags: str, help: str) -> Any:
    """A field that is False unless its flag is given."""
    return arg(flags, help, False, action="store_true")


def engine(name: str, flags: str, help: str | None = None, **argparse_: Any) -> Any:
    """A field that is the engine's option ``name``, with its declared default and help line
    (``help`` where a command says it in its own words)."""
    declared = _DECLARED[name]
    return arg(flags, help or declared.metadata["help"], declared.default, **argparse_)


_DECLARED = {f.name: f for f in dataclasses.fields(Options)}


def _at_least(least: int, parse: Callable[[str], N], what: str) -> Callable[[str], N]:
    """An argparse type: ``parse(text)`` when it is a finite number >= ``least``, else
    argparse's one-line error.

    Example:
        >>> rows("7"), rate("2.5"), page_size("100")
        (7, 2.5, 100)
        >>> page_size("0")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be 1 or more, not 0
        >>> rate("inf")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be 0 or more, not inf
    """

    def check(text: str) -> N:
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not value >= least or value == float("inf"):  # NaN is not >= anything
            raise argparse.ArgumentTypeError(f"must be {least} or more, not {text}")
        return value

    return check


rows = _at_least(0, int, "a whole number")  # rows of a chunk
rate = _at_least(0, float, "a number")  # credits, items or people a second or minute
page_size = _at_least(1, int, "a whole number")


#: What ``--refresh`` takes: every answer bought anew, or only the people whose job changed.
REFRESH_MODES: dict[str, Refresh] = {"all": True, "changed": "changed"}


def refresh_mode(text: str) -> Refresh:
    """``--refresh``'s value: ``all`` (the same as a bare ``--refresh``) or ``changed``.

    >>> refresh_mode("changed"), refresh_mode("all")
    ('changed', True)
    """
    try:
        return REFRESH_MODES[text]
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"--refresh takes 'changed' or nothing (every answer anew), not {text!r}"
        ) from None


_CHUNKSIZE_HELP = (
    "read, enrich and write N rows at a time, so that memory does not grow with the "
    "file's length (default: 10000-row chunks for an input of more than 50000 rows, else "
    "the whole file at once; 0: never). The output is the same; each distinct value is "
    "normalised once and each distinct handle fetched once, as one job (one budget, one "
    "estimate). The input is read twice, so it must be "
    "a file. With -o FILE the output is written beside FILE as .FILE.<random>.part and "
    "renamed onto FILE only when complete (an interrupted run leaves no half file); to "
    "stdout, chunks are written as they are made and a failure can leave a partial CSV"
)


@dataclass(frozen=True)
class CommandOptions:
    """What one command is asked. ``RUN`` names the function that runs it: module, then name
    (imported only when it runs)."""

    RUN: ClassVar[tuple[str, str]]


@dataclass(frozen=True, kw_only=True)
class _Written(CommandOptions):
    """A command that writes a CSV, from the service or the cache: its last three arguments."""

    output: str | None = arg("-o --output", "CSV file to write (default: stdout)", None)
    # False: --no-progress; None: a bar when on a terminal
    progress: bool | None = arg(
        "--no-progress", "no progress bar", None, action="store_const", const=False
    )
    offline: bool = switch("--offline", "answer from the cache only; send nothing")


class _Job:
    """A command that runs an enrichment: ``job`` is its options that are the engine's."""

    @property
    def job(self) -> dict[str, Any]:
        """The engine's options as set here (:class:`~lookup_pandas.enrichment.plan.Options`).

        Example: ``api.enrich_companies(df, o.column, client=c, **o.job)``
        """
        return {name: getattr(self, name) for name in _DECLARED if hasattr(self, name)}


@dataclass(frozen=True)
class EnrichOptions(_Job, _Written):
    """``enrich INPUT``: a CSV of handles enriched, whole or in chunks.

    ``column`` and ``prefix`` default by what the column holds (people, or ``--companies``).
    """

    RUN = (".enrich", "enrich")

    input: str = arg("", "the CSV file to read ('-': standard input)")
    companies: bool = switch(
        "--companies",
        "the column holds companies (slugs, company page URLs or org_ ids), not people",
    )
    column: str = arg("-c --column", "column of handles (handle; --companies: slug)", None)
    prefix: str = arg("--prefix", "prefix of new columns (profile_; --companies: company_)", None)
    errors: Errors = engine("errors", "--errors", choices=get_args(Errors))
    max_calls: int | None = engine("max_calls", "--max-calls", type=int)
    max_credits: float | None = engine("max_credits", "--max-credits", type=rate, metavar="N")
    refresh: Refresh = engine(
        "refresh", "--refresh", nargs="?", const=True, type=refresh_mode, metavar="changed"
    )
    method: Method = engine("method", "--method", choices=get_args(Method))
    encoding: str = arg(
        "--encoding", "the input file's text encoding (utf-8), e.g. latin-1, cp1252", "utf-8"
    )
    fold_case: bool = arg(
        "--keep-case",
        "send handles as written (default: lower case; public handles "
        "are case-insensitive, so Ada and ada are one person, paid once)",
        True,
        action="store_false",
    )
    # rows per chunk; 0: never; None: by the file's rows
    chunksize: int | None = arg("--chunksize", _CHUNKSIZE_HELP, None, type=rows, metavar="N")
    # rows above which an input is chunked unasked (default csv_chunks.AUTO_CHUNK_ROWS); for tests
    chunk_threshold: int | None = arg("--chunk-threshold", argparse.SUPPRESS, None, type=rows)

    def __post_init__(self) -> None:
        column, prefix = ("slug", "company_") if self.companies else ("handle", "profile_")
        if self.column is None:
            object.__setattr__(self, "column", column)
        if self.prefix is None:
            object.__setattr__(self, "prefix", prefix)

    @property
    def kind(self) -> Kind:
        """Whose values the column holds: ``COMPANIES`` with ``--companies``, else ``PEOPLE``.

        Example:
            >>> EnrichOptions("accounts.csv", companies=True).kind.desc
            'companies'
        """
        return COMPANIES if self.companies else PEOPLE


#: Each ``emails`` action's kind and the prefix of its columns (those of ``df.lookup``'s twins).
EMAIL_ACTIONS: dict[str, tuple[Kind, str]] = {
    "find": (FIND, "email_"),
    "verify": (VERIFY, "verify_"),
    "reverse": (REVERSE, "reverse_"),
}


@dataclass(frozen=True)
class EmailsOptions(_Job, _Written):
    """``emails find | verify | reverse INPUT``: a CSV's people given their work emails (by
    name and domain, or ``--profile``), or its addresses verified or reversed to their people.

    Example:
        >>> EmailsOptions("find", "leads.csv", profile="url").kind.endpoint.name
        'email_find_profile'
        >>> EmailsOptions("verify", "leads.csv").columns, EmailsOptions("find", "x.csv").prefix
        ('email', 'email_')
    """

    RUN = (".emails_commands", "emails")

    action: EmailAction
    input: str = arg("", "the CSV file to read ('-': standard input)")
    column: str = arg("-c --column", "the column of email addresses (email)", "email")
    first_name: str = arg("--first-name", "the column of first names (first_name)", "first_name")
    last_name: str = arg("--last-name", "the column of last names (last_name)", "last_name")
    domain: str = arg(
        "--domain",
        "the column of company domains, websites or addresses (domain): each is sent as its "
        "bare host, without www.",
        "domain",
    )
    profile: str | None = arg(
        "--profile", "find by this column of profile URLs or handles instead of by name", None
    )
    prefix: str = arg("--prefix", "prefix of new columns (email_, verify_, reverse_)", None)
    errors: Errors = engine("errors", "--errors", choices=get_args(Errors))
    max_calls: int | None = engine("max_calls", "--max-calls", type=int)
    max_credits: float | None = engine("max_credits", "--max-credits", type=rate, metavar="N")
    refresh: bool = switch("--refresh", "buy every answer anew")
    method: Method = engine("method", "--method", choices=get_args(Method))
    encoding: str = arg(
        "--encoding", "the input file's text encoding (utf-8), e.g. latin-1, cp1252", "utf-8"
    )
    fold_case: bool = True  # names are compared case-blind, as df.lookup.find_emails does

    def __post_init__(self) -> None:
        if self.prefix is None:
            object.__setattr__(self, "prefix", EMAIL_ACTIONS[self.action][1])

    @property
    def kind(self) -> Kind:
        """What the action buys: ``FIND`` (``FIND_BY_PROFILE`` with ``--profile``), ``VERIFY``
        or ``REVERSE``."""
        if self.action == "find" and self.profile is not None:
            return FIND_BY_PROFILE
        return EMAIL_ACTIONS[self.action][0]

    @property
    def columns(self) -> str | tuple[str, str, str]:
        """The column (or a find's three) each row's value is read from."""
        if self.action != "find":
            return self.column
        return self.profile or (self.first_name, self.last_name, self.domain)


@dataclass(frozen=True)
class ProspectsOptions(_Written):
    """``emails prospects DOMAIN``: the addresses known at a company's domain, every page.

    Example:
        >>> ProspectsOptions("acme.com", verified_only=True).kind
        'verified_only'
    """

    RUN = (".emails_commands", "prospects")

    domain: str = arg("", "the company's domain, website or an address at it")
    verified_only: bool = switch(
        "--verified-only", "only the deliverable addresses (2 credits each; else 1)"
    )
    max_records: int | None = arg(
        "--max-records", "stop after this many (0 or more)", None, type=int
    )

    @property
    def kind(self) -> Literal["full", "verified_only"]:
        """The prospects' ``kind`` as the service takes it."""
        return "verified_only" if self.verified_only else "full"


@dataclass(frozen=True)
class ListingOptions(_Written):
    """A listing written as CSV: ``employees SLUG``, ``search TITLE``, ``job-changes``...

    The commands, their argument and filters are in :data:`.listing_commands.LIST_COMMANDS`.
    """

    RUN = (".listing_commands", "listing")

    command: str  # a name of LIST_COMMANDS, whose rows declare the listing commands
    query: str | None = None  # the command's argument (slug, title, name); None: none given
    website: str | None = None  # search-companies --website
    limit: int = arg("--limit", "page size, 1-50 (50)", 50, type=int)
    max_records: int | None = arg(
        "--max-records", "stop after this many (0 or more)", None, type=int
    )
    filters: tuple[str, ...] = ()  # each KEY=VALUE, as given


@dataclass(frozen=True)
class CompaniesOptions(_Job, _Written):
    """``companies SLUG_OR_ID...``: those companies' records as CSV, one row per value."""

    RUN = (".companies_command", "companies")

    values: tuple[str, ...] = arg("", "slugs, URLs or org_ ids", nargs="+", metavar="SLUG_OR_ID")
    errors: Errors = engine("errors", "--errors", choices=get_args(Errors))
    method: Method = engine(
        "method",
        "--method",
        "batch jobs when more than 20 are to fetch (auto), always, or one call each",
        choices=get_args(Method),
    )
    fold_case: bool = arg("--keep-case", "send slugs as written", True, action="store_false")


@dataclass(frozen=True)
class TierOptions(_Written):
    """``tier``: the credits tier in one line (``-o FILE``: as a one-row CSV)."""

    RUN = (".tier", "tier")


@dataclass(frozen=True)
class ServeOptions(CommandOptions):
    """``serve``: the emulator in the foreground."""

    RUN = (".serve", "serve")

    port: int = arg("--port", "port on 127.0.0.1 (default: any free)", 0, type=int)
    latency: float = arg("--latency", "seconds added to every answer", 0.0, type=float)
    rate_limit: float = arg(
        "--rate-limit", "calls per minute per key, enforced smoothly (0: none)", 6000.0, type=float
    )
    fault_rate: float = arg(
        "--fault-rate", "share of requests answered with a transient fault", 0.0, type=float
    )
    api_key: str | None = arg("--api-key", "the key it accepts (default: a new one)", None)
    sparse: bool = switch("--sparse", "records carry only id, handle and some of the other fields")
    batch: bool = arg(
        "--batch",
        "the batch-enrich endpoints exist (default); --no-batch answers them 404, "
        "as a service without them",
        True,
        action=argparse.BooleanOptionalAction,
    )
    emails: bool = arg(
        "--emails",
        "the Email API exists (default); --no-emails answers its every path 404, as a service "
        "without it",
        True,
        action=argparse.BooleanOptionalAction,
    )
    batch_resolve_rate: float | None = arg(
        "--batch-resolve-rate",
        "items a batch job resolves per second (default 300; 0: at once)",
        None,
        type=rate,
        metavar="N",
    )
    batch_page_size: int | None = arg(
        "--batch-page-size",
        "batch results per poll (default 100)",
        None,
        type=page_size,
        metavar="N",
    )
    move_rate: float = arg(
        "--move-rate",
        "people of its population who move to another company each minute (default 0): "
        "their records change and the job-change feed lists their moves, so a refresh finds "
        "movers; each move is printed",
        0.0,
        type=rate,
        metavar="R",
    )
    duration: float | None = arg("--duration", argparse.SUPPRESS, None, type=float)


@dataclass(frozen=True)
class DemoOptions(CommandOptions):
    """``demo``: the emulator and the sample lead list, end to end."""

    RUN = (".serve", "demo")

    workdir: Path = arg(
        "--workdir",
        "where the demo's cache and enriched CSV go (lookup-demo)",
        Path("lookup-demo"),
        type=Path,
    )
    progress: bool = arg("--no-progress", "no progress bars", True, action="store_false")
    sparse: bool = switch("--sparse", "records carry only some fields (id and handle always)")


@dataclass(frozen=True)
class CacheOptions(CommandOptions):
    """``cache info | prune | clear | forget | check | repair``: the cache LOOKUP_CACHE names.

    Only ``clear`` takes ``yes``, only ``check`` and ``repair`` take ``cache``, and only
    ``forget`` the others.
    """

    RUN = (".cache_commands", "cache")

    action: CacheAction
    yes: bool = switch("--yes", "do not ask (required when stdin is not a terminal)")
    handles: tuple[str, ...] = arg(
        "", "handles, profile URLs, prsn_ ids or email addresses", (), nargs="*", metavar="HANDLE"
    )
    from_csv: str | None = arg(
        "--from-csv", "also the handles in a CSV column", None, metavar="FILE"
    )
    column: str = arg("-c --column", "the column of --from-csv (handle)", "handle")
    encoding: str = arg("--encoding", "the CSV's text encoding (utf-8)", "utf-8")
    fold_case: bool = arg(
        "--keep-case",
        "match handles as written (default: lower case, as enrichment sends them)",
        True,
        action="store_false",
    )
    cache: str | None = arg(
        "--cache", "the cache file (default: the one LOOKUP_CACHE names)", None, metavar="PATH"
    )
