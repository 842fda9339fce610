"""Enriching a CSV file chunk by chunk: memory that does not grow with the file's length.

Pass 1 (:mod:`.scan`) collects the distinct handles. They are looked up once, their records
kept as JSON text (:mod:`.json_records`). Pass 2 (:mod:`.table`) joins each handle's cells
onto each chunk, as CSV text (:mod:`.csv_text`), into a file that appears only when complete
(:mod:`.part_file`).

Example:
    >>> import pandas as pd
    >>> import lookup_pandas as lp
    >>> from lookup_pandas.enrichment.plan import Options
    >>> from lookup_pandas.enrichment.lookup import lookup_values
    >>> from lookup_pandas.identifiers.kinds import PEOPLE
    >>> from lookup_pandas.testing import MockTransport, people_service
    >>> from lookup_pandas.csv_chunks.json_records import FlatRecords
    >>> from lookup_pandas.csv_chunks.scan import HandleMap, scan_handles
    >>> from lookup_pandas.csv_chunks.table import HandleTable, enrich_chunk
    >>> answer = people_service(
    ...     {"id": "prsn_1", "handle": "ada"}, limit_per_minute=600, balance=100
    ... )
    >>> client = lp.Client(api_key="lk_example", base_url="http://service.test", cache=False,
    ...                    transport=MockTransport(answer))
    >>> chunks = [pd.DataFrame({"handle": ["ada", ""]}), pd.DataFrame({"handle": ["Ada"]})]
    >>> handles = HandleMap(kind=PEOPLE)
    >>> scan = scan_handles((chunk["handle"] for chunk in chunks), handles)  # pass 1
    >>> records = FlatRecords()
    >>> result = lookup_values(scan.distinct, client=client, kind=PEOPLE, on_record=records.add,
    ...                        options=Options(progress=False))  # each distinct handle once
    >>> table = HandleTable(scan.distinct, result, "profile_", records)
    >>> [enrich_chunk(chunk, "handle", table, handles).statuses for chunk in chunks]  # pass 2
    [{'ok': 1, 'invalid': 1}, {'ok': 1}]
    >>> client.close()
"""
