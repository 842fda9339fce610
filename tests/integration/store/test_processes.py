"""Processes on one machine sharing one key and one cache file: one pace, no answer bought twice.

Every test runs separate OS processes (``sys.executable -c CHILD``), configured only by the
environment (``LOOKUP_API_KEY``, ``LOOKUP_BASE_URL``, ``LOOKUP_CACHE``: one cache file under
tmp_path, so one ``<cache>.store.sqlite`` beside it), against the session's emulator over
loopback. Each child imports everything, builds its Client, prints ``ready`` and waits for a
start file, so interpreter start-up is neither timed nor allowed to spread the starts apart.

1. Three processes, distinct lists of 60 handles, ``method="single"``, the emulator enforcing
   600/min (burst 3): at most 5% of the answers 429, and the elapsed time from the start
   signal to the last process done at most 1.3 x the bound (180 handles / 10 per s = 18 s;
   pacing at 95% of the limit is 1.053 x). Without one shared pace, three processes at 95% of
   the limit each meet 429 after 429.
2. Three processes enriching overlapping lists at once (single calls, then the default method,
   batch jobs): every handle paid exactly once, every row right.
3. A holder that dies: a child claims a handle (ttl 2 s) and is SIGKILLed; another process
   enriching that handle waits for the claim, takes it over once it expired, pays once.
4. A 429 with ``Retry-After: 2`` answered to one process: for the next 2 s no process takes a
   new slot (the emulator's timestamps: each process sends from one thread, so at most one
   slot it took before the 429 can still go out), where unshared processes send ~35 requests.
5. A 429 naming a lower limit (300/min) slows every process to 95% of it, not only the one
   that was told.

Per-key counters of the emulator (``rate_limited(key=)``, ``billed_handles(key=)``) judge the
outcome; every wait is bounded, and every child is killed if a test ends early.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lookup_pandas.store import store_path
from lookup_pandas.testing import PROFILE, TIER, FakeService
from lookup_pandas.testing.replies import Reply, Request, fail

from ..enrich_helpers import expected_status, person_id

pytestmark = pytest.mark.timeout(300)

#: Seconds a child may take to import and build its Client, and to finish its work.
READY_WITHIN, DONE_WITHIN = 60.0, 180.0

CHILD = textwrap.dedent(
    """
    import json
    import os
    import sys
    import time

    import pandas as pd

    import lookup_pandas as lp
    from lookup_pandas.identifiers.kinds import PEOPLE

    spec = json.loads(sys.argv[1])
    handles = spec["handles"]
    client = lp.Client(batch_poll_interval=0.1)  # key, base URL and cache from the environment
    if spec["mode"] == "claim":
        key = client.parts.cache.keys(handles, PEOPLE)[handles[0]]
        before = time.monotonic()
        state = client.parts.store.claim_many([key], ttl=spec["ttl"])[key]
        print("claimed " + json.dumps({"state": state, "before": before}), flush=True)
        time.sleep(120)  # holds the claim until killed
        sys.exit(3)
    print("ready", flush=True)
    deadline = time.monotonic() + 60
    while not os.path.exists(spec["start"]):
        if time.monotonic() > deadline:
            sys.exit("no start signal within 60 s")
        time.sleep(0.005)
    started = time.time()
    started_mono = time.monotonic()
    rows = []
    if spec["mode"] == "enrich":
        frame = pd.DataFrame({"handle": handles})
        out = frame.lookup.enrich_profiles(
            "handle", client=client, method=spec["method"], progress=False
        )
        rows = list(zip(out["lookup_status"], out["profile_id"].fillna("").astype(str)))
    else:  # "profiles": one thread, one call after another
        for h in handles:
            record = client.profile(h)
            rows.append(("ok" if record else "not_found", record["id"] if record else ""))
    done = time.time()
    stats = client.stats
    client.close()
    report = {
        "started": started,
        "started_mono": started_mono,
        "done": done,
        "rows": rows,
        "sent": stats.sent,
        "rate_limited": stats.rate_limited,
    }
    print("done " + json.dumps(report), flush=True)
    """
)


def child_env(svc: FakeService, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(LOOKUP_API_KEY=svc.api_key, LOOKUP_BASE_URL=svc.base_url, LOOKUP_CACHE=str(cache))
    return env


def wait_until(condition: Any, within: float, step: float = 0.01) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


@dataclass
class Child:
    """One child process; its stdout and stderr go to files under tmp_path."""

    name: str
    proc: subprocess.Popen[bytes]
    out: Path
    err: Path
    report: dict[str, Any] = field(default_factory=dict)

    def output(self) -> str:
        return self.out.read_text() if self.out.exists() else ""

    def line(self, prefix: str) -> str | None:
        for line in self.output().splitlines():
            if line.startswith(prefix):
                return line
        return None

    def describe(self) -> str:
        err = self.err.read_text() if self.err.exists() else ""
        return f"{self.name}: exit {self.proc.poll()}, stdout {self.output()!r}, stderr {err}"


class Team:
    """Children sharing one key and one cache file, started together by one start file."""

    def __init__(self, svc: FakeService, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.cache = tmp_path / "shared.sqlite"
        self.env = child_env(svc, self.cache)
        self.start_file = tmp_path / "start"
        self.children: list[Child] = []
        self.started_at = 0.0  # time.time() when the start file was made

    def spawn(self, name: str, **spec: Any) -> Child:
        spec.setdefault("start", str(self.start_file))
        out, err = self.tmp / f"{name}.out", self.tmp / f"{name}.err"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            proc = subprocess.Popen(
                [sys.executable, "-c", CHILD, json.dumps(spec)],
                stdout=stdout,
                stderr=stderr,
                env=self.env,
            )
        child = Child(name, proc, out, err)
        self.children.append(child)
        return child

    def wait_ready(self, children: list[Child]) -> None:
        def ready() -> bool:
            for c in children:
                assert c.proc.poll() is None or c.line("ready"), c.describe()
            return all(c.line("ready") for c in children)

        assert wait_until(ready, READY_WITHIN), [c.describe() for c in children]

    def go(self) -> None:
        self.started_at = time.time()
        self.start_file.touch()

    def finish(self, children: list[Child]) -> list[dict[str, Any]]:
        """Wait for each child (bounded); each must exit 0 with its report."""
        for c in children:
            try:
                c.proc.wait(timeout=DONE_WITHIN)
            except subprocess.TimeoutExpired:
                pytest.fail(f"still running after {DONE_WITHIN} s: {c.describe()}")
            line = c.line("done ")
            assert c.proc.returncode == 0 and line, c.describe()
            err = c.err.read_text()
            assert "Traceback" not in err and "database is locked" not in err, err
            c.report = json.loads(line.removeprefix("done "))
        return [c.report for c in children]

    def kill_all(self) -> None:
        for c in self.children:
            if c.proc.poll() is None:
                c.proc.kill()
            c.proc.wait(timeout=30)


@pytest.fixture
def team(fake_service: FakeService, tmp_path: Path) -> Iterator[Team]:
    t = Team(fake_service, tmp_path)
    try:
        yield t
    finally:
        t.kill_all()


def run_together(team: Team, specs: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Start one child per spec, wait until all are ready, start them at once, collect."""
    children = [team.spawn(name, **spec) for name, spec in specs.items()]
    team.wait_ready(children)
    team.go()
    return team.finish(children)


