"""What every command's parser is built of: argument types, shared options, a command's help.

Example:
    >>> parser = argparse.ArgumentParser(prog="lookup-pandas")
    >>> tier = service_command(parser.add_subparsers(), "tier", "the credits tier")
    >>> add_common(tier)
    >>> tier.parse_args(["-o", "tier.csv", "--no-progress"]).output
    'tier.csv'
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeAlias, TypeVar

__all__ = [
    "ENVIRONMENT",
    "Sub",
    "add_common",
    "add_errors",
    "command",
    "page_size",
    "progress",
    "rate",
    "rows",
    "service_command",
]

N = TypeVar("N", int, float)

Sub: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

ENVIRONMENT = """environment:
  LOOKUP_API_KEY   the API key (required; read from the environment only, never an option)
  LOOKUP_BASE_URL  the service's address, e.g. https://api.example.com (required)
  LOOKUP_CACHE     the cache file (default: http_cache.sqlite in the user cache dir),
                   or "off" for no cache"""


def command(
    sub: Sub, name: str, helptext: str, description: str, epilog: str | None = None
) -> argparse.ArgumentParser:
    """A command with its help line and description.

    With an ``epilog`` (the environment it reads), the description and the epilog are shown as
    written. Without one, argparse wraps the description.
    """
    if epilog is None:
        return sub.add_parser(name, help=helptext, description=description)
    return sub.add_parser(
        name,
        help=helptext,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def service_command(sub: Sub, name: str, helptext: str) -> argparse.ArgumentParser:
    """A command that talks to the service: its help lists the environment."""
    return command(sub, name, helptext, helptext, ENVIRONMENT)


def add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", default=None, help="CSV file to write (default: stdout)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--offline", action="store_true", help="answer from the cache only; send nothing"
    )


def add_errors(p: argparse.ArgumentParser) -> None:
    """``--errors coerce|raise``: record failures per row, or stop at the first."""
    p.add_argument(
        "--errors",
        choices=("coerce", "raise"),
        default="coerce",
        help="record failures per row (coerce) or stop at the first (raise)",
    )


def progress(ns: argparse.Namespace) -> bool | None:
    """``--no-progress``: False. Otherwise None: a bar when on a terminal.

    Example:
        >>> progress(argparse.Namespace(no_progress=True))
        False
    """
    return False if ns.no_progress else None


def rows(text: str) -> int:
    """A whole number >= 0, for argparse.

    Example:
        >>> rows("7")
        7
        >>> rows("-1")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be 0 or more, not -1
    """
    return _at_least(0, text, int, "a whole number")


def rate(text: str) -> float:
    """A number >= 0, for argparse.

    Example:
        >>> rate("2.5")
        2.5
    """
    return _at_least(0, text, float, "a number")


def page_size(text: str) -> int:
    """A whole number >= 1, for argparse.

    Example:
        >>> page_size("100")
        100
    """
    return _at_least(1, text, int, "a whole number")


def _at_least(least: int, text: str, parse: Callable[[str], N], what: str) -> N:
    """``parse(text)`` when it is a finite number >= ``least``, else argparse's one-line error.

    Example:
        >>> _at_least(1, "0", int, "a whole number")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be 1 or more, not 0
        >>> _at_least(0, "inf", float, "a number")
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be 0 or more, not inf
    """
    try:
        value = parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
    if not value >= least or value == float("inf"):  # NaN is not >= anything
        raise argparse.ArgumentTypeError(f"must be {least} or more, not {text}")
    return value
