"""Handles: turn what people paste into a lead list into the public handle the service wants.

Example::

    normalise_handle("  https://www.example.com/in/Ada-Lovelace/?utm_source=x ")  # "ada-lovelace"
    normalise_handle("@Ada")                                                      # "ada"
    normalise_handle("@Ada", fold_case=False)                                     # "Ada"
    normalise_handle("j%C3%BCrgen/")                                              # "jürgen"
    normalise_handle("   ")                                                       # None
    invalid_reason("N/A")                                                         # "missing"
    invalid_reason("ada@example.com")                                   # "an e-mail address"
    invalid_reason("3.14")                                                        # "no letters"

Cleaning, in order: missing values (None, NaN, pd.NA, and a cell that is one of the strings
pandas' ``read_csv`` reads as missing, :data:`NA_STRINGS`: ``"NA"`` is missing, ``"Na"`` and
``"na"`` are not, though too short to be handles) and non-text are invalid (an ``int`` is read
as its digits); surrounding whitespace goes; a profile URL (``.../in/<handle>``, with or
without scheme, query or fragment) becomes its handle; trailing slashes and leading ``@`` go;
percent-encoding is decoded; the handle is lower-cased (unless ``fold_case=False``); what is
left must be non-empty, free of whitespace and control characters, not itself a missing-value
string, and follow the grammar.

The grammar (:func:`_grammar_reason`). Production bills every handle it is asked about, found or
not (a not-found is ``1010``, "billed": ``renidly/renidly-skills``, ``data-api.md``, ``GET
/people/profile``), so a value that cannot be a handle is ``invalid`` and never sent. Production
documents no grammar: ``data-api.md`` says only "``handle`` (public profile handle; may
change)", ``SKILL.md`` says to treat identifiers as opaque (we never build or alter a handle,
only refuse values that cannot be one), and the official SDK (PyPI ``renidly`` 0.3.0,
``resources/data.py``, ``People.retrieve``) sends whatever it is given, ``params={"id": id,
"handle": handle}``. Its handles are LinkedIn-style public handles: ``email-api.md`` takes "a
professional profile URL or its bare public slug" (``GET /find/linkedin``) and the SDK's README
shows ``find_by_url("https://example.com/in/someone")``. So the rules are LinkedIn's public
profile URL rules (LinkedIn Help, "Manage your public profile URL", answer 87: "Your custom URL
can be 3-100 characters long and should not contain spaces, symbols, special characters"),
widened where our own data needs it. The first rule that fails gives the reason:

1. ``an e-mail address``: ``x@y`` (an ``@`` with text on both sides) or ``mailto:...``. The key of
   production's Email API (``SKILL.md``, Identifiers: "the email address itself is the key";
   ``email-api.md``: ``GET /reverse`` finds the person behind one), never a handle.
2. ``markup``: ``<`` or ``>`` (a pasted tag, ``<script>``); LinkedIn: no symbols.
3. ``a path``: ``/`` left after URL extraction, ``\\``, or ``..``: a handle is the one path
   segment after ``/in/``, so ``../../etc/passwd`` or ``acme/ada`` cannot be one.
4. ``contains '?' (letters, digits, '-', '_', '.' only)``: any other character (``?``, ``#``,
   ``%``, ``:``, emoji). Letters are any script's (Unicode category L, so ``jürgen`` and
   ``straße`` stay valid), with combining marks (category M: some scripts need them, and
   ``"İ".lower()`` makes one); digits are decimal digits (Nd). LinkedIn allows letters, digits
   and hyphens; ``_`` and ``.`` are not LinkedIn's but are kept, so that handles the existing
   data and tests use stay valid (the emulator accepts any handle).
5. ``no letters``: digits and punctuation only (``0``, ``-1``, ``3.14``, ``-``): a number or a
   placeholder from a spreadsheet cell. Production's example handles are names
   (``ryanroslansky``, ``williamhgates`` in ``sdks.md`` and the SDK's README); each of these
   values was a billed not-found in production (issue 21). Digits beside a letter are fine.
6. ``too short (min 3 characters)`` / ``too long (max 100 characters)``: LinkedIn's 3-100,
   counted in characters of the handle as sent (after decoding and folding).

Whitespace and control characters inside are checked before the grammar (``contains
whitespace or control characters``), and a handle that would itself be a missing-value string
the next time round before it (``normalises to a missing-value string``), so those reasons are
unchanged. A string the grammar accepts (but a missing-value string, or one starting ``www.``,
read as a URL) comes back from :func:`normalise_handle` unchanged with ``fold_case=False``, and
lower-cased with ``fold_case=True`` when still within the rules once lowered. A handle it
returned comes back unchanged under either ``fold_case``: the client, the batch path and the
cache keys may normalise an already-normalised handle (:func:`checked_handle` does, before
every lookup).

Case: profile handles are case-insensitive on the service, so by default ``Ada``, ``ADA`` and
``ada`` are one handle, sent as ``ada`` (and looked up, cached and billed once). Folding uses
``str.lower()``, not ``str.casefold()``: casefold rewrites letters (``"ß"`` -> ``"ss"``), which
would send a different handle. ``fold_case=False`` keeps case as written. A person's id
(``prsn_...``, sent as ``id=``) is opaque: kept exactly as written, never folded.

The same cleaning serves other kinds of value through :class:`Rules` (companies:
:mod:`lookup_pandas.identifiers.companies`).
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
    "looks_like_url",
    "normalise_handle",
]

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
    """What one kind of value looks like: the URL path segment before it (``in`` for
    ``.../in/<handle>``), its shortest length, the opaque id prefixes kept as written (never
    case-folded: ``prsn_AbC`` stays ``prsn_AbC``), and how a refusal names it.

    Example: ``Rules(segment="company", min_length=2, ids=("org_",), what="a company slug,
    id or page URL")`` (:mod:`lookup_pandas.identifiers.companies`).
    """

    segment: str = "in"
    min_length: int = MIN_LENGTH
    ids: tuple[str, ...] = ("prsn_",)
    what: str = "a handle or profile URL"
    noun: str = "handle"


#: People: handles, profile URLs and ``prsn_`` ids.
PERSON_RULES = Rules()


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

    Example: ``looks_like_url("linkedin.com/company/acme", "company")`` -> True;
    ``looks_like_url("acme labs")`` -> False
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
    """Why the cleaned ``text`` cannot be a public handle (see the module doc, rules 1-6);
    None when it can. ``text`` has no whitespace or control characters left."""
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


def _clean(
    value: object, fold_case: bool, rules: Rules = PERSON_RULES
) -> tuple[str | None, str | None]:
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


def cleaned(
    value: object, *, fold_case: bool = True, rules: Rules = PERSON_RULES
) -> tuple[str | None, str | None]:
    """``(handle, None)`` when ``value`` is a usable handle, else ``(None, reason)``: what
    :func:`normalise_handle` and :func:`invalid_reason` give, from one cleaning.

    Example: ``cleaned("@Ada")`` -> ``("ada", None)``; ``cleaned("")`` -> ``(None, "empty")``
    """
    return _clean(value, fold_case, rules)


def normalise_handle(
    value: object, *, fold_case: bool = True, rules: Rules = PERSON_RULES
) -> str | None:
    """The handle to send for ``value``, or None when it is not a usable handle.

    ``fold_case=True`` (the default) lower-cases it with ``str.lower()``: the service treats
    handles case-insensitively, and ``lower`` (unlike ``casefold``) keeps letters such as
    ``"ß"``. ``fold_case=False`` keeps case as written.
    """
    return _clean(value, fold_case, rules)[0]


def invalid_reason(
    value: object, *, fold_case: bool = True, rules: Rules = PERSON_RULES
) -> str | None:
    """Why ``value`` is not a usable handle; None when it is one. ``fold_case`` as in
    :func:`normalise_handle` (it decides whether ``"Null"`` is a handle)."""
    return _clean(value, fold_case, rules)[1]


def checked_handle(value: object, *, fold_case: bool = True, rules: Rules = PERSON_RULES) -> str:
    """The handle to send for ``value``, as :func:`normalise_handle` gives it; a UsageError
    naming the value and the reason when it is no handle, before anything is sent.

    Example: ``checked_handle("https://www.example.com/in/Ada/")`` -> ``"ada"``;
    ``checked_handle("ada@example.com")`` raises ``UsageError("'ada@example.com' is not a
    handle or profile URL: an e-mail address. Nothing was sent.")``.
    """
    handle, reason = _clean(value, fold_case, rules)
    if handle is not None:
        return handle
    shown = repr(value)
    if len(shown) > 60:  # a pasted page must not become a page-long message
        shown = f"{shown[:45]}... ({len(value) if isinstance(value, str) else len(shown)} chars)"
    raise UsageError(f"{shown} is not {rules.what}: {reason}. Nothing was sent.")
