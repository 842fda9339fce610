"""Who holds a claim: this process's name on its claims, and whether a holder is gone.

Example::

    name = holder_name()          # "build-7|4242|98765|3f2a9c1d0b7e": host, pid, start, nonce
    holder_gone(name)             # False: this process is alive
    holder_gone("build-7|999999|1|x")   # True on build-7 when no process 999999 runs

A claim names the process that took it, so another process on the same machine can tell at
once that its holder was killed (``kill -9``, a closed terminal, a restarted kernel, the OOM
killer) instead of waiting for the claim to expire. A pid alone is not enough: the system reuses
pids, so the holder's start time (``/proc/<pid>/stat``, field 22, in clock ticks since boot) is
part of the name, and a live process with another start time is not the holder; a zombie (killed,
not yet reaped by its parent) holds nothing either. A holder on
another machine, or a name of another shape, is never judged gone here: its claims end by
expiry (they are short and renewed while the holder works; see :mod:`lookup_pandas.store.claims`).
"""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

__all__ = ["holder_gone", "holder_name", "process_start"]

_SEP = "|"  # never in a host name


def _stat(pid: int) -> list[str]:
    """``/proc/<pid>/stat`` from field 3 (the state) on; empty where there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    # The command name (field 2) is in parentheses and may hold spaces: count after it.
    return stat.rpartition(")")[2].split()


def process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, as text); None where there is no
    ``/proc`` or no such process."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else None


def holder_name() -> str:
    """A new name for a holder in this process: host, pid, the process's start, a nonce."""
    pid = os.getpid()
    start = process_start(pid) or "-"
    return _SEP.join((socket.gethostname(), str(pid), start, uuid.uuid4().hex[:12]))


def holder_gone(holder: str) -> bool:
    """True when ``holder`` names a process of this machine that no longer runs (its pid is
    free, or taken by a process that started at another time)."""
    parts = holder.split(_SEP)
    if len(parts) != 4 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    pid, start = int(parts[1]), parts[2]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's live process
    except OSError:
        return False
    fields = _stat(pid)
    if fields and fields[0] in ("Z", "X"):
        return True  # killed, not yet reaped by its parent: it holds nothing any more
    now = fields[19] if len(fields) > 19 else None
    return start != "-" and now is not None and now != start
