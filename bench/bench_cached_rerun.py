"""Cached re-run: 10,000 rows / 2,000 distinct handles, all cached, a new Client on the cache.

Figure: time per distinct handle of the whole enrichment (normalising, cache reads, building the
frame) / time per hit of a bare requests-cache CachedSession on the same URLs and file.
Goal <= 1.5, with 0 requests sent. The same re-run offline (``Client(offline=True)``, issue
25: the cache read ahead, no first contact) is measured against the same bare hit.
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

        times = {}
        for offline in (False, True):
            with Client(
                api_key=svc.api_key, base_url=svc.base_url, cache=cache, offline=offline
            ) as client:
                started = time.perf_counter()
                out = frame.lookup.enrich_profiles("handle", client=client, progress=False)
                times[offline] = (time.perf_counter() - started) / DISTINCT
            assert (out["lookup_status"] == "ok").all()
        ours, offline_each = times[False], times[True]

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
        print(
            f"   offline: {offline_each * 1e6:.0f} us per distinct handle; ratio "
            f"{offline_each / bare_each:.2f} (goal <= 1.5); requests sent {svc.count()} in all"
        )


if __name__ == "__main__":
    main()
