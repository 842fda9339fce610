"""Unit tests for lookup_pandas.store.pacing.Pacer, driven by a fake clock and a fake sleep."""

from __future__ import annotations

import logging
import threading

import pytest

from lookup_pandas.store.pacing import UNPACED_LOOK_SECONDS, Cancelled, Pacer, check_cancel


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


def test_429s_of_calls_in_flight_together_slow_the_pace_once():
    pacer, _ = make(120)
    for _ in range(4):
        pacer.reserve()  # four calls in flight at once, all answered 429
    assert [pacer.slow_down(7) for _ in range(4)] == [60, 60, 60, 60]
    pacer.reserve()  # a call sent at the new pace, answered 429 too: slower again
    assert pacer.slow_down(7) == 30


class CountingSchedule:
    """A shared schedule (the store's ``reserve``) that holds calls back while ``held``."""

    def __init__(self) -> None:
        self.reserved = 0
        self.held = 0.0

    def reserve(self, interval: float) -> float:
        self.reserved += 1
        return self.held


def test_unpaced_the_shared_schedule_is_looked_at_once_a_while_not_per_slot():
    t = FakeTime()
    shared = CountingSchedule()
    pacer = Pacer(None, clock=t.clock, sleep=t.sleep, shared=shared)  # type: ignore[arg-type]
    assert [pacer.reserve() for _ in range(100)] == [0.0] * 100
    assert shared.reserved == 1  # no store transaction per call
    t.advance(UNPACED_LOOK_SECONDS)
    pacer.reserve()
    assert shared.reserved == 2


def test_unpaced_a_shared_hold_back_is_kept_to_at_every_slot_until_it_ends():
    t = FakeTime()
    shared = CountingSchedule()
    pacer = Pacer(None, clock=t.clock, sleep=t.sleep, shared=shared)  # type: ignore[arg-type]
    pacer.reserve()
    shared.held = 2.0  # another process saw a 429 with Retry-After
    t.advance(UNPACED_LOOK_SECONDS)
    assert pacer.reserve() == 2.0
    assert pacer.reserve() == 2.0  # looked at again, every slot, while it holds calls back
    assert shared.reserved == 3
    shared.held = 0.0
    assert pacer.reserve() == 0.0
    assert pacer.reserve() == 0.0
    assert shared.reserved == 4  # free again: once a while


def test_paced_every_slot_comes_from_the_shared_schedule():
    t = FakeTime()
    shared = CountingSchedule()
    pacer = Pacer(60, clock=t.clock, sleep=t.sleep, shared=shared)  # type: ignore[arg-type]
    for _ in range(5):
        pacer.reserve()
    assert shared.reserved == 5


def test_check_cancel_raises_only_once_set():
    event = threading.Event()
    check_cancel(event, "x")
    check_cancel(None, "x")
    event.set()
    with pytest.raises(Cancelled, match="x"):
        check_cancel(event, "x")


def test_a_change_of_pace_and_a_deferral_are_logged_a_rate_set_again_is_not(caplog):
    pacer, _ = make(60)
    with caplog.at_level(logging.DEBUG, logger="lookup_pandas.store.pacing"):
        pacer.set_rate(120)
        pacer.set_rate(120)  # no change: no record
        pacer.set_rate(None)
        pacer.defer(2.5)
    assert [r.getMessage() for r in caplog.records] == [
        "pace 120.0/min (was 60.0/min)",
        "pace unpaced (was 120.0/min)",
        "no send slot for 2.50s (Retry-After)",
    ]


def test_the_lock_is_not_held_while_the_shared_schedule_is_asked():
    entered, release = threading.Event(), threading.Event()
    free_inside: list[bool] = []

    class SlowSchedule(CountingSchedule):
        def reserve(self, interval: float) -> float:
            entered.set()
            release.wait(30)  # a Redis round trip, or a SQLite transaction, in flight
            return super().reserve(interval)

    pacer = Pacer(60, clock=lambda: 0.0, shared=SlowSchedule())  # type: ignore[arg-type]
    waits: list[float] = []
    taker = threading.Thread(target=lambda: waits.append(pacer.reserve()))
    taker.start()
    assert entered.wait(30)
    free_inside.append(pacer._lock.acquire(blocking=False))  # another thread can take it
    pacer._lock.release()
    pacer.set_rate(30)  # and change the pace meanwhile
    release.set()
    taker.join()
    assert free_inside == [True] and waits == [0.0] and pacer.per_minute == 30
