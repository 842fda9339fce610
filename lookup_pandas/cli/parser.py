"""The command line's parser: each command's arguments are its options' fields (:mod:`.options`).

Nothing below this module sees an ``argparse.Namespace``.

Example:
    >>> parse_args(["cache", "forget", "ada", "--keep-case"])  # doctest: +NORMALIZE_WHITESPACE
    CacheOptions(action='forget', yes=False, handles=('ada',), from_csv=None, column='handle',
                 encoding='utf-8', fold_case=False, cache=None)
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, TypeAlias

from .._version import __version__
from .listing_commands import LIST_COMMANDS
from .options import (
    REFRESH_MODES,
    CacheOptions,
    CommandOptions,
    CompaniesOptions,
    DemoOptions,
    EmailsOptions,
    EnrichOptions,
    ListingOptions,
    ProspectsOptions,
    ServeOptions,
    TierOptions,
)

__all__ = ["build_parser", "parse_args"]

Sub: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

ENVIRONMENT = """environment:
  LOOKUP_API_KEY   the API key (required; read from the environment only, never an option)
  LOOKUP_BASE_URL  the service's address, e.g. https://api.example.com (required)
  LOOKUP_CACHE     the cache file (default: http_cache.sqlite in the user cache dir),
                   or "off" for no cache"""

CACHE_ENVIRONMENT = """environment:
  LOOKUP_CACHE     the cache: a file (default: http_cache.sqlite in the user cache dir) or
                   a redis:// URL. No API key and no service are needed
  LOOKUP_API_KEY, LOOKUP_BASE_URL
                   with a Redis cache, when both are set: only that key's namespace;
                   otherwise every namespace in that Redis database (a SQLite file is
                   always acted on whole: it holds the answers of every key used with it).
                   A Redis URL naming the team's namespace (?namespace=NAME) is acted on
                   in that namespace, and needs LOOKUP_BASE_URL only

