"""Unit tests for LocalStore's pace and claims, and for Pacers sharing one.

Two store objects on one file stand for two processes (each has its own connection and its own
holder name); every clock is a fake one, so nothing here depends on the wall clock. What is
checked: the slots of every store object on a file form one sequence; ``defer`` moves every
later slot; a ``slow_to`` floor applies to everyone, then expires; claims are MINE, MINE again
for their holder, BUSY for another, taken over once expired, RECHECK for a while after release,
then MINE; ``renew`` extends only its holder's claims; namespaces are apart. Then Pacers given
``shared=`` stores on one file: their slots interleave evenly, a deferral or a shared slower
pace of one holds for the other, and threads of one Pacer keep their one-at-a-time slots and
their cancellation.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from lookup_pandas.store import (
    BUSY,
    DONE_SECONDS,
    MINE,
    RECHECK,
    SHARED_SLOWDOWN_SECONDS,
    namespace,
)
from lookup_pandas.store.local import LocalStore
from lookup_pandas.store.pacing import Cancelled, Pacer

NS = namespace("lk_live_UnitTestKeyForTheLocalStore", "https://api.example.com")
OTHER_NS = namespace("lk_live_AnotherKeyForTheLocalStore", "https://api.example.com")
START = 1_700_000_000.0


class FakeClock:
    """Wall-clock time that only moves when the test moves it (or a fake sleep does)."""

    def __init__(self, start: float = START) -> None:
        self.now = start
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "leads.store.sqlite"


@pytest.fixture
def stores(path: Path, clock: FakeClock):
    """A factory of store objects on one file and one fake clock ("processes"), closed after."""
    made: list[LocalStore] = []

    def make(ns: str = NS) -> LocalStore:
        store = LocalStore(path, ns, clock=clock)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


# -- the pace ------------------------------------------------------------------------------------


def test_two_store_objects_on_one_file_share_one_slot_sequence(stores, clock):
    a, b = stores(), stores()
    assert a.reserve(1.0) == 0.0  # slot at START
    assert b.reserve(1.0) == pytest.approx(1.0)  # the next slot, not a second one at START
    assert a.reserve(1.0) == pytest.approx(2.0)
    clock.advance(0.5)
    assert b.reserve(1.0) == pytest.approx(2.5)  # slot at START + 3, seen from START + 0.5
    # A later process (a third object, opened now) joins the same sequence.
    assert stores().reserve(1.0) == pytest.approx(3.5)


def test_slots_do_not_burst_after_idle_time(stores, clock):
    a, b = stores(), stores()
    for _ in range(3):
        a.reserve(1.0)
    clock.advance(300.0)  # idle: no credit is banked
    assert [b.reserve(1.0), a.reserve(1.0), b.reserve(1.0)] == pytest.approx([0.0, 1.0, 2.0])


def test_each_reservation_steps_by_its_own_interval(stores):
    a, b = stores(), stores()
    assert a.reserve(2.0) == 0.0
    assert b.reserve(0.5) == pytest.approx(2.0)  # a's slot ends 2 s after it began
    assert a.reserve(2.0) == pytest.approx(2.5)


def test_defer_moves_every_later_slot_of_every_store_object(stores, clock):
    a, b = stores(), stores()
    assert a.reserve(0.5) == 0.0
    b.defer(5.0)  # b was answered 429 with Retry-After: 5
    assert a.reserve(0.5) == pytest.approx(5.0)
    assert b.reserve(0.5) == pytest.approx(5.5)
    clock.advance(1.0)
    assert stores().reserve(0.5) == pytest.approx(5.0)  # START + 6, seen from START + 1


def test_defer_shorter_than_the_next_slot_changes_nothing(stores):
    a, b = stores(), stores()
    a.reserve(10.0)  # the next slot is 10 s away
    b.defer(2.0)
    assert a.reserve(10.0) == pytest.approx(10.0)


def test_defer_does_not_shorten_a_longer_deferral(stores):
    a, b = stores(), stores()
    a.defer(10.0)
    b.defer(1.0)
    assert a.reserve(0.5) == pytest.approx(10.0)


def test_negative_defer_is_zero(stores):
    a = stores()
    a.defer(-30.0)
    assert a.reserve(1.0) == 0.0


def test_slow_to_floor_applies_to_every_store_object_then_expires(stores, clock):
    a, b = stores(), stores()
    a.slow_to(3.0, seconds=10.0)  # a 429 slowed a's pace: everyone keeps 3 s apart for 10 s
    assert [b.reserve(1.0) for _ in range(3)] == pytest.approx([0.0, 3.0, 6.0])
    clock.advance(20.0)  # past the floor's end (and past the slots)
    assert [b.reserve(1.0) for _ in range(3)] == pytest.approx([0.0, 1.0, 2.0])


def test_slow_to_uses_the_shared_slowdown_by_default(stores, clock):
    a, b = stores(), stores()
    a.slow_to(2.0)
    clock.advance(SHARED_SLOWDOWN_SECONDS - 5.0)
    assert [b.reserve(1.0), b.reserve(1.0)] == pytest.approx([0.0, 2.0])
    clock.advance(10.0)  # now past SHARED_SLOWDOWN_SECONDS
    assert [b.reserve(1.0), b.reserve(1.0)] == pytest.approx([0.0, 1.0])


def test_a_slower_interval_than_the_floor_wins(stores):
    a, b = stores(), stores()
    a.slow_to(1.0, seconds=60.0)
    assert [b.reserve(4.0), b.reserve(4.0)] == pytest.approx([0.0, 4.0])


def test_slow_to_keeps_a_slower_floor_in_force(stores):
    a, b = stores(), stores()
    a.slow_to(3.0, seconds=60.0)
    b.slow_to(2.0, seconds=60.0)  # faster than the floor in force: ignored
    assert [a.reserve(1.0), a.reserve(1.0)] == pytest.approx([0.0, 3.0])
    b.slow_to(5.0, seconds=60.0)  # slower: replaces it, from the slot already due on
    assert [a.reserve(1.0), a.reserve(1.0)] == pytest.approx([6.0, 11.0])


def test_deferral_survives_a_slow_to(stores):
    a, b = stores(), stores()
    a.defer(10.0)
    b.slow_to(2.0, seconds=60.0)
    assert a.reserve(1.0) == pytest.approx(10.0)


def test_pace_namespaces_are_apart(stores):
    a, b = stores(NS), stores(OTHER_NS)
    a.reserve(1.0)
    a.defer(30.0)
    a.slow_to(10.0, seconds=60.0)
    assert [b.reserve(1.0), b.reserve(1.0)] == pytest.approx([0.0, 1.0])
    assert a.reserve(1.0) == pytest.approx(30.0)


# -- claims --------------------------------------------------------------------------------------


def test_first_claim_is_mine(stores):
    a = stores()
    assert a.claim_many(["k1", "k2"], ttl=10.0) == {"k1": MINE, "k2": MINE}


def test_no_keys_claims_nothing_and_creates_no_file(stores, path):
    a = stores()
    assert a.claim_many([], ttl=10.0) == {}
    a.renew([], ttl=10.0)
    a.release_many([])
    assert not path.exists()


def test_the_holders_own_claim_is_mine_again_and_renewed(stores, clock):
    a, b = stores(), stores()
    assert a.claim_many(["k"], ttl=10.0) == {"k": MINE}
    clock.advance(8.0)
    assert a.claim_many(["k"], ttl=10.0) == {"k": MINE}  # now until START + 18
    clock.advance(5.0)  # START + 13: past the first expiry, not the second
    assert b.claim_many(["k"], ttl=10.0) == {"k": BUSY}


def test_a_claim_held_by_another_is_busy(stores):
    a, b = stores(), stores()
    assert a.claim_many(["k1"], ttl=10.0) == {"k1": MINE}
    assert b.claim_many(["k1", "k2"], ttl=10.0) == {"k1": BUSY, "k2": MINE}
    assert a.claim_many(["k2"], ttl=10.0) == {"k2": BUSY}


def test_an_expired_claim_is_taken_over(stores, clock):
    a, b, c = stores(), stores(), stores()
    a.claim_many(["k"], ttl=10.0)
    clock.advance(9.5)
    assert b.claim_many(["k"], ttl=10.0) == {"k": BUSY}
    clock.advance(1.0)  # a died: its claim ran out at START + 10
    assert b.claim_many(["k"], ttl=10.0) == {"k": MINE}
    assert a.claim_many(["k"], ttl=10.0) == {"k": BUSY}  # a's claim is b's now
    assert c.claim_many(["k"], ttl=10.0) == {"k": BUSY}


def test_a_live_claim_of_a_holder_gone_is_taken_over_as_recheck(stores, monkeypatch):
    # Issue 42, item 4: its holder may have stored the answer just before it died.
    a, b, c = stores(), stores(), stores()
    a.claim_many(["k"], ttl=10.0)
    monkeypatch.setattr(a, "_holder", f"{socket.gethostname()}|{2**22 + 1}|1|dead")
    a.claim_many(["dead"], ttl=10.0)  # held by a process of this machine that no longer runs
    assert b.claim_many(["k", "dead"], ttl=10.0) == {"k": BUSY, "dead": RECHECK}
    assert b.claim_many(["dead"], ttl=10.0) == {"dead": MINE}  # b's own now
    assert c.claim_many(["dead"], ttl=10.0) == {"dead": BUSY}


def test_a_released_claim_is_recheck_then_mine(stores, clock):
    a, b, c = stores(), stores(), stores()
    a.claim_many(["k"], ttl=10.0)
    a.release_many(["k"])  # a fetched it: the answer is in the cache
    clock.advance(DONE_SECONDS - 1.0)
    assert b.claim_many(["k"], ttl=10.0) == {"k": RECHECK}  # claimed, but look first
    assert c.claim_many(["k"], ttl=10.0) == {"k": BUSY}  # b holds it now
    b.release_many(["k"])
    clock.advance(DONE_SECONDS + 1.0)  # long ago: a plain claim
    assert c.claim_many(["k"], ttl=10.0) == {"k": MINE}


def test_release_lets_go_only_of_the_holders_own_claims(stores):
    a, b, c = stores(), stores(), stores()
    a.claim_many(["k"], ttl=10.0)
    b.release_many(["k"])  # not b's
    assert c.claim_many(["k"], ttl=10.0) == {"k": BUSY}


def test_renew_extends_only_this_holders_live_claims(stores, clock):
    a, b, c = stores(), stores(), stores()
    a.claim_many(["mine"], ttl=10.0)
    b.claim_many(["theirs"], ttl=10.0)
    a.claim_many(["done"], ttl=10.0)
    a.release_many(["done"])
    clock.advance(8.0)
    a.renew(["mine", "theirs", "done"], ttl=10.0)
    clock.advance(5.0)  # START + 13: only a renewed claim is still held
    assert c.claim_many(["mine"], ttl=10.0) == {"mine": BUSY}
    assert c.claim_many(["theirs"], ttl=10.0) == {"theirs": MINE}  # b's ran out
    assert c.claim_many(["done"], ttl=10.0) == {"done": RECHECK}  # still let go


def test_renew_does_not_take_back_a_claim_taken_over(stores, clock):
    a, b, c = stores(), stores(), stores()
    a.claim_many(["k"], ttl=10.0)
    clock.advance(11.0)
    assert b.claim_many(["k"], ttl=10.0) == {"k": MINE}
    a.renew(["k"], ttl=100.0)  # too late: b holds it
    b.release_many(["k"])
    assert c.claim_many(["k"], ttl=10.0) == {"k": RECHECK}


def test_renew_does_not_revive_an_expired_claim(stores, clock):
    # Its holder is presumed dead once a claim expires: a late renew must not hold it again
    # (as in Redis, where the expired key is simply gone).
    a, c = stores(), stores()
    a.claim_many(["k"], ttl=10.0)
    clock.advance(11.0)
    a.renew(["k"], ttl=100.0)
    assert c.claim_many(["k"], ttl=10.0) == {"k": MINE}


def test_claim_namespaces_are_apart(stores):
    a, b = stores(NS), stores(OTHER_NS)
    assert a.claim_many(["k"], ttl=10.0) == {"k": MINE}
    assert b.claim_many(["k"], ttl=10.0) == {"k": MINE}
    a.release_many(["k"])
    assert stores(OTHER_NS).claim_many(["k"], ttl=10.0) == {"k": BUSY}  # b's, not let go
    assert stores(NS).claim_many(["k"], ttl=10.0) == {"k": RECHECK}


def test_store_objects_on_other_files_share_nothing(tmp_path, clock):
    a = LocalStore(tmp_path / "a.store.sqlite", NS, clock=clock)
    b = LocalStore(tmp_path / "b.store.sqlite", NS, clock=clock)
    try:
        assert a.claim_many(["k"], ttl=10.0) == {"k": MINE}
        assert b.claim_many(["k"], ttl=10.0) == {"k": MINE}
        a.reserve(1.0)
        assert b.reserve(1.0) == 0.0
    finally:
        a.close()
        b.close()


class InterruptedOnce:
    """A connection on which Ctrl-C lands just after ``statement`` ran: a signal's timing, which
    a real interrupt cannot hit deterministically."""

    def __init__(self, conn, statement: str) -> None:
        self._conn, self._statement = conn, statement

    def execute(self, sql: str, *args):
        result = self._conn.execute(sql, *args)
        if sql == self._statement:
            self._statement = ""
            raise KeyboardInterrupt
        return result

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


@pytest.mark.parametrize("statement", ["BEGIN IMMEDIATE", "COMMIT"])
def test_a_ctrl_c_around_a_write_leaves_no_transaction_open(stores, statement):
    store = stores()
    assert store.claim_many(["a"], 60.0) == {"a": MINE}
    conn = store._connection()
    store._conn = InterruptedOnce(conn, statement)
    with pytest.raises(KeyboardInterrupt):
        store.release_many(["a"], bought=False)
    assert not conn.in_transaction
    store.release_many(["a"], bought=False)  # the clean-up after Ctrl-C writes again
    assert stores().claim_many(["a"], 60.0) == {"a": MINE}  # let go: another holder takes it


# -- Pacers sharing one store ----------------------------------------------------------------


def shared_pacers(stores, clock: FakeClock, n: int, per_minute: float = 120) -> list[Pacer]:
    """``n`` Pacers ("processes"), each with its own store object on one file."""
    return [Pacer(per_minute, clock=clock, sleep=clock.sleep, shared=stores()) for _ in range(n)]


def simulate(pacers: list[Pacer], clock: FakeClock, rounds: int, work: float) -> list[list[float]]:
    """Each pacer's process sends at its slot, works ``work`` seconds, asks for the next;
    whichever process asks first is served first. Returns each one's slots."""
    asks = [clock.now] * len(pacers)
    slots: list[list[float]] = [[] for _ in pacers]
    for _ in range(rounds * len(pacers)):
        i = min(range(len(pacers)), key=lambda j: (asks[j], j))
        clock.now = max(clock.now, asks[i])
        slot = clock.now + pacers[i].reserve()
        slots[i].append(slot)
        asks[i] = slot + work
    return slots


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def test_two_pacers_on_one_store_interleave_their_slots_evenly(stores, clock):
    first, second = simulate(shared_pacers(stores, clock, 2), clock, rounds=10, work=0.05)
    every = sorted(first + second)
    assert min(gaps(every)) >= 0.5 - 1e-9  # no two slots closer than the interval
    assert every == pytest.approx([START + 0.5 * i for i in range(20)])  # and none wasted
    assert first == pytest.approx([START + 1.0 * i for i in range(10)])  # they take turns
    assert second == pytest.approx([START + 0.5 + 1.0 * i for i in range(10)])


