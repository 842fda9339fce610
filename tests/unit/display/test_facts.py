"""lookup_pandas.display.facts and the reprs it builds: an Estimate's line, and the HTML and
IPython reprs of an Estimate and a JobSummary (enrichment/results.py)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from lookup_pandas.enrichment.results import Estimate, JobSummary

EST = Estimate(
    rows=250,
    valid=235,
    unique=190,
    cached=60,
    to_fetch=130,
    method="batch",
    jobs=1,
    polls=3,
    seconds=6.2,
    credits=130.0,
    balance=10050.0,
    tier_change="Developer (70/min) -> Hobby (30/min) after 51 credits",
)
SUMMARY = JobSummary(
    rows=250,
    statuses={"ok": 225, "not_found": 10, "invalid": 15, "error": 0},
    cached=0,
    fetched=190,
    failed=0,
    credits=190.0,
    requests=191,
    rate_limited=0,
    retries=0,
    seconds=4.1,
    jobs=2,
)


class Printer:
    """The part of IPython's pretty printer that ``_repr_pretty_`` uses: it collects text."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def text(self, text: str) -> None:
        self.texts.append(text)


def cells(table: str) -> list[tuple[str, str]]:
    """The (what, value) pairs of a two-column table, unescaped as a browser would show them."""
    import html

    pairs = re.findall(r"<tr><th[^>]*>(.*?)</th><td[^>]*>(.*?)</td></tr>", table)
    return [(html.unescape(what), html.unescape(value)) for what, value in pairs]


def test_line_with_every_fact():
    assert str(EST) == (
        "Estimate: 250 rows, 190 distinct, 60 cached, 130 to fetch by batch (1 job, ~3 polls),"
        " about 6 s; 130 credits, balance 10,050;"
        " tier Developer (70/min) -> Hobby (30/min) after 51 credits"
    )


def test_line_leaves_out_what_is_unknown():
    est = dataclasses.replace(EST, seconds=None, balance=None, tier_change=None)
    assert str(est) == (
        "Estimate: 250 rows, 190 distinct, 60 cached, 130 to fetch by batch (1 job, ~3 polls);"
        " 130 credits"
    )


def test_line_of_single_calls_and_of_nothing_to_fetch():
    single = Estimate(
        rows=3, valid=2, unique=2, cached=1, to_fetch=1, method="single", credits=1.0, seconds=0.5
    )
    assert str(single) == (
        "Estimate: 3 rows, 2 distinct, 1 cached, 1 to fetch by single, under a second; 1 credit"
    )
    cached = Estimate(rows=3, valid=2, unique=2, cached=2, to_fetch=0)
    assert str(cached) == "Estimate: 3 rows, 2 distinct, 2 cached, nothing to fetch"


def test_line_of_a_resumed_run():
    est = dataclasses.replace(EST, stored_jobs=1, stored_items=152, jobs=0, polls=1)
    assert "130 to fetch by batch (collecting 1 stored job of 152, ~1 poll)" in str(est)
    est = dataclasses.replace(EST, stored_jobs=2, stored_items=100, jobs=1)
    assert "(collecting 2 stored jobs of 100, 1 new job, ~3 polls)" in str(est)


def test_fractional_credits_and_long_durations():
    est = dataclasses.replace(EST, credits=2.5, balance=1234.75, seconds=3 * 3600)
    line = str(est)
    assert "about 3.0 h; 2.50 credits, balance 1,234.75" in line
    assert "about 4 min" in str(dataclasses.replace(EST, seconds=240))


def test_estimate_html_shows_every_fact_of_the_line():
    table = EST._repr_html_()
    assert table.startswith('<table class="lookup-pandas-display"><caption>Estimate</caption>')
    assert table.endswith("</tbody></table>")
    assert cells(table) == [
        ("Rows", "250"),
        ("Distinct", "190"),
        ("Cached", "60"),
        ("To fetch", "130 by batch"),
        ("Batch calls", "1 job, ~3 polls"),
        ("About", "6 s"),
        ("Credits", "130"),
        ("Balance", "10,050"),
        ("Tier", "Developer (70/min) -> Hobby (30/min) after 51 credits"),
    ]


