"""Who holds a claim: this process's name on its claims, and whether a holder is gone.

Example:
    >>> holder_gone(holder_name())  # this process runs
    False
    >>> holder_gone("another-machine|999999|1|x")  # judged by expiry, not here
    False
"""

from __future__ import annotations

import os
import socket
import uuid
from pathlib import Path

__all__ = ["holder_gone", "holder_name", "process_start", "retire"]

_SEP = "|"  # never in a host name
#: Holders of this process whose store was closed: their claims are nobody's any more.
_RETIRED: set[str] = set()


def _stat(pid: int) -> list[str]:
    """``/proc/<pid>/stat`` from field 3 (the state) on, or empty where there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    # The command name (field 2) is in parentheses and may hold spaces: count after it.
    return stat.rpartition(")")[2].split()


def process_start(pid: int) -> str | None:
    """When process ``pid`` started, in clock ticks since boot (None when unknown).

    Example:
        >>> import os
        >>> process_start(os.getpid()).isdigit()
        True
    """
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else None


def holder_name() -> str:
    """A new name for a holder in this process: host, pid, the process's start, a nonce.

    Example:
        >>> import os
        >>> holder_name().split("|")[1] == str(os.getpid())
        True
    """
    pid = os.getpid()
    start = process_start(pid) or "-"
    return _SEP.join((socket.gethostname(), str(pid), start, uuid.uuid4().hex[:12]))


def retire(holder: str) -> None:
    """Count ``holder``, a name of this process, as gone: its store was closed. The claims it
    could not let go of (the store failed) are then taken over at once, not after their TTL.

    Example:
        >>> name = holder_name()
        >>> retire(name)
        >>> holder_gone(name)
        True
    """
    _RETIRED.add(holder)


def holder_gone(holder: str) -> bool:
    """Whether ``holder`` names a process of this machine that no longer runs, or a holder of
    this process whose store was closed (:func:`retire`).

    A pid taken by a process that started at another time, or a zombie, counts as gone.

    Example:
        >>> import socket
        >>> holder_gone(f"{socket.gethostname()}|{2**22 + 1}|1|x")  # above Linux's largest pid
        True
    """
    if holder in _RETIRED:
        return True
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
    return start != "-" and len(fields) > 19 and fields[19] != start  # the pid taken anew
