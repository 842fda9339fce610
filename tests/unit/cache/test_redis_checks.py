"""What a Redis's settings can lose, decided without a server: one line or None."""

from __future__ import annotations

import pytest

from lookup_pandas.cache.redis_checks import Keeping, _keeping, emptied_warning, settings_warning

URL = "redis://:***@redis.internal:6379/0"


@pytest.mark.parametrize(
    "keeping",
    [
        Keeping(0, "allkeys-lru", appendonly=True, save=""),  # no limit: nothing is evicted
        Keeping(1 << 30, "noeviction", appendonly=True, save="3600 1"),
        Keeping(1 << 30, "noeviction", appendonly=True, save=None),  # INFO: aof_enabled:1
    ],
)
def test_noeviction_or_no_limit_with_an_append_only_file_is_not_warned(keeping):
    assert settings_warning(URL, keeping) is None


@pytest.mark.parametrize("policy", ["allkeys-lru", "allkeys-lfu", "allkeys-random"])
def test_an_allkeys_policy_under_a_limit_is_warned(policy):
    line = settings_warning(URL, Keeping(2_097_152, policy, appendonly=True, save=""))
    assert line == (
        f"Redis at {URL} can lose paid answers: they can be evicted and bought again (maxmemory "
        f"2097152, maxmemory-policy {policy}): set maxmemory-policy noeviction (docs/scaling.md)"
    )


@pytest.mark.parametrize("policy", ["volatile-lru", "volatile-ttl", "volatile-random"])
def test_a_volatile_policy_is_warned_since_every_answer_has_a_ttl(policy):
    line = settings_warning(URL, Keeping(2_097_152, policy, appendonly=True, save=""))
    assert line is not None and f"maxmemory-policy {policy}: every answer has a TTL" in line


def test_both_risks_are_one_line():
    line = settings_warning(URL, Keeping(1, "allkeys-lru", appendonly=False, save=""))
    assert line is not None and "\n" not in line
    assert "evicted" in line and 'a restart loses every answer (appendonly no, save "")' in line


def test_from_info_no_snapshot_since_the_start_can_lose_every_answer():
    line = settings_warning(URL, Keeping(0, "noeviction", appendonly=False, save=None))
    assert line is not None and "a restart can lose every answer (no append-only file" in line
    taken = settings_warning(URL, Keeping(0, "noeviction", False, save=None, snapshots=3))
    assert taken is not None and "since the last snapshot (appendonly no)" in taken


def test_config_get_replies_are_read_as_bytes_or_text():
    replies = [
        {b"maxmemory": b"2097152"},
        {"maxmemory-policy": "allkeys-lru"},
        {b"appendonly": b"no"},
        {b"save": b"3600 1 300 100"},
    ]
    assert _keeping(replies) == Keeping(2097152, "allkeys-lru", False, save="3600 1 300 100")
    assert _keeping([{}, {}, {}, RuntimeError("unknown command 'config'")]) is None


def test_the_emptied_line_names_the_url_and_says_what_happens():
    assert emptied_warning(URL) == (
        f"Redis at {URL} holds none of the answers this machine stored there (restarted empty, "
        "flushed or evicted): this run buys them again"
    )
