"""Conformance: production's official SDK (``renidly`` 0.3) judges the emulator over loopback
(the methods covered: ``test_surface.py``)."""
