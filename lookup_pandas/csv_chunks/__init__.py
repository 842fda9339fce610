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

This is what ``lookup-pandas enrich --chunksize N`` does (and, unasked, in chunks of
:data:`CHUNK_ROWS` rows for an input of more than :data:`AUTO_CHUNK_ROWS` rows). The output is
the same, byte for byte, as enriching the whole file at once and writing it with ``to_csv``.
The modules: :mod:`.scan` (pass 1: when to chunk, the distinct handles of the raw values, each
normalised once by :class:`lookup_pandas.identifiers.distinct.HandleMap`), :mod:`.records` (records
kept
as text, their dtypes), :mod:`.csvtext` (CSV text as pandas writes it), :mod:`.table` (pass 2: each
handle's cells, joined onto chunks), :mod:`.partfile` (the output appears only when complete).
"""

from __future__ import annotations

from .csv_text import TERMINATOR, csv_header, csv_parts, split_records
from .json_records import ColumnKinds, RecordStore
from .part_file import PartFile
from .scan import (
    AUTO_CHUNK_ROWS,
    CHUNK_ROWS,
    HandleMap,
    InputChanged,
    Mapped,
    Scan,
    chunk_rows,
    scan_handles,
)
from .table import BATCH_ROWS, TABLE_SLICE, EnrichedChunk, HandleTable, enrich_chunk

__all__ = [
    "AUTO_CHUNK_ROWS",
    "BATCH_ROWS",
    "CHUNK_ROWS",
    "TABLE_SLICE",
    "TERMINATOR",
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
