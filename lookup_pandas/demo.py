"""The demo behind ``lookup-pandas demo`` and ``make demo``: the emulator, end to end.

Example::

    from lookup_pandas.demo import run_demo
    run_demo()      # prints a profile, an employees walk, a search, and a free re-run

It starts the emulator in-process (with a little latency, as a real network has), so it needs
no key and no network, and it never prints the key.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .client import EMPLOYEES_PATH, SEARCH_PATH, Client

__all__ = ["run_demo"]


def _walks(client: Client, *, progress: bool) -> tuple[dict | None, list[dict], list[dict]]:
    person = client.profile("ada-lovelace")
    employees = list(
        client.paginate(EMPLOYEES_PATH, {"slug": "acme", "limit": 50}, progress=progress)
    )
    people = list(
        client.paginate(SEARCH_PATH, {"title": "data scientist", "limit": 50},
                        max_records=120, progress=progress)
    )
    return person, employees, people


def run_demo(cache_dir: Path | None = None, *, latency: float = 0.02) -> int:
    """Run the demo; returns 0 (the exit code)."""
    from .testing import FakeService

    own_dir = cache_dir is None
    workdir = Path(tempfile.mkdtemp(prefix="lookup-pandas-demo-")) if own_dir else cache_dir
    workdir.mkdir(parents=True, exist_ok=True)
    cache = workdir / "demo-cache.sqlite"
    try:
        with FakeService(latency=latency, rate_limit_per_minute=3000) as svc:
            print(f"Emulator running at {svc.base_url} (latency {latency * 1000:.0f} ms, "
                  "3000 calls/min)\n")
            with Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache) as client:
                person, employees, people = _walks(client, progress=True)
                sent = client.stats.sent
                print(f"\nPaced at {client.rate_limit_per_minute:.0f} calls/min "
                      "(95% of the limit the credits-tier endpoint reported)")
            assert person is not None
            print(f"\nProfile  ada-lovelace -> {person['id']}: {person['full_name']}, "
                  f"{person['headline']} ({person['geo']['city']})")
            print(f"Employees of acme: {len(employees)} records in "
                  f"{svc.count(EMPLOYEES_PATH)} pages of 50")
            print(f"Search 'data scientist': first {len(people)} records in "
                  f"{svc.count(SEARCH_PATH)} cursor pages")
            for rec in people[:3]:
                print(f"  {rec['id']}  {rec['full_name']:<22} {rec['title']}")
            print(f"Requests sent: {sent}, credits consumed: {client.stats.credits_consumed:g}")

            data_before = svc.count() - svc.count("/api/panel/credits/tier/k/")
            with Client(api_key=svc.api_key, base_url=svc.base_url, cache=cache) as again:
                _walks(again, progress=False)
                rerun = svc.count() - svc.count("/api/panel/credits/tier/k/") - data_before
                print(f"\nRe-run with a new Client on the same cache: {rerun} billable calls, "
                      f"{again.stats.cache_hits} answers from the cache, "
                      f"{again.stats.credits_consumed:g} credits.")
        if not own_dir:
            print(f"Cache file: {cache}")
        return 0
    finally:
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)
