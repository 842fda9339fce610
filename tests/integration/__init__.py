"""Integration tests: the library against its own emulator over loopback HTTP, in folders by
feature.

This directory and its folders are packages so that equal file names (``client/test_client.py``,
``cli/test_cache.py``...) do not collide with each other or with those in ``tests/unit``; the
shared helpers (``helpers.py``, ``enrich_helpers.py``, ``cli_helpers.py``, ``redis_fixture.py``)
sit here, beside ``conftest.py``, and are imported as ``from ..helpers import ...``.
"""
