"""The contact's tier following, with a store shared by processes and a scripted tier endpoint."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from lookup_pandas.config.settings import Settings
from lookup_pandas.errors import AuthenticationError, PermissionDeniedError, RateLimitError
from lookup_pandas.http.contact import Contact
from lookup_pandas.http.decisions import Call
from lookup_pandas.service.envelope import Envelope
from lookup_pandas.service.paths import TIER_PATH
from lookup_pandas.store.local import LocalStore
from lookup_pandas.store.pacing import Pacer

FAST = {
    "balance": 130,
    "current_tier": {"name": "Fast", "min_credits": 100, "limit_per_minute": 1200},
    "previous_tier": {"name": "Slow", "min_credits": 0, "limit_per_minute": 120},
}
SLOW = {
    "balance": 99,
    "current_tier": {"name": "Slow", "min_credits": 0, "limit_per_minute": 120},
    "previous_tier": None,
}


class TierEndpoint:
    """Answers the tier endpoint from a script of payloads (the last one repeats)."""

    def __init__(self, *payloads: dict | Exception) -> None:
        self.payloads = list(payloads)
        self.asked = 0
        self.calls: list[Call] = []

    def __call__(self, call: Call) -> Envelope:
        assert call.path == TIER_PATH
        self.calls.append(call)
        answer = self.payloads[min(self.asked, len(self.payloads) - 1)]
        self.asked += 1
        if isinstance(answer, Exception):
            raise answer
        return Envelope(data=answer, message="ok", pagination=None, request_id=None, body={})


@pytest.fixture
def store(tmp_path):
    return LocalStore(tmp_path / "store.sqlite", namespace="ns")


def contact_on(store, endpoint, workers=4):
    settings = Settings.build(
        api_key="lk_contact", base_url="http://127.0.0.1:9", cache=False, max_workers=workers
    )
    pacer = Pacer(shared=store)
    return Contact(settings, pacer, store, cache_on=True, request=endpoint), pacer


def test_the_pace_drops_before_the_floor_and_every_process_on_the_store_learns_it(store):
    endpoint = TierEndpoint(FAST, SLOW)
    contact, pacer = contact_on(store, endpoint)
    assert contact.learn_pace() == pytest.approx(1140)  # 95% of Fast
    contact.seen_balance(125)  # far from the floor (margin 2 x 4 + 4 = 12)
    assert pacer.per_minute == pytest.approx(1140) and endpoint.asked == 1
    contact.seen_balance(111)  # within 12 credits of it: the lower tier's pace, now
    assert pacer.per_minute == pytest.approx(114)
    assert endpoint.asked == 1  # no read needed: the tier named the lower one
    # Another process on the same store is held to the slower pace too.
    other = Pacer(per_minute=1140, shared=store)
    waits = [other.reserve() for _ in range(3)]
    assert waits[2] - waits[1] == pytest.approx(60 / 114, abs=0.05)
    contact.seen_balance(99)  # below the floor, but the tier was read a moment ago
    assert endpoint.asked == 1
    contact._tier_read_at -= 10  # some seconds later: the tier is read again
    contact.seen_balance(98)
    assert endpoint.asked == 2 and pacer.per_minute == pytest.approx(114)


def test_a_reread_after_a_429_never_speeds_the_pace_up(store):
    contact, pacer = contact_on(store, TierEndpoint(FAST))
    contact.learn_pace()
    pacer.set_rate(300)  # a 429 named a lower limit than the tier's
    contact.reread_tier(after_429=True)
    assert pacer.per_minute == 300
    contact.reread_tier()  # a periodic read may (a top-up)
    assert pacer.per_minute == pytest.approx(1140)


def test_an_ambiguous_403_is_the_record_s_while_the_key_reads_its_tier(store):
    endpoint = TierEndpoint(FAST, AuthenticationError("Invalid API key", status_code=403))
    contact, _ = contact_on(store, endpoint)
    forbidden = PermissionDeniedError("Forbidden", status_code=403)
    forbidden.ambiguous = True
    assert contact.resolve_forbidden(forbidden, "/api/data/v1/people/profile") is forbidden
    assert endpoint.asked == 1
    contact.resolve_forbidden(forbidden, "/api/data/v1/people/profile")
    assert endpoint.asked == 1  # the key was just seen good: not asked again at once
    contact._key_good_at = None
    decided = contact.resolve_forbidden(forbidden, "/api/data/v1/people/profile")
    assert isinstance(decided, AuthenticationError)


def test_a_403_on_a_panel_path_is_the_key_s(store):
    contact, _ = contact_on(store, TierEndpoint(FAST))
    denied = PermissionDeniedError("Forbidden", status_code=403)
    decided = contact.resolve_forbidden(denied, TIER_PATH)
    assert isinstance(decided, AuthenticationError) and decided.status_code == 403


def test_a_record_s_403_is_never_checked(store):
    endpoint = TierEndpoint(FAST)
    contact, _ = contact_on(store, endpoint)
    opted_out = PermissionDeniedError("This person has opted out", status_code=403)
    assert contact.resolve_forbidden(opted_out, "/api/data/v1/people/profile") is opted_out
    assert endpoint.asked == 0


def test_a_reread_is_advisory_a_429_on_it_is_not_waited_out_and_leaves_the_pace(store):
    limited = RateLimitError("Rate limit exceeded", status_code=429, retry_after=30)
    endpoint = TierEndpoint(FAST, limited)
    contact, pacer = contact_on(store, endpoint)
    contact.learn_pace()
    contact.reread_tier(after_429=True)
    assert 429 in endpoint.calls[-1].final_statuses  # not retried in the caller's thread
    assert pacer.per_minute == pytest.approx(1140) and endpoint.asked == 2


class LockFreeEndpoint(TierEndpoint):
    """The tier endpoint, noting whether the contact's lock was free while it answered."""

    contact: Contact

    def __call__(self, call: Call) -> Envelope:
        free = self.contact._lock.acquire(blocking=False)
        if free:
            self.contact._lock.release()
        self.free.append(free)
        return super().__call__(call)

    free: list[bool]