exit codes: 0 done (check: healthy), 2 a bad argument or setting (repair: the file is open
in another process), 1 clear not confirmed, or check found damage, 5 removed, but an old
copy may remain in a -wal file (another process was reading the cache: run it again)"""


def parse_args(argv: Sequence[str] | None = None) -> CommandOptions:
    """The options of the command ``argv`` names. argparse exits 2 on a bad argument.

    Each field the command's parser has no argument for takes its default.

    Example:
        >>> parse_args(["enrich", "accounts.csv", "--companies"]).column
        'slug'
    """
    ns = vars(build_parser().parse_args(_refresh_spelled(argv)))
    cls: type[CommandOptions] = ns.pop("options")
    given: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in ns:  # a list (nargs, append) is kept as a tuple: the options are frozen
            given[f.name] = tuple(ns[f.name]) if isinstance(ns[f.name], list) else ns[f.name]
    return cls(**given)


def _refresh_spelled(argv: Sequence[str] | None) -> list[str] | None:
    """``argv`` with a bare ``--refresh`` spelled ``--refresh=all``, so that the word after it
    (the input file, in ``enrich --refresh leads.csv``) is never taken for its value.

    A word of letters that names no file is taken for a mode, and refused by
    :func:`.options.refresh_mode` (``--refresh moved``), not for an input that is not there.

    >>> _refresh_spelled(["enrich", "--refresh", "leads.csv", "--refresh", "changed"])
    ['enrich', '--refresh=all', 'leads.csv', '--refresh', 'changed']
    >>> _refresh_spelled(["enrich", "leads.csv", "--refresh", "moved"])
    ['enrich', 'leads.csv', '--refresh', 'moved']
    """
    out = list(sys.argv[1:] if argv is None else argv)
    for i, word in enumerate(out):
        if word == "--refresh" and (i + 1 == len(out) or not _a_mode(out[i + 1])):
            out[i] = "--refresh=all"
    return out


def _a_mode(word: str) -> bool:
    """Whether the word after ``--refresh`` is meant as its value: a mode, or a word of letters
    that names no file (a mode misspelt).

    >>> _a_mode("changed"), _a_mode("moved"), _a_mode("leads.csv"), _a_mode("-")
    (True, True, False, False)
    """
    return word in REFRESH_MODES or (word.isalpha() and not os.path.exists(word))


def add_fields(parser: argparse.ArgumentParser, cls: type[Any], *names: str) -> None:
    """The arguments of ``cls``' fields ``names`` (default: every field that declares one).

    >>> p = argparse.ArgumentParser()
    >>> add_fields(p, TierOptions, "offline")
    >>> p.parse_args(["--offline"])
    Namespace(offline=True)
    """
    for f in sorted(dataclasses.fields(cls), key=lambda f: f.kw_only is True):  # _Written's last
        if "flags" not in f.metadata or (names and f.name not in names):
            continue
        kwargs = {k: v for k, v in f.metadata.items() if k != "flags"}
        if f.default is not dataclasses.MISSING:  # argparse appends to a list of its own
            kwargs["default"] = list(f.default) if isinstance(f.default, tuple) else f.default
        if f.metadata["flags"]:
            kwargs["dest"] = f.name
        parser.add_argument(*f.metadata["flags"] or (f.name,), **kwargs)


def command(
    sub: Sub,
    name: str,
    helptext: str,
    options: type[Any],
    description: str | None = None,
    epilog: str | None = ENVIRONMENT,
) -> argparse.ArgumentParser:
    """A command, its help line and description, that makes ``options``.

    With an ``epilog`` (the environment it reads), the description and the epilog are shown as
    written. Without one, argparse wraps the description.
    """
    raw = argparse.RawDescriptionHelpFormatter if epilog else argparse.HelpFormatter
    desc = description or helptext
    p = sub.add_parser(name, help=helptext, description=desc, epilog=epilog, formatter_class=raw)
    p.set_defaults(options=options)
    return p


def build_parser() -> argparse.ArgumentParser:
    """The ``lookup-pandas`` parser: each command's arguments, and the options it makes.

    Example:
        >>> build_parser().prog
        'lookup-pandas'
    """
    parser = argparse.ArgumentParser(
        prog="lookup-pandas",
        description="People and company data in pandas: cached, paced, resumable.",
        epilog=ENVIRONMENT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    add_fields(command(sub, "enrich", _ENRICH, EnrichOptions), EnrichOptions)
    _add_listings(sub)
    for name, helptext, options, description, epilog in (
        ("companies", _COMPANIES, CompaniesOptions, None, ENVIRONMENT),
        ("tier", _TIER, TierOptions, None, ENVIRONMENT),
        ("serve", "run the service emulator in the foreground", ServeOptions, _SERVE, None),
        ("demo", "the emulator + a sample lead list enriched end to end", DemoOptions, None, None),
    ):
        add_fields(command(sub, name, helptext, options, description, epilog), options)
    _add_emails(sub)
    _add_cache(sub)
    return parser


def _add_listings(sub: Sub) -> None:
    """One command per row of LIST_COMMANDS: its argument, paging, and ``--filter``.

    The endpoint's other required parameter is an option (``search-companies --website``).
    """
    for c in LIST_COMMANDS.values():
        p = command(sub, c.name, c.helptext, ListingOptions)
        if c.argument is not None:  # optional unless the endpoint requires it
            nargs = None if c.argument == c.listing.required else "?"
            p.add_argument("query", metavar=c.metavar or c.argument, nargs=nargs)
        for name in c.listing.one_of:
            if name != c.argument:
                p.add_argument(f"--{name}", default=None, help=f"the {name} to match (3+ chars)")
        add_fields(p, ListingOptions, "limit", "max_records")
        if c.filters:
            p.add_argument(
                "--filter",
                action="append",
                dest="filters",
                default=[],
                metavar="KEY=VALUE",
                help=f"a filter, repeatable: {', '.join(c.filters)}",
            )
        add_fields(p, ListingOptions, "output", "progress", "offline")


_ENRICH = "enrich a CSV of handles or profile URLs"
_COMPANIES = "companies by slug, company page URL or org_ id"
_TIER = (
    "the credits tier in one line (tier, limit per minute, balance, the next tier); "
    "-o FILE writes it as a one-row CSV"
)
_SERVE = (
    "Run the service emulator on 127.0.0.1 until Ctrl-C or SIGTERM. It prints "
    "what it billed when it stops, and on SIGUSR1 while it runs (requests seen, billed "
    "calls and batch items, credits, distinct handles billed, 429s); GET "
    "/_emulator/stats answers the same numbers as JSON (no key; not billed or counted)."
)
_CLEAR = (
    "Remove every cached answer, and the stored batch jobs and claims (the jobs hold "
    "handles). What was paid for is paid for again when needed. Asks first (y/N) on a "
    "terminal; elsewhere only --yes does it."
)
_FORGET = (
    "Erase every stored answer about these people: their profile answers, the search and "
    "employees pages holding them (whole pages), their handles in stored batch jobs. On "
    "SQLite the files are then rewritten and their write-ahead logs emptied, so that no "
    "byte of them keeps what was removed. Nothing is sent; their next lookup is billed "
    "again."
)
_CHECK = (
    "Check a SQLite cache file: whether it is a database, what SQLite's integrity check says, "
    "how many answers and aliases can be read and how many cannot, whether the store file "
    "beside it reads, and whether another process holds it. Nothing is changed. Exit 1 when "
    "it is damaged: cache repair keeps what can be read."
)
_REPAIR = (
    "Salvage every answer and alias SQLite can still read of a damaged cache file into a new "
    "file, put it in its place, and keep the damaged one beside it as "
    "NAME.corrupt-TIME.sqlite. A healthy file is left as it is. The answers lost are bought "
    "again when needed. Refused while another process has the file open."
)
#: Each cache action, its help line, the description its --help shows, and its arguments.
_CACHE_ACTIONS = {
    "info": (
        "where the cache is, how many answers it holds (and how many expired), its size",
        None,
        (),
    ),
    "prune": ("remove the expired answers (they are never used again)", None, ()),
    "clear": ("remove every cached answer, and the stored batch jobs and claims", _CLEAR, ("yes",)),
    "forget": (
        "erase every stored answer about these people",
        _FORGET,
        ("handles", "from_csv", "column", "encoding", "fold_case"),
    ),
    "check": (
        "whether the cache file is sound, and how many answers a damaged one can keep",
        _CHECK,
        ("cache",),
    ),
    "repair": ("salvage what a damaged cache file can still be read of", _REPAIR, ("cache",)),
}


#: Each ``emails`` action: its help line, and the arguments naming its input's columns.
_EMAIL_ACTIONS = {
    "find": (
        "each row's work email, by first name, last name and company domain (or --profile)",
        ("first_name", "last_name", "domain", "profile"),
    ),
    "verify": ("whether each row's address can receive mail", ("column",)),
    "reverse": ("the person and company behind each row's business address", ("column",)),
}
#: What every action but ``prospects`` takes after its columns.
_EMAIL_JOB = (
    "prefix", "errors", "max_calls", "max_credits", "refresh", "method", "encoding", "output",
    "progress", "offline",
)  # fmt: skip


def _add_emails(sub: Sub) -> None:
    emails = command(
        sub,
        "emails",
        "the Email API: work emails found, addresses verified or reversed, a domain's prospects",
        EmailsOptions,
        "The Email API on a CSV as a CRM exports it (names, company domains, addresses):\n"
        "each distinct input bought once and cached, the estimate line first.",
    )
    actions = emails.add_subparsers(dest="email_command", required=True)
    for name, (helptext, columns) in _EMAIL_ACTIONS.items():
        p = command(actions, name, helptext, EmailsOptions)
        p.set_defaults(action=name)
        add_fields(p, EmailsOptions, "input", *columns, *_EMAIL_JOB)
    p = command(actions, "prospects", "the addresses known at a company's domain", ProspectsOptions)
    add_fields(p, ProspectsOptions)


def _add_cache(sub: Sub) -> None:
    cache = command(
        sub,
        "cache",
        "what the cache holds, removing it, repairing a damaged file (no API key needed)",
        CacheOptions,
        "What the cache holds, and removing it: expired answers, everything, or\n"
        "every stored answer about some people; checking a cache file, and repairing a\n"
        "damaged one. Only the cache is touched: nothing is sent, and no API key is needed.",
        CACHE_ENVIRONMENT,
    )
    actions = cache.add_subparsers(dest="cache_command", required=True)
    for name, (helptext, description, fields) in _CACHE_ACTIONS.items():
        wrapped = textwrap.fill(description or helptext, width=90)
        p = command(actions, name, helptext, CacheOptions, wrapped, CACHE_ENVIRONMENT)
        p.set_defaults(action=name)
        if fields:
            add_fields(p, CacheOptions, *fields)
