"""normalise_handle / invalid_reason: what people paste into a lead list -> the handle to send."""

from __future__ import annotations

import csv
import io
import math
from urllib.parse import quote

import pandas as pd
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from lookup_pandas.errors import UsageError
from lookup_pandas.identifiers.handles import (
    NA_STRINGS,
    checked_handle,
    invalid_reason,
    normalise_handle,
)

# -- examples ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("ada", "ada"),
        ("  ada  ", "ada"),
        ("\tada\n", "ada"),
        ("ada/", "ada"),
        ("ada///", "ada"),
        ("  ada/  ", "ada"),
        ("https://www.example.com/in/ada-lovelace", "ada-lovelace"),
        ("https://www.example.com/in/ada-lovelace/", "ada-lovelace"),
        ("http://example.com/in/ada-lovelace", "ada-lovelace"),
        ("  https://www.example.com/in/ada-lovelace/?utm_source=x  ", "ada-lovelace"),
        ("https://www.example.com/in/ada-lovelace?utm_source=x&utm_medium=email", "ada-lovelace"),
        ("https://www.example.com/in/ada-lovelace#about", "ada-lovelace"),
        ("https://www.example.com/in/ada-lovelace/?utm_source=x#frag", "ada-lovelace"),
        ("www.example.com/in/ada", "ada"),
        ("www.example.com/in/ada/", "ada"),
        ("WWW.EXAMPLE.COM/in/ada", "ada"),
        ("https://www.example.com/IN/ada", "ada"),
        ("https://www.example.com/In/Ada/", "ada"),
        ("https://www.example.com/in/ada/details/experience/", "ada"),
        ("j%C3%BCrgen", "jürgen"),
        ("j%C3%BCrgen/", "jürgen"),
        ("https://www.example.com/in/j%C3%BCrgen/", "jürgen"),
        ("jürgen", "jürgen"),
        ("Ada", "ada"),  # handles are case-insensitive on the service
        ("ADA", "ada"),
        ("JÜRGEN", "jürgen"),
        ("Straße", "straße"),  # lower(), not casefold(): "ß" stays, no "strasse"
        ("HTTPS://WWW.EXAMPLE.COM/IN/JOSE-TANAKA-067/", "jose-tanaka-067"),
        ("https://www.example.com/in/J%C3%9CRGEN/", "jürgen"),
        ("%41da", "ada"),  # decoded, then folded
        ("@ada", "ada"),
        (" @ada/ ", "ada"),
        ("@@ada", "ada"),
        ("@Ada", "ada"),
        ("%40ada", "ada"),  # an encoded "@" goes too
        ("https://www.example.com/in/@ada", "ada"),
        ("https://www.example.com/in/@Ada/?utm_source=x", "ada"),
        ("https://www.example.com/in/%40ada/", "ada"),
        ("ada.lovelace", "ada.lovelace"),  # "." and "_" are kept (not LinkedIn's, but ours)
        ("ada_lovelace", "ada_lovelace"),
        ("john-smith-2a1ba6258", "john-smith-2a1ba6258"),  # as LinkedIn assigns them
        ("abc", "abc"),  # 3 characters: the shortest handle
        ("a" * 100, "a" * 100),  # 100: the longest
        ("007bond", "007bond"),  # digits are fine beside a letter
        ("%E5%B1%B1%E7%94%B0%E5%A4%AA%E9%83%8E", "山田太郎"),  # letters of any script
        ("İstanbul", "i\u0307stanbul"),  # lower() adds a combining dot: a mark, kept
    ],
)
def test_normalise_examples(raw, expected):
    assert normalise_handle(raw) == expected
    assert invalid_reason(raw) is None


