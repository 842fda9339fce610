"""Unit tests for lookup_pandas.pacing.Pacer, driven by a fake clock and a fake sleep."""

from __future__ import annotations

import threading

import pytest

from lookup_pandas.pacing import Pacer


class FakeTime:
    """A clock that only moves when someone sleeps (or the test advances it)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def clock(self) -> float:
        with self._lock:
            return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self.now += seconds

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


def make(per_minute, **kw):
    t = FakeTime()
    return Pacer(per_minute, clock=t.clock, sleep=t.sleep, **kw), t


def send_times(pacer: Pacer, t: FakeTime, n: int) -> list[float]:
    out = []
    for _ in range(n):
        pacer.wait()
        out.append(t.now)
    return out


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def test_slots_are_evenly_spaced_at_60_over_per_minute():
    pacer, t = make(120)
    times = send_times(pacer, t, 6)
    assert times[0] == 1000.0  # the first call does not wait
    assert gaps(times) == pytest.approx([0.5] * 5)
    assert pacer.per_minute == pytest.approx(120)


@pytest.mark.parametrize(("per_minute", "interval"), [(7, 60 / 7), (60, 1.0), (550, 60 / 550)])
def test_interval_for_other_rates(per_minute, interval):
    pacer, t = make(per_minute)
    assert gaps(send_times(pacer, t, 4)) == pytest.approx([interval] * 3)


def test_no_burst_after_idle_time():
    pacer, t = make(120)
    send_times(pacer, t, 3)
    t.advance(300.0)  # idle for five minutes: no credit is banked
    start = t.now
    times = send_times(pacer, t, 5)
    assert times[0] == start
    assert gaps(times) == pytest.approx([0.5] * 4)


def test_no_burst_after_partial_idle():
    pacer, t = make(60)
    pacer.wait()
    t.advance(
        0.3
    )  # the caller did other work for 0.3 s: the next slot is still 1 s after the first
    pacer.wait()
    assert t.now == pytest.approx(1001.0)


def test_per_minute_none_never_waits():
    pacer, t = make(None)
    for _ in range(50):
        pacer.wait()
        assert pacer.reserve() == 0.0
    assert t.sleeps == []
    assert t.now == 1000.0
    assert pacer.per_minute is None


def test_per_minute_infinite_never_waits():
    pacer, t = make(float("inf"))
    send_times(pacer, t, 10)
    assert t.sleeps == []


@pytest.mark.parametrize("bad", [0, -1, -0.5])
def test_non_positive_rate_is_rejected(bad):
    with pytest.raises(ValueError):
        Pacer(bad)


def test_reserve_returns_wait_without_sleeping():
    pacer, t = make(60)
    assert [pacer.reserve() for _ in range(4)] == pytest.approx([0.0, 1.0, 2.0, 3.0])
    assert t.sleeps == []


def test_defer_pushes_every_later_slot():
    pacer, t = make(120)
    pacer.wait()  # slot at 1000.0
    pacer.defer(5.0)
    times = send_times(pacer, t, 3)
    assert times == pytest.approx([1005.0, 1005.5, 1006.0])


def test_defer_shorter_than_next_slot_changes_nothing():
    pacer, t = make(6)  # 10 s apart
    pacer.wait()
    pacer.defer(2.0)
    pacer.wait()
    assert t.now == pytest.approx(1010.0)


def test_defer_negative_is_treated_as_zero():
    pacer, t = make(None)
    pacer.defer(-10)
    pacer.wait()
    assert t.sleeps == []


def test_defer_applies_to_unpaced_pacer_too():
    pacer, t = make(None)
    pacer.defer(3.0)
    times = send_times(pacer, t, 3)
    assert times == pytest.approx([1003.0, 1003.0, 1003.0])


def test_set_rate_rebases_on_last_slot():
    pacer, t = make(120)
    send_times(pacer, t, 2)  # slots at 1000.0 and 1000.5
    pacer.set_rate(60)
    times = send_times(pacer, t, 3)
    assert times == pytest.approx([1001.5, 1002.5, 1003.5])
    assert pacer.per_minute == pytest.approx(60)


def test_set_rate_faster_rebases_on_last_slot():
    pacer, t = make(6)  # 10 s apart
    pacer.wait()  # slot at 1000
    pacer.set_rate(120)
    times = send_times(pacer, t, 2)
    assert times == pytest.approx([1000.5, 1001.0])


def test_set_rate_rebases_on_last_reserved_slot_not_the_clock():
    pacer, _t = make(60)
    delays = [pacer.reserve() for _ in range(3)]  # slots at +0, +1, +2 (not yet reached)
    assert delays == pytest.approx([0, 1, 2])
    pacer.set_rate(30)
    assert pacer.reserve() == pytest.approx(4.0)  # last slot +2, then 2 s


def test_set_rate_before_any_slot_applies_from_the_start():
    pacer, t = make(120)
    pacer.set_rate(60)
    assert gaps(send_times(pacer, t, 3)) == pytest.approx([1.0, 1.0])


def test_set_rate_none_stops_pacing():
    pacer, t = make(60)
    pacer.wait()
    pacer.set_rate(None)
    send_times(pacer, t, 5)
    assert t.sleeps == []


def test_deferral_in_force_survives_set_rate():
    pacer, t = make(120)
    pacer.wait()
    pacer.defer(10.0)
    pacer.set_rate(60)
    pacer.wait()
    assert t.now == pytest.approx(1010.0)


def test_longest_deferral_in_force_survives_set_rate():
    # Two 429s: Retry-After 10 then Retry-After 1. The 10 s deferral is still in force when a
    # later 429 lowers the rate, so no slot may come before it ends.
    pacer, t = make(120)
    pacer.wait()
    pacer.defer(10.0)
    pacer.defer(1.0)
    pacer.set_rate(60)
    pacer.wait()
    assert t.now >= 1010.0


# ---------------------------------------------------------------------------------------------
# resolve


def test_resolve_is_called_lazily_once_and_its_rate_applied():
    calls = []

    def resolve():
        calls.append(1)
        return 60.0

    pacer, t = make(None, resolve=resolve)
    assert calls == []  # lazy: nothing at construction
    times = send_times(pacer, t, 4)
    assert calls == [1]
    assert gaps(times) == pytest.approx([1.0] * 3)
    assert pacer.per_minute == pytest.approx(60)


def test_resolve_returning_none_keeps_the_configured_rate():
    calls = []
    pacer, t = make(120, resolve=lambda: calls.append(1))
    times = send_times(pacer, t, 3)
    assert calls == [1]
    assert gaps(times) == pytest.approx([0.5, 0.5])


def test_resolve_that_raises_is_tried_again_by_the_next_caller():
    # A failed attempt (a rejected key at the tier endpoint) does not settle the rate: the next
    # call tries again, so a key that works later gets its real pace, not the safe default.
    calls = []
    outcomes = [RuntimeError("tier endpoint down"), RuntimeError("still down"), 600]

    def resolve():
        calls.append(1)
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    pacer, t = make(120, resolve=resolve)
    for _ in range(2):
        with pytest.raises(RuntimeError):
            pacer.wait()
        assert not pacer.resolved
    pacer.wait()
    pacer.wait()
    assert calls == [1, 1, 1]
    assert pacer.resolved and pacer.per_minute == 600


def test_request_made_inside_resolve_does_not_deadlock():
    inner = []
    holder: dict[str, Pacer] = {}

    def resolve():
        holder["p"].wait()  # the resolver's own request goes through the same pacer
        inner.append("sent")
        return 60.0

    pacer, t = make(6, resolve=resolve)
    holder["p"] = pacer
    done = threading.Event()

    def run():
        pacer.wait()
        pacer.wait()
        done.set()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert done.is_set(), "Pacer deadlocked on a request made from inside resolve()"
    assert inner == ["sent"]
    assert pacer.per_minute == pytest.approx(60)


def _run_threads(n: int, target) -> list[BaseException]:
    errors: list[BaseException] = []

    def wrapped():
        try:
            target()
        except BaseException as exc:  # pragma: no cover - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=wrapped, daemon=True) for _ in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=20)
    assert not any(th.is_alive() for th in threads), "threads hung"
    return errors


def test_resolve_called_exactly_once_with_many_threads():
    n = 16
    calls = []
    lock = threading.Lock()
    start = threading.Barrier(n)

    def resolve():
        with lock:
            calls.append(threading.get_ident())
        return 60.0

    recorded: list[float] = []
    rec_lock = threading.Lock()

    def sleep(seconds):
        with rec_lock:
            recorded.append(seconds)

    pacer = Pacer(None, resolve=resolve, clock=lambda: 0.0, sleep=sleep)

    def worker():
        start.wait()
        pacer.wait()

    assert _run_threads(n, worker) == []
    assert len(calls) == 1
    assert pacer.per_minute == pytest.approx(60)


def test_threads_arriving_during_resolve_wait_for_the_resolved_rate():
    """No slot is handed out at the old rate while resolve() is still running.

    The pacer starts unpaced; resolve (slow, like a real HTTP call) returns 60/min. Other threads
    that call wait() meanwhile must get slots spaced 1 s apart, not go out at once.
    """
    n = 6
    arrived = threading.Semaphore(0)
    finished = []
    fin_lock = threading.Lock()
    all_others_done = threading.Event()
    resolver_started = threading.Event()

    def resolve():
        resolver_started.set()
        for _ in range(n - 1):  # every other thread is about to call wait()
            arrived.acquire(timeout=10)
        # Give them time to either block (correct) or slip through at the old rate (the bug).
        all_others_done.wait(timeout=1.0)
        return 60.0

    delays: list[float] = []
    lock = threading.Lock()

    def sleep(seconds):
        with lock:
            delays.append(seconds)

    pacer = Pacer(None, resolve=resolve, clock=lambda: 0.0, sleep=sleep)

    def first():
        pacer.wait()

    def other():
        resolver_started.wait(timeout=10)
        arrived.release()
        pacer.wait()
        with fin_lock:
            finished.append(1)
            if len(finished) == n - 1:
                all_others_done.set()

    threads = [threading.Thread(target=first, daemon=True)]
    threads += [threading.Thread(target=other, daemon=True) for _ in range(n - 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=20)
    assert not any(th.is_alive() for th in threads)
    # The clock never moves, so each slot's wait is its offset: 0 (no sleep), 1, 2, ... n-1.
    assert sorted(delays) == pytest.approx([float(i) for i in range(1, n)])


def test_concurrent_reservations_get_distinct_evenly_spaced_slots():
    n = 40
    pacer = Pacer(120, clock=lambda: 500.0, sleep=lambda s: None)
    start = threading.Barrier(n)
    got: list[float] = []
    lock = threading.Lock()

    def worker():
        start.wait()
        d = pacer.reserve()
        with lock:
            got.append(d)

    assert _run_threads(n, worker) == []
    assert sorted(got) == pytest.approx([0.5 * i for i in range(n)])


def test_concurrent_waits_with_fake_sleep_get_distinct_slots():
    n = 25
    t = FakeTime()
    pacer = Pacer(60, clock=lambda: 0.0, sleep=t.sleep)
    start = threading.Barrier(n)

    def worker():
        start.wait()
        pacer.wait()

    assert _run_threads(n, worker) == []
    # Slot 0 needs no sleep; the others sleep 1, 2, ... n-1 seconds: all distinct.
    assert sorted(t.sleeps) == pytest.approx([float(i) for i in range(1, n)])


# -- slow_down: a 429 that names no limit ---------------------------------------------------------


def test_slow_down_halves_a_pace():
    pacer = Pacer(per_minute=120)
    assert pacer.slow_down(7) == 60
    assert pacer.per_minute == 60


def test_slow_down_never_goes_below_the_floor():
    pacer = Pacer(per_minute=10)
    assert pacer.slow_down(7) == 7


def test_slow_down_of_an_unpaced_pacer_halves_the_rate_it_sent_at():
    pacer, t = make(None)
    for _ in range(11):  # 11 slots over 1 s: 10 per second = 600 per minute
        assert pacer.reserve() == 0
        t.advance(0.1)
    assert pacer.slow_down(7) == pytest.approx(300)
    assert pacer.per_minute == pytest.approx(300)


def test_slow_down_of_an_unpaced_pacer_that_sent_nothing_takes_the_floor():
    assert Pacer(per_minute=None).slow_down(7) == 7


def test_infinity_from_resolve_means_unpaced():
    pacer = Pacer(per_minute=7, resolve=lambda: float("inf"))
    pacer.ensure_resolved()
    assert pacer.per_minute is None and pacer.reserve() == 0 and pacer.reserve() == 0


def test_429s_of_calls_in_flight_together_slow_the_pace_once():
    pacer, _ = make(120)
    for _ in range(4):
        pacer.reserve()  # four calls in flight at once, all answered 429
    assert [pacer.slow_down(7) for _ in range(4)] == [60, 60, 60, 60]
    pacer.reserve()  # a call sent at the new pace, answered 429 too: slower again
    assert pacer.slow_down(7) == 30
