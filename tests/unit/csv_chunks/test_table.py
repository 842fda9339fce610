"""Unit tests for lookup_pandas.csv_chunks.table, pass 2 of a chunked CSV, without a socket: the
chunked output equal, byte for byte, to the whole frame enriched and written (through MockTransport
answering from records of every shape: gaps, floats mixed with integers, nested and empty objects,
text with commas, quotes and line breaks), the table written a slice of records at a time, a handle
pass 1 did not see; and the records handed over by the enrichment as they are read."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

import lookup_pandas as lp
from lookup_pandas.api import functions as api
from lookup_pandas.csv_chunks import table as table_module
from lookup_pandas.csv_chunks.json_records import FlatRecords
from lookup_pandas.csv_chunks.scan import InputChanged, scan_handles
from lookup_pandas.csv_chunks.table import HandleTable, enrich_chunk
from lookup_pandas.enrichment.lookup import lookup_values
from lookup_pandas.enrichment.plan import Options
from lookup_pandas.frames.records import to_csv_cells
from lookup_pandas.identifiers.distinct import HandleMap
from lookup_pandas.identifiers.kinds import PEOPLE
from lookup_pandas.testing import MockTransport, data, envelope

from .test_json_records import JSON_VALUES, RECORD_FIELDS

BASE = "http://service.test"
TIER = envelope({"balance": 100, "current_tier": {"name": "t", "limit_per_minute": 60000}})

# -- the chunked output equals the whole frame's ---------------------------------------------------


def _records() -> dict[str, dict[str, Any]]:
    """Records of every shape: gaps, mixed numbers, nested and empty objects, awkward text."""
    recs = {
        "ada": data.person("ada"),
        "grace": data.thin(data.person("grace") or {}),
        "linus": {"id": "prsn_l", "handle": "linus", "score": 3, "meta": {}},
        "odd": {
            "id": "prsn_o",
            "handle": "odd",
            "headline": 'says "hi",\nthen\r\nbye',
            "score": 3.5,
            "follower_count": 7,
            "is_hiring": True,
            "extra": {"deep": {"x": [1, {"y": None}]}},
            "mixed": "text",
        },
        "late": {"id": "prsn_z", "handle": "late", "mixed": 4, "only_here": "é,ü"},
    }
    return {h: r for h, r in recs.items() if r}


def _client(records: dict[str, dict[str, Any]], cache: Any = False) -> lp.Client:
    def handler(request: requests.PreparedRequest) -> tuple[Any, ...]:
        if "/api/panel/" in request.url:
            return 200, TIER
        handle = requests.utils.unquote(request.url.split("handle=", 1)[1])
        if handle in records:
            return 200, envelope(records[handle])
        return 200, envelope(None, success=False, message="Profile not found", error_code="1010")

    return lp.Client(
        api_key="lk_test_unit", base_url=BASE, cache=cache, transport=MockTransport(handler)
    )


def _whole(frame: pd.DataFrame, records: dict[str, Any], **kwargs: Any) -> str:
    """What ``lookup-pandas enrich`` writes without chunks."""
    with _client(records) as client:
        out, _ = api.enrich_with_summary(
            frame, "handle", client=client, progress=False, method="single", **kwargs
        )
    return to_csv_cells(out).to_csv(index=False)


def _chunked(
    frame: pd.DataFrame, records: dict[str, Any], rows: int, prefix: str = "profile_", **kw: Any
) -> tuple[str, dict[str, int]]:
    """What it writes in chunks of ``rows`` rows, and the statuses counted."""
    chunks = [frame.iloc[i : i + rows] for i in range(0, len(frame), rows)] or [frame]
    handles = HandleMap(fold_case=kw.get("fold_case", True))
    scan = scan_handles((c["handle"] for c in chunks), handles)
    store = FlatRecords()
    with _client(records) as client:
        result = lookup_values(
            scan.distinct,
            client=client,
            on_record=store.add,
            options=Options(progress=False, method="single", **kw),
            kind=PEOPLE,
        )
    table = HandleTable(scan.distinct, result, prefix, store)
    assert len(store) == 0  # the table took every record out
    text = table.header(frame.columns)
    statuses: dict[str, int] = {}
    for chunk in chunks:
        part = enrich_chunk(chunk, "handle", table, handles)
        text += "".join(part.batches(rows=2))
        for s, n in part.statuses.items():
            statuses[s] = statuses.get(s, 0) + n
    return text, statuses


LEADS = [
    "ada",
    "unknown-x",
    "",
    "late",
    "GRACE",
    None,
    "N/A",
    "https://www.example.com/in/odd/?utm=1",
    "linus",
    "ada",
    "www.example.com",
    "@",
    "odd",
    "unknown-x",
    "Linus",
    "late",
]


def _leads(values: list[Any]) -> pd.DataFrame:
    n = len(values)
    return pd.DataFrame(
        {
            "name": pd.Series([f"n{i}" for i in range(n)], dtype="str"),
            "handle": pd.Series(values, dtype="str"),
            "note": pd.Series(
                [[None, "a,b", 'q"', "x\ny", ""][i % 5] for i in range(n)], dtype="str"
            ),
        }
    )


@pytest.mark.parametrize("rows", [1, 2, 3, 7, 100])
def test_chunks_of_any_size_write_the_bytes_the_whole_frame_does(rows, monkeypatch):
    monkeypatch.setattr(table_module, "TABLE_SLICE", 2)  # the table written a few handles at a time
    records = _records()
    frame = _leads(LEADS)
    whole = _whole(frame, records)
    text, statuses = _chunked(frame, records, rows)
    assert text == whole
    counted = pd.read_csv(pd.io.common.StringIO(whole))["lookup_status"].value_counts()
    assert statuses == counted.to_dict()
    assert statuses == {"ok": 9, "not_found": 2, "invalid": 5}


def test_only_missing_records_and_only_invalid_values_and_no_rows():
    records = _records()
    for values in (["unknown-a", "unknown-b", "unknown-a"], ["", None, "N/A"], []):
        frame = _leads(values)
        assert _chunked(frame, records, 2)[0] == _whole(frame, records), values


def test_every_record_found_once_keeps_whole_numbers_whole():
    # no row without a record: enrichment keeps int64 / bool (else Int64 / boolean): 3, not 3.0
    records = {
        "amy": {"id": "1", "handle": "amy", "n": 3, "f": True},
        "bob": {"id": "2", "handle": "bob", "n": 4, "f": False},
    }
    frame = _leads(["amy", "bob"])
    text, _ = _chunked(frame, records, 1)
    assert text == _whole(frame, records)
    assert ",3,True,ok," in text


def test_one_column_input_and_another_prefix_and_keep_case():
    records = _records()
    frame = pd.DataFrame({"handle": pd.Series(["ada", None, "Ada", ""], dtype="str")})
    assert _chunked(frame, records, 1, prefix="p_")[0] == _whole(frame, records, prefix="p_")
    assert _chunked(frame, records, 3, fold_case=False)[0] == _whole(
        frame, records, fold_case=False
    )


CELLS = st.one_of(st.none(), st.text(alphabet=st.sampled_from(list('a ,"\n\r@/A')), max_size=5))
VALUES = st.one_of(CELLS, st.sampled_from(["ada", "GRACE", "odd", "late", "unknown-q", "NA"]))


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(st.lists(st.tuples(VALUES, CELLS), max_size=12), st.integers(1, 5))
def test_any_lead_list_in_any_chunks_writes_the_same_bytes(rows, size):
    frame = pd.DataFrame(
        {
            "handle": pd.Series([r[0] for r in rows], dtype="str"),
            "note": pd.Series([r[1] for r in rows], dtype="str"),
        }
    )
    records = _records()
    assert _chunked(frame, records, size)[0] == _whole(frame, records)


def test_a_handle_pass_1_did_not_see_is_refused():
    records = _records()
    handles = HandleMap()
    scan = scan_handles([pd.Series(["ada"], dtype="str")], handles)
    store = FlatRecords()
    with _client(records) as client:
        result = lookup_values(
            scan.distinct,
            client=client,
            on_record=store.add,
            options=Options(progress=False, method="single"),
            kind=PEOPLE,
        )
    table = HandleTable(scan.distinct, result, "profile_", store)
    with pytest.raises(InputChanged, match="'grace'"):
        enrich_chunk(_leads(["ada", "grace"]), "handle", table, handles)


# -- the table a slice of records at a time: the whole file's columns and dtypes ----------------

#: Few fields, mostly numbers: one field typed differently from slice to slice, often.
SLICED_FIELDS = st.dictionaries(
    st.sampled_from(["n", "skills"]),
    st.one_of(st.integers(-5, 5), st.floats(-5, 5), JSON_VALUES),
    max_size=2,
)


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(
    st.lists(st.one_of(SLICED_FIELDS, RECORD_FIELDS), min_size=1, max_size=7),
    st.lists(st.integers(0, 8), max_size=14),
    st.integers(1, 3),
)
def test_records_of_any_fields_in_any_slices_write_the_bytes_of_the_whole_frame(
    fields, picks, table_slice
):
    # e.g. n = 3 in the first slice and 3.5 in the second: 3.0 in both, as the whole frame has it
    records = {
        f"handle{i}": {"id": f"p{i}", "handle": f"handle{i}", **f} for i, f in enumerate(fields)
    }
    handles = [*records, "unknown-q", ""]
    frame = _leads([handles[i % len(handles)] for i in picks] or ["handle0"])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(table_module, "TABLE_SLICE", table_slice)
        assert _chunked(frame, records, 3)[0] == _whole(frame, records)


@pytest.mark.parametrize(
    "values",
    [
        [3, 3.5],  # whole numbers in one slice, a fraction in the next: 3.0 in both
        [3, 3.5, "t"],  # numbers in one slice, text in the next: 3 and 3.5 as they are
        [True, 1],  # a flag, then a whole number: neither a flag column nor an integer one
        ["a", [1, "b,c"], {}],  # text, a list, an empty object: JSON text where needed
        [3, None, 2.5],  # a gap between them
        [float("nan"), 3, 2.5],  # NaN is a gap, not the column's first fraction
        [3, 4],  # whole numbers only, beside a handle without a record: 3, not 3.0
    ],
)
@pytest.mark.parametrize("with_id", [True, False])
@pytest.mark.parametrize("table_slice", [1, 3])
def test_a_column_typed_differently_slice_by_slice_is_written_as_the_whole_frame_does(
    values, with_id, table_slice, monkeypatch
):
    monkeypatch.setattr(table_module, "TABLE_SLICE", table_slice)
    ids = (lambda i: {"id": f"p{i}"}) if with_id else (lambda i: {})
    records = {f"handle{i}": {**ids(i), "n": v} for i, v in enumerate(values)}
    frame = _leads([*records, "unknown-q", "handle0", ""])
    assert _chunked(frame, records, 2)[0] == _whole(frame, records)


def test_record_store_keeps_records_as_text_and_the_table_takes_them_all():
    store = FlatRecords()
    record = {"id": "p", "handle": "a", "n": 3, "f": 0.1, "l": [1, {"é": None}], "e": {}}
    store.add("a", record)
    store.add("b", {**record, "id": "q", "n": 4, "f": 0.2, "g": {"x": "y"}})  # another layout
    store.add("c", {**record, "id": "r", "n": 5})  # a's layout
    store.add("d", {**record, "id": "s", "n": None})  # a gap: another layout
    assert "a" in store and len(store) == 4
    # one record of each layout, in the order asked; a value of each field's type: the first
    assert list(store.examples(["c", "b", "a", "d"])) == [
        record,
        {**record, "g.x": "y"},
        {**record, "n": None},
    ]
    popped = store.pop("a")
    assert popped == record and list(popped) == list(record) and len(store) == 3
    assert store.pop("b")["g.x"] == "y" and "b" not in store
    with _client(_records()) as client:
        result = lookup_values(
            ["ada", "odd"],
            client=client,
            options=Options(progress=False, method="single"),
            kind=PEOPLE,
        )
    short = FlatRecords()
    short.add("ada", _records()["ada"])
    with pytest.raises(ValueError, match="every handle found"):
        HandleTable(["ada", "odd"], result, "profile_", short)
    with pytest.raises(ValueError, match="one value each"):
        HandleTable(["ada"], result, "profile_", short)
