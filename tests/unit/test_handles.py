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

from lookup_pandas.handles import NA_STRINGS, invalid_reason, normalise_handle

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
        ("ada@example", "ada@example"),  # only a leading "@" goes
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


def test_integers_become_strings():
    assert normalise_handle(42) == "42"
    assert normalise_handle(0) == "0"
    assert invalid_reason(12345) is None


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
_HANDLES = st.text(alphabet=_HANDLE_ALPHABET, min_size=1, max_size=24)
_FOLD = st.booleans()


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


@settings(max_examples=300)
@given(_HANDLES.filter(lambda h: h not in NA_STRINGS and h.lower() not in NA_STRINGS))
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
    _HANDLES.filter(
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
def test_case_does_not_matter_by_default(h):
    # ASCII handles: for some non-ASCII letters upper() is lossy ("ß".upper() == "SS").
    assert normalise_handle(h.upper()) == normalise_handle(h.lower()) == normalise_handle(h)


def test_missing_value_strings_win_over_case_folding():
    # The exception to the property above: a cell pandas reads as missing is missing before
    # any folding, so "NA" is missing while "na" and "Na" are the handle "na".
    assert invalid_reason("NA") == "missing"
    assert normalise_handle("na") == normalise_handle("Na") == "na"
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
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöüßéçñ-", min_size=1, max_size=16).filter(
        lambda h: not _reads_as_missing_in_some_case(h)
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
