"""The arrow types of the records' nested fields: the typed schema of lazy and polars frames.

A pandas frame keeps a list of dicts as Python objects, and pyarrow infers its type from the
values when the frame is written. A lazy Dask frame has no values to infer from, and a column
no record filled has none either: these types are what such columns are written as. pyarrow
is imported when they are first asked for.

>>> str(arrow_types()["skills"])
'list<item: string>'
>>> sorted(nested_types({"id": "str", "skills": "object"}, "profile_"))
['profile_skills']
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

__all__ = ["arrow_types", "nested_types"]


@functools.cache
def arrow_types() -> dict[str, Any]:
    """Each nested field of a person's, a company's or a verdict's record, as production's
    records give it.

    A nested key not named here is not written where these types are used (Dask's parquet).
    """
    import pyarrow as pa  # type: ignore[import-untyped]

    month = pa.struct([("year", pa.int64()), ("month", pa.int64())])
    organization = pa.struct(
        [("id", pa.string()), ("name", pa.string()), ("slug", pa.string()), ("url", pa.string())]
    )
    return {
        "positions": pa.list_(
            pa.struct(
                [
                    ("title", pa.string()),
                    ("organization", organization),
                    ("start_date", month),
                    ("end_date", month),
                    ("is_current", pa.bool_()),
                ]
            )
        ),
        "education": pa.list_(
            pa.struct(
                [
                    ("school", pa.struct([("name", pa.string()), ("slug", pa.string())])),
                    ("degree", pa.string()),
                    ("field_of_study", pa.string()),
                    ("start_year", pa.int64()),
                    ("end_year", pa.int64()),
                ]
            )
        ),
        "skills": pa.list_(pa.string()),
        "certifications": pa.list_(
            pa.struct([("name", pa.string()), ("authority", pa.string()), ("year", pa.int64())])
        ),
        "languages": pa.list_(pa.struct([("name", pa.string()), ("proficiency", pa.string())])),
        "locations": pa.list_(
            pa.struct([("city", pa.string()), ("country_code", pa.string()), ("is_hq", pa.bool_())])
        ),
        "specialties": pa.list_(pa.string()),
        "mx_hosts": pa.list_(pa.string()),  # an address verified
    }


def nested_types(fields: Iterable[str] | None, prefix: str) -> dict[str, Any]:
    """The arrow type of each nested field among ``fields`` (every one: None), by column name.

    The column is named as enrichment names it: ``prefix + field``.
    """
    types = arrow_types()
    return {prefix + f: types[f] for f in (types if fields is None else fields) if f in types}
