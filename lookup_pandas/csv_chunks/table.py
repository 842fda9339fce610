"""Pass 2 of a chunked CSV: each distinct handle's new cells as CSV once, chunks pick theirs.

Example: ``enrich_chunk(chunk, "handle", table, handles).batches()`` (the package's doctest
runs both passes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..api.columns import ERROR_COLUMN, STATUS_COLUMN
from ..enrichment.results import INVALID, OK, LookupResult
from ..frames.records import PERSON_FIELDS, prefixed_names, to_csv_cells
from ..identifiers.distinct import HandleMap, Mapped
from .csv_text import TERMINATOR, csv_header, csv_parts
from .json_records import ColumnKinds, FlatRecords
from .scan import InputChanged

#: Rows joined into one string before it is written (about a MiB of text for rich records:
#: larger batches add tens of MiB to the peak, for no speed).
BATCH_ROWS = 1_000
#: Distinct handles whose cells are written as CSV at once when the table is built (their
#: records are Python objects meanwhile).
TABLE_SLICE = 500


class HandleTable:
    """The new cells of every distinct handle, written as CSV once. Rows pick theirs.

    ``result`` is :func:`~lookup_pandas.enrichment.lookup.lookup_values` over ``distinct``, which
    handed its records to ``records``. The table takes them out, so ``records`` ends empty. The
    columns are ``fields``, then the other fields in first-seen order, then the status and the
    error: what ``enrich_profiles`` over the whole file gives, with the same dtypes. ``own``
    prefixes the status and error names, as ``check_columns`` says for an enriched input.

    Example: ``HandleTable(scan.distinct, result, "profile_", records).columns`` ->
    ``["profile_id", "profile_handle", ..., "lookup_status", "lookup_error"]``
    """

    def __init__(
        self,
        distinct: Sequence[str],
        result: LookupResult,
        prefix: str,
        records: FlatRecords,
        fields: Iterable[str] = PERSON_FIELDS,
        own: str = "",
    ) -> None:
        if len(result.status) != len(distinct):
            raise ValueError("result must be the lookup of `distinct`, one value each")
        found = [h for h, status in zip(distinct, result.status, strict=True) if status == OK]
        if len(records) != len(found) or not all(h in records for h in found):
            raise ValueError("records must hold the record of every handle found, and no other")
        kinds = ColumnKinds()
        for example in records.examples(found):
            kinds.add(example)
        first = list(fields)  # every result has these: PERSON_FIELDS, or a Kind's fields
        order = [*first, *(c for c in kinds.columns if c not in first)]
        dtypes = kinds.dtypes()
        names = prefixed_names(order, prefix)
        statuses = [own + STATUS_COLUMN, own + ERROR_COLUMN]
        self.columns: list[str] = [*(names[c] for c in order), *statuses]
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
            rows = typed.reindex(index=pd.Index(distinct[start:stop], dtype=object), columns=order)
            cells = to_csv_cells(rows.rename(columns=names).reset_index(drop=True))
            cells = _with_status(cells, result.status[start:stop], result.error[start:stop])
            self._tails[start:stop] = csv_parts(cells)
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
            row = _with_status(self._blank, [INVALID], [error])
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


def _with_status(
    cells: pd.DataFrame, statuses: list[str], errors: list[str | None]
) -> pd.DataFrame:
    """``cells`` with the status and error columns after them, as text."""
    return cells.assign(
        **{
            STATUS_COLUMN: pd.Series(statuses, cells.index, "str"),
            ERROR_COLUMN: pd.Series(errors, cells.index, "str"),
        }
    )


@dataclass(frozen=True)
class EnrichedChunk:
    """A chunk with its new cells joined on, as CSV text without a header, and its rows' statuses.

    ``batches()`` yields the text :data:`BATCH_ROWS` rows at a time, so a large chunk's rows are
    never all in memory as text at once.
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
    """``chunk`` with the table's cells for each row joined on. ``chunk`` is not modified.

    The text is, byte for byte, these rows of ``enrich_profiles`` over the whole file, as
    ``to_csv`` writes them.

    Example: ``"".join(enrich_chunk(chunk, "handle", table, handles).batches())``
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