def test_three_pacers_on_one_store_never_send_closer_than_the_interval(stores, clock):
    pacers = shared_pacers(stores, clock, 3, per_minute=570)
    slots = simulate(pacers, clock, rounds=30, work=0.01)
    every = sorted(s for own in slots for s in own)
    interval = 60 / 570
    assert min(gaps(every)) >= interval - 1e-9
    assert every[-1] - every[0] == pytest.approx(interval * (len(every) - 1))
    assert [len(own) for own in slots] == [30, 30, 30]


def test_pacers_without_a_shared_store_collide(clock):
    # The control: each process's own pacer, as before the shared store, sends at the same
    # moments as the other: twice the rate between them.
    pacers = [Pacer(120, clock=clock, sleep=clock.sleep) for _ in range(2)]
    first, second = simulate(pacers, clock, rounds=5, work=0.05)
    assert first == pytest.approx(second)


def test_a_deferral_by_one_pacer_delays_the_other(stores, clock):
    one, other = shared_pacers(stores, clock, 2)
    one.wait()  # START
    other.defer(5.0)  # other was answered 429, Retry-After: 5
    assert one.reserve() == pytest.approx(5.0)
    assert other.reserve() == pytest.approx(5.5)
    one.wait()
    assert clock.now == pytest.approx(START + 6.0)  # one's next slot, after other's


