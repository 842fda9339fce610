"""Integration tests: the library against its own emulator over loopback HTTP.

This directory is a package so that its module names (``test_client``, ``test_pagination``...)
do not collide with the same-named modules in ``tests/unit``.
"""
