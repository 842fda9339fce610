"""A Client the garbage collector frees never hangs the process (issue 21, item 9).

Notebooks leave Clients in reference cycles all the time (a failed cell's traceback keeps
one). The collector can free such a Client while another is opening its cache file; letting go
of the shared backend there used to wait for the lock the opening held, on the same thread:
a hang, about the third Client. The loop runs in a subprocess, so that a hang is a failed test
(after the timeout) and not a stuck test run; the timeout only guards against that hang.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_CLIENTS_IN_CYCLES = """
import gc, sys
import lookup_pandas as lp
from lookup_pandas.cache.sqlite import shared_backends

root = sys.argv[1]
for i in range(300):
    c = lp.Client(api_key="k", base_url="http://127.0.0.1:9", cache=f"{root}/c{i}.sqlite")
    c.me = c  # a cycle: only the garbage collector frees it
    del c
gc.collect()  # every Client left is freed now: their releases wait for the next call
with lp.Client(api_key="k", base_url="http://127.0.0.1:9", cache=f"{root}/last.sqlite"):
    pass
print("open backends:", len(shared_backends()))
print("all 300 clients done")
"""


def test_clients_freed_by_the_garbage_collector_never_hang(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOKUP_", "XDG_CACHE"))}
    proc = subprocess.run(
        [sys.executable, "-c", _CLIENTS_IN_CYCLES, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,  # a guard against the hang, not a measure of speed
    )
    assert proc.returncode == 0, proc.stderr
    assert "all 300 clients done" in proc.stdout, proc.stdout + proc.stderr
    # every backend was closed once its Client was gone: none leaks
    assert "open backends: 0" in proc.stdout, proc.stdout
