"""Handles: turn what people paste into a lead list into the public handle the service wants.

Example::

    normalise_handle("  https://www.example.com/in/ada-lovelace/?utm_source=x ")  # "ada-lovelace"
    normalise_handle("j%C3%BCrgen/")                                              # "jürgen"
    normalise_handle("   ")                                                       # None
    invalid_reason(None)                                                          # "missing"

Rules, in order: missing values (None, NaN, pd.NA) and non-text are invalid; surrounding
whitespace goes; a profile URL (``.../in/<handle>``, with or without scheme, query or fragment)
becomes its handle; trailing slashes go; percent-encoding is decoded; what is left must be
non-empty and free of whitespace and control characters. Case is kept: the service decides
whether ``Ada`` and ``ada`` are the same person.
"""

from __future__ import annotations

import math
import re
import unicodedata
from urllib.parse import unquote, urlsplit

__all__ = ["invalid_reason", "normalise_handle"]

_URL_START = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|www\.)", re.IGNORECASE)


def _is_missing(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    try:
        import pandas as pd

        return value is pd.NA or value is pd.NaT
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False


def _from_url(text: str) -> str | None:
    """The handle in a profile URL, or None when the URL is not a profile URL."""
    try:
        split = urlsplit(text if "://" in text else "https://" + text)
    except ValueError:  # e.g. an unbalanced "[" read as an IPv6 host
        return None
    segments = [s for s in split.path.split("/") if s]
    for i, segment in enumerate(segments[:-1]):
        if segment.lower() == "in":
            return segments[i + 1]
    return None


def _looks_like_url(text: str) -> bool:
    # Also after extraction: ".../in/www.ada" gives "www.ada", which is no believable handle,
    # and the next round rejects it, as it rejects a bare "www.example.com".
    return bool(_URL_START.match(text)) or "/in/" in text.lower()


def _round(text: str) -> tuple[str | None, str | None]:
    """One round of cleaning: whitespace, a profile URL, trailing slashes, percent-encoding."""
    text = text.strip()
    if _looks_like_url(text):
        handle = _from_url(text)
        if handle is None:
            return None, "a URL without /in/<handle>"
        text = handle
    return unquote(text.strip().rstrip("/").strip()).strip(), None


def _clean(value: object) -> tuple[str | None, str | None]:
    """(handle, None) when valid, else (None, reason)."""
    if _is_missing(value):
        return None, "missing"
    if isinstance(value, bytes | bytearray):
        return None, "not text"
    if not isinstance(value, str):
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        else:
            return None, f"not text ({type(value).__name__})"
    if not value.strip():
        return None, "empty"
    # Repeat until nothing changes, so that normalising twice changes nothing ("ada%2F" ->
    # "ada", an encoded URL -> its handle). Bounded: real handles settle in one or two rounds.
    text: str | None = value
    for _ in range(8):
        cleaned, reason = _round(text)
        if cleaned is None:
            return None, reason
        if cleaned == text:
            break
        text = cleaned
    else:
        return None, "too many layers of encoding"
    if not text:
        return None, "empty"
    if any(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in text):
        return None, "contains whitespace or control characters"
    return text, None


def normalise_handle(value: object) -> str | None:
    """The handle to send for ``value``, or None when it is not a usable handle."""
    return _clean(value)[0]


def invalid_reason(value: object) -> str | None:
    """Why ``value`` is not a usable handle; None when it is one."""
    return _clean(value)[1]