def test_the_contact_holds_its_one_lock_across_no_tier_read(store):
    endpoint = LockFreeEndpoint(FAST)
    endpoint.free = []
    contact, _ = contact_on(store, endpoint)
    endpoint.contact = contact
    contact.learn_pace()  # the first read
    contact.reread_tier()  # a later one
    contact.check_key()  # the key check's
    forbidden = PermissionDeniedError("Forbidden", status_code=403)
    forbidden.ambiguous = True
    contact.resolve_forbidden(forbidden, "/api/data/v1/people/profile")  # a 403 told apart
    assert endpoint.free == [True] * 4 and contact.key_proven  # the check read the tier


def test_threads_meeting_an_unknown_pace_wait_for_one_tier_read(store):
    entered, release = threading.Event(), threading.Event()

    class SlowEndpoint(TierEndpoint):
        def __call__(self, call: Call) -> Envelope:
            entered.set()
            release.wait(30)
            return super().__call__(call)

    endpoint = SlowEndpoint(FAST)
    contact, pacer = contact_on(store, endpoint)
    with ThreadPoolExecutor(4) as pool:
        paces = [pool.submit(contact.learn_pace) for _ in range(4)]
        assert entered.wait(30)
        release.set()
        assert [p.result() for p in paces] == [pytest.approx(1140)] * 4
    assert endpoint.asked == 1 and contact.rate_known


def test_a_failed_first_read_is_raised_in_every_thread_that_waited_and_retried_next(store):
    entered, release = threading.Event(), threading.Event()

    class FailingOnce(TierEndpoint):
        def __call__(self, call: Call) -> Envelope:
            if self.asked == 0:
                entered.set()
                release.wait(30)
            return super().__call__(call)

    rejected = AuthenticationError("Invalid API key", status_code=401)
    endpoint = FailingOnce(rejected, FAST)
    contact, _ = contact_on(store, endpoint)
    first = threading.Thread(target=lambda: pytest.raises(AuthenticationError, contact.learn_pace))
    first.start()
    assert entered.wait(30)
    with ThreadPoolExecutor(1) as pool:
        waiter = pool.submit(contact.learn_pace)
        while not contact._lock._waiters:  # type: ignore[attr-defined]  # the waiter waits
            threading.Event().wait(0.001)
        release.set()
        first.join()
        with pytest.raises(AuthenticationError):
            waiter.result()
    assert endpoint.asked == 1
    assert contact.learn_pace() == pytest.approx(1140) and endpoint.asked == 2  # tried again