def test_case_folding_on_urls_and_plain_handles_agrees():
    assert (
        normalise_handle("HTTPS://WWW.EXAMPLE.COM/IN/JOSE-TANAKA-067/")
        == normalise_handle("jose-tanaka-067")
        == normalise_handle("Jose-Tanaka-067")
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Ada", "Ada"),
        ("ada", "ada"),
        ("https://www.example.com/In/Ada/", "Ada"),
        ("HTTPS://WWW.EXAMPLE.COM/IN/JOSE-TANAKA-067/", "JOSE-TANAKA-067"),
        ("@Ada", "Ada"),
        ("%41da", "Ada"),
        ("Straße", "Straße"),
    ],
)
def test_fold_case_false_keeps_case(raw, expected):
    assert normalise_handle(raw, fold_case=False) == expected
    assert invalid_reason(raw, fold_case=False) is None


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (None, "missing"),
        (float("nan"), "missing"),
        (pd.NA, "missing"),
        (pd.NaT, "missing"),
        ("", "empty"),
        ("   ", "empty"),
        ("\t\n ", "empty"),
        ("/", "empty"),
        (" // ", "empty"),
        ("@", "empty"),
        ("@@", "empty"),
        (" @ ", "empty"),
        ("@/", "empty"),
        (" @ / ", "empty"),
        ("/@", "empty"),
        ("%40", "empty"),
        ("https://www.example.com/in/@/", "empty"),
        ("NA", "missing"),
        ("  null  ", "missing"),
        ("\tN/A\n", "missing"),
        ("None", "missing"),
    ],
)
def test_missing_and_blank_are_invalid_with_a_reason(raw, reason):
    for fold_case in (True, False):
        assert normalise_handle(raw, fold_case=fold_case) is None
        assert invalid_reason(raw, fold_case=fold_case) == reason


@pytest.mark.parametrize("na", sorted(NA_STRINGS - {""}))
def test_missing_value_strings_are_missing(na):
    assert invalid_reason(na) == "missing"
    assert invalid_reason(f"  {na} ") == "missing"
    assert invalid_reason(na, fold_case=False) == "missing"
    assert normalise_handle(na) is None


@pytest.mark.parametrize("raw", ["Null", "NA-smith", "nana", "Nan", "none", "NONE", "NA.", "n-a"])
def test_near_misses_of_missing_value_strings_are_not_missing(raw):
    # Matched case-sensitively and exactly, as pandas does: "Null" is not a missing value.
    assert invalid_reason(raw) != "missing"
    assert invalid_reason(raw, fold_case=False) is None
    assert normalise_handle(raw, fold_case=False) == raw


@pytest.mark.parametrize("raw", ["NA-smith", "nana", "none", "NONE", "NA.", "n-a"])
def test_near_misses_are_valid_handles(raw):
    assert normalise_handle(raw) == raw.lower()
    assert invalid_reason(raw) is None


@pytest.mark.parametrize(
    ("raw", "fold_case"),
    [
        ("Null", True),
        ("NAN", True),
        ("Nan", True),
        ("@null", True),
        ("@null", False),
        ("%6Eull", False),
        ("https://www.example.com/in/nan/", False),
        ("https://www.example.com/in/NULL/", True),
    ],
)
def test_a_handle_that_normalises_to_a_missing_value_string_is_invalid(raw, fold_case):
    # Folded, "Null" would be sent as "null": a missing value the next time it is normalised
    # (or written to a CSV and read back with pandas), so it is refused up front.
    assert normalise_handle(raw, fold_case=fold_case) is None
    assert invalid_reason(raw, fold_case=fold_case) == "normalises to a missing-value string"


def _read_back_one_column(cells: list[str]) -> list[object]:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")  # quotes "" so its line is not skipped
    writer.writerow(["handle"])
    writer.writerows([cell] for cell in cells)
    buffer.seek(0)
    return pd.read_csv(buffer, dtype=str)["handle"].tolist()


def test_missing_value_strings_are_what_pandas_reads_as_missing():
    # A lead list read with pd.read_csv defaults and one read with keep_default_na=False (as
    # the CLI does) must give the same statuses: a cell is "missing" here exactly when pandas'
    # defaults make it NaN. Also fails if pandas drops an entry from its default list.
    near_misses = [
        "Null",
        "NA-smith",
        "nana",
        "Nan",
        "none",
        "NONE",
        "N/A N/A",
        "#N/",
        "ada",
        "nan-",
        "1.#INF",
        "<na>",
        "nULL",
    ]
    cells = sorted(NA_STRINGS) + near_misses
    read = _read_back_one_column(cells)
    assert len(read) == len(cells)
    for cell, value in zip(cells, read, strict=True):
        if cell == "":
            # pandas reads an empty cell as NaN; a blank value keeps its own reason, "empty".
            assert pd.isna(value) and invalid_reason(cell) == "empty"
            continue
        assert pd.isna(value) == (invalid_reason(cell) == "missing"), cell
        assert pd.isna(value) == (invalid_reason(cell, fold_case=False) == "missing"), cell
    assert all(pd.isna(value) for value in read[: len(NA_STRINGS)])