def assert_rows(report: dict[str, Any], handles: list[str]) -> None:
    """Each row as the emulator's data says, carrying its own handle's record."""
    statuses = [s for s, _ in report["rows"]]
    assert statuses == [expected_status(h) for h in handles]
    for h, (status, got) in zip(handles, report["rows"], strict=True):
        if status == "ok":
            assert got == person_id(h), h


def profile_requests(svc: FakeService) -> list[Any]:
    return [r for r in svc.requests if r.path == PROFILE]


# -- 1. one pace for three processes ---------------------------------------------------------


def test_three_processes_on_one_key_keep_to_the_limit_together(fake_service, team):
    svc = fake_service
    limit, each = 600, 60
    svc.configure(rate_limit_per_minute=limit, rate_burst=3, latency=0.01)
    lists = {f"p{i}": [f"pace{i}-{j:03d}" for j in range(each)] for i in range(3)}
    reports = run_together(
        team, {n: {"mode": "enrich", "handles": hs, "method": "single"} for n, hs in lists.items()}
    )

    elapsed = max(r["done"] for r in reports) - team.started_at
    distinct = sum(len(hs) for hs in lists.values())
    bound = distinct / (limit / 60)
    key = svc.api_key
    answered, limited = svc.count(key=key), svc.rate_limited(key=key)
    summary = (
        f"{distinct} handles in {elapsed:.1f} s (bound {bound:.1f} s, ratio "
        f"{elapsed / bound:.3f}); {limited} of {answered} answered 429"
    )
    for name, report in zip(lists, reports, strict=True):
        assert_rows(report, lists[name])
    assert svc.billed_handles(key=key) == Counter({h: 1 for hs in lists.values() for h in hs})
    assert store_path(team.cache).is_file()
    print(summary)
    assert limited <= 0.05 * answered, summary
    assert elapsed <= 1.3 * bound, summary


