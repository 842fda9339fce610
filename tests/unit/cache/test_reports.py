"""Unit tests for cache.reports: the figures of cached answers and the text of each report."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from requests_cache.models.response import CachedResponse

from lookup_pandas.cache.reports import CacheInfo, Forgotten, summarise

# -- figures and their text ---------------------------------------------------------------------


def _response(created: datetime, expires: datetime) -> CachedResponse:
    return CachedResponse(created_at=created, expires=expires)


def test_summarise_gives_oldest_newest_and_expired():
    now = datetime.now(UTC)
    responses = [
        _response(now - timedelta(days=3), now - timedelta(days=1)),  # expired
        _response(now - timedelta(days=5), now + timedelta(days=2)),
        _response(now - timedelta(hours=1), now + timedelta(days=6)),
    ]
    assert summarise(responses) == (now - timedelta(days=5), now - timedelta(hours=1), 1)
    assert summarise([]) == (None, None, 0)


def test_cache_info_text():
    assert "off (nothing is cached)" in str(CacheInfo("off"))
    empty = str(CacheInfo("/c.sqlite", bytes=4096))
    assert "answers:    none" in empty and "4.0 KiB" in empty and "stored" not in empty
    when = datetime(2024, 6, 1, 10, 2, tzinfo=UTC)
    full = str(
        CacheInfo("/c.sqlite", 1234, 12, 3 * 1024 * 1024 // 2, when, when + timedelta(days=1), 2)
    )
    assert "1,234, 12 of them expired" in full and "1.5 MiB" in full
    assert "stored:     from 2024-06-0" in full and "batch jobs: 2 stored" in full
    assert "unknown" in str(CacheInfo("redis://:***@h:6379/0", 3, bytes=None))


def test_forgotten_counts_and_text():
    result = Forgotten(
        ("ada", "grace", "zed"),
        ("ada", "grace"),
        profiles=2,
        pages=1,
        unreadable=1,
        jobs=1,
        location="/c.sqlite",
    )
    assert result.entries == 4
    text = str(result)
    assert text.startswith("forgot 3 handles in /c.sqlite: removed 2 profile answers, 1 page, ")
    assert "1 unreadable answer, 1 batch job" in text and "nothing was stored about zed" in text
