"""``lookup-pandas enrich``: a CSV of handles, or of companies, enriched whole or in chunks.

People and companies take one path: the options' ``kind``.

Example: ``enrich(EnrichOptions(input="leads.csv", output="out.csv"))`` -> ``0``, with the
estimate before the job and the summary after it on stderr.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections import Counter
from collections.abc import Callable

from ..api.columns import check_columns
from ..csv_chunks.json_records import FlatRecords
from ..csv_chunks.scan import AUTO_CHUNK_ROWS, InputChanged, chunk_rows, scan_handles
from ..csv_chunks.table import HandleTable, enrich_chunk
from ..identifiers.distinct import HandleMap
from .estimate import print_estimate
from .exits import InputError
from .options import STDIN, EnrichOptions
from .output import check_output, open_output, target, write_frame
from .reading import count_rows, csv_chunks, file_size, read_csv
from .service_client import service_client


def enrich(options: EnrichOptions) -> int:
    """Enrich the whole file at once, or in chunks when asked or when it has many rows.

    A file of more than :data:`~lookup_pandas.csv_chunks.AUTO_CHUNK_ROWS` rows is chunked unasked.

    Example: ``enrich(EnrichOptions("accounts.csv", column="slug", companies=True))`` -> ``0``
    """
    from ..api import functions as api

    threshold = options.chunk_threshold or AUTO_CHUNK_ROWS
    counted = None if options.chunksize is not None else count_rows(options.input, threshold)
    rows = chunk_rows(options.chunksize, counted, threshold)
    if rows is not None:
        return enrich_in_chunks(options, rows)
    o = options
    leads = read_csv(o.input, o.encoding)
    check_output(o.output, source=o.input)
    check_columns(leads, o.column, o.prefix)
    with service_client(o.offline) as client:
        print_estimate(leads[o.column], o, client)
        summarised = api.enrich_companies_with_summary if o.companies else api.enrich_with_summary
        enriched, summary = summarised(leads, o.column, prefix=o.prefix, client=client, **o.job)
    write_frame(enriched, o.output)
    print(f"enriched {summary}{target(o.output)}", file=sys.stderr)
    return 0


def _check_chunkable(path: str) -> None:
    """Refuse standard input and pipes: chunks read the file twice."""
    exists = os.path.exists(path) and not os.path.isdir(path)
    if path == STDIN or (exists and file_size(path) is None):
        raise InputError(
            f"cannot read {path} in chunks: it is not a regular file, and chunks "
            "read it twice; pass --chunksize 0 to read it whole"
        )


def enrich_in_chunks(options: EnrichOptions, rows: int) -> int:
    """``enrich``, reading and writing ``rows`` rows at a time (:mod:`lookup_pandas.csv_chunks`).

    Pass 1 reads the whole file and keeps its distinct values, which are enriched as one job.
    Pass 2 reads it again and writes chunk by chunk, to a part file renamed onto ``-o`` when
    complete, or to stdout.

    Example: ``enrich_in_chunks(EnrichOptions("leads.csv", output="out.csv"), 10_000)`` -> ``0``
    """
    from ..enrichment.lookup import lookup_values
    from ..enrichment.plan import Options

    o = options
    started = time.perf_counter()
    _check_chunkable(o.input)
    header = read_csv(o.input, o.encoding, nrows=0)
    check_output(o.output, source=o.input)
    own = check_columns(header, o.column, o.prefix)  # an enriched input: the statuses' prefix
    # the client's settings are checked before the file is read through
    with service_client(o.offline) as client:
        handles = HandleMap(fold_case=o.fold_case, kind=o.kind)
        chunks = (c[o.column] for c in csv_chunks(o.input, o.encoding, rows))
        scan = scan_handles(chunks, handles)
        with open_output(o.output) as write:
            print_estimate(scan.distinct, o, client, rows=scan.rows, valid=scan.valid)
            records = FlatRecords()  # the job keeps no record: they are kept as text here
            result = lookup_values(
                scan.distinct,
                client=client,
                options=Options(**o.job),
                kind=o.kind,
                on_record=records.add,
            )
            summary = result.summary
            table = HandleTable(
                scan.distinct, result, o.prefix, records, fields=o.kind.fields, own=own
            )
            del result, records  # the table holds what is written
            parts, statuses = _write_chunks(o, rows, table, handles, write, total=scan.rows)
            written = sum(statuses.values())
            if written != scan.rows:  # the part file is removed, -o left as it was
                raise InputError(_changed(o.input, f"{scan.rows} rows, then {written}"))
    summary = dataclasses.replace(
        summary, rows=written, statuses=dict(statuses), seconds=time.perf_counter() - started
    )
    how = f"{parts} chunk{'s' * (parts != 1)} of {rows} row{'s' * (rows != 1)}"
    print(f"enriched {summary}; in {how}{target(o.output)}", file=sys.stderr)
    return 0


def _write_chunks(
    options: EnrichOptions,
    rows: int,
    table: HandleTable,
    handles: HandleMap,
    write: Callable[[str], object],
    *,
    total: int,
) -> tuple[int, Counter[str]]:
    """Pass 2: write each chunk with its new cells, the header first.

    Returns the number of chunks and the rows' statuses.
    """
    from ..display.progress import Progress

    o = options
    statuses: Counter[str] = Counter()
    parts = 0
    with Progress(o.progress, total=total, desc="rows written", unit=" row") as bar:
        for chunk in csv_chunks(o.input, o.encoding, rows):
            try:
                part = enrich_chunk(chunk, o.column, table, handles)
            except InputChanged as exc:
                raise InputError(_changed(o.input, str(exc))) from None
            if parts == 0:
                write(table.header(list(chunk.columns)))
            for text in part.batches():
                write(text)
            statuses.update(part.statuses)
            parts += 1
            bar.update(part.rows)
    return parts, statuses


def _changed(path: str, what: str) -> str:
    return (
        f"{path} changed while it was read in chunks ({what}); run again: what was fetched "
        "is cached"
    )
