"""The walk of one uncached enrichment, from the accessor to the socket: what it enters.

Not a benchmark (``make bench`` runs ``bench_*.py``): a count of the engine's hand-offs, the
figure issue 40 set out to lower. ``python bench/walk.py`` enriches one handle against the
emulator, with a fresh SQLite cache, tracing every call in ``lookup_pandas`` (not its
``testing`` emulator) in every thread until the profile request is put on the wire. It prints:

- modules: the package's modules entered;
- hand-offs: calls from one of the package's modules into another (each distinct edge once,
  ``caller module -> callee module:function``), a pool thread's first call counting as one;
- returns: calls into a module the walk had already left for another;
- classes: the package's classes whose methods ran.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import pandas as pd

import lookup_pandas as lp
from lookup_pandas.testing import FakeService

PACKAGE = str(Path(lp.__file__).resolve().parent)
EMULATOR = str(Path(PACKAGE, "testing"))


def _module(frame: FrameType | None) -> str | None:
    """The package module ``frame`` runs in, or None outside it (the emulator is outside)."""
    if frame is None:
        return None
    name = frame.f_code.co_filename
    if not name.startswith(PACKAGE) or name.startswith(EMULATOR):
        return None
    return str(Path(name).relative_to(PACKAGE).with_suffix(""))


class Walk:
    """What the trace saw, until the profile request's ``putrequest``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done = False
        self.modules: list[str] = []
        self.edges: set[tuple[str, str]] = set()
        self.classes: set[str] = set()
        self.path: list[str] = []  # the module of each hand-off, in order

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or self.done:
            return
        code = frame.f_code
        if code.co_name == "putrequest" and "profile" in str(frame.f_locals.get("url", "")):
            self.done = True
            return
        callee = _module(frame)
        if callee is None:
            return
        caller, back = None, frame.f_back
        while back is not None and caller is None:
            caller = _module(back)
            back = back.f_back
        with self.lock:
            if callee not in self.modules:
                self.modules.append(callee)
            this = self_of(frame)
            if this is not None:
                self.classes.add(this)
            if caller != callee:
                self.edges.add((caller or "(thread)", f"{callee}:{code.co_name}"))
                self.path.append(callee)


def self_of(frame: FrameType) -> str | None:
    """The package class of the method ``frame`` runs, if it is one."""
    this = frame.f_locals.get("self") if frame.f_code.co_varnames[:1] == ("self",) else None
    cls = type(this)
    if this is None or not cls.__module__.startswith("lookup_pandas."):
        return None
    return None if cls.__module__.startswith("lookup_pandas.testing") else cls.__qualname__


def returns(path: list[str]) -> int:
    """Hand-offs into a module the walk had already entered and left."""
    left: set[str] = set()
    back = 0
    for before, now in zip(path, path[1:], strict=False):
        left.add(before)
        back += now in left
    return back


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp, FakeService() as service:
        client = lp.Client(
            api_key=service.api_key, base_url=service.base_url, cache=Path(tmp, "c.sqlite")
        )
        frame = pd.DataFrame({"handle": ["ada-lovelace"]})
        walk = Walk()
        threading.setprofile(walk)
        sys.setprofile(walk)
        try:
            frame.lookup.enrich_profiles("handle", client=client, progress=False)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
            client.close()
    print(f"modules entered: {len(walk.modules)}")
    print(f"hand-offs (distinct edges): {len(walk.edges)}")
    print(f"returns to a module already left: {returns(walk.path)}")
    print(f"classes: {len(walk.classes)}")
    if "-v" in sys.argv:
        print("\n".join(walk.modules))
        print("\n".join(sorted(walk.classes)))


if __name__ == "__main__":
    main()