def test_missing_value_strings_are_exactly_pandas_defaults():
    # Also catches pandas adding an entry. The list lives in a private module: if a pandas
    # release moves it, this fails (it never skips) and the import is to be updated.
    from pandas._libs.parsers import STR_NA_VALUES

    assert frozenset(STR_NA_VALUES) == NA_STRINGS


def test_lead_list_statuses_do_not_depend_on_keep_default_na():
    text = 'handle\nada\nNA\nnull\nNull\n@ada\n""\n  \nN/A\n'
    defaults = pd.read_csv(io.StringIO(text), dtype=str, skip_blank_lines=False)["handle"]
    as_cli = pd.read_csv(
        io.StringIO(text), dtype=str, keep_default_na=False, na_values=[""], skip_blank_lines=False
    )["handle"]
    for fold_case in (True, False):
        assert [invalid_reason(v, fold_case=fold_case) for v in defaults] == [
            invalid_reason(v, fold_case=fold_case) for v in as_cli
        ]


@pytest.mark.parametrize(
    "raw",
    [
        "https://www.example.com/company/acme",
        "https://www.example.com/",
        "www.example.com",
        "https://www.example.com/in/",
        "http://example.com/search?q=ada",
    ],
)
def test_url_without_profile_path_is_invalid(raw):
    assert normalise_handle(raw) is None
    reason = invalid_reason(raw)
    assert reason is not None and "URL" in reason


@pytest.mark.parametrize(
    "raw",
    [
        "ada lovelace",
        "ada\tlovelace",
        "a\x00b",
        "a\x07b",
        "ad\u200ba",
        "a\u00a0b",
        "a%20b",
        "a%00b",
        "https://www.example.com/in/ada%20lovelace/",
    ],
)
def test_inner_whitespace_and_control_characters_are_invalid(raw):
    assert normalise_handle(raw) is None
    assert invalid_reason(raw) == "contains whitespace or control characters"


def test_integers_are_read_as_their_digits_which_are_no_handle():
    # A number in a lead list (0, -1, an id column) was sent and billed as a not-found.
    assert normalise_handle(42) is None and invalid_reason(42) == "no letters"
    assert normalise_handle(0) is None and invalid_reason(0) == "no letters"
    assert invalid_reason(12345) == "no letters"
    assert invalid_reason(-1) == "no letters"


@pytest.mark.parametrize("raw", [True, False, 4.5, b"ada", ["ada"], {"handle": "ada"}])
def test_other_non_text_is_invalid(raw):
    assert normalise_handle(raw) is None
    reason = invalid_reason(raw)
    assert reason is not None and reason.startswith("not text")


def test_reason_is_none_exactly_when_valid():
    for raw in [
        "ada",
        " ada ",
        "",
        None,
        "a b",
        "https://x.com/company/y",
        7,
        "@",
        "NA",
        "Null",
        "@ada",
    ]:
        for fold_case in (True, False):
            assert (invalid_reason(raw, fold_case=fold_case) is None) == (
                normalise_handle(raw, fold_case=fold_case) is not None
            )


def test_encoded_slash_does_not_leave_a_trailing_slash():
    # Trailing slashes go; percent-encoding is decoded: the result must not end in "/" either way.
    assert normalise_handle("ada%2F") == "ada"
    assert normalise_handle("https://www.example.com/in/ada%2F/") == "ada"


def test_slash_space_slash_does_not_leave_a_trailing_slash():
    result = normalise_handle("ada/ /")
    assert result is None or not result.endswith("/")
    assert normalise_handle("/ /") is None


@pytest.mark.parametrize("raw", ["https://[oops/in/ada", "www.[x/in/ada", "x]/in/ada"])
def test_malformed_urls_are_invalid_not_an_exception(raw):
    # One malformed cell in a lead list must not abort the whole enrichment.
    result = normalise_handle(raw)
    reason = invalid_reason(raw)
    assert (result is None) != (reason is None)


