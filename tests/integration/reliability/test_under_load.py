"""Reliability under load: chaos (faults + a tight rate limit), a key rotated mid-run, and two
processes / two thread pools sharing one cache file.

Everything runs against the real emulator over loopback and is judged by what the emulator saw
(requests, billing, faults), never by the wall clock.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import lookup_pandas as lp  # noqa: F401  registers df.lookup
from lookup_pandas import AuthenticationError
from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.testing import BATCH, FakeService
from lookup_pandas.testing.replies import Reply, Request, fail
from lookup_pandas.testing.state import FAULT_KINDS

from ..helpers import PROFILE, TIER, make_client

pytestmark = pytest.mark.timeout(600)

STATUS = "lookup_status"
CLI = [sys.executable, "-m", "lookup_pandas"]


# -- helpers ------------------------------------------------------------------------------------


def enrich(frame: pd.DataFrame, client: Any, **kwargs: Any) -> pd.DataFrame:
    kwargs.setdefault("progress", False)
    return frame.lookup.enrich_profiles("handle", client=client, **kwargs)


def billed_by_handle(svc: FakeService) -> Counter[str]:
    """Credits per handle (single lookups and batch items alike), from one snapshot."""
    return svc.billed_handles()


def assert_rows_right(out: pd.DataFrame, expected_handles: list[str]) -> None:
    """Every row ok, carrying the record of exactly the handle it asked for."""
    assert out["handle"].tolist() == expected_handles
    bad = out[out[STATUS] != "ok"]
    assert bad.empty, bad[["handle", STATUS, "lookup_error"]].head(10).to_dict("records")
    assert (out["profile_handle"] == out["handle"]).all()


def subprocess_env(svc: FakeService, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(LOOKUP_BASE_URL=svc.base_url, LOOKUP_API_KEY=svc.api_key, LOOKUP_CACHE=str(cache))
    return env


def run_concurrently(
    cmds: list[list[str]], env: dict[str, str], timeout: float = 180
) -> list[tuple[int, str, str]]:
    """Start every command at once, wait for all (bounded); (returncode, stdout, stderr) each."""
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for cmd in cmds
    ]
    results = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=timeout)
            results.append((proc.returncode, out, err))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return results


def overlapping_lists(tag: str, n_each: int = 300, n_shared: int = 100):
    """Two lead lists of ``n_each`` handles with ``n_shared`` in common, interleaved so both
    runs reach the shared handles at about the same time."""
    shared = [f"{tag}-shared{i:03d}" for i in range(n_shared)]
    only_a = [f"{tag}-a{i:03d}" for i in range(n_each - n_shared)]
    only_b = [f"{tag}-b{i:03d}" for i in range(n_each - n_shared)]

    def interleave(own: list[str]) -> list[str]:
        out: list[str] = []
        step = len(own) // n_shared
        for i, h in enumerate(shared):
            out.append(h)
            out.extend(own[i * step : (i + 1) * step])
        out.extend(own[n_shared * step :])
        return out

    a, b = interleave(only_a), interleave(only_b)
    assert len(a) == len(b) == n_each and len(set(a) & set(b)) == n_shared
    return a, b, set(shared)


def assert_shared_billing(svc: FakeService, a: list[str], b: list[str], shared: set[str]) -> None:
    """Each handle billed once; a handle both runs wanted at the same moment at most twice."""
    billed = billed_by_handle(svc)
    everything = set(a) | set(b)
    assert set(billed) == everything  # nothing else was billed
    once_only = {h: billed[h] for h in everything - shared if billed[h] != 1}
    assert once_only == {}, once_only
    shared_bad = {h: billed[h] for h in shared if not 1 <= billed[h] <= 2}
    assert shared_bad == {}, shared_bad


# -- 1. chaos -------------------------------------------------------------------------------------


class FirstOfEachFails:
    """Override: the first submit and the first poll of the batch route get a 503, whatever the
    random faults draw (a run of three jobs sends only a dozen batch requests, so at a 20% fault
    rate about one run in twenty would otherwise see none)."""

    def __init__(self) -> None:
        self.failed: set[str] = set()
        self.lock = threading.Lock()

    def __call__(self, req: Request) -> Reply | None:
        with self.lock:
            if req.method in self.failed:
                return None
            self.failed.add(req.method)
        reply = fail(503, "Service temporarily unavailable", error_code="1072")
        reply.fault = "503"
        return reply


@pytest.mark.parametrize("method", ["single", "batch"])
def test_chaos_faults_and_rate_limit_every_row_right_and_billed_once(
    fake_service, tmp_path, method
):
    svc = fake_service
    known = [f"chaos{i:04d}-person" for i in range(2000)]
    unknown = [f"unknown-chaos{i:03d}" for i in range(100)]
    # duplicates, exact and spelled as profile URLs / with whitespace
    dupes = known[:40] + unknown[:10] + [f"https://www.example.com/in/{h}/" for h in known[40:60]]
    dupes += [f"  {h} " for h in unknown[10:20]]
    values = known + unknown + dupes
    expected = {h: "ok" for h in known} | {h: "not_found" for h in unknown}

    svc.configure(latency=0.0, rate_limit_per_minute=12000, rate_burst=3)
    # At a 20% fault rate, the chance that every attempt of one call fails is
    # 0.2 ** (max_retries + 1). With the default 5 retries that is 6.4e-5 per call, i.e. ~12%
    # that at least one of these ~2,100 calls ends as an "error" row: a false failure. With
    # 10 retries it is 0.2 ** 11 * 2100 ~= 4e-5 for the whole test, negligible.
    client = make_client(
        svc, cache=tmp_path / "chaos.sqlite", backoff_base=0.01, backoff_max=0.1, max_retries=10
    )
    # First contact before the chaos: until the service has answered once, an HTML 502
    # twice in a row would rightly be read as "this base URL is not the service".
    client.credits_tier()
    # batch: faults on submits and polls, and a tenth of the items end in a job's errors, to
    # be fetched singly (through faults too)
    svc.configure(fault_rate=0.2, fault_kinds=FAULT_KINDS, batch_error_rate=0.1)
    svc.override(BATCH, FirstOfEachFails())
    frame = pd.DataFrame({"handle": values, "row": range(len(values))})
    with client:
        out = enrich(frame, client, method=method)
        # the client learned the limit from the tier endpoint (95% of 12000)
        assert client.rate_limit_per_minute == pytest.approx(12000 * 0.95)

        # the result: same rows, in order, each with its own handle's outcome
        assert out["row"].tolist() == list(range(len(values)))
        assert out["handle"].tolist() == values
        norm = [normalise_handle(v) for v in values]
        want = [expected[h] for h in norm]
        got = out[STATUS].tolist()
        wrong = [(v, g, w) for v, g, w in zip(values, got, want, strict=True) if g != w]
        assert wrong == [], wrong[:10]
        assert "error" not in set(got)
        ok = out[STATUS] == "ok"
        assert (out.loc[ok, "profile_handle"] == pd.Series(norm)[ok]).all()
        assert out.loc[~ok, "profile_handle"].isna().all()

        # billing: every distinct handle exactly once, nothing else billed
        billed = billed_by_handle(svc)
        assert billed == Counter({h: 1 for h in expected})
        assert svc.billed() == len(expected)  # not even the tier endpoint

        # the chaos really happened, and faults were never billed
        records = svc.requests
        faults = [r for r in records if r.fault is not None]
        if method == "single":
            assert len(faults) > 300
            assert {r.fault for r in faults} == set(FAULT_KINDS)
        else:  # 3 jobs: a few dozen submits and polls, plus the errored items fetched singly
            # a 429 (one of the faults) makes the client re-read its tier, and that read meets
            # the chaos too, now and then
            assert {BATCH, PROFILE} <= {r.path for r in faults} <= {BATCH, PROFILE, TIER}
            assert svc.count(BATCH, method="POST", status=202) == 3
            assert 150 < svc.count(PROFILE, status=200) < 300  # ~10% of 2,100 fell back
        assert not any(r.billed for r in faults)
        assert client.stats.retries >= len(faults)

        # a re-run would pay for nothing: every answer (ok and not-found) is in the cache
        sent = svc.count()
        est = frame.lookup.estimate_profiles("handle", client=client)
        assert (est.unique, est.cached, est.to_fetch) == (len(expected), len(expected), 0)
        assert svc.count() == sent


# -- 2. key rotated mid-run ---------------------------------------------------------------------


class RotateAfter:
    """Override: lets the real route answer, and rotates the key on the n-th authorised request.

    The emulator checks the key before asking the override, so the n-th request is still
    answered (200) and every later request with the old key gets 403.
    """

    def __init__(self, svc: FakeService, n: int) -> None:
        self.svc = svc
        self.n = n
        self.calls = 0
        self.new_key: str | None = None
        self._lock = threading.Lock()

    def __call__(self, req: Request) -> None:
        with self._lock:
            self.calls += 1
            if self.calls == self.n:
                self.new_key = self.svc.rotate_key()
        return None


def test_key_rotated_mid_run_raises_and_a_new_client_with_the_new_key_pays_only_the_rest(
    fake_service, tmp_path
):
    svc = fake_service
    cache = tmp_path / "rotate.sqlite"
    workers, n_before = 4, 20
    handles = [f"rot{i:02d}-mid" for i in range(60)]
    frame = pd.DataFrame({"handle": handles + handles[::7]})
    svc.configure(latency=0.02)
    rotate = RotateAfter(svc, n_before)
    svc.override(PROFILE, rotate)
    old_key = svc.api_key

    with (
        make_client(svc, cache=cache, max_workers=workers) as client,
        pytest.raises(AuthenticationError) as raised,
    ):
        # errors="coerce": an authentication failure still raises
        enrich(frame, client, method="single")
    assert raised.value.status_code == 403
    assert rotate.new_key is not None and rotate.new_key != old_key
    assert svc.api_key == rotate.new_key

    forbidden = svc.count(PROFILE, status=403)
    answered = svc.count(PROFILE, status=200)
    assert 1 <= forbidden <= workers  # only calls already on their way got the 403
    assert answered >= n_before
    assert answered + forbidden == svc.count(PROFILE)  # nothing else was answered
    assert answered < len(handles)  # the run did stop
    assert svc.billed(PROFILE) == answered
    paid_first = {h for h, n in billed_by_handle(svc).items() if n}

    svc.override(PROFILE, None)
    before = len(svc.requests)
    with make_client(svc, api_key=rotate.new_key, cache=cache, max_workers=workers) as client:
        est = frame.lookup.estimate_profiles("handle", client=client)
        assert est.cached == answered and est.to_fetch == len(handles) - answered
        out = enrich(frame, client, method="single")
    fetched_now = [r.param("handle") for r in svc.requests[before:] if r.path == PROFILE]
    assert len(fetched_now) == len(handles) - answered
    assert not set(fetched_now) & paid_first  # nothing already paid for was asked again
    assert svc.count(PROFILE, status=403) == forbidden  # the new key was used throughout
    assert_rows_right(out, frame["handle"].tolist())
    assert billed_by_handle(svc) == Counter({h: 1 for h in handles})


# -- 3. two processes on one cache file ------------------------------------------------------------


def test_two_cli_processes_share_one_cache_file(fake_service, tmp_path):
    svc = fake_service
    # Both processes use the same key and each paces at 95% of the advertised limit: give the
    # limit room for both, so this test is about the shared cache and not about 429s.
    svc.configure(latency=0.01, rate_limit_per_minute=60000)
    cache = tmp_path / "shared.sqlite"
    a, b, shared = overlapping_lists("proc")
    paths = {}
    for name, handles in (("A", a), ("B", b)):
        paths[name] = tmp_path / f"{name}.csv"
        pd.DataFrame(
            {"handle": handles, "note": [f"{name}{i}" for i in range(len(handles))]}
        ).to_csv(paths[name], index=False)
    outs = {name: tmp_path / f"out{name}.csv" for name in ("A", "B")}
    env = subprocess_env(svc, cache)

    results = run_concurrently(
        [[*CLI, "enrich", str(paths[n]), "-o", str(outs[n]), "--no-progress"] for n in ("A", "B")],
        env,
    )
    for code, _, err in results:
        assert code == 0, err
        assert "database is locked" not in err
        assert "Traceback" not in err
        assert "OperationalError" not in err

    first = {n: outs[n].read_bytes() for n in outs}
    for n, handles in (("A", a), ("B", b)):
        frame = pd.read_csv(outs[n], dtype=str, keep_default_na=False)
        assert_rows_right(frame, handles)
        assert frame["note"].tolist() == [f"{n}{i}" for i in range(len(handles))]
    assert_shared_billing(svc, a, b, shared)

    # Third runs (both lists again, again at the same time): all from the cache, same output.
    sent = svc.count()
    outs2 = {n: tmp_path / f"again{n}.csv" for n in ("A", "B")}
    again = run_concurrently(
        [[*CLI, "enrich", str(paths[n]), "-o", str(outs2[n]), "--no-progress"] for n in ("A", "B")],
        env,
    )
    for code, _, err in again:
        assert code == 0, err
        assert "0 requests sent" in err
    assert svc.count() == sent  # nothing at all reached the emulator
    for n in outs:
        assert outs2[n].read_bytes() == first[n]


# -- 4. two thread pools in one process on one cache file ---------------------------------------


def test_clients_created_at_the_same_moment_on_a_new_cache_file_all_work(fake_service, tmp_path):
    # Several Clients opening one new cache file at once (a notebook and a helper thread, two
    # pools...): each must come up and work, not fail while setting the file up.
    failures: list[str] = []
    for trial in range(30):
        cache = tmp_path / f"fresh{trial}.sqlite"
        barrier = threading.Barrier(4, timeout=30)

        def build(
            cache: Path = cache, barrier: threading.Barrier = barrier, trial: int = trial
        ) -> None:
            try:
                barrier.wait()
                with make_client(fake_service, cache=cache) as client:
                    client.parts.cache.is_cached(PROFILE, {"handle": "ada"})
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                failures.append(f"trial {trial}: {exc!r}")

        threads = [threading.Thread(target=build, daemon=True) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads)
    assert failures == []
    assert fake_service.count() == 0  # building clients sends nothing


def test_two_clients_in_threads_share_one_cache_file(fake_service, tmp_path):
    svc = fake_service
    svc.configure(latency=0.01, rate_limit_per_minute=60000)  # room for two clients, one key
    # A key of this test only: reset() forgets it, so if the run were stuck and left behind,
    # its threads could not send anything valid into later tests.
    key = svc.issue_key()
    cache = tmp_path / "threads.sqlite"
    a, b, shared = overlapping_lists("thr")
    frames = {"A": pd.DataFrame({"handle": a}), "B": pd.DataFrame({"handle": b})}
    results: dict[str, pd.DataFrame] = {}
    failures: dict[str, BaseException] = {}
    barrier = threading.Barrier(2, timeout=60)

    def work(name: str) -> None:
        try:
            barrier.wait()
            with make_client(svc, api_key=key, cache=cache, max_workers=4) as client:
                results[name] = enrich(frames[name], client)
        except BaseException as exc:  # noqa: BLE001 - reported below, with its type
            failures[name] = exc

    threads = [
        threading.Thread(target=work, args=(n,), name=f"pool-{n}", daemon=True) for n in frames
    ]
    for t in threads:
        t.start()
    # A hang guard, not a timing assertion: the run takes a few seconds; if it has not ended
    # after a minute it is stuck. Revoke its key so the jobs stop, then fail.
    for t in threads:
        t.join(timeout=60)
    stuck = [t.name for t in threads if t.is_alive()]
    if stuck:
        progress = svc.count(PROFILE)
        svc.revoke_key(key)
        for t in threads:
            t.join(timeout=90)
        pytest.fail(
            f"{stuck} did not finish within 60 s ({progress} of {len(set(a) | set(b))} "
            f"profile requests sent by then): the two Clients sharing one cache file "
            f"in one process stalled"
        )
    assert failures == {}, {n: repr(e) for n, e in failures.items()}

    assert_rows_right(results["A"], a)
    assert_rows_right(results["B"], b)
    assert_shared_billing(svc, a, b, shared)

    sent = svc.count()
    with make_client(svc, api_key=key, cache=cache) as client:
        for name, frame in frames.items():
            again = enrich(frame, client)
            pd.testing.assert_frame_equal(again, results[name])
        assert client.stats.sent == 0
    assert svc.count() == sent
