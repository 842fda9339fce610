"""Handles: turn what people paste into a lead list into the public handle the service wants.

The rules, and why they are so, are in docs/decisions.md (identifiers/).

>>> normalise_handle("  https://www.example.com/in/Ada-Lovelace/?utm_source=x ")
'ada-lovelace'
>>> normalise_handle("@Ada"), normalise_handle("j%C3%BCrgen/"), normalise_handle("   ")
('ada', 'jürgen', None)
>>> invalid_reason("N/A"), invalid_reason("ada@example.com"), invalid_reason("3.14")
('missing', 'an e-mail address', 'no letters')
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from ..errors import UsageError

__all__ = [
    "MAX_LENGTH",
    "MIN_LENGTH",
    "NA_STRINGS",
    "PERSON_RULES",
    "Rules",
    "checked_handle",
    "cleaned",
    "invalid_reason",
    "is_missing",
    "looks_like_url",
    "normalise_handle",
    "refused",
]

#: The strings that are missing values, not handles: pandas' default ``na_values`` for
#: ``read_csv``. Matched exactly and case-sensitively, after stripping surrounding whitespace.
#: A blank value keeps its own reason, "empty".
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

#: A handle's length bounds, in characters (LinkedIn's public profile URL rule, 3-100).
MIN_LENGTH = 3
MAX_LENGTH = 100
#: What a handle may hold: letters (L*) and combining marks (M*) of any script, decimal
#: digits (Nd), and these separators.
_ALLOWED_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd"})
_SEPARATORS = frozenset("-_.")
#: Shown in the reason for a character outside the grammar.
_ALLOWED = "letters, digits, '-', '_', '.' only"


@dataclass(frozen=True)
class Rules:
    """What one kind of value looks like, and how a refusal names it.

    >>> rules = Rules(segment="company", min_length=2, ids=("org_",))
    >>> normalise_handle("example.com/company/HP", rules=rules)
    'hp'
    >>> normalise_handle("org_AbC", rules=rules), normalise_handle("prsn_AbC")
    ('org_AbC', 'prsn_AbC')
    """

    segment: str = "in"  # the URL path segment before a value: ``.../in/<handle>``
    min_length: int = MIN_LENGTH
    ids: tuple[str, ...] = ("prsn_",)  # opaque id prefixes: such a value is kept as written
    what: str = "a handle or profile URL"  # what a refused value should have been


#: People: handles, profile URLs and ``prsn_`` ids.
PERSON_RULES = Rules()


def is_missing(value: object) -> bool:
    """Whether ``value`` is a gap: None, NaN, pandas' NA or NaT."""
    import pandas as pd  # on first use: the module itself needs no pandas

    nan = isinstance(value, float) and math.isnan(value)
    return value is None or nan or value is pd.NA or value is pd.NaT


def _from_url(text: str, segment: str = "in") -> str | None:
    """The handle in a profile URL (the value after ``segment``), or None when there is none."""
    try:
        split = urlsplit(text if "://" in text else "https://" + text)
    except ValueError:  # e.g. an unbalanced "[" read as an IPv6 host
        return None
    wanted, segments = segment, [s for s in split.path.split("/") if s]
    for i, segment in enumerate(segments[:-1]):
        if segment.lower() == wanted:
            return segments[i + 1]
    return None


def looks_like_url(text: str, segment: str = "in") -> bool:
    """True when ``text`` is written as a URL (a scheme, ``www.``, or ``/<segment>/`` inside).

    >>> looks_like_url("linkedin.com/company/acme", "company"), looks_like_url("acme labs")
    (True, False)
    """
    # Also after extraction: ".../in/www.ada" gives "www.ada", which is no believable handle,
    # and the next round rejects it, as it rejects a bare "www.example.com".
    return bool(_URL_START.match(text)) or f"/{segment}/" in text.lower()


def _is_blank(text: str) -> bool:
    """Nothing but whitespace, slashes and "@": no handle at all ("", "@", " @ / ")."""
    return all(ch.isspace() or ch in "@/" for ch in text)


def _allowed(ch: str) -> bool:
    """A letter or combining mark of any script, a decimal digit, or one of ``- _ .``."""
    return ch in _SEPARATORS or unicodedata.category(ch) in _ALLOWED_CATEGORIES