def test_a_shared_rate_change_slows_the_other(stores, clock):
    one, other = shared_pacers(stores, clock, 2)  # both at 120/min: 0.5 s apart
    one.set_rate(30, share=True)  # a 429 named 30/min: everyone 2 s apart
    assert other.per_minute == pytest.approx(120)  # its own rate is unchanged...
    assert [other.reserve() for _ in range(3)] == pytest.approx([0.0, 2.0, 4.0])  # ...its pace
    clock.advance(SHARED_SLOWDOWN_SECONDS + 10.0)  # the shared slowdown has ended
    assert [other.reserve() for _ in range(3)] == pytest.approx([0.0, 0.5, 1.0])


def test_a_rate_change_not_shared_leaves_the_other_its_pace(stores, clock):
    one, other = shared_pacers(stores, clock, 2)
    one.set_rate(30)  # a rate learned by one process alone
    clock.advance(100.0)
    assert [other.reserve() for _ in range(3)] == pytest.approx([0.0, 0.5, 1.0])


def test_slow_down_of_one_pacer_is_shared(stores, clock):
    one, other = shared_pacers(stores, clock, 2)
    one.reserve()
    assert one.slow_down(7) == pytest.approx(60)  # a 429 naming no limit: half the pace
    clock.advance(10.0)
    assert [other.reserve() for _ in range(3)] == pytest.approx([0.0, 1.0, 2.0])


