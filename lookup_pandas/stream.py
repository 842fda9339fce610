"""Enriching a CSV file chunk by chunk: memory that does not grow with the file's length.

Example::

    handles = HandleMap(fold_case=True)
    scan = scan_handles((c["handle"] for c in read_chunks()), handles)   # pass 1
    records = RecordStore()
    result = lookup_values(scan.distinct, client=client,    # every distinct handle, once
                           on_record=records.add)           # its records kept as JSON text
    table = HandleTable(scan.distinct, result, "profile_", records)
    with PartFile("enriched.csv") as part:                    # pass 2
        for i, chunk in enumerate(read_chunks()):
            if i == 0:
                part.handle.write(table.header(chunk.columns))
            part.handle.writelines(enrich_chunk(chunk, "handle", table, handles).batches())
        part.commit()           # enriched.csv appears, complete, at once

This is what ``lookup-pandas enrich --chunksize N`` does (and, unasked, for an input larger than
:data:`AUTO_CHUNK_BYTES`: chunks of :data:`AUTO_CHUNK_ROWS` rows). Pass 1 reads the file in
chunks and keeps only its distinct handles, in first-seen order, and the row counts. They are
enriched once, as one job (one progress bar, one budget, batch jobs, the cache); the job keeps
no record: each is handed, as it is read or fetched, to a :class:`RecordStore`, which keeps it
as JSON text (a record as Python objects is about ten times its text). The records become one
table (:class:`HandleTable`), a slice of handles at a time: each distinct handle's new cells
written as CSV text, once. Pass 2 reads the file again and writes each chunk: every row as
pandas writes its input cells, then the text of its handle.

The output is the same, byte for byte, as enriching the whole file at once and writing it with
``to_csv``: the table has the columns ``enrich_profiles`` over the whole file would have, in the
same order, each with the dtype it would have (found from the whole file's records before any
slice is written, :class:`ColumnKinds`: a column of whole numbers in one slice and of fractions
in another is written 3.0 in both); pandas writes every cell, through the csv module, which
quotes each field on its own, so a row is its parts joined by commas (:func:`csv_parts`).
Memory grows with the distinct handles (and distinct raw values) of the file, never with its
rows, and holds the records of one slice at a time; a handle's cells are formatted once, not
once a row.

Each distinct raw value is normalised once (:class:`HandleMap`), and rows are mapped to
handles and to their text by position arrays, not by Python loops over rows.

Output to a file goes to a ``.<name>.<random>.part`` file beside it, renamed onto the name
only when complete (:class:`PartFile`): an interrupted or failed run leaves no half file.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import numpy as np
import pandas as pd

from .api import ERROR_COLUMN, STATUS_COLUMN
from .enrich import INVALID, OK, Lookup, invalid_error
from .frames import (
    PERSON_FIELDS,
    flatten,
    prefixed_names,
    records_to_frame,
    to_csv_cells,
    with_nullable_dtypes,
)
from .handles import normalise_handle

__all__ = [
    "AUTO_CHUNK_BYTES",
    "AUTO_CHUNK_ROWS",
    "ColumnKinds",
    "EnrichedChunk",
    "HandleMap",
    "HandleTable",
    "InputChanged",
    "Mapped",
    "PartFile",
    "RecordStore",
    "Scan",
    "chunk_rows",
    "csv_header",
    "csv_parts",
    "enrich_chunk",
    "scan_handles",
    "split_records",
]

#: An input file larger than this (bytes) is read in chunks even without ``--chunksize``.
AUTO_CHUNK_BYTES = 64 * 2**20
#: Rows per chunk when chunking was not asked for (a chunk of a few columns: tens of MiB).
AUTO_CHUNK_ROWS = 100_000


def chunk_rows(requested: int | None, size: int | None, threshold: int | None = None) -> int | None:
    """Rows per chunk, or None to read the file whole.

    Example: ``chunk_rows(None, 80 * 2**20)`` -> ``100_000`` (over 64 MiB: chunks);
    ``chunk_rows(None, 10_000)`` -> ``None``; ``chunk_rows(0, 80 * 2**20)`` -> ``None``
    (0: never chunk); ``chunk_rows(500, 10)`` -> ``500`` (asked for).

    ``size`` is the input's size in bytes (None when unknown: not chunked unless asked);
    ``threshold`` the size above which it is chunked unasked (default AUTO_CHUNK_BYTES).
    """
    if requested is not None:
        if requested < 0:
            raise ValueError(f"rows per chunk must be 0 or more, not {requested}")
        return requested or None
    if size is not None and size > (AUTO_CHUNK_BYTES if threshold is None else threshold):
        return AUTO_CHUNK_ROWS
    return None


class InputChanged(Exception):
    """The file read in pass 2 is not the one read in pass 1 (it changed meanwhile)."""


@dataclass(frozen=True)
class Mapped:
    """A column of raw values, as distinct values and positions.

    ``codes[i]`` is row i's position in ``handles`` / ``errors``: one entry per distinct raw
    value (in first-seen order), then one for a missing value (code -1 picks it).
    """

    codes: np.ndarray[Any, np.dtype[np.intp]]
    handles: np.ndarray[Any, np.dtype[np.object_]]  # the handle, or None when invalid
    errors: np.ndarray[Any, np.dtype[np.object_]]  # the lookup_error when invalid, else None

    @property
    def valid(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """For each distinct value: is it a handle."""
        return np.array([h is not None for h in self.handles], dtype=bool)


class HandleMap:
    """Raw values to handles, normalising each distinct raw value once over the whole file.

    Example::

        handles = HandleMap()
        m = handles.map(pd.Series(["Ada", "@ada", None, "ada", "N/A"]))
        m.handles[m.codes]    # ["ada", "ada", None, "ada", None]
        m.errors[m.codes]     # [None, None, "invalid handle: missing", None,
                              #  "invalid handle: missing"]

    The rules are :func:`lookup_pandas.handles.normalise_handle`'s, with ``fold_case``; the
    errors are what ``enrich_profiles`` writes. Memory grows with the distinct raw values.
    """

    def __init__(self, *, fold_case: bool = True) -> None:
        self.fold_case = fold_case
        self._known: dict[Any, tuple[str | None, str | None]] = {}
        self._missing = (None, invalid_error(math.nan, fold_case))

    def _entry(self, raw: Any) -> tuple[str | None, str | None]:
        entry = self._known.get(raw)
        if entry is None:
            handle = normalise_handle(raw, fold_case=self.fold_case)
            entry = (handle, None if handle is not None else invalid_error(raw, self.fold_case))
            self._known[raw] = entry
        return entry

    def map(self, values: pd.Series) -> Mapped:
        """The handle and error of every value, by position (see :class:`Mapped`)."""
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        entries = [self._entry(raw) for raw in uniques]
        entries.append(self._missing)  # code -1: a missing value
        handles = np.empty(len(entries), dtype=object)
        errors = np.empty(len(entries), dtype=object)
        handles[:] = [h for h, _ in entries]
        errors[:] = [e for _, e in entries]
        return Mapped(codes=np.asarray(codes, dtype=np.intp), handles=handles, errors=errors)


@dataclass(frozen=True)
class Scan:
    """Pass 1's findings: ``rows``, the ``valid`` rows, and the ``distinct`` handles in
    first-seen order (the order enrichment takes its records in)."""

    rows: int
    valid: int
    distinct: list[str]


def scan_handles(columns: Iterable[pd.Series], handles: HandleMap) -> Scan:
    """Pass 1: count rows and valid rows and collect the distinct handles, chunk by chunk.

    Example: ``scan_handles([pd.Series(["ada", ""]), pd.Series(["grace", "Ada"])],
    HandleMap())`` -> ``Scan(rows=4, valid=3, distinct=["ada", "grace"])``
    """
    rows = valid = 0
    distinct: dict[str, None] = {}
    for values in columns:
        mapped = handles.map(values)
        rows += len(values)
        valid += int(np.count_nonzero(mapped.valid[mapped.codes]))
        # factorize lists the raw values in first-seen order: so are their handles
        distinct.update(dict.fromkeys(h for h in mapped.handles if h is not None))
    return Scan(rows=rows, valid=valid, distinct=list(distinct))


#: What ends a CSV record: what ``DataFrame.to_csv`` writes by default.
TERMINATOR = os.linesep
#: Rows joined into one string before it is written (a few MiB of text).
BATCH_ROWS = 5_000
#: Distinct handles whose cells are written as CSV at once when the table is built.
TABLE_SLICE = 2_000


def split_records(text: str, terminator: str = TERMINATOR) -> list[str]:
    r"""The records of CSV text that the csv module wrote (as pandas does: minimal quoting,
    quotes doubled), without their line ends.

    Example: ``split_records('a,"x\ny"\nb,c\n', "\n")`` -> ``['a,"x\ny"', 'b,c']``

    The csv module quotes every field holding a character of the line end, and doubles a
    quote inside a quoted field; so a line end with an even number of quotes before it, in
    its record, ends the record, and any other is inside a quoted field.
    """
    pieces = text.split(terminator)
    if pieces.pop() != "":
        raise ValueError("CSV text must end with a line end")
    if '"' not in text:
        return pieces
    records: list[str] = []
    pending: list[str] = []
    odd = False
    for piece in pieces:
        pending.append(piece)
        odd ^= piece.count('"') % 2 == 1
        if not odd:
            records.append(terminator.join(pending))
            pending = []
    if pending:
        raise ValueError("CSV text ends inside a quoted field")
    return records


def csv_parts(frame: pd.DataFrame) -> list[str]:
    """Each row of ``frame`` as ``frame.to_csv(index=False)`` writes its cells: quoted where
    needed, joined by commas, no line end. Parts of one row join with "," into that row.

    Example: ``csv_parts(pd.DataFrame({"a": ["x", None], "b": ["y,z", "w"]}))`` ->
    ``['x,"y,z"', ',w']``

    Pandas does every cell (missing values, numbers, flags, quoting); a lone empty field,
    which the csv module writes as ``""`` (an empty line would be no row at all), is an empty
    part: within a longer row it is written as nothing.
    """
    if frame.shape[1] == 0:
        return [""] * len(frame)
    text = frame.to_csv(index=False, header=False, lineterminator=TERMINATOR)
    parts = split_records(text)
    if frame.shape[1] == 1:
        parts = ["" if part == '""' else part for part in parts]
    if len(parts) != len(frame):  # pragma: no cover - the rules above hold for the csv module
        raise AssertionError(f"{len(frame)} rows, {len(parts)} CSV records")
    return parts


def csv_header(columns: Sequence[Any]) -> str:
    r"""The header line ``to_csv`` writes for these columns, line end included.

    Example: ``csv_header(["name", "a,b"])`` -> ``'name,"a,b"\n'``
    """
    return pd.DataFrame(columns=list(columns)).to_csv(index=False, lineterminator=TERMINATOR)


#: A flattened record's fields, each with the type of its value (None: missing).
_Layout = tuple[tuple[str, type | None], ...]


class RecordStore:
    """Records kept flattened, as JSON text, by handle: what ``lookup_values(on_record=
    store.add)`` hands over; and their layouts, for :class:`ColumnKinds`.

    Example::

        store = RecordStore()
        store.add("ada", {"id": "prsn_1", "handle": "ada", "geo": {"city": "Oslo"}, "n": 3})
        store.add("bob", {"id": "prsn_2", "handle": "bob", "geo": {"city": "Rome"}, "n": 4})
        list(store.examples(["ada", "bob"]))   # one record of each layout, in that order:
                                               # [{"id": "prsn_1", ..., "n": 3}]
        store.pop("ada")      # {"id": "prsn_1", "handle": "ada", "geo.city": "Oslo", "n": 3}

    JSON keeps every value as it came (keys in order, 3 not 3.0) in about a tenth of the memory
    of the record as Python objects. A record's layout is its fields and the type of each value
    (missing or not): records of one layout type a column alike, so one of each is enough for
    :class:`ColumnKinds`, and a file's records share a few layouts.
    """

    def __init__(self) -> None:
        self._text: dict[str, str] = {}
        self._layout: dict[str, _Layout] = {}  # handle -> its layout
        self._shared: dict[Any, Any] = {}  # each layout, and each of its fields, kept once
        self._sample: dict[tuple[str, type], Any] = {}  # (field, type) -> a value of it

    def add(self, handle: str, record: dict[str, Any]) -> None:
        flat = flatten(record)
        shared = self._shared
        fields = []
        for name, value in flat.items():
            field = (name, None if _missing(value) else type(value))
            if field not in shared:
                shared[field] = field
                if field[1] is not None:
                    self._sample[(name, field[1])] = value
            fields.append(shared[field])
        layout = tuple(fields)
        self._layout[handle] = shared.setdefault(layout, layout)
        self._text[handle] = json.dumps(flat)

    def pop(self, handle: str) -> dict[str, Any]:
        """The flattened record, which the store lets go of."""
        del self._layout[handle]
        flat: dict[str, Any] = json.loads(self._text.pop(handle))
        return flat

    def examples(self, handles: Iterable[str]) -> Iterator[dict[str, Any]]:
        """For each layout, in the order of ``handles``' records, a flattened record of it (a
        value of each field's type, or None)."""
        seen: set[_Layout] = set()
        for handle in handles:
            layout = self._layout[handle]
            if layout not in seen:
                seen.add(layout)
                yield {name: kind and self._sample[(name, kind)] for name, kind in layout}

    def __contains__(self, handle: object) -> bool:
        return handle in self._text

    def __len__(self) -> int:
        return len(self._text)


