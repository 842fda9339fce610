"""normalise_handle / invalid_reason: what people paste into a lead list -> the handle to send."""

from __future__ import annotations

import math
from urllib.parse import quote

import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lookup_pandas.handles import invalid_reason, normalise_handle

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
        ("https://www.example.com/in/ada-lovelace?utm_source=x&utm_medium=email",
         "ada-lovelace"),
        ("https://www.example.com/in/ada-lovelace#about", "ada-lovelace"),
        ("https://www.example.com/in/ada-lovelace/?utm_source=x#frag", "ada-lovelace"),
        ("www.example.com/in/ada", "ada"),
        ("www.example.com/in/ada/", "ada"),
        ("WWW.EXAMPLE.COM/in/ada", "ada"),
        ("https://www.example.com/IN/ada", "ada"),
        ("https://www.example.com/In/Ada/", "Ada"),
        ("https://www.example.com/in/ada/details/experience/", "ada"),
        ("j%C3%BCrgen", "jürgen"),
        ("j%C3%BCrgen/", "jürgen"),
        ("https://www.example.com/in/j%C3%BCrgen/", "jürgen"),
        ("jürgen", "jürgen"),
        ("Ada", "Ada"),  # case is kept: the service decides
    ],
)
def test_normalise_examples(raw, expected):
    assert normalise_handle(raw) == expected
    assert invalid_reason(raw) is None


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
    ],
)
def test_missing_and_blank_are_invalid_with_a_reason(raw, reason):
    assert normalise_handle(raw) is None
    assert invalid_reason(raw) == reason


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
    ["ada lovelace", "ada\tlovelace", "a\x00b", "a\x07b", "ad\u200ba", "a\u00a0b", "a%20b",
     "a%00b", "https://www.example.com/in/ada%20lovelace/"],
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
    for raw in ["ada", " ada ", "", None, "a b", "https://x.com/company/y", 7]:
        assert (invalid_reason(raw) is None) == (normalise_handle(raw) is not None)


def test_encoded_slash_does_not_leave_a_trailing_slash():
    # Trailing slashes go; percent-encoding is decoded: the result must not end in "/" either way.
    assert normalise_handle("ada%2F") == "ada"
    assert normalise_handle("https://www.example.com/in/ada%2F/") == "ada"


def test_slash_space_slash_does_not_leave_a_trailing_slash():
    result = normalise_handle("ada/ /")
    assert result is None or not result.endswith("/")
    assert normalise_handle("/ /") is None


@pytest.mark.parametrize(
    "raw", ["https://[oops/in/ada", "www.[x/in/ada", "x]/in/ada"]
)
def test_malformed_urls_are_invalid_not_an_exception(raw):
    # One malformed cell in a lead list must not abort the whole enrichment.
    result = normalise_handle(raw)
    reason = invalid_reason(raw)
    assert (result is None) != (reason is None)


# -- properties ----------------------------------------------------------------------------------

#: Pieces that exercise every rule: URL parts, slashes, percent-escapes, whitespace.
_PIECES = st.sampled_from([
    "a", "B", "7", "-", "_", ".", "ü", "/", "//", "in", "/in/", "/IN/", "https://", "www.",
    "example.com", "?", "utm_source=x", "#", " ", "\t", "%", "%2F", "%25", "%20", "%C3%BC",
    "%41", "%2", "\x00",
])
_MESSY_TEXT = st.one_of(
    st.text(max_size=30),
    st.lists(st.one_of(_PIECES, st.text(max_size=3)), max_size=10).map("".join),
)

_HANDLE_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."
_HANDLES = st.text(alphabet=_HANDLE_ALPHABET, min_size=1, max_size=24)


@settings(max_examples=300)
@given(_MESSY_TEXT)
@example("ada")
@example("  https://www.example.com/in/ada/?utm_source=x ")
@example("ada%2F")  # decoding makes "ada/"
@example("%2541")  # decoding once gives "%41", a second time "A"
@example("https://www.example.com/in/www.ada")  # "www.ada" is taken from a URL, not bare
def test_normalise_is_idempotent(text):
    first = normalise_handle(text)
    if first is not None:
        assert normalise_handle(first) == first


@settings(max_examples=300)
@given(_MESSY_TEXT)
@example("ada%2F")
@example("https://www.example.com/in/ada%2F")
@example("ada/ /")
def test_valid_result_is_clean(text):
    result = normalise_handle(text)
    if result is None:
        assert invalid_reason(text) is not None
        return
    assert invalid_reason(text) is None
    assert result
    assert result == result.strip()
    assert not result.endswith("/")
    assert not any(ch.isspace() for ch in result)


@settings(max_examples=300)
@given(_HANDLES)
def test_profile_url_gives_back_the_handle(h):
    assert normalise_handle(f"https://www.example.com/in/{quote(h)}/?utm_source=x") == h
    assert normalise_handle(f"www.example.com/in/{quote(h)}") == h
    assert normalise_handle(f"https://www.example.com/IN/{quote(h)}#top") == h


@settings(max_examples=300)
@given(_HANDLES.filter(lambda h: not h.lower().startswith("www.")))
def test_padded_handle_with_trailing_slash_gives_back_the_handle(h):
    # A bare text starting "www." is read as a (non-profile) URL; the URL form of such a
    # handle is covered by the idempotence test.
    assert normalise_handle(f"  {h}/ ") == h
    assert normalise_handle(h) == h


@settings(max_examples=200)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöüßéçñ-", min_size=1, max_size=16))
def test_percent_encoded_handle_is_decoded(h):
    assert normalise_handle(quote(h)) == h
    assert normalise_handle(f"https://www.example.com/in/{quote(h)}/") == h


@settings(max_examples=500)
@given(st.one_of(_MESSY_TEXT, st.text(alphabet="[]:/.%aw ", max_size=20)))
@example("https://[oops/in/ada")
def test_never_raises_on_any_text(text):
    result = normalise_handle(text)
    reason = invalid_reason(text)
    assert (result is None) != (reason is None)


@given(st.sampled_from([None, float("nan"), pd.NA, math.nan, "", " ", "\n\t"]))
def test_blank_values_never_validate(value):
    assert normalise_handle(value) is None
    assert invalid_reason(value) in ("missing", "empty")