# -- properties ----------------------------------------------------------------------------------

#: Pieces that exercise every rule: URL parts, slashes, percent-escapes, whitespace.
_PIECES = st.sampled_from(
    [
        "a",
        "B",
        "7",
        "-",
        "_",
        ".",
        "ü",
        "/",
        "//",
        "in",
        "/in/",
        "/IN/",
        "https://",
        "www.",
        "example.com",
        "?",
        "utm_source=x",
        "#",
        " ",
        "\t",
        "%",
        "%2F",
        "%25",
        "%20",
        "%C3%BC",
        "%41",
        "%2",
        "\x00",
        "@",
        "%40",
        "A",
        "Ü",
        "ß",
        "İ",
        "NA",
        "null",
        "Null",
        "nan",
    ]
)
_MESSY_TEXT = st.one_of(
    st.text(max_size=30),
    st.lists(st.one_of(_PIECES, st.text(max_size=3)), max_size=10).map("".join),
)

_HANDLE_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."
#: Any text over the handle alphabet: some are handles, some are not ("-", "a", "1.2", "a..b").
_HANDLES = st.text(alphabet=_HANDLE_ALPHABET, min_size=1, max_size=24)
_FOLD = st.booleans()


def _is_grammatical(h: str) -> bool:
    """The grammar, restated independently of the module: 3-100 characters, letters (any
    script, with combining marks), digits, "-", "_", "."; at least one letter; no "..".
    """
    return (
        3 <= len(h) <= 100
        and any(ch.isalpha() for ch in h)
        and ".." not in h
        and all(ch in "-_." or ch.isalpha() or ch.isdecimal() or _is_mark(ch) for ch in h)
    )


def _is_mark(ch: str) -> bool:
    import unicodedata

    return unicodedata.category(ch).startswith("M")


#: Text over the handle alphabet that the grammar accepts.
_VALID_HANDLES = st.text(alphabet=_HANDLE_ALPHABET, min_size=3, max_size=24).filter(_is_grammatical)


@settings(max_examples=300)
@given(_MESSY_TEXT, _FOLD)
@example("ada", True)
@example("  https://www.example.com/in/ada/?utm_source=x ", True)
@example("ada%2F", True)  # decoding makes "ada/"
@example("%2541", True)  # decoding once gives "%41", a second time "A", folded "a"
@example("%2541", False)
@example("https://www.example.com/in/www.ada", True)  # "www.ada" is taken from a URL, not bare
@example("Null", True)  # folded "null" would be missing the second time
@example("@null", False)  # likewise without the "@"
@example("@%40ada", True)
@example("İ", True)  # lower() gives "i" + a combining dot; lowering again changes nothing
def test_normalise_is_idempotent(text, fold_case):
    first = normalise_handle(text, fold_case=fold_case)
    if first is not None:
        assert normalise_handle(first, fold_case=fold_case) == first
        assert invalid_reason(first, fold_case=fold_case) is None


@settings(max_examples=300)
@given(_MESSY_TEXT)
@example("ada%2F")
@example("https://www.example.com/in/ada%2F")
@example("ada/ /")
@example("@ /")
def test_valid_result_is_clean(text):
    result = normalise_handle(text)
    if result is None:
        assert invalid_reason(text) is not None
        return
    assert invalid_reason(text) is None
    assert result
    assert result == result.strip()
    assert not result.endswith("/")
    assert not result.startswith("@")
    assert not any(ch.isspace() for ch in result)
    assert result == result.lower()
    assert result not in NA_STRINGS
    assert _is_grammatical(result), result


@settings(max_examples=300)
@given(_VALID_HANDLES.filter(lambda h: h not in NA_STRINGS and h.lower() not in NA_STRINGS))
def test_profile_url_gives_back_the_handle(h):
    assert normalise_handle(f"https://www.example.com/in/{quote(h)}/?utm_source=x") == h.lower()
    assert normalise_handle(f"www.example.com/in/{quote(h)}") == h.lower()
    assert normalise_handle(f"https://www.example.com/IN/{quote(h)}#top") == h.lower()
    assert normalise_handle(f"https://www.example.com/in/{quote(h)}/", fold_case=False) == h