def test_estimate_html_has_no_row_for_what_is_unknown():
    est = dataclasses.replace(EST, seconds=None, balance=None, tier_change=None, jobs=0, polls=0)
    assert [what for what, _ in cells(est._repr_html_())] == [
        "Rows",
        "Distinct",
        "Cached",
        "To fetch",
        "Credits",
    ]
    cached = Estimate(rows=3, valid=2, unique=2, cached=2, to_fetch=0)
    assert cells(cached._repr_html_())[-1] == ("To fetch", "nothing")


def test_html_escapes_and_carries_no_script_or_colour():
    est = dataclasses.replace(EST, tier_change="<b>Dev</b> & co -> Hobby")
    table = est._repr_html_()
    assert "<b>" not in table
    assert "&lt;b&gt;Dev&lt;/b&gt; &amp; co -&gt; Hobby" in table
    assert ("Tier", "<b>Dev</b> & co -> Hobby") in cells(table)
    for text in (table, SUMMARY._repr_html_()):
        lowered = text.lower()
        assert "<script" not in lowered
        assert "background" not in lowered
        assert "color" not in lowered
        assert "<link" not in lowered


def test_summary_html_shows_the_facts_of_its_line():
    table = SUMMARY._repr_html_()
    assert "<caption>Enrichment summary</caption>" in table
    assert cells(table) == [
        ("Rows", "250"),
        ("ok", "225"),
        ("not_found", "10"),
        ("invalid", "15"),
        ("error", "0"),
        ("Time", "4.1 s"),
        ("Cached", "0"),
        ("Fetched", "190 (2 batch jobs)"),
        ("Failed", "0"),
        ("Requests sent", "191"),
        ("Answered 429", "0"),
        ("Retries", "0"),
        ("Credits", "190"),
    ]


def test_summary_html_shows_forbidden_only_when_there_are_any():
    none = SUMMARY._repr_html_()
    assert "forbidden" not in none
    some = dataclasses.replace(SUMMARY, statuses={**SUMMARY.statuses, "forbidden": 3})
    assert ("forbidden", "3") in cells(some._repr_html_())
    assert "3 forbidden" in str(some)


@pytest.mark.parametrize("extra", [{}, {"forbidden": 3}, {"not_found": 0, "weird": 1}])
def test_summary_html_names_the_statuses_its_line_names(extra):
    summary = dataclasses.replace(SUMMARY, statuses={**SUMMARY.statuses, **extra})
    named = re.match(r"\d+ rows \((.*?)\) in ", str(summary))
    assert named is not None
    in_line = [tuple(part.split(" ")[::-1]) for part in named.group(1).split(", ")]
    in_table = cells(summary._repr_html_())[1 : 1 + len(in_line)]
    assert in_table == in_line
    assert cells(summary._repr_html_())[1 + len(in_line)][0] == "Time"


def test_summary_text_is_unchanged():
    assert str(SUMMARY) == (
        "250 rows (225 ok, 10 not_found, 15 invalid, 0 error) in 4.1s: 0 cached, 190 fetched"
        " (2 batch jobs), 0 failed; 191 requests sent, 0 answered 429, 0 retries; 190 credits"
    )


@pytest.mark.parametrize("obj", [EST, SUMMARY], ids=["estimate", "summary"])
def test_repr_pretty_writes_the_one_line(obj):
    printer = Printer()
    obj._repr_pretty_(printer, False)
    assert printer.texts == [str(obj)]


@pytest.mark.parametrize("obj", [EST, SUMMARY], ids=["estimate", "summary"])
def test_ipython_pretty_uses_the_one_line(obj):
    pretty = pytest.importorskip("IPython.lib.pretty")
    assert pretty.pretty(obj) == str(obj)


@pytest.mark.parametrize("obj", [EST, SUMMARY], ids=["estimate", "summary"])
def test_repr_stays_the_dataclass_repr(obj):
    text = repr(obj)
    assert text.startswith(f"{type(obj).__name__}(rows=250, ")
    assert text != str(obj)
    assert eval(text, {type(obj).__name__: type(obj)}) == obj


def test_an_estimate_says_how_long_without_about_under_a_second():
    from lookup_pandas.display.facts import about

    assert about(0.4) == "under a second"
    assert about(6.2) == "about 6 s"
    assert about(240) == "about 4 min"
