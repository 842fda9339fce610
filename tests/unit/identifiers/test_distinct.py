"""Raw values to handles, each distinct value normalised once: lookup_pandas.identifiers.distinct.

What is tested: the mapping gives every row exactly what normalising it alone gives (its handle
and its lookup_error), for strings, missing values of every kind (None, NaN, pd.NA, NaT, a
Decimal NaN, a float32 NaN), numbers, flags, bytes and unhashable values, people and companies,
with and without case folding (hypothesis, against the per-row rule); each distinct value is
cleaned once, over the chunks of one file too; ``lookup_values`` and ``estimate_values`` give
the statuses, errors and counts of the per-row rule.
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pytest
import requests
from hypothesis import given
from hypothesis import strategies as st

import lookup_pandas as lp
from lookup_pandas.enrichment.lookup import estimate_values, lookup_values
from lookup_pandas.enrichment.plan import Options
from lookup_pandas.enrichment.results import NOT_CACHED, STATUSES, UNSUPPORTED
from lookup_pandas.identifiers.distinct import HandleMap
from lookup_pandas.identifiers.kinds import COMPANIES, PEOPLE, Kind
from lookup_pandas.testing import MockTransport, envelope

#: Values a column can hold that are not plain handles, each meaning something of its own.
ODD = [
    None,
    math.nan,
    np.float64("nan"),
    np.float32("nan"),
    pd.NA,
    pd.NaT,
    np.datetime64("NaT"),
    Decimal("NaN"),
    Decimal("1"),
    complex(math.nan, 0),
    1,
    1.0,
    True,
    False,
    0,
    np.int64(1),
    "1",
    b"ada",
    bytearray(b"ada"),
    ["ada"],
    {"handle": "ada"},
    ("ada",),
    pd.Timestamp("2026-01-01"),
]
TEXT = [
    "ada",
    "ADA",
    "Ada",
    "@ada",
    " ada ",
    "https://www.example.com/in/ada/",
    "https://www.linkedin.com/company/Acme/",
    "acme",
    "hp",
    "",
    " ",
    "N/A",
    "NA",
    "nan",
    "@Null",
    "prsn_AbC",
    "org_AbC",
    "ada@example.com",
    "straße",
    "3.14",
]
VALUES = st.one_of(
    st.sampled_from(ODD + TEXT),
    st.text(max_size=8),
    st.integers(min_value=-3, max_value=2_000),
)


def _per_row(values: list[Any], kind: Kind, fold_case: bool) -> tuple[list[Any], list[Any]]:
    """Each row's handle and lookup_error, normalising it alone: the rule before this module."""
    handles = [kind.normalise(v, fold_case) for v in values]
    errors = [
        kind.invalid_error(v, fold_case) if h is None else None
        for v, h in zip(values, handles, strict=True)
    ]
    return handles, errors


@given(
    st.lists(VALUES, max_size=30),
    st.sampled_from([PEOPLE, COMPANIES]),
    st.booleans(),
)
def test_every_row_gets_what_normalising_it_alone_gives(values, kind, fold_case):
    m = HandleMap(fold_case=fold_case, kind=kind).map(values)
    handles, errors = _per_row(values, kind, fold_case)
    assert m.rows() == handles
    assert list(m.errors[m.codes]) == errors
    assert m.distinct() == list(dict.fromkeys(h for h in handles if h is not None))
    assert m.valid_rows() == sum(h is not None for h in handles)


def test_missing_values_of_every_kind_and_values_equal_across_types_stay_apart():
    values = [
        None,
        math.nan,
        pd.NA,
        pd.NaT,
        np.datetime64("NaT"),
        Decimal("NaN"),
        np.float32("nan"),
        1,
        1.0,
        True,
        ["ada"],
        ["ada"],
        "ada",
    ]
    m = HandleMap().map(values)
    assert list(m.errors[m.codes]) == [
        "invalid handle: missing",
        "invalid handle: missing",
        "invalid handle: missing",
        "invalid handle: missing",
        "invalid handle: not text (datetime64)",
        "invalid handle: not text (Decimal)",
        "invalid handle: not text (float32)",
        "invalid handle: no letters",  # 1 is read as its digits
        "invalid handle: not text (float)",
        "invalid handle: not text (bool)",
        "invalid handle: not text (list)",
        "invalid handle: not text (list)",
        None,
    ]
    assert m.rows()[-1] == "ada"


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        (["ada", None, "ADA", "", "N/A"], "str"),
        (["ada", None, "ADA", "", "N/A"], "string"),  # its missing value is pd.NA
        (["ada", None, "ADA", 1, ["x"], math.nan], object),
        ([1, None, 3], "Int64"),  # tolist(): 1, <NA>, 3
        ([1.0, None, 3.5], "float64"),
        (["ada", None, "ada"], "category"),
        ([True, None], "boolean"),
        (["2026-01-01", None], "datetime64[ns]"),
    ],
)
def test_a_series_maps_as_the_python_values_of_its_tolist(values, dtype):
    column = pd.Series(values, dtype=dtype)
    m, per_row = HandleMap().map(column), _per_row(column.tolist(), PEOPLE, True)
    assert (m.rows(), list(m.errors[m.codes])) == per_row