@settings(max_examples=300)
@given(_HANDLES, _FOLD)
@example("www.ada", True)  # invalid bare, and so invalid from a URL too
@example("nan", True)
@example("Null", True)
@example("Null", False)
def test_profile_url_normalises_like_the_handle(h, fold_case):
    # Not for a bare missing-value string: "None" is missing, ".../in/None" is the handle.
    assume(h not in NA_STRINGS)
    expected = normalise_handle(h, fold_case=fold_case)
    for url in (
        f"https://www.example.com/in/{quote(h)}/?utm_source=x",
        f"HTTPS://WWW.EXAMPLE.COM/IN/{quote(h)}#top",
        f"www.example.com/in/@{quote(h)}",
    ):
        assert normalise_handle(url, fold_case=fold_case) == expected


@settings(max_examples=300)
@given(
    _VALID_HANDLES.filter(
        lambda h: (
            not h.lower().startswith("www.") and h not in NA_STRINGS and h.lower() not in NA_STRINGS
        )
    )
)
def test_padded_handle_with_trailing_slash_gives_back_the_handle(h):
    # A bare text starting "www." is read as a (non-profile) URL; the URL form of such a
    # handle is covered by the idempotence test.
    assert normalise_handle(f"  {h}/ ") == h.lower()
    assert normalise_handle(h) == h.lower()
    assert normalise_handle(f"  {h}/ ", fold_case=False) == h
    assert normalise_handle(h, fold_case=False) == h


def _reads_as_missing_in_some_case(h: str) -> bool:
    return bool({h, h.upper(), h.lower()} & NA_STRINGS)


@settings(max_examples=300)
@given(_HANDLES.filter(lambda h: not _reads_as_missing_in_some_case(h)))
@example("Null")
@example("nan")
@example("ada")
def test_case_does_not_matter_by_default(h):
    # ASCII handles: for some non-ASCII letters upper() is lossy ("ß".upper() == "SS").
    assert normalise_handle(h.upper()) == normalise_handle(h.lower()) == normalise_handle(h)


def test_missing_value_strings_win_over_case_folding():
    # The exception to the property above: a cell pandas reads as missing is missing before
    # any folding, so "NA" is missing while "na" and "Na" are the handle "na".
    assert invalid_reason("NA") == "missing"
    # "na" and "Na" are no missing values, but too short to be a handle (they were sent).
    assert invalid_reason("na") == invalid_reason("Na") == "too short (min 3 characters)"
    assert normalise_handle("nan-a") == normalise_handle("NaN-a") == "nan-a"
    assert invalid_reason("None") == "missing"
    assert normalise_handle("NONE") == normalise_handle("none") == "none"
    # Only the bare cell is a missing value: with an "@" or in a URL it was meant as a handle.
    assert normalise_handle("@None") == "none"
    assert normalise_handle("https://www.example.com/in/None/") == "none"
    assert invalid_reason("@None", fold_case=False) == "normalises to a missing-value string"


@settings(max_examples=300)
@given(_HANDLES, _FOLD)
@example("nan", True)
@example("www.ada", False)
def test_leading_at_changes_nothing(h, fold_case):
    # Not for a bare missing-value string: "None" is missing, "@None" is the handle.
    assume(h not in NA_STRINGS)
    expected = normalise_handle(h, fold_case=fold_case)
    assert normalise_handle("@" + h, fold_case=fold_case) == expected
    assert normalise_handle(f" @@{h}/ ", fold_case=fold_case) == expected


@settings(max_examples=200)
@given(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöüßéçñ-", min_size=3, max_size=16).filter(
        lambda h: not _reads_as_missing_in_some_case(h) and _is_grammatical(h)
    )
)
def test_percent_encoded_handle_is_decoded(h):
    assert normalise_handle(quote(h)) == h
    assert normalise_handle(f"https://www.example.com/in/{quote(h)}/") == h
    assert normalise_handle(quote(h.upper()), fold_case=False) == h.upper()