def _missing(value: Any) -> bool:
    """A value pandas counts as missing in a column of JSON values (None, NaN)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


class ColumnKinds:
    """The columns of flattened records, in first-seen order, and the dtype each would have
    in one frame of them all, seen a record at a time.

    Example::

        kinds = ColumnKinds()
        kinds.add({"id": "p1", "n": 3})
        kinds.add({"id": "p2", "n": 3.5, "x": None})
        kinds.columns          # ["id", "n", "x"]
        kinds.dtypes()         # {"id": "str", "n": "float64"}: x holds no value

    ``records_to_frame`` infers a column's dtype from the types of its values (pandas'
    ``infer_dtype``: the first value's type, and which types there are), not from the values
    themselves; so the first value of each type, in the order the records give them, types a
    small frame exactly as the whole column (and a record whose fields and types of values were
    seen before adds nothing: :meth:`RecordStore.examples`). The dtypes are the nullable ones
    (``Int64``, ``boolean``: rows without a record take missing values); pandas writes them as
    it writes
    ``int64`` and ``bool``.
    """

    def __init__(self) -> None:
        self._firsts: dict[str, dict[type, Any]] = {}  # column -> type -> its first value

    @property
    def columns(self) -> list[str]:
        return list(self._firsts)

    def add(self, flat: dict[str, Any]) -> None:
        """Take a flattened record (:func:`lookup_pandas.frames.flatten`)."""
        for name, value in flat.items():
            firsts = self._firsts.setdefault(name, {})
            if not _missing(value):
                firsts.setdefault(type(value), value)

    def dtypes(self) -> dict[str, Any]:
        """The dtype of each column that holds a value (one with none stays object)."""
        sample = [{name: v} for name, firsts in self._firsts.items() for v in firsts.values()]
        if not sample:
            return {}
        typed = with_nullable_dtypes(records_to_frame(sample))
        return {str(name): dtype for name, dtype in typed.dtypes.items()}


class HandleTable:
    """The new cells of every distinct handle, written as CSV once; rows pick theirs.

    Example::

        records = RecordStore()
        result = lookup_values(["ada", "unknown-x"], client=client, on_record=records.add)
        table = HandleTable(["ada", "unknown-x"], result, "profile_", records)
        table.columns      # ["profile_id", "profile_handle", ..., "lookup_status",
                           #  "lookup_error"]
        chunk = enrich_chunk(pd.DataFrame({"handle": ["ADA", "", "unknown-x"]}), "handle",
                             table, HandleMap())
        chunk.statuses     # {"ok": 1, "invalid": 1, "not_found": 1}

    ``result`` is :func:`lookup_pandas.enrich.lookup_values` over ``distinct`` (one value
    each, in first-seen order), which handed its records to ``records``; the table takes them
    out of it (``records`` is left empty). The cells are what ``enrich_profiles`` over the
    whole file would give: PERSON_FIELDS, then the other fields in first-seen order over all
    the records, each column with the dtype it would have over them all (:class:`ColumnKinds`,
    from one record of each layout); then the records are read back, TABLE_SLICE handles at a
    time, typed so, and written. Lists and dicts become JSON text (``to_csv_cells``), and
    pandas writes each handle's cells, status and error as CSV once: a row's new cells are then
    that text, not a frame to format again (so no row is ever reindexed into a frame: 3 cannot
    become 3.0). A row without a handle gets empty cells, status ``invalid`` and its reason,
    written once per reason.
    """

    def __init__(
        self, distinct: Sequence[str], result: Lookup, prefix: str, records: RecordStore
    ) -> None:
        if len(result.status) != len(distinct):
            raise ValueError("result must be the lookup of `distinct`, one value each")
        found = [h for h, status in zip(distinct, result.status, strict=True) if status == OK]
        if len(records) != len(found) or not all(h in records for h in found):
            raise ValueError("records must hold the record of every handle found, and no other")
        kinds = ColumnKinds()
        for example in records.examples(found):
            kinds.add(example)
        fields = [*PERSON_FIELDS, *(c for c in kinds.columns if c not in PERSON_FIELDS)]
        dtypes = kinds.dtypes()
        names = prefixed_names(fields, prefix)
        self.columns: list[str] = [*(names[c] for c in fields), STATUS_COLUMN, ERROR_COLUMN]
        self._index = pd.Index(list(distinct), dtype=object)
        self._status = np.array(result.status, dtype=object)
        self._tails = np.empty(len(distinct), dtype=object)
        # A slice at a time: the records of one slice are Python objects at once, each cell is
        # written on its own, and the text of the whole table is never in memory twice.
        for start in range(0, len(distinct), TABLE_SLICE):
            stop = start + TABLE_SLICE
            here = [h for h in distinct[start:stop] if h in records]  # found
            flats = [records.pop(h) for h in here]
            raw = pd.DataFrame(flats, index=pd.Index(here, dtype=object), dtype=object)
            typed = raw.astype({c: dtypes[c] for c in raw.columns if c in dtypes})
            rows = typed.reindex(index=pd.Index(distinct[start:stop], dtype=object), columns=fields)
            cells = to_csv_cells(rows.rename(columns=names).reset_index(drop=True))
            found_cells = cells.assign(
                **{
                    STATUS_COLUMN: pd.Series(result.status[start:stop], cells.index, "str"),
                    ERROR_COLUMN: pd.Series(result.error[start:stop], cells.index, "str"),
                }
            )
            self._tails[start:stop] = csv_parts(found_cells)
        # a row without a record: the cells of no record
        self._blank = pd.DataFrame(index=[0], columns=self.columns[:-2], dtype=object)
        self._invalid: dict[str, str] = {}  # reason -> the row's new cells, as CSV

    def __len__(self) -> int:
        return len(self._index)

    def header(self, columns: Sequence[Any]) -> str:
        """The output's header line: ``columns`` (the input's), then the new ones."""
        return csv_header([*columns, *self.columns])

    def _invalid_tail(self, error: str) -> str:
        tail = self._invalid.get(error)
        if tail is None:
            row = self._blank.assign(
                **{
                    STATUS_COLUMN: pd.Series([INVALID], index=self._blank.index, dtype="str"),
                    ERROR_COLUMN: pd.Series([error], index=self._blank.index, dtype="str"),
                }
            )
            tail = self._invalid[error] = csv_parts(row)[0]
        return tail

    def tails(self, mapped: Mapped) -> tuple[np.ndarray[Any, np.dtype[np.object_]], list[str]]:
        """For each distinct value of ``mapped``: the new cells as CSV, and the status.

        Raises InputChanged for a handle the table does not hold (pass 1 did not see it).
        """
        valid = mapped.valid
        where = np.asarray(
            self._index.get_indexer(pd.Index(mapped.handles, dtype=object)), dtype=np.intp
        )
        unknown = valid & (where < 0)
        if unknown.any():
            first = mapped.handles[np.flatnonzero(unknown)[0]]
            raise InputChanged(f"handle {first!r} was not in it when it was first read")
        tails = np.empty(len(where), dtype=object)
        statuses = np.empty(len(where), dtype=object)
        if len(self._index):
            at = np.where(valid, where, 0)
            tails[:] = self._tails[at]
            statuses[:] = self._status[at]
        for i in np.flatnonzero(~valid).tolist():  # few: one per kind of invalid value
            tails[i] = self._invalid_tail(mapped.errors[i])
            statuses[i] = INVALID
        return tails, statuses.tolist()


@dataclass(frozen=True)
class EnrichedChunk:
    """A chunk with its new cells joined on, as CSV text (no header), and its rows' statuses.

    ``batches()`` yields the text a few thousand rows at a time, so that the rows of a large
    chunk are never all in memory as text at once.
    """

    rows: int
    statuses: dict[str, int]
    _inputs: list[str]
    _tails: np.ndarray[Any, np.dtype[np.object_]]

    def batches(self, rows: int = BATCH_ROWS) -> Iterator[str]:
        for start in range(0, self.rows, rows):
            stop = start + rows
            pairs = zip(self._inputs[start:stop], self._tails[start:stop], strict=True)
            yield TERMINATOR.join(map(",".join, pairs)) + TERMINATOR


def enrich_chunk(
    chunk: pd.DataFrame, column: str, table: HandleTable, handles: HandleMap
) -> EnrichedChunk:
    """``chunk`` (its columns untouched) with the table's cells for each row joined on.

    Example: ``"".join(enrich_chunk(chunk, "handle", table, handles).batches())`` is, byte for
    byte, ``to_csv_cells(chunk.lookup.enrich_profiles("handle")).to_csv(index=False,
    header=False)`` when ``table`` was built from the handles of ``chunk`` alone, and a row of
    the whole file's output when built from the whole file's. ``chunk`` is not modified.
    """
    mapped = handles.map(chunk[column])
    tails, statuses = table.tails(mapped)
    codes = mapped.codes % len(tails)  # -1 (a missing value) is the last entry
    counts: dict[str, int] = {}
    for status, n in zip(statuses, np.bincount(codes, minlength=len(tails)).tolist(), strict=True):
        if n:
            counts[status] = counts.get(status, 0) + n
    return EnrichedChunk(
        rows=len(chunk), statuses=counts, _inputs=csv_parts(chunk), _tails=tails[codes]
    )


class PartFile:
    """A text file that appears under its name only when complete.

    Example::

        with PartFile("out.csv") as part:   # writes .out.csv.<random>.part beside it
            part.handle.write("a,b\\n")
            part.commit()                    # renamed onto out.csv (os.replace: atomic)

    Leaving the block without ``commit()`` (an error, Ctrl-C) removes the part file, and
    ``out.csv`` is as it was. The part file is made in the real target's directory (a
    symbolic link is followed, as writing through it would), with the mode a new file gets
    (the umask applies), or the mode of the file it replaces. UTF-8, no newline translation:
    the bytes ``DataFrame.to_csv(path)`` would write.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.target = Path(os.path.realpath(path))
        self.path = self.target.with_name(f".{self.target.name}.{secrets.token_hex(4)}.part")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            self.handle: TextIO = open(fd, "w", encoding="utf-8", newline="")  # noqa: SIM115
        except BaseException:
            os.close(fd)
            self.path.unlink(missing_ok=True)
            raise
        self.committed = False

    def commit(self) -> None:
        """Close the part file and put it in place of the target, at once."""
        self.handle.close()
        with contextlib.suppress(FileNotFoundError):  # a new file: the mode it was made with
            os.chmod(self.path, stat.S_IMODE(os.stat(self.target).st_mode))
        os.replace(self.path, self.target)
        self.committed = True

    def discard(self) -> None:
        """Close and remove the part file (nothing happens to the target)."""
        self.handle.close()
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> PartFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.committed:
            self.discard()