def _grammar_reason(text: str, min_length: int = MIN_LENGTH) -> str | None:
    """Why the cleaned ``text`` cannot be a public handle, else None.

    The first rule that fails gives the reason (docs/decisions.md, identifiers/, rules 1-6).
    ``text`` has no whitespace or control characters left.
    """
    if text.lower().startswith("mailto:") or "@" in text.rstrip("@"):
        return "an e-mail address"
    if "<" in text or ">" in text:
        return "markup"
    if "/" in text or "\\" in text or ".." in text:
        return "a path"
    bad = "".join(dict.fromkeys(ch for ch in text if not _allowed(ch)))
    if bad:
        shown = bad if len(bad) <= 3 else bad[:3] + "..."
        return f"contains {shown!r} ({_ALLOWED})"
    if not any(unicodedata.category(ch).startswith("L") for ch in text):
        return "no letters"
    if len(text) < min_length:
        return f"too short (min {min_length} characters)"
    if len(text) > MAX_LENGTH:
        return f"too long (max {MAX_LENGTH} characters)"
    return None


def _round(text: str, fold_case: bool, segment: str = "in") -> tuple[str | None, str | None]:
    """One round of cleaning: whitespace, a profile URL, trailing slashes, leading "@",
    percent-encoding, case."""
    text = text.strip()
    if looks_like_url(text, segment):
        handle = _from_url(text, segment)
        if handle is None:
            return None, f"a URL without /{segment}/<{'handle' if segment == 'in' else 'slug'}>"
        text = handle
    text = unquote(text.strip().rstrip("/").strip().lstrip("@").strip()).strip()
    return (text.lower() if fold_case else text), None


def cleaned(
    value: object, *, fold_case: bool = True, rules: Rules = PERSON_RULES
) -> tuple[str | None, str | None]:
    """``(handle, None)`` when ``value`` is a usable handle, else ``(None, reason)``.

    >>> cleaned("@Ada"), cleaned("")
    (('ada', None), (None, 'empty'))
    """
    if is_missing(value):
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
    if value.strip().startswith(rules.ids):
        fold_case = False  # an id is opaque: its case is never folded
    # Repeat until nothing changes, so that normalising twice changes nothing ("ada%2F" ->
    # "ada", an encoded URL -> its handle, "%41" -> "A" -> "a"). Bounded: real handles settle
    # in one or two rounds.
    text: str = value
    for _ in range(8):
        cleaned, reason = _round(text, fold_case, rules.segment)
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
    reason = _grammar_reason(text, rules.min_length)
    if reason is not None:
        return None, reason
    return text, None


def normalise_handle(
    value: object, *, fold_case: bool = True, rules: Rules = PERSON_RULES
) -> str | None:
    """The handle to send for ``value``, or None when it is not a usable handle.

    Args:
        fold_case: lower-case the handle with ``str.lower()``. False keeps case as written.

    >>> normalise_handle("Straße"), normalise_handle("Ada", fold_case=False)
    ('straße', 'Ada')
    """
    return cleaned(value, fold_case=fold_case, rules=rules)[0]


def invalid_reason(
    value: object, *, fold_case: bool = True, rules: Rules = PERSON_RULES
) -> str | None:
    """Why ``value`` is not a usable handle, or None when it is one.

    >>> invalid_reason("ab"), invalid_reason("Null"), invalid_reason("Null", fold_case=False)
    ('too short (min 3 characters)', 'normalises to a missing-value string', None)
    """
    return cleaned(value, fold_case=fold_case, rules=rules)[1]


def checked_handle(value: object, *, fold_case: bool = True, rules: Rules = PERSON_RULES) -> str:
    """The handle to send for ``value``, else a UsageError that names the value and the reason.

    >>> checked_handle("https://www.example.com/in/Ada/")
    'ada'
    >>> checked_handle("ada@example.com")
    Traceback (most recent call last):
    ...
    lookup_pandas.errors.UsageError: 'ada@example.com' is not a handle or profile URL: an e-mail
    address. Nothing was sent.
    """
    handle, reason = cleaned(value, fold_case=fold_case, rules=rules)
    if handle is None:
        raise refused(value, rules.what, reason)
    return handle


def refused(value: object, what: str, reason: str | None) -> UsageError:
    """The UsageError refusing ``value``, which is not ``what`` for ``reason``.

    >>> refused("ab", "a handle", "too short")
    UsageError("'ab' is not a handle: too short. Nothing was sent.")
    """
    shown = repr(value)
    if len(shown) > 60:  # a pasted page must not become a page-long message
        shown = f"{shown[:45]}... ({len(value) if isinstance(value, str) else len(shown)} chars)"
    return UsageError(f"{shown} is not {what}: {reason}. Nothing was sent.")
