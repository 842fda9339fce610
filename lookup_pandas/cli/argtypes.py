"""Argument types for argparse: numbers in range, or a one-line usage error (exit 2).

Example: ``rows("7") == 7``; ``rows("-1")`` raises ``argparse.ArgumentTypeError``.
"""

from __future__ import annotations

import argparse


def rows(text: str) -> int:
    """A whole number >= 0, for argparse."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def rate(text: str) -> float:
    """A number >= 0, for argparse."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def page_size(text: str) -> int:
    """A whole number >= 1, for argparse."""
    value = rows(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value