@settings(max_examples=500)
@given(st.one_of(_MESSY_TEXT, st.text(alphabet="[]:/.%aw ", max_size=20)))
@example("https://[oops/in/ada")
def test_never_raises_on_any_text(text):
    for fold_case in (True, False):
        result = normalise_handle(text, fold_case=fold_case)
        reason = invalid_reason(text, fold_case=fold_case)
        assert (result is None) != (reason is None)


@given(st.sampled_from([None, float("nan"), pd.NA, math.nan, "", " ", "\n\t", "@", "NA"]))
def test_blank_values_never_validate(value):
    assert normalise_handle(value) is None
    assert invalid_reason(value) in ("missing", "empty")


# -- the grammar: what cannot be a public handle is never sent (issue 21) ------------------------

#: The values of issue 21, each sent and billed as a not-found in production, with the reason
#: (a reason ending in "(" is a prefix: the rest names the allowed characters).
ISSUE_21 = [
    ("0", "no letters"),
    ("-1", "no letters"),
    ("3.14", "no letters"),
    ("?", "contains '?' ("),
    ("-", "no letters"),
    ("😀🔥", "contains '😀🔥' ("),
    ("mailto:ada@example.com", "an e-mail address"),
    ("ada@example.com", "an e-mail address"),
    ("<script>alert(1)</script>", "markup"),
    ("../../etc/passwd", "a path"),
    ("a" * 5000, "too long (max 100 characters)"),
]


def _reason_matches(reason: str | None, expected: str) -> bool:
    if expected.endswith("("):
        return reason is not None and reason.startswith(expected)
    return reason == expected


@pytest.mark.parametrize(("raw", "reason"), ISSUE_21, ids=lambda v: repr(v)[:30])
def test_the_values_of_issue_21_are_invalid_with_a_reason(raw, reason):
    for fold_case in (True, False):
        assert normalise_handle(raw, fold_case=fold_case) is None
        assert _reason_matches(invalid_reason(raw, fold_case=fold_case), reason)
        # padded, with a leading "@" or percent-encoded, they are no better
        assert normalise_handle(f"  {raw}  ", fold_case=fold_case) is None
        assert normalise_handle("@" + raw, fold_case=fold_case) is None
        assert normalise_handle(quote(raw, safe=""), fold_case=fold_case) is None


@pytest.mark.parametrize("raw", [r for r, _ in ISSUE_21], ids=lambda v: repr(v)[:30])
def test_the_values_of_issue_21_in_a_profile_url_are_invalid(raw):
    assert normalise_handle(f"https://www.example.com/in/{quote(raw, safe='')}/") is None


def test_a_profile_url_sends_its_handle_not_the_url():
    assert normalise_handle("https://www.example.com/in/ada/") == "ada"
    assert normalise_handle("https://www.example.com/in/ada/", fold_case=False) == "ada"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("x", "too short (min 3 characters)"),
        ("ab", "too short (min 3 characters)"),
        ("@ab/", "too short (min 3 characters)"),
        ("https://www.example.com/in/ab/", "too short (min 3 characters)"),
        ("İ", "too short (min 3 characters)"),  # "i" + a combining dot: 2 characters
        ("a" * 101, "too long (max 100 characters)"),
        ("ada-" * 30, "too long (max 100 characters)"),
        ("ADA@EXAMPLE.COM", "an e-mail address"),
        ("ada@example", "an e-mail address"),  # only a leading "@" goes
        ("ada%40example.com", "an e-mail address"),
        ("MAILTO:ada@example.com", "an e-mail address"),
        ("mailto:ada", "an e-mail address"),
        ("https://www.example.com/in/ada@example.com/", "an e-mail address"),
        ("<b>ada</b>", "markup"),
        ("ada>", "markup"),
        ("%3Cscript%3E", "markup"),
        ("ada/lovelace", "a path"),
        ("/etc/passwd", "a path"),
        ("ada\\lovelace", "a path"),
        ("..\\..\\windows", "a path"),
        ("ada..lovelace", "a path"),
        ("...", "a path"),
        ("https://www.example.com/in/../../etc/", "a path"),
        ("ada%2Flovelace", "a path"),
        ("ada lovelace", "contains whitespace or control characters"),
        ("ada\x00lovelace", "contains whitespace or control characters"),
        ("ada!", "contains '!' ("),
        ("o'brien", 'contains "\'" ('),
        ("ada?utm_source=x", "contains '?=' ("),  # not a URL: a query on a bare handle
        ("ada#about", "contains '#' ("),
        ("ada:lovelace", "contains ':' ("),
        ("ada%", "contains '%' ("),
        ("ada+lovelace", "contains '+' ("),
        ("emoji-🎉", "contains '🎉' ("),
        ("---", "no letters"),
        ("1.2.3", "no letters"),
        ("12345678", "no letters"),
        ("٣١٤", "no letters"),  # Arabic-Indic digits are digits
        ("_._", "no letters"),
    ],
    ids=lambda v: repr(v)[:30],
)
def test_what_cannot_be_a_public_handle_is_invalid_with_a_short_reason(raw, reason):
    for fold_case in (True, False):
        assert normalise_handle(raw, fold_case=fold_case) is None
        got = invalid_reason(raw, fold_case=fold_case)
        assert _reason_matches(got, reason), got
        assert len(got) <= 60  # short: it lands in a lookup_error cell


