"""Streaming enrichment's pure parts, without a socket: lookup_pandas.csv_chunks.

What is tested: when a file is chunked; CSV text split into records and rows into parts exactly
as pandas writes them (checked against ``to_csv`` itself, with hypothesis); each distinct raw
value normalised once, with the statuses and errors enrichment gives; the distinct handles in
first-seen order across chunks; the chunked output equal, byte for byte, to the whole frame
enriched and written (through MockTransport answering from records of every shape: gaps,
floats mixed with integers, nested and empty objects, text with commas, quotes and line
breaks); a handle pass 1 did not see; and the part file that appears only when committed.
"""

from __future__ import annotations

import os
import stat
from typing import Any

import pandas as pd
import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st

import lookup_pandas as lp
from lookup_pandas.api import functions as api
from lookup_pandas.csv_chunks import (
    AUTO_CHUNK_ROWS,
    CHUNK_ROWS,
    ColumnKinds,
    HandleMap,
    HandleTable,
    InputChanged,
    PartFile,
    RecordStore,
    Scan,
    chunk_rows,
    csv_header,
    csv_parts,
    enrich_chunk,
    scan_handles,
    split_records,
)
from lookup_pandas.csv_chunks import table as stream_table
from lookup_pandas.enrichment import values as enrich
from lookup_pandas.enrichment.values import lookup_values
from lookup_pandas.frames.records import (
    flatten,
    records_to_frame,
    to_csv_cells,
    with_nullable_dtypes,
)
from lookup_pandas.testing import MockTransport, data, envelope

BASE = "http://service.test"
TIER = envelope({"balance": 100, "current_tier": {"name": "t", "limit_per_minute": 60000}})

# -- when to chunk -------------------------------------------------------------------------------


def test_chunk_rows_asked_never_and_by_the_rows():
    assert chunk_rows(7, 10) == 7  # asked for, whatever the rows
    assert chunk_rows(0, 10 * AUTO_CHUNK_ROWS) is None  # 0: never
    assert chunk_rows(None, AUTO_CHUNK_ROWS + 1) == CHUNK_ROWS
    assert chunk_rows(None, AUTO_CHUNK_ROWS) is None  # one chunk's worth: read whole
    assert chunk_rows(None, None) is None  # not a regular file: rows unknown
    assert chunk_rows(None, 2_000, threshold=1_000) == CHUNK_ROWS
    assert chunk_rows(None, 500, threshold=1_000) is None
    with pytest.raises(ValueError):
        chunk_rows(-1, 10)


def test_the_cli_help_states_the_threshold_and_the_chunk_size():
    from lookup_pandas.cli import build_parser

    enrich = build_parser()._subparsers._group_actions[0].choices["enrich"]  # type: ignore[union-attr]
    text = " ".join(enrich.format_help().split())
    assert f"{CHUNK_ROWS}-row chunks for an input of more than {AUTO_CHUNK_ROWS} rows" in text
    assert "--chunk-threshold" not in text  # for tests only


# -- CSV records and parts, as pandas writes them -------------------------------------------------

CELL = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from(list("ab ,\"\n\r\t;é'")), max_size=6),
)


def _frame(columns: list[list[Any]]) -> pd.DataFrame:
    return pd.DataFrame({f"c{i}": pd.Series(col, dtype="str") for i, col in enumerate(columns)})


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(st.integers(1, 3).flatmap(lambda n: st.lists(st.lists(CELL, min_size=n, max_size=n))))
def test_csv_parts_are_the_rows_pandas_writes(rows):
    width = len(rows[0]) if rows else 1
    frame = _frame([[r[i] for r in rows] for i in range(width)])
    parts = csv_parts(frame)
    assert len(parts) == len(frame)
    # a lone empty field is written "" on its own line, and as nothing within a longer row
    lines = ['""' if width == 1 and part == "" else part for part in parts]
    assert csv_header(frame.columns) + "".join(x + os.linesep for x in lines) == frame.to_csv(
        index=False
    )


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(st.lists(st.tuples(CELL, CELL, CELL)))
def test_parts_joined_by_commas_are_the_row_of_the_joined_frame(rows):
    left = _frame([[r[0] for r in rows]])  # one column: the lone-field case
    right = _frame([[r[1] for r in rows], [r[2] for r in rows]])
    right.columns = ["d0", "d1"]
    joined = pd.concat([left, right], axis=1)
    lines = [a + "," + b for a, b in zip(csv_parts(left), csv_parts(right), strict=True)]
    assert csv_header(joined.columns) + "".join(x + os.linesep for x in lines) == joined.to_csv(
        index=False
    )