# -- 2. no answer bought twice ---------------------------------------------------------------


def overlapping_lists() -> tuple[dict[str, list[str]], set[str]]:
    """Three lists of 60: 30 handles in all three (3 unknown), 10 in each pair, 10 of its
    own; the shared handles at the same places in every list, so all reach them at once."""
    everyone = [f"all-{i:02d}" for i in range(27)] + [f"unknown-all-{i}" for i in range(3)]
    pairs = {pair: [f"pair{pair}-{i:02d}" for i in range(10)] for pair in ("01", "12", "02")}
    lists = {}
    for p in range(3):
        rest = [h for pair, hs in pairs.items() if str(p) in pair for h in hs]
        rest += [f"own{p}-{i:02d}" for i in range(10)]
        lists[f"p{p}"] = [h for i, s in enumerate(everyone) for h in (s, rest[i])]
    union = {h for hs in lists.values() for h in hs}
    assert all(len(hs) == len(set(hs)) == 60 for hs in lists.values()) and len(union) == 90
    return lists, union


@pytest.mark.parametrize("method", ["single", "auto"])
def test_three_processes_enriching_overlapping_lists_pay_each_handle_once(
    fake_service, team, method
):
    svc = fake_service
    svc.configure(latency=0.02)  # a call in flight long enough for the others to meet it
    lists, union = overlapping_lists()
    spec = {"mode": "enrich", "method": method}
    reports = run_together(team, {n: {**spec, "handles": hs} for n, hs in lists.items()})

    for name, report in zip(lists, reports, strict=True):
        assert_rows(report, lists[name])
    billed = svc.billed_handles(key=svc.api_key)
    twice = {h: n for h, n in billed.items() if n != 1}
    assert twice == {}, twice
    assert set(billed) == union
    if method == "auto":
        assert svc.count(method="POST") >= 1  # batch jobs were used


# -- 3. a holder that dies -------------------------------------------------------------------


def test_a_claim_whose_holder_was_killed_is_taken_over_at_once(fake_service, team):
    # Issue 21: a killed holder's claims froze the next run until they expired (9 minutes).
    # On the same machine the store sees the holder's process is gone and takes over at once.
    svc = fake_service
    handle, ttl = "orphan-ada", 60.0
    waiter = team.spawn("waiter", mode="enrich", handles=[handle], method="single")
    team.wait_ready([waiter])
    holder = team.spawn("holder", mode="claim", handles=[handle], ttl=ttl)
    assert wait_until(lambda: holder.line("claimed ") is not None, READY_WITHIN), holder.describe()
    claimed = json.loads((holder.line("claimed ") or "").removeprefix("claimed "))
    assert claimed["state"] == "mine"
    holder.proc.send_signal(signal.SIGKILL)  # dies holding the claim: nobody releases it
    assert holder.proc.wait(timeout=30) == -signal.SIGKILL
    team.go()
    (report,) = team.finish([waiter])

    assert_rows(report, [handle])
    expires = claimed["before"] + ttl
    (bought,) = [r for r in profile_requests(svc) if r.param("handle") == handle]
    assert bought.at < expires, (bought.at, expires)  # long before the claim would expire
    assert svc.billed_handles(key=svc.api_key) == Counter({handle: 1})


# -- 4. and 5. a 429 seen by one process holds for all ---------------------------------------