def test_a_hundred_characters_is_fine_and_lengths_count_characters_not_bytes():
    assert normalise_handle("a" * 100) == "a" * 100
    assert normalise_handle("ü" * 100) == "ü" * 100  # 200 bytes in UTF-8, 100 characters
    assert normalise_handle(quote("ü" * 100)) == "ü" * 100  # and 600 once percent-encoded
    assert normalise_handle("abc") == "abc"


# -- properties of the grammar -------------------------------------------------------------------

#: Letters and digits of many scripts, and the separators: the grammar's own alphabet.
_GRAMMAR_CHARS = st.one_of(
    st.characters(categories=("Lu", "Ll", "Lt", "Lm", "Lo", "Nd")),
    st.sampled_from("-_."),
)


def _plain(h: str) -> bool:
    """Not a missing-value string in any case and not read as a URL ("www." first)."""
    return not _reads_as_missing_in_some_case(h) and not h.lower().startswith("www.")


@settings(max_examples=500)
@given(st.text(_GRAMMAR_CHARS, min_size=3, max_size=100).filter(_is_grammatical).filter(_plain))
@example("ada")
@example("jürgen")
@example("i\u0307stanbul")
@example("a" * 100)
def test_every_string_the_grammar_accepts_is_sent_as_written(h):
    # Kept case: unchanged, so the client, the batch path and cache keys may normalise a
    # normalised handle. Folded: lower-cased, unless lowering broke a rule ("İ" * 60 is 120
    # characters lowered).
    assert normalise_handle(h, fold_case=False) == h
    assert invalid_reason(h, fold_case=False) is None
    lowered = h.lower()
    expected = lowered if _is_grammatical(lowered) and lowered not in NA_STRINGS else None
    assert normalise_handle(h) == expected
    if expected is not None:
        assert normalise_handle(expected) == expected
        assert normalise_handle(expected, fold_case=False) == expected


@settings(max_examples=300)
@given(_MESSY_TEXT, _FOLD)
@example("Ada", False)
@example("https://www.example.com/in/ADA/", True)
def test_normalising_under_the_other_fold_case_changes_nothing(text, fold_case):
    # enrichment normalises under its fold_case; the single call again with case kept
    first = normalise_handle(text, fold_case=fold_case)
    if first is not None:
        assert normalise_handle(first, fold_case=False) == first
        assert checked_handle(first, fold_case=False) == first


_INSIDE = st.sampled_from(
    [" ", "\t", "\n", "\x00", "\x1b", "\u200b", "\u00a0", "<", ">", "..", "\\", "/", "?", "#"]
)
_WORD = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
    min_size=1,
    max_size=12,
)


@settings(max_examples=500)
@given(_WORD, _INSIDE, _WORD, _FOLD)
@example("ada", "..", "lovelace", True)
@example("ada", "/", "in", True)
def test_whitespace_control_markup_and_paths_inside_are_rejected(a, bad, b, fold_case):
    text = a + bad + b
    assert normalise_handle(text, fold_case=fold_case) is None
    reason = invalid_reason(text, fold_case=fold_case)
    if text.lower().startswith("www."):
        assert reason is not None  # read as a URL without /in/<handle>
    elif bad in ("<", ">"):
        assert reason == "markup"
    elif bad in ("..", "\\", "/"):
        assert reason == "a path"
    elif bad in ("?", "#"):
        assert reason is not None and reason.startswith(f"contains '{bad}")
    else:
        assert reason == "contains whitespace or control characters"


