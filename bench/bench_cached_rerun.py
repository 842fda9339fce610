"""Cached re-run: 10,000 rows / 2,000 distinct handles, all cached, a new Client on the cache.

Figure: time per distinct handle of the whole enrichment (normalising, cache reads, building the
frame) / time per hit of a bare requests-cache CachedSession on the same URLs and file.
Goal <= 1.5, with 0 requests sent.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import leads
from requests_cache import CachedSession, SQLiteCache

from lookup_pandas import Client
from lookup_pandas.testing import PROFILE, FakeService

ROWS, DISTINCT = 10_000, 2_000


def main() -> None:
    frame = leads(ROWS, DISTINCT, "cached")
    with tempfile.TemporaryDirectory() as tmp, FakeService(rate_limit_per_minute=None) as svc:
        cache = Path(tmp) / "c.sqlite"
        with Client(
            api_key=svc.api_key, base_url=svc.base_url, cache=cache, rate_limit_per_minute=10**7
        ) as warm:
            frame.lookup.enrich_profiles("handle", client=warm, progress=False)
        svc.reset()

        with Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache) as client:
            started = time.perf_counter()
            out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
            ours = (time.perf_counter() - started) / DISTINCT
        assert (out["lookup_status"] == "ok").all()

        bare = CachedSession(backend=SQLiteCache(cache, wal=True))
        urls = [svc.base_url + PROFILE for _ in range(DISTINCT)]
        handles = frame["handle"].drop_duplicates().tolist()
        started = time.perf_counter()
        hits = sum(
            bare.get(u, params={"handle": h}).from_cache for u, h in zip(urls, handles, strict=True)
        )
        bare_each = (time.perf_counter() - started) / DISTINCT
        bare.close()
        print(
            f"   lookup_pandas {ours * 1e6:.0f} us per distinct handle; bare CachedSession hit "
            f"{bare_each * 1e6:.0f} us ({hits}/{DISTINCT} hits); ratio {ours / bare_each:.2f} "
            f"(goal <= 1.5); requests sent {svc.count()}"
        )


if __name__ == "__main__":
    main()
