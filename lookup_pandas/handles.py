"""Handles: turn what people paste into a lead list into the public handle the service wants.

Example::

    normalise_handle("  https://www.example.com/in/Ada-Lovelace/?utm_source=x ")  # "ada-lovelace"
    normalise_handle("@Ada")                                                      # "ada"
    normalise_handle("@Ada", fold_case=False)                                     # "Ada"
    normalise_handle("j%C3%BCrgen/")                                              # "jürgen"
    normalise_handle("   ")                                                       # None
    invalid_reason("N/A")                                                         # "missing"

Rules, in order: missing values (None, NaN, pd.NA, and a cell that is one of the strings
pandas' ``read_csv`` reads as missing, :data:`NA_STRINGS`: ``"NA"`` is missing, ``"Na"`` and
``"na"`` are handles) and non-text are invalid; surrounding whitespace goes; a profile URL
(``.../in/<handle>``, with or without scheme, query or fragment) becomes its handle; trailing
slashes and leading ``@`` go; percent-encoding is decoded; the handle is lower-cased (unless
``fold_case=False``); what is left must be non-empty, free of whitespace and control
characters, and not itself a missing-value string.

Case: profile handles are case-insensitive on the service, so by default ``Ada``, ``ADA`` and
``ada`` are one handle, sent as ``ada`` (and looked up, cached and billed once). Folding uses
``str.lower()``, not ``str.casefold()``: casefold rewrites letters (``"ß"`` -> ``"ss"``), which
would send a different handle. ``fold_case=False`` keeps case as written.
"""

from __future__ import annotations

import math
import re
import unicodedata
from urllib.parse import unquote, urlsplit

__all__ = ["NA_STRINGS", "invalid_reason", "normalise_handle"]

#: The strings that are missing values, not handles (matched exactly, case-sensitively, after
#: stripping surrounding whitespace). This mirrors pandas' documented default ``na_values`` for
#: ``read_csv``, so that a lead list read with ``pd.read_csv`` defaults and one read with
#: ``keep_default_na=False`` (as the CLI does) give the same statuses. The empty string is in
#: pandas' list too; a blank value keeps its own reason here, "empty".
NA_STRINGS: frozenset[str] = frozenset(
    {
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    }
)

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


def _is_blank(text: str) -> bool:
    """Nothing but whitespace, slashes and "@": no handle at all ("", "@", " @ / ")."""
    return all(ch.isspace() or ch in "@/" for ch in text)


def _round(text: str, fold_case: bool) -> tuple[str | None, str | None]:
    """One round of cleaning: whitespace, a profile URL, trailing slashes, leading "@",
    percent-encoding, case."""
    text = text.strip()
    if _looks_like_url(text):
        handle = _from_url(text)
        if handle is None:
            return None, "a URL without /in/<handle>"
        text = handle
    text = unquote(text.strip().rstrip("/").strip().lstrip("@").strip()).strip()
    return (text.lower() if fold_case else text), None


def _clean(value: object, fold_case: bool) -> tuple[str | None, str | None]:
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
    if value.strip() in NA_STRINGS:
        return None, "missing"
    # Repeat until nothing changes, so that normalising twice changes nothing ("ada%2F" ->
    # "ada", an encoded URL -> its handle, "%41" -> "A" -> "a"). Bounded: real handles settle
    # in one or two rounds.
    text: str = value
    for _ in range(8):
        cleaned, reason = _round(text, fold_case)
        if cleaned is None:
            return None, reason
        if cleaned == text:
            break
        text = cleaned
    else:
        return None, "too many layers of encoding"
    if _is_blank(text):
        return None, "empty"
    if any(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Cs") for ch in text):
        return None, "contains whitespace or control characters"
    # "@null", ".../in/nan" or (folded) "Null" would give a handle that is itself missing the
    # next time round: normalising it again, or writing it out and reading it back with pandas.
    if text in NA_STRINGS:
        return None, "normalises to a missing-value string"
    return text, None


def normalise_handle(value: object, *, fold_case: bool = True) -> str | None:
    """The handle to send for ``value``, or None when it is not a usable handle.

    ``fold_case=True`` (the default) lower-cases it with ``str.lower()``: the service treats
    handles case-insensitively, and ``lower`` (unlike ``casefold``) keeps letters such as
    ``"ß"``. ``fold_case=False`` keeps case as written.
    """
    return _clean(value, fold_case)[0]


def invalid_reason(value: object, *, fold_case: bool = True) -> str | None:
    """Why ``value`` is not a usable handle; None when it is one. ``fold_case`` as in
    :func:`normalise_handle` (it decides whether ``"Null"`` is a handle)."""
    return _clean(value, fold_case)[1]