def test_threads_of_one_shared_pacer_get_distinct_evenly_spaced_slots(path):
    n = 30
    store = LocalStore(path, NS, clock=lambda: 500.0)
    other = LocalStore(path, NS, clock=lambda: 500.0)
    pacer = Pacer(120, clock=lambda: 500.0, sleep=lambda s: None, shared=store)
    try:
        barrier = threading.Barrier(n, timeout=20)
        got: list[float] = []
        errors: list[BaseException] = []
        lock = threading.Lock()

        def worker() -> None:
            try:
                barrier.wait()
                delay = pacer.reserve()
                with lock:
                    got.append(delay)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, daemon=True) for _ in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in threads), "threads hung"
        assert errors == []
        assert sorted(got) == pytest.approx([0.5 * i for i in range(n)])
        assert other.reserve(0.5) == pytest.approx(0.5 * n)  # the next process's slot
    finally:
        store.close()
        other.close()


def test_a_cancelled_wait_takes_no_shared_slot(stores, clock):
    one, other = shared_pacers(stores, clock, 2)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        one.wait(cancel)
    assert other.reserve() == 0.0  # the first slot is still free


def test_a_wait_for_a_far_shared_slot_ends_when_cancelled(stores, clock):
    one, other = shared_pacers(stores, clock, 2)
    other.defer(3600.0)  # another process was told to wait an hour
    waiting = threading.Event()

    class Noticed(threading.Event):
        """A cancel event that says when someone starts waiting on it."""

        def wait(self, timeout: float | None = None) -> bool:
            if timeout is not None and timeout > 0:
                waiting.set()
            return super().wait(timeout)

    cancel = Noticed()
    outcome: list[BaseException | None] = []

    def wait_for_the_slot() -> None:
        try:
            one.wait(cancel)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=wait_for_the_slot, daemon=True)
    thread.start()
    assert waiting.wait(timeout=30), "the pacer never waited"
    cancel.set()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the wait was not cancelled"
    assert len(outcome) == 1 and isinstance(outcome[0], Cancelled)


def test_stores_opening_one_new_file_at_once_all_work(tmp_path):
    # Setting up WAL on a new file takes a lock SQLite's busy timeout does not wait for: store
    # objects (Clients in threads, processes) starting together must each come up, not fail
    # with "database is locked".
    import threading

    failures: list[str] = []
    for trial in range(20):
        path = tmp_path / f"fresh{trial}.store.sqlite"
        barrier = threading.Barrier(6, timeout=30)

        def reserve(path: Path = path, barrier: threading.Barrier = barrier) -> None:
            store = LocalStore(path, NS)
            try:
                barrier.wait()
                store.reserve(0.0)
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                failures.append(repr(exc))
            finally:
                store.close()

        threads = [threading.Thread(target=reserve, daemon=True) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert failures == []