@settings(max_examples=300)
@given(_WORD, _WORD, st.sampled_from(["com", "de", "co.uk", "example"]), st.booleans(), _FOLD)
def test_e_mail_addresses_are_rejected(local, domain, tld, mailto, fold_case):
    text = f"{'mailto:' if mailto else ''}{local}@{domain}.{tld}"
    assert normalise_handle(text, fold_case=fold_case) is None
    if not text.lower().startswith("www."):
        assert invalid_reason(text, fold_case=fold_case) == "an e-mail address"


@settings(max_examples=300)
@given(st.text(alphabet="0123456789-_.", min_size=1, max_size=40), _FOLD)
@example("0", True)
@example("-1", True)
@example("3.14", False)
def test_digits_and_punctuation_only_are_rejected(text, fold_case):
    assert normalise_handle(text, fold_case=fold_case) is None
    expected = "a path" if ".." in text else "no letters"
    assert invalid_reason(text, fold_case=fold_case) == expected


@settings(max_examples=300)
@given(
    st.one_of(
        st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöü", min_size=1, max_size=2),
        st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöü-", min_size=101, max_size=400).filter(
            lambda h: any(ch.isalpha() for ch in h)
        ),
    ),
    _FOLD,
)
def test_lengths_outside_3_to_100_are_rejected(text, fold_case):
    assert normalise_handle(text, fold_case=fold_case) is None
    reason = invalid_reason(text, fold_case=fold_case)
    if len(text) < 3:
        assert reason == "too short (min 3 characters)"
    else:
        assert reason == "too long (max 100 characters)"


def _emulator_handles() -> list[str]:
    """Every handle the emulator's data set holds: the search population, every employee
    (current and former) of the fixed companies, and the named handles of the docs and tests."""
    from lookup_pandas.testing import data

    handles = [f"person-{i:05d}" for i in range(data.SEARCH_POPULATION)]
    for slug in data.COMPANIES:
        records = data.employee_records(slug, current_only=False) or []
        handles += [r["handle"] for r in records]
    handles += [r["handle"] for r in data.search_records()]
    handles += ["ada", "grace", "linus", "ada-lovelace", "ada-lovelace-042", "jose-tanaka-067"]
    handles += [first.lower() for first in data.FIRST]  # "ada", "grace", ...: named people
    return sorted(set(handles))


def test_every_handle_of_the_emulators_data_set_is_valid():
    from lookup_pandas.testing import data

    handles = _emulator_handles()
    assert len(handles) > 4000
    bad = {h: invalid_reason(h) for h in handles if normalise_handle(h) != h}
    assert bad == {}
    for h in handles[:: max(1, len(handles) // 200)]:
        record = data.person(h)
        assert record is not None and normalise_handle(record["handle"]) == record["handle"]


# -- checked_handle: what the client sends, or a UsageError --------------------------------------


def test_checked_handle_gives_the_handle_or_a_usage_error_naming_the_reason():
    assert checked_handle("https://www.example.com/in/Ada/") == "ada"
    assert checked_handle("https://www.example.com/in/Ada/", fold_case=False) == "Ada"
    with pytest.raises(UsageError, match=r"'ada@example.com' .*an e-mail address"):
        checked_handle("ada@example.com")
    with pytest.raises(ValueError, match="Nothing was sent"):  # a UsageError is a ValueError
        checked_handle("0")
    with pytest.raises(UsageError) as caught:
        checked_handle("a" * 5000)
    assert "too long (max 100 characters)" in str(caught.value)
    assert len(str(caught.value)) < 200  # the value is shortened, not repeated in full


@pytest.mark.parametrize("raw", [None, "", "  ", "N/A", "https://www.example.com/company/x"])
def test_checked_handle_refuses_missing_and_non_profile_values(raw):
    with pytest.raises(UsageError, match=r"is not a handle or profile URL: "):
        checked_handle(raw)
