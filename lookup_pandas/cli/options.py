"""What each command was asked to do: typed, frozen option objects the parser makes.

Example:
    >>> EnrichOptions(input="leads.csv", output="out.csv", method="batch").job["method"]
    'batch'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ..enrichment.results import Refresh
    from ..identifiers.kinds import Kind

__all__ = [
    "STDIN",
    "CacheOptions",
    "CompaniesOptions",
    "DemoOptions",
    "EnrichOptions",
    "ListingOptions",
    "Options",
    "ServeOptions",
    "TierOptions",
]

#: The input name that means standard input, as other tools take it.
STDIN = "-"

Errors = Literal["coerce", "raise"]
Method = Literal["auto", "batch", "single"]
ListingCommand = Literal[
    "employees", "search", "search-companies", "institutions", "alumni", "skills", "job-changes"
]
CacheAction = Literal["info", "prune", "clear", "forget"]


@dataclass(frozen=True)
class EnrichOptions:
    """``enrich INPUT``: a CSV of handles enriched, whole or in chunks."""

    input: str
    column: str = "handle"
    prefix: str = "profile_"
    errors: Errors = "coerce"
    max_calls: int | None = None
    max_credits: float | None = None
    refresh: Refresh = False  # True, or "changed": --refresh changed
    method: Method = "auto"
    encoding: str = "utf-8"
    keep_case: bool = False
    chunksize: int | None = None  # rows per chunk; 0: never; None: by the file's rows
    chunk_threshold: int | None = None  # rows above which it is chunked unasked
    output: str | None = None  # None or "-": stdout
    progress: bool | None = None  # False: --no-progress; None: when on a terminal
    offline: bool = False  # --offline: answers from the cache only, nothing sent
    companies: bool = False  # --companies: the column holds companies (slugs, org_ ids)

    @property
    def fold_case(self) -> bool:
        return not self.keep_case

    @property
    def kind(self) -> Kind:
        """Whose values the column holds: ``COMPANIES`` with ``--companies``, else ``PEOPLE``.

        Example:
            >>> EnrichOptions("accounts.csv", companies=True).kind.desc
            'companies'
        """
        from ..identifiers.kinds import COMPANIES, PEOPLE

        return COMPANIES if self.companies else PEOPLE

    @property
    def job(self) -> dict[str, Any]:
        """The enrichment's keywords as set here: all but the column, the prefix and the client.

        Example: ``api.enrich_companies(df, o.column, client=c, **o.job)``
        """
        return {
            "errors": self.errors,
            "max_calls": self.max_calls,
            "max_credits": self.max_credits,
            "refresh": self.refresh,
            "method": self.method,
            "progress": self.progress,
            "fold_case": self.fold_case,
        }


@dataclass(frozen=True)
class ListingOptions:
    """A listing written as CSV: ``employees SLUG``, ``search TITLE``, ``job-changes``...

    The commands are in :data:`.listing_commands.LIST_COMMANDS`.
    """

    command: ListingCommand
    query: str | None = None  # the command's argument (slug, title, name); None: none given
    website: str | None = None  # search-companies --website
    limit: int = 50
    max_records: int | None = None
    filters: tuple[str, ...] = ()  # each KEY=VALUE, as given
    output: str | None = None
    progress: bool | None = None
    offline: bool = False  # --offline


@dataclass(frozen=True)
class CompaniesOptions:
    """``companies SLUG_OR_ID...``: those companies' records as CSV, one row per value."""

    values: tuple[str, ...]
    errors: Errors = "coerce"
    method: Method = "auto"
    keep_case: bool = False
    output: str | None = None
    progress: bool | None = None
    offline: bool = False  # --offline

    @property
    def fold_case(self) -> bool:
        return not self.keep_case


@dataclass(frozen=True)
class TierOptions:
    """``tier``: the credits tier in one line (``-o FILE``: as a one-row CSV)."""

    output: str | None = None
    progress: bool | None = None
    offline: bool = False  # --offline


@dataclass(frozen=True)
class ServeOptions:
    """``serve``: the emulator in the foreground."""

    port: int = 0
    latency: float = 0.0
    rate_limit: float = 6000.0  # calls a minute; 0: none
    fault_rate: float = 0.0
    api_key: str | None = None
    sparse: bool = False
    batch: bool = True
    batch_resolve_rate: float | None = None
    batch_page_size: int | None = None
    move_rate: float = 0.0  # people who move to another company each minute
    duration: float | None = None


@dataclass(frozen=True)
class DemoOptions:
    """``demo``: the emulator and the sample lead list, end to end."""

    workdir: Path = Path("lookup-demo")
    progress: bool = True
    sparse: bool = False


@dataclass(frozen=True)
class CacheOptions:
    """``cache info | prune | clear | forget``: the cache LOOKUP_CACHE names."""

    action: CacheAction
    yes: bool = False  # clear: do not ask
    handles: tuple[str, ...] = field(default=())  # forget: handles or profile URLs
    from_csv: str | None = None  # forget: also the handles of a CSV column
    column: str = "handle"
    encoding: str = "utf-8"
    keep_case: bool = False

    @property
    def fold_case(self) -> bool:
        return not self.keep_case


Options = (
    EnrichOptions
    | ListingOptions
    | CompaniesOptions
    | TierOptions
    | ServeOptions
    | DemoOptions
    | CacheOptions
)