class RateLimitOnce:
    """Answer the ``nth`` profile request 429 with Retry-After and the limit named; record
    which handle it was for. Every other request is answered as usual."""

    def __init__(self, nth: int, retry_after: int, current_limit: float) -> None:
        self.nth, self.retry_after, self.current_limit = nth, retry_after, current_limit
        self.seen = 0
        self.handle: str | None = None
        self._lock = threading.Lock()

    def __call__(self, req: Request) -> Reply | None:
        with self._lock:
            self.seen += 1
            if self.seen != self.nth:
                return None
            self.handle = req.param("handle")
        return fail(
            429,
            "Rate limit exceeded; slow down",
            errors={"current_tier": "Emulator", "current_limit": self.current_limit},
            **{"Retry-After": str(self.retry_after)},
        )


def lists_for(tag: str, each: int) -> dict[str, list[str]]:
    return {f"p{i}": [f"{tag}{i}-{j:03d}" for j in range(each)] for i in range(3)}


def test_a_retry_after_seen_by_one_process_defers_every_process(fake_service, team):
    svc = fake_service
    svc.configure(rate_limit_per_minute=600)  # burst 50 (the suite's): no 429 of its own
    once = RateLimitOnce(nth=30, retry_after=2, current_limit=600)
    svc.override(PROFILE, once)
    lists = lists_for("defer", 40)
    reports = run_together(
        team, {n: {"mode": "profiles", "handles": hs} for n, hs in lists.items()}
    )

    for name, report in zip(lists, reports, strict=True):
        assert_rows(report, lists[name])
    answered_429 = [(r.param("handle"), r.at) for r in svc.requests if r.status == 429]
    assert len(answered_429) == 1, f"not the scripted 429 alone: {answered_429}"
    assert svc.rate_limited(key=svc.api_key) == 1
    (limited,) = [r for r in svc.requests if r.status == 429]
    assert limited.path == PROFILE and limited.param("handle") == once.handle
    at = limited.at
    # Until the 2 s are over (less 0.05 s for the clocks), nobody takes a new slot. A slot
    # handed out before the deferral may still be used: at most one per other process, as
    # each sends from one thread; the process told sends nothing. Unshared, the two others
    # would send ~35 requests in the window.
    told = once.handle.split("-")[0] if once.handle else ""
    window = [r for r in profile_requests(svc) if at < r.at < at + 1.95]
    shown = [(r.param("handle"), round(r.at - at, 3)) for r in window]
    per_process = Counter(r.param("handle").split("-")[0] for r in window)
    assert told not in per_process, shown
    assert all(n <= 1 for n in per_process.values()), shown
    retry = [r for r in profile_requests(svc) if r.param("handle") == once.handle and r.at > at]
    assert len(retry) == 1 and retry[0].at >= at + 1.95  # the one told waited too
    later = [r for r in profile_requests(svc) if r.at > at + 2]
    assert {r.param("handle").split("-")[0] for r in later} == {"defer0", "defer1", "defer2"}
    assert svc.billed_handles(key=svc.api_key) == Counter(
        {h: 1 for hs in lists.values() for h in hs}
    )


def test_a_lower_limit_named_by_a_429_slows_every_process(fake_service, team):
    svc = fake_service
    svc.configure(rate_limit_per_minute=600)
    named = 300  # the 429 says the limit is 300/min: everyone paces at 285/min from then on
    once = RateLimitOnce(nth=15, retry_after=1, current_limit=named)
    svc.override(PROFILE, once)
    lists = lists_for("slow", 20)
    reports = run_together(
        team, {n: {"mode": "profiles", "handles": hs} for n, hs in lists.items()}
    )

    for name, report in zip(lists, reports, strict=True):
        assert_rows(report, lists[name])
    answered_429 = [(r.param("handle"), r.at) for r in svc.requests if r.status == 429]
    assert len(answered_429) == 1, f"not the scripted 429 alone: {answered_429}"
    (limited,) = [r for r in svc.requests if r.status == 429]
    after = [r.at for r in profile_requests(svc) if r.at > limited.at + 1.0]
    interval = 60 / (0.95 * named)
    assert len(after) >= 10, len(after)  # (45 are left to send at the new pace)
    # A request may arrive late, but the slots are `interval` apart: n requests span at
    # least n - 2 intervals. At the old pace (~0.105 s) they would span half that.
    span = after[-1] - after[0]
    assert span >= (len(after) - 2) * interval, (span, len(after), interval)
    # Each process learned the pace once; the one that met the 429 read the tier again (as
    # production advises), which named a faster pace that did not undo the 429's slow-down.
    assert svc.count(TIER) == 4
