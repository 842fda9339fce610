"""A real ``redis-server`` for the tests: on a free loopback port, stopped by its pid.

Example::

    def test_something(redis_url):          # a flushed database on the session's server
        client = lp.Client(cache=redis_url, ...)

    with RedisServer.start(tmp_path) as server:   # a server of the test's own (to kill it)
        server.kill()

Without the ``redis-server`` binary the tests that use it skip, unless
``LOOKUP_REQUIRE_REDIS=1`` (CI sets it, after installing Debian's ``redis-server``): then they
fail. Every wait here is bounded. The server keeps an append-only file in its workdir, not
fsynced (``--appendonly yes --appendfsync no``, no snapshots): cheap, and persistent enough that
the library does not warn of it (a test that wants the warning starts its own server with
``--appendonly no``). ``redis_url`` gives each test its own user cache dir (``XDG_CACHE_HOME``),
so the notes of answers stored in Redis (``lookup_pandas.cache.redis_checks``) that an earlier
test left do not warn of the emptied database.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REQUIRE_ENV = "LOOKUP_REQUIRE_REDIS"
START_TIMEOUT_S = 15.0
STOP_TIMEOUT_S = 10.0


def redis_binary() -> str:
    """The redis-server binary; skip (or fail, when it is required) without one."""
    found = shutil.which("redis-server")
    if found is None:
        message = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{message}, and {REQUIRE_ENV}=1 requires it")
        pytest.skip(message)
    return found


def free_port() -> int:
    """A loopback port nothing listens on (at the moment of asking)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _ping(port: int) -> bool:
    """One bounded PING over a raw socket: True once the server answers (+PONG, or -NOAUTH
    from a server that wants a password)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
            sock.settimeout(1.0)
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith((b"+PONG", b"-NOAUTH"))
    except OSError:
        return False


class RedisServer:
    """One redis-server process on 127.0.0.1, its port, its URL, and a way to stop it."""

    def __init__(self, proc: subprocess.Popen[bytes], port: int, workdir: Path) -> None:
        self.proc = proc
        self.port = port
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{port}/0"

    @classmethod
    def start(cls, workdir: Path, *extra: str, attempts: int = 3) -> RedisServer:
        """Start a server on a free port and wait (bounded) until it answers PING."""
        binary = redis_binary()
        workdir.mkdir(parents=True, exist_ok=True)
        for _ in range(attempts):
            port = free_port()
            log = open(workdir / f"redis-{port}.log", "wb")  # noqa: SIM115 - the child's
            proc = subprocess.Popen(
                [
                    binary,
                    "--port",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "yes",
                    "--appendfsync",
                    "no",
                    "--dir",
                    str(workdir),
                    *extra,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=workdir,
            )
            log.close()
            server = cls(proc, port, workdir)
            deadline = time.monotonic() + START_TIMEOUT_S
            while time.monotonic() < deadline and proc.poll() is None:
                if _ping(port):
                    return server
                time.sleep(0.05)
            server.stop()  # exited (the port was taken meanwhile?) or never answered
        pytest.fail(f"redis-server did not answer PING within {START_TIMEOUT_S:g} s")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def client(self, **kwargs: Any) -> Any:
        """A redis-py client on this server (bytes in, bytes out)."""
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5.0, **kwargs)

    def kill(self) -> None:
        """SIGKILL, as a crash or a pulled plug would: no goodbye to the clients."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=STOP_TIMEOUT_S)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not gone within the bound."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=STOP_TIMEOUT_S)

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server for the whole session (skips without the binary, see the module)."""
    server = RedisServer.start(tmp_path_factory.mktemp("redis"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(
    redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory, monkeypatch: Any
) -> str:
    """The session's server, emptied before the test: its URL (database 0). The test has its
    own user cache dir: no note of an earlier test's answers says the database was emptied."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
    with redis_server.client() as conn:
        conn.flushall()
    return redis_server.url
