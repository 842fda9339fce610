"""Unit tests for lookup_pandas.store.holders: reading a process's start from ``/proc`` whatever
its command name, and judging a holder gone by pid and start (more in test_claims.py, "holders")."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from lookup_pandas.store.holders import holder_gone, process_start

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

HOST = socket.gethostname()
#: No process ever has this pid: the kernel hands out pids below pid_max.
NO_PID = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1

#: A child that renames itself (``/proc/self/comm``, 15 characters at most) to a command name
#: that looks like the end of one and the start of the next fields of ``/proc/<pid>/stat``.
_RENAMED = """
import sys
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.stdin.readline()
with open("/proc/self/comm", "w") as comm:
    comm.write(") Z 1 2 3 (")
sys.stdout.write("renamed\\n"); sys.stdout.flush()
sys.stdin.readline()
"""


def test_process_start_is_the_same_text_each_time_and_none_without_a_process():
    start = process_start(os.getpid())
    assert start is not None and start.isdigit()
    assert process_start(os.getpid()) == start
    assert process_start(NO_PID) is None


def test_a_command_name_with_parentheses_and_spaces_does_not_shift_the_fields():
    proc = subprocess.Popen(
        [sys.executable, "-c", _RENAMED], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert proc.stdout.readline() == "ready\n"
        start = process_start(proc.pid)
        name = f"{HOST}|{proc.pid}|{start}|x"
        proc.stdin.write("rename\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "renamed\n"
        assert Path(f"/proc/{proc.pid}/comm").read_text().strip() == ") Z 1 2 3 ("
        assert process_start(proc.pid) == start
        assert not holder_gone(name)  # not read as a zombie ("Z") nor as another start
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_a_pid_no_process_has_is_gone():
    assert holder_gone(f"{HOST}|{NO_PID}|1|x")


def test_a_live_holder_whose_start_was_unknown_is_not_gone():
    # "-": the holder had no /proc to read its start from; its pid alone must then decide
    assert not holder_gone(f"{HOST}|{os.getpid()}|-|x")


def test_another_users_live_process_is_judged_by_its_start(monkeypatch):
    def not_yours(pid: int, signal: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    start = process_start(os.getpid())
    monkeypatch.setattr(os, "kill", not_yours)
    assert not holder_gone(f"{HOST}|{os.getpid()}|{start}|x")
    assert holder_gone(f"{HOST}|{os.getpid()}|{start}0|x")  # its pid, taken by a newer process


@pytest.mark.parametrize(
    "holder",
    [
        "",
        f"{HOST}|{NO_PID}|1",  # three parts
        f"{HOST}|{NO_PID}|1|x|y",  # five
        f"{HOST}||1|x",
        f"{HOST}|-{NO_PID}|1|x",
        f"{HOST.upper()}x|{NO_PID}|1|x",  # another machine's, whatever its pid
    ],
)
def test_a_name_of_another_shape_or_machine_is_never_gone(holder):
    assert not holder_gone(holder)