def test_split_records_keeps_line_breaks_inside_quoted_fields():
    assert split_records('a,"x\ny"\nb,"say ""hi"""\n', "\n") == ['a,"x\ny"', 'b,"say ""hi"""']
    assert split_records("a\r\nb\r\n", "\r\n") == ["a", "b"]
    assert split_records("", "\n") == []
    with pytest.raises(ValueError):
        split_records("a,b", "\n")  # no line end
    with pytest.raises(ValueError):
        split_records('a,"b\n', "\n")  # ends inside quotes


def test_csv_header_is_pandas_header():
    assert csv_header(["name", "a,b", 'q"']) == 'name,"a,b","q"""' + os.linesep


# -- raw values to handles ----------------------------------------------------------------------


def test_scan_counts_rows_and_keeps_distinct_handles_in_first_seen_order():
    chunks = [
        pd.Series(["bob", "", "Amy"], dtype="str"),
        pd.Series(["amy", "https://www.example.com/in/cid/", None], dtype="str"),
        pd.Series(["BOB", "dan"], dtype="str"),
    ]
    scan = scan_handles(chunks, HandleMap())
    assert (scan.rows, scan.valid, scan.distinct) == (8, 6, ["bob", "amy", "cid", "dan"])
    assert scan_handles([], HandleMap()) == Scan(0, 0, [])


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
    store = RecordStore()
    with _client(records) as client:
        result = lookup_values(
            scan.distinct,
            client=client,
            progress=False,
            method="single",
            on_record=store.add,
            **kw,
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
    monkeypatch.setattr(stream_table, "TABLE_SLICE", 2)  # the table written a few handles at a time
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
    store = RecordStore()
    with _client(records) as client:
        result = lookup_values(
            scan.distinct, client=client, progress=False, method="single", on_record=store.add
        )
    table = HandleTable(scan.distinct, result, "profile_", store)
    with pytest.raises(InputChanged, match="'grace'"):
        enrich_chunk(_leads(["ada", "grace"]), "handle", table, handles)


# -- the table a slice of records at a time: the whole file's columns and dtypes ----------------

#: JSON values of every type, so that one column holds whole numbers in one slice and fractions,
#: flags, text, lists or objects in another.
JSON_VALUES = st.one_of(
    st.none(),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(alphabet=st.sampled_from(list('a1 ,"\n.')), max_size=4),
    st.lists(st.integers(0, 3), max_size=2),
    st.just({}),
    st.fixed_dictionaries({"city": st.sampled_from(["x", "y,z"])}),
)
FIELD_NAMES = st.sampled_from(["n", "m", "follower_count", "is_hiring", "skills", "geo", "x.y"])
RECORD_FIELDS = st.dictionaries(FIELD_NAMES, JSON_VALUES, max_size=4)
#: Few fields, mostly numbers: one field typed differently from slice to slice, often.
SLICED_FIELDS = st.dictionaries(
    st.sampled_from(["n", "skills"]),
    st.one_of(st.integers(-5, 5), st.floats(-5, 5), JSON_VALUES),
    max_size=2,
)


def test_column_kinds_follow_the_first_value_of_each_type_in_record_order():
    kinds = ColumnKinds()
    for flat in ({"id": "p1", "n": 3, "x": None}, {"n": 3.5, "b": True}, {"b": None, "s": "t"}):
        kinds.add(flat)
    assert kinds.columns == ["id", "n", "x", "b", "s"]
    assert kinds.dtypes() == {"id": "str", "n": "float64", "b": "boolean", "s": "str"}
    assert ColumnKinds().dtypes() == {}


@settings(deadline=None)  # examples: the profile's, tests/conftest.py
@given(st.lists(RECORD_FIELDS, min_size=1, max_size=8))
def test_column_kinds_give_the_dtypes_of_one_frame_of_all_the_records(fields):
    flats = [flatten({"id": f"p{i}", **f}) for i, f in enumerate(fields)]
    kinds = ColumnKinds()
    for flat in flats:
        kinds.add(flat)
    whole = with_nullable_dtypes(records_to_frame(flats))
    assert kinds.columns == list(pd.DataFrame(flats).columns)
    held = [c for c in whole.columns if whole[c].notna().any()]
    assert kinds.dtypes() == {c: whole[c].dtype for c in held}


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
        patch.setattr(stream_table, "TABLE_SLICE", table_slice)
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
    monkeypatch.setattr(stream_table, "TABLE_SLICE", table_slice)
    ids = (lambda i: {"id": f"p{i}"}) if with_id else (lambda i: {})
    records = {f"handle{i}": {**ids(i), "n": v} for i, v in enumerate(values)}
    frame = _leads([*records, "unknown-q", "handle0", ""])
    assert _chunked(frame, records, 2)[0] == _whole(frame, records)


def test_the_job_hands_each_record_over_once_and_keeps_none():
    records = _records()
    handed: list[tuple[str, dict[str, Any]]] = []
    values = ["ada", "unknown-x", "", "late", "ADA", "odd"]
    with _client(records) as client:
        kept = lookup_values(values, client=client, progress=False, method="single")
        result = lookup_values(
            values,
            client=client,
            progress=False,
            method="single",
            on_record=lambda h, r: handed.append((h, r)),
        )
    assert sorted(handed) == sorted((h, records[h]) for h in ("ada", "late", "odd"))
    assert (result.handles, result.status, result.error) == (kept.handles, kept.status, kept.error)
    assert result.fields.shape == (6, 0)
    assert kept.fields.shape[1] > 0


def test_cached_records_are_handed_over_as_the_cache_is_read_not_kept_for_the_job(tmp_path):
    records = _records()
    handed: list[str] = []
    with _client(records, cache=tmp_path / "c.sqlite") as client:
        lookup_values(["ada", "odd"], client=client, progress=False, method="single")
        # a budget: the cache is read first (and the records handed over as it is), then the
        # one handle not cached is refused
        with pytest.raises(lp.BudgetExceededError):
            lookup_values(
                ["ada", "odd", "late"],
                client=client,
                progress=False,
                max_calls=0,
                on_record=lambda h, r: handed.append(h),
            )
        assert handed == ["ada", "odd"]
        handed.clear()
        result = lookup_values(
            ["odd", "ada"],
            client=client,
            progress=False,
            max_calls=0,
            on_record=lambda h, r: handed.append(h),
        )
    assert handed == ["odd", "ada"] and result.summary.cached == 2


def test_an_outcome_handed_over_keeps_no_record():
    record = {"id": "p", "handle": "a"}
    handed: list[tuple[str, Any]] = []
    outcome = enrich._handed(lambda h, r: handed.append((h, r)), "a", enrich._Outcome("ok", record))
    assert outcome == enrich._Outcome("ok") and handed == [("a", record)]
    kept = enrich._Outcome("ok", record)
    assert enrich._handed(None, "a", kept) is kept


def test_record_store_keeps_records_as_text_and_the_table_takes_them_all():
    store = RecordStore()
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
        result = lookup_values(["ada", "odd"], client=client, progress=False, method="single")
    short = RecordStore()
    short.add("ada", _records()["ada"])
    with pytest.raises(ValueError, match="every handle found"):
        HandleTable(["ada", "odd"], result, "profile_", short)
    with pytest.raises(ValueError, match="one value each"):
        HandleTable(["ada"], result, "profile_", short)


# -- the part file -------------------------------------------------------------------------------


def test_part_file_appears_only_when_committed(tmp_path):
    target = tmp_path / "out.csv"
    with PartFile(target) as part:
        part.handle.write("a\n")
        (made,) = tmp_path.glob(".out.csv.*.part")
        assert not target.exists()
        part.commit()
    assert target.read_text() == "a\n" and not made.exists()
    assert list(tmp_path.iterdir()) == [target]


def test_part_file_is_removed_on_failure_and_the_old_file_kept(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    for error in (RuntimeError, KeyboardInterrupt):
        with pytest.raises(error), PartFile(target) as part:
            part.handle.write("half")
            raise error()
        assert target.read_text() == "old\n"
        assert list(tmp_path.iterdir()) == [target]


def test_part_file_keeps_the_mode_of_the_file_it_replaces_and_follows_a_link(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    with PartFile(link) as part:
        assert part.path.parent == tmp_path and part.path.name.startswith(".real.csv.")
        part.handle.write("new\n")
        part.commit()
    assert link.is_symlink() and real.read_text() == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_part_file_writes_utf8_without_newline_translation(tmp_path):
    target = tmp_path / "out.csv"
    with PartFile(target) as part:
        part.handle.write("é,\r\n")
        part.commit()
    assert target.read_bytes() == "é,\r\n".encode()
