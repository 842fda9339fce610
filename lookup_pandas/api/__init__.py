"""The DataFrame functions (``lp.get_profiles``, ``df.lookup.enrich_profiles``, listings and
searches), the columns they add and the adapters that give them to pandas, polars and Dask."""
