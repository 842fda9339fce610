"""notebook_client(): the service when LOOKUP_* is set, else the emulator, for notebooks.

Example (the first cell of every notebook in notebooks/)::

    from lookup_pandas.testing import notebook_client
    client = notebook_client()      # LOOKUP_BASE_URL + LOOKUP_API_KEY, or a local emulator

So a notebook runs anywhere: against the real service when the environment says so, and
otherwise against an emulator started for this kernel (stopped when the kernel exits) with a
cache in a temporary directory unless LOOKUP_CACHE names one.

``LOOKUP_EMULATOR_SPARSE=1`` starts that emulator with ``sparse_records=True``: every record
then carries ``id``, ``handle`` and only some of its other fields, as production may answer
(it promises nothing else), so a notebook can be checked against records with gaps. A
``sparse_records=`` keyword given to ``notebook_client`` wins over the variable.
"""

from __future__ import annotations

import atexit
import os
import tempfile
from pathlib import Path
from typing import Any

from ..client.client import Client, configure
from ..config.settings import ENV_API_KEY, ENV_BASE_URL, ENV_CACHE
from .server import FakeService

__all__ = ["ENV_EMULATOR_SPARSE", "notebook_client", "notebook_emulator"]

#: "1" starts the notebook's emulator in the sparse-records mode.
ENV_EMULATOR_SPARSE = "LOOKUP_EMULATOR_SPARSE"

_emulator: FakeService | None = None


def notebook_client(**knobs: Any) -> Client:
    """Configure and return the default client; ``knobs`` go to the emulator if one starts.

    The emulator is started with ``sparse_records=True`` when ``LOOKUP_EMULATOR_SPARSE`` is
    ``"1"`` (unless ``knobs`` say otherwise).
    """
    global _emulator
    if os.environ.get(ENV_BASE_URL) and os.environ.get(ENV_API_KEY):
        return configure()
    if _emulator is None:
        knobs.setdefault("latency", 0.02)
        knobs.setdefault("sparse_records", os.environ.get(ENV_EMULATOR_SPARSE) == "1")
        _emulator = FakeService(**knobs).start()
        atexit.register(_emulator.stop)
    cache: Any = True
    if not os.environ.get(ENV_CACHE):
        cache = Path(tempfile.mkdtemp(prefix="lookup-notebook-")) / "cache.sqlite"
    return configure(api_key=_emulator.api_key, base_url=_emulator.base_url, cache=cache)


def notebook_emulator() -> FakeService | None:
    """The emulator :func:`notebook_client` started in this kernel, or None (a real service).

    A notebook changes the emulator's world with it (``notebook_emulator().move(...)``).

    >>> notebook_emulator() is None  # no notebook_client() yet in this process
    True
    """
    return _emulator
