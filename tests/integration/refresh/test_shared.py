"""``refresh="changed"`` by several processes sharing one cache: each mover is bought once.

The lead list is bought once, by this process; some leads move. Then two OS processes (their
key, base URL and cache from the environment, each its own HOME) refresh the same list at once,
started together by a start file. Between them they buy each mover exactly once, and both
frames show every mover's new title. The cache is one SQLite file (its store beside it), or a
real Redis (``redis_fixture``; skipped without ``redis-server`` unless
``LOOKUP_REQUIRE_REDIS=1``).

Also, in this process: two Clients on one cache, the second refreshing while the first has
bought the movers but not yet marked their events acted on (its ``after_run`` held back).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import lookup_pandas as lp
from lookup_pandas.enrichment import lookup
from lookup_pandas.testing import FakeService

from ..helpers import make_client, wait_until
from .world import CHANGED, Tally, enrich, move_every, spread_leads, summary_of

pytestmark = pytest.mark.timeout(240)

#: A child: waits for the start file, refreshes the list, prints one JSON line.
REFRESHER = textwrap.dedent(
    """
    import json, os, sys, time
    import pandas as pd
    import lookup_pandas as lp

    handles, start = json.loads(sys.argv[1]), sys.argv[2]
    client = lp.Client(backoff_base=0.01, backoff_max=0.2, batch_poll_interval=0.05)
    print("ready", flush=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(start) and time.monotonic() < deadline:
        time.sleep(0.005)
    out = pd.DataFrame({"handle": handles}).lookup.enrich_profiles(
        "handle", client=client, refresh="changed", progress=False)
    counts = out.lookup.summary.refresh
    client.close()
    print(json.dumps({"headline": dict(zip(out["handle"], out["profile_headline"])),
                      "status": sorted(set(out["lookup_status"])),
                      "moved": counts.moved, "pages": counts.feed_pages}), flush=True)
    """
)


def spawn(svc: FakeService, cache: str, home: Path, handles: list[str], start: Path) -> Any:
    """A refresher child, its output to files under ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOKUP_", "XDG_"))}
    home.mkdir(parents=True)
    env.update(HOME=str(home), LOOKUP_API_KEY=svc.api_key, LOOKUP_BASE_URL=svc.base_url,
               LOOKUP_CACHE=cache)  # fmt: skip
    with (home / "out").open("wb") as out, (home / "err").open("wb") as err:
        args = [sys.executable, "-c", REFRESHER, json.dumps(handles), str(start)]
        return subprocess.Popen(args, stdout=out, stderr=err, env=env)


def said(home: Path) -> list[str]:
    return (home / "out").read_text().splitlines() if (home / "out").exists() else []


@pytest.fixture(params=["sqlite", "redis"])
def shared_cache(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """One cache for every process: a SQLite file, or a flushed real Redis."""
    if request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        return url
    return str(tmp_path / "shared.sqlite")


@pytest.fixture
def children() -> Iterator[list[Any]]:
    procs: list[Any] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def test_two_processes_refreshing_at_once_buy_each_mover_once(
    fake_service, shared_cache, tmp_path, children
):
    svc = fake_service
    svc.configure(latency=0.005)  # calls in flight long enough for the other to meet them
    leads = spread_leads(companies=12, each=10)
    with make_client(svc, cache=shared_cache) as client:
        enrich(leads, client)
    movers = move_every(svc, leads, 10)
    before = Tally.of(svc)
    start, homes = tmp_path / "start", [tmp_path / "a", tmp_path / "b"]
    children.extend(spawn(svc, shared_cache, home, leads, start) for home in homes)
    assert wait_until(lambda: all("ready" in said(h) for h in homes), within=60), homes
    start.touch()
    for proc, home in zip(children, homes, strict=True):
        assert proc.wait(timeout=180) == 0, (home / "err").read_text()
    reports = [json.loads(said(h)[-1]) for h in homes]
    spent = Tally.of(svc) - before

    print(f"two processes: {spent.credits:g} credits, {spent.pages} feed pages, "
          f"{len(movers)} movers; moved seen {[r['moved'] for r in reports]}")  # fmt: skip
    assert spent.billed == Counter(list(movers))  # each mover once, between the two
    for report in reports:
        assert report["status"] == ["ok"]
        assert {h: report["headline"][h] for h in movers} == {
            h: r["headline"] for h, r in movers.items()
        }
    assert spent.pages == sum(r["pages"] for r in reports)
    assert spent.credits == len(movers) + spent.pages


def test_a_refresh_while_another_has_bought_the_movers_buys_none_again(
    fake_service, shared_cache, monkeypatch
):
    """The second Client refreshes after the first bought the movers, before the first marked
    their events acted on: the answers it finds are the new ones, so it buys nothing."""
    svc = fake_service
    leads = spread_leads(companies=4, each=10)
    first, second = make_client(svc, cache=shared_cache), make_client(svc, cache=shared_cache)
    try:
        enrich(leads, first)
        movers = move_every(svc, leads, 10, to="globex")
        seen: list[Tally] = []
        after_run: Callable[..., None] = lookup.after_run

        def meanwhile(client: lp.Client, *args: Any) -> None:
            if client is first:  # the movers are bought and cached; their events not yet marked
                time.sleep(0.01)  # the second's refresh starts after the purchases
                seen.append(Tally.of(svc))
                enrich(leads, second, refresh=CHANGED)
                seen.append(Tally.of(svc))
            after_run(client, *args)

        monkeypatch.setattr(lookup, "after_run", meanwhile)
        out = enrich(leads, first, refresh=CHANGED)
    finally:
        first.close()
        second.close()
    assert summary_of(out).refresh is not None and summary_of(out).refresh.moved == len(movers)
    between = seen[1] - seen[0]  # the second's refresh
    assert between.billed == Counter(), between.billed  # no mover bought twice
    assert between.credits == between.pages