def test_each_distinct_value_is_cleaned_once_over_the_chunks_of_a_file(monkeypatch):
    calls: list[Any] = []

    def counting(value: Any, **options: Any) -> tuple[str | None, str | None]:
        calls.append(value)
        return PEOPLE.normaliser(value, **options)

    handles = HandleMap(kind=dataclasses.replace(PEOPLE, normaliser=counting))
    values = pd.Series(["Ada", "@ada", None, "Ada", "N/A", " ", "Ada"] * 1000, dtype="str")
    m = handles.map(values)
    assert m.rows()[:7] == ["ada", "ada", None, "ada", None, None, "ada"]
    assert list(m.errors[m.codes][:7]) == [
        None,
        None,
        "invalid handle: missing",
        None,
        "invalid handle: missing",
        "invalid handle: empty",
        None,
    ]
    assert len(calls) == 5  # "Ada", "@ada", one NaN, "N/A", " "
    handles.map(pd.Series(["Ada", "grace", None], dtype="str"))  # a later chunk
    assert calls[-1] == "grace" and len(calls) == 6


def test_keep_case_and_its_errors_follow_fold_case():
    m = HandleMap(fold_case=False).map(pd.Series(["Ada", "ada", "@#NA"], dtype="str"))
    assert m.rows() == ["Ada", "ada", None]
    # "@#NA" is "#NA" as written (a missing-value string), but "#na" folded: the reason is
    # the one for the case the job keeps
    assert m.errors[m.codes][2] == "invalid handle: normalises to a missing-value string"


def test_spread_repeats_one_value_per_distinct_value_onto_the_rows():
    m = HandleMap().map(["ada", "", "ADA", None])
    assert m.spread(["ok" if h else "invalid" for h in m.handles]) == [
        "ok",
        "invalid",
        "ok",
        "invalid",
    ]


# -- the job's statuses and counts --------------------------------------------------------------


def _client() -> lp.Client:
    def handler(request: requests.PreparedRequest) -> tuple[Any, ...]:
        if "/api/panel/" in request.url:
            return 200, envelope({"balance": 100, "current_tier": {"limit_per_minute": 60000}})
        handle = requests.utils.unquote(request.url.split("handle=", 1)[1])
        if handle == "ada":
            return 200, envelope({"id": "prsn_a", "handle": "ada", "follower_count": 3})
        return 200, envelope(None, success=False, message="Profile not found", error_code="1010")

    return lp.Client(
        api_key="lk_test_unit", base_url="http://service.test", cache=False,
        transport=MockTransport(handler),
    )  # fmt: skip


ROWS = ["ADA", None, math.nan, pd.NA, 7, 1.0, "", "@ada", ["ada"], "unknown-x", "ada", "N/A"]


@pytest.mark.parametrize("fold_case", [True, False])
def test_lookup_values_gives_each_row_the_status_and_error_of_the_per_row_rule(fold_case):
    handles, errors = _per_row(ROWS, PEOPLE, fold_case)
    with _client() as client:
        result = lookup_values(
            ROWS, client=client, options=Options(progress=False, fold_case=fold_case), kind=PEOPLE
        )
    assert result.handles == handles
    found = {"ada": ("ok", None), "unknown-x": ("not_found", "Profile not found")}
    if not fold_case:
        found["ADA"] = ("not_found", "Profile not found")
    expected = [
        ("invalid", e) if h is None else found[h] for h, e in zip(handles, errors, strict=True)
    ]
    assert list(zip(result.status, result.error, strict=True)) == expected
    statuses = [s for s, _ in expected]
    seen_only = (NOT_CACHED, UNSUPPORTED)  # named only when some row has them
    assert result.summary.statuses == {s: statuses.count(s) for s in STATUSES if s not in seen_only}
    follower = result.fields["follower_count"]
    assert follower.dtype == "Int64"
    assert [f if f is not pd.NA else None for f in follower] == [
        3 if h == "ada" else None for h in handles
    ]


def test_estimate_values_counts_rows_valid_rows_and_distinct_handles():
    with _client() as client:
        est = estimate_values(iter(ROWS), client=client, credits=False, kind=PEOPLE)
    handles, _ = _per_row(ROWS, PEOPLE, True)
    assert (est.rows, est.valid, est.unique) == (
        len(ROWS),
        sum(h is not None for h in handles),
        len({h for h in handles if h is not None}),
    )


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        (["ada"], "int64"),  # every row has its record: whole numbers stay int64
        (["ada", "ADA"], "Int64"),  # as ever, fewer records than rows: the nullable dtype
        (["ada", ""], "Int64"),
    ],
)
def test_the_fields_keep_the_dtypes_they_had_when_each_row_was_reindexed(values, dtype):
    with _client() as client:
        fields = lookup_values(
            values, client=client, options=Options(progress=False), kind=PEOPLE
        ).fields
    assert str(fields["follower_count"].dtype) == dtype
    assert fields["handle"].tolist()[0] == "ada"
