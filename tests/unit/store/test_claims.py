"""Claims die with their holder: named by process, taken over at once when it is gone on this
machine, kept alive by a heartbeat while held (issue 21, item 2); a busy claim waited for
(claim_or_wait), a claim let go of looked up afresh (fresh_lookup)."""

from __future__ import annotations

import logging
import math
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from lookup_pandas.store import BUSY, MINE, RECHECK, MemoryStore
from lookup_pandas.store.claims import Claims, ClaimWindow, claim_or_wait, fresh_lookup
from lookup_pandas.store.holders import holder_gone, holder_name, process_start
from lookup_pandas.store.local import LocalStore
from lookup_pandas.store.pacing import Cancelled

NS = "ns-claims"


def _wait(condition, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


# -- holders -------------------------------------------------------------------------------------


def test_a_holder_name_names_this_host_and_process_and_is_not_gone():
    host, pid, start, nonce = holder_name().split("|")
    assert host == socket.gethostname() and int(pid) == os.getpid()
    assert start == process_start(os.getpid()) and nonce
    assert not holder_gone(holder_name())
    assert holder_name() != holder_name()  # two store objects in one process are two holders


def test_a_killed_process_is_gone_reaped_or_not():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        name = f"{socket.gethostname()}|{proc.pid}|{process_start(proc.pid)}|x"
        assert not holder_gone(name)
        proc.kill()
        assert _wait(lambda: holder_gone(name))  # a zombie, not yet reaped, holds nothing
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert holder_gone(name)


def test_a_reused_pid_with_another_start_time_is_gone():
    assert holder_gone(f"{socket.gethostname()}|{os.getpid()}|1|x")


def test_holders_on_another_machine_or_of_another_shape_are_never_judged_gone():
    assert not holder_gone("another-host|1|1|x")
    assert not holder_gone("3f2a9c1d0b7e4a5f")  # an old-style holder: left to expire
    assert not holder_gone(f"{socket.gethostname()}|notapid|1|x")


# -- the store takes a dead holder's claim over at once --------------------------------------------


def test_a_claim_left_by_a_killed_process_on_this_machine_is_taken_over_at_once(tmp_path: Path):
    path = tmp_path / "leads.store.sqlite"
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from lookup_pandas.store.local import LocalStore\n"
        f"s = LocalStore(Path({str(path)!r}), {NS!r})\n"
        "print(s.claim_many(['k'], ttl=600.0)['k'], flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == MINE
        mine = LocalStore(path, NS)
        assert mine.claim_many(["k"], ttl=600.0) == {"k": BUSY}  # alive: it is buying
        proc.kill()
        proc.wait(timeout=30)
        # Gone: taken at once, not in 600 s; RECHECK, as it may have stored the answer (issue 42).
        assert mine.claim_many(["k"], ttl=600.0) == {"k": RECHECK}
        mine.close()
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_a_claim_held_on_another_machine_waits_for_its_expiry(tmp_path: Path):
    now = [1000.0]
    path = tmp_path / "leads.store.sqlite"
    far = LocalStore(path, NS, clock=lambda: now[0], holder="another-host|4242|1|x")
    near = LocalStore(path, NS, clock=lambda: now[0])
    assert far.claim_many(["k"], ttl=30.0) == {"k": MINE}
    assert near.claim_many(["k"], ttl=30.0) == {"k": BUSY}
    now[0] += 31.0  # its heartbeat stopped: the claim ran out
    assert near.claim_many(["k"], ttl=30.0) == {"k": MINE}
    far.close()
    near.close()


# -- the heartbeat ---------------------------------------------------------------------------------


class RecordingStore(MemoryStore):
    """A store that answers every claim MINE and records each renewal."""

    def __init__(self) -> None:
        super().__init__()
        self.renewals: list[tuple[list[str], float]] = []
        self.renewed = threading.Event()

    def renew(self, keys: list[str], ttl: float) -> None:
        self.renewals.append((sorted(keys), ttl))
        self.renewed.set()


def test_held_claims_are_renewed_by_the_heartbeat_and_it_stops_when_none_are_held():
    store = RecordingStore()
    claims = Claims(store, ttl=3.0, heartbeat=0.01)
    try:
        assert claims.take(["a", "b"]) == {"a": MINE, "b": MINE}
        assert store.renewed.wait(10.0)
        assert store.renewals[0] == (["a", "b"], 3.0)
        claims.release(["a", "b"])
        assert claims.held == 0
        assert _wait(lambda: claims._beating is None)  # the thread ended: nothing to renew
        renewed = len(store.renewals)
        time.sleep(0.1)
        assert len(store.renewals) == renewed
        store.renewed.clear()
        claims.take(["c"])  # a new claim starts a new heartbeat
        assert store.renewed.wait(10.0)
        assert store.renewals[-1] == (["c"], 3.0)
    finally:
        claims.close()


def test_a_key_this_client_holds_is_busy_for_a_second_taker_until_let_go():
    """Two runs on one Client (two background jobs): the store knows holders by process and
    would say MINE twice; the Client says BUSY itself, so the answer is bought once."""

    class Counting(RecordingStore):
        def __init__(self) -> None:
            super().__init__()
            self.asked: list[list[str]] = []

        def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
            self.asked.append(list(keys))
            return super().claim_many(keys, ttl)

    store = Counting()
    claims = Claims(store, ttl=3.0, heartbeat=60.0)
    try:
        assert claims.take(["k", "j"]) == {"k": MINE, "j": MINE}
        assert claims.take(["k", "m"]) == {"k": BUSY, "m": MINE}
        assert store.asked == [["k", "j"], ["m"]]  # a key held here is not asked again
        assert claims.held == 3
        claims.release(["k"])
        assert claims.held == 2
        assert claims.take(["k"]) == {"k": MINE}  # free again
    finally:
        claims.close()


def test_two_threads_taking_one_key_at_once_get_it_once():
    store = RecordingStore()
    claims = Claims(store, ttl=3.0, heartbeat=60.0)
    results: list[dict[str, str]] = []
    start = threading.Barrier(8)

    def take() -> None:
        start.wait(10)
        results.append(claims.take(["k"]))

    threads = [threading.Thread(target=take) for _ in range(8)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert sorted(r["k"] for r in results) == [BUSY] * 7 + [MINE]
    finally:
        claims.close()


def test_busy_claims_are_not_held(tmp_path: Path):
    path = tmp_path / "leads.store.sqlite"
    other, store = LocalStore(path, NS), LocalStore(path, NS)
    other.claim_many(["k"], ttl=30.0)
    claims = Claims(store, heartbeat=60.0)
    try:
        assert claims.take(["k", "j"]) == {"k": BUSY, "j": MINE}
        assert claims.held == 1
        other.release_many(["k"])
        assert claims.take(["k"]) == {"k": RECHECK}
        assert claims.held == 2
    finally:
        claims.close()
        other.close()
        store.close()


def test_a_claim_let_go_of_without_buying_is_mine_for_the_next_at_once(tmp_path: Path):
    # Issue 22: claims released after a refused batch submit said "just bought: read the
    # cache" (RECHECK), so every single call looked 5 times for an answer that was not coming.
    path = tmp_path / "leads.store.sqlite"
    a, b = LocalStore(path, NS), LocalStore(path, NS)
    a.claim_many(["k", "j"], ttl=30.0)
    b.release_many(["k"], bought=False)  # not b's: a still holds it
    assert b.claim_many(["k"], ttl=30.0) == {"k": BUSY}
    a.release_many(["k"], bought=False)
    a.release_many(["j"])
    assert b.claim_many(["k", "j"], ttl=30.0) == {"k": MINE, "j": RECHECK}
    a.close()
    b.close()


# -- claims taken a window ahead, let go in batches ------------------------------------------------


class CountingStore(MemoryStore):
    """A store answering claims as scripted per key (MINE by default), counting each call."""

    def __init__(self, states: dict[str, str] | None = None) -> None:
        super().__init__()
        self.states = states or {}
        self.calls: Counter[str] = Counter()
        self.released: list[tuple[list[str], bool]] = []

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        self.calls["claim_many"] += 1
        return {key: self.states.get(key, MINE) for key in keys}

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        self.calls["release_many"] += 1
        self.released.append((sorted(keys), bought))


def run_window(window: ClaimWindow, keys: list[str], bought=lambda key: True) -> None:
    """What an enrichment does: claim each window as it is reached, finish its calls (letting
    go when ``size`` are finished), let go of the rest at the end."""
    for start in range(0, len(keys), window.size):
        held = window.hold({key: key for key in keys[start : start + window.size]})
        for key in held:
            window.finished(key, bought=bought(key))
            if window.due():
                window.flush()
    window.close()


@pytest.mark.parametrize("n", [1, 16, 17, 200, 1000])
def test_n_uncontended_misses_cost_a_claim_and_a_release_per_window_not_per_miss(n: int):
    store = CountingStore()
    claims = Claims(store, heartbeat=60.0)
    try:
        keys = [f"k{i}" for i in range(n)]
        run_window(ClaimWindow(claims, size=16), keys)
        windows = math.ceil(n / 16)
        assert store.calls["claim_many"] == windows
        assert store.calls["release_many"] <= windows + 1
        assert sorted(k for keys, _ in store.released for k in keys) == sorted(keys)
        assert claims.held == 0
    finally:
        claims.close()


def test_finished_claims_are_let_go_in_one_call_per_bought_flag():
    store = CountingStore()
    claims = Claims(store, heartbeat=60.0)
    try:
        window = ClaimWindow(claims, size=8)
        run_window(window, ["a", "b", "c", "d"], bought=lambda key: key in "ac")
        assert store.released == [(["a", "c"], True), (["b", "d"], False)]
    finally:
        claims.close()


def test_claims_not_finished_are_let_go_unbought_and_busy_ones_are_not_held():
    store = CountingStore({"busy": BUSY, "lately": RECHECK})
    claims = Claims(store, heartbeat=60.0)
    try:
        window = ClaimWindow(claims, size=8)
        held = window.hold({"ada": "k1", "grace": "busy", "alan": "lately", "ada2": "k1"})
        assert held == {"ada": ("k1", MINE), "alan": ("lately", RECHECK)}  # k1 held once
        assert claims.held == 2
        window.finished("k1", bought=True)
        window.finished("busy", bought=True)  # not held: nothing to let go
        assert not window.due()
        assert window.hold({"alan": "lately", "hedy": "k2"}) == {"hedy": ("k2", MINE)}
        assert store.released == [(["k1"], True)]  # the finished, as the next window came
        window.close()  # Ctrl-C, an error: the calls never started let go unbought
        assert store.released[-1] == (["k2", "lately"], False)
        assert claims.held == 0
    finally:
        claims.close()


def test_a_window_s_claims_are_kept_alive_by_the_heartbeat_until_let_go():
    store = RecordingStore()
    claims = Claims(store, ttl=3.0, heartbeat=0.01)
    try:
        window = ClaimWindow(claims, size=4)
        window.hold({"a": "a", "b": "b"})
        assert store.renewed.wait(10.0)
        assert store.renewals[-1] == (["a", "b"], 3.0)
        window.close()
        assert _wait(lambda: claims._beating is None)
    finally:
        claims.close()


def test_a_window_of_a_killed_process_does_not_block_the_next_run(tmp_path: Path):
    path = tmp_path / "leads.store.sqlite"
    code = (
        "import time\n"
        "from pathlib import Path\n"
        "from lookup_pandas.store.claims import Claims, ClaimWindow\n"
        "from lookup_pandas.store.local import LocalStore\n"
        f"s = LocalStore(Path({str(path)!r}), {NS!r})\n"
        "w = ClaimWindow(Claims(s), size=16)\n"
        "print(len(w.hold({f'k{i}': f'k{i}' for i in range(16)})), flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "16"
        mine = LocalStore(path, NS)
        keys = [f"k{i}" for i in range(16)]
        assert set(mine.claim_many(keys, ttl=30.0).values()) == {BUSY}  # alive: buying
        mine.release_many(keys, bought=False)
        proc.kill()
        proc.wait(timeout=30)
        assert set(mine.claim_many(keys, ttl=30.0).values()) == {RECHECK}  # gone: at once
        mine.close()
    finally:
        proc.kill()
        proc.wait(timeout=30)


# -- waiting for a claim: claim_or_wait, fresh_lookup -------------------------------------------


class ScriptedStore(MemoryStore):
    """A store whose claims answer as scripted, recording what was released."""

    def __init__(self, *states: str) -> None:
        super().__init__()
        self.states = list(states)
        self.released: list[tuple[list[str], bool]] = []

    def claim_many(self, keys: list[str], ttl: float) -> dict[str, str]:
        return dict.fromkeys(keys, self.states.pop(0))

    def release_many(self, keys: list[str], *, bought: bool = True) -> None:
        self.released.append((keys, bought))


def looks(*answers: str | None):
    """A cache lookup answering in turn, counting its calls."""
    queue = list(answers)
    calls: list[None] = []

    def lookup() -> str | None:
        calls.append(None)
        return queue.pop(0) if queue else None

    return lookup, calls


@pytest.fixture
def no_sleeping(monkeypatch):
    monkeypatch.setattr("lookup_pandas.store.claims.pause", lambda s, cancel=None: None)


@pytest.mark.usefixtures("no_sleeping")
def test_a_claim_of_ones_own_is_bought_without_looking():
    lookup, calls = looks("stored")
    claims = Claims(ScriptedStore(MINE))
    assert claim_or_wait(claims, "k", lookup) == ("k", None)
    assert calls == []
    claims.close()


@pytest.mark.usefixtures("no_sleeping")
def test_a_claim_let_go_of_lately_reads_the_cache_first():
    store = ScriptedStore(RECHECK)
    lookup, _ = looks("stored")
    assert claim_or_wait(Claims(store), "k", lookup) == (None, "stored")
    assert store.released == [(["k"], True)]  # read, not bought: let go at once


@pytest.mark.usefixtures("no_sleeping")
def test_a_claim_let_go_of_without_an_answer_is_bought_after_a_few_looks():
    lookup, calls = looks()
    assert claim_or_wait(Claims(ScriptedStore(RECHECK)), "k", lookup) == ("k", None)
    assert len(calls) == 5


@pytest.mark.usefixtures("no_sleeping")
def test_a_busy_claim_waits_and_is_counted_until_the_answer_shows():
    waiting: list[int] = []
    lookup, calls = looks(None, "stored")
    store = ScriptedStore(BUSY, BUSY)
    assert claim_or_wait(Claims(store), "k", lookup, None, waiting.append) == (None, "stored")
    assert waiting == [1, -1] and len(calls) == 2


@pytest.mark.usefixtures("no_sleeping")
def test_a_busy_claim_taken_over_is_bought():
    waiting: list[int] = []
    lookup, _ = looks(None)
    result = claim_or_wait(Claims(ScriptedStore(BUSY, MINE)), "k", lookup, None, waiting.append)
    assert result == ("k", None) and waiting == [1, -1]


def test_a_cancelled_wait_stops_and_is_no_longer_counted():
    # the real pause: a set cancel event raises at once
    stop = threading.Event()
    stop.set()
    waiting: list[int] = []
    lookup, _ = looks()
    with pytest.raises(Cancelled):
        claim_or_wait(Claims(ScriptedStore(BUSY)), "k", lookup, stop, waiting.append)
    assert waiting == [1, -1]


@pytest.mark.usefixtures("no_sleeping")
def test_fresh_lookup_stops_at_the_first_answer():
    lookup, calls = looks(None, None, "stored")
    assert fresh_lookup(lookup) == "stored" and len(calls) == 3


def test_a_claim_waited_on_is_logged_with_how_the_wait_ended(tmp_path: Path, caplog):
    path = tmp_path / "leads.store.sqlite"
    other, store = LocalStore(path, NS), LocalStore(path, NS)
    other.claim_many(["k", "j"], ttl=30.0)
    claims = Claims(store, heartbeat=60.0)
    answers = {"j": "ada's record"}
    looks = Counter[str]()

    def lookup(key: str):
        looks[key] += 1
        if looks[key] == 2:  # the other holder lets go: k unbought, j bought (in the cache)
            other.release_many([key], bought=key in answers)
        return answers.get(key) if looks[key] > 2 else None

    try:
        with caplog.at_level(logging.DEBUG, logger="lookup_pandas.store.claims"):
            assert claim_or_wait(claims, "k", lambda: lookup("k")) == ("k", None)
            assert claim_or_wait(claims, "j", lambda: lookup("j")) == (None, "ada's record")
    finally:
        claims.close()
        other.close()
        store.close()
    messages = [r.getMessage() for r in caplog.records]
    assert messages[:3] == [
        "claim k: waiting for the answer another holder is buying",
        "claim k: let go of unbought, so bought here",
        "claim j: waiting for the answer another holder is buying",
    ]
    assert messages[3].startswith("claim j: the other holder's answer read after ")
