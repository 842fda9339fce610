"""FakeService: the emulator as a threaded HTTP server on loopback.

Example::

    with FakeService(latency=0.05, rate_limit_per_minute=600) as svc:
        client = lp.Client(api_key=svc.api_key, base_url=svc.base_url, cache=False)
        client.profile("ada")
        svc.count("/api/data/v1/people/profile", handle="ada")      # 1
        svc.billed_handles(key=svc.api_key)     # Counter({"ada": 1}): paid per handle, one key
        svc.rate_limited(key=svc.api_key)       # 0: the 429s that key was answered
        svc.stats()["billed_calls"]             # 1: also at GET /_emulator/stats (no key)

Every knob of :class:`~lookup_pandas.testing.state.Knobs` is a keyword here and can be changed
while it runs (``svc.configure(fault_rate=0.2)``). ``reset()`` puts everything back as built.
People change jobs: ``svc.move("ada", to="globex")`` changes her record everywhere and adds two
events to the job-change feed, among a background whose busyness is the ``job_change_rate`` knob
(events per 1,000 employees per day; ``job_change_rates={"hooli": 500}`` for one company).
Production's errors and credits, e.g. ``FakeService(balance=30, opted_out={"grace"},
ladder=[("Slow", 0, 99, 120), ("Fast", 100, None, 1200)], tier_follows_balance=True)``: a 403
for grace, 402 once 30 credits are spent (``svc.configure(balance=100)`` tops up), and the
limit of the balance's tier.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload
from urllib.parse import parse_qsl, urlsplit

from .replies import DROP, Override, Request
from .routes import STATS, handle, stats
from .state import Knobs, RequestRecord, ServiceState

logger = logging.getLogger(__name__)

__all__ = ["FakeService"]

P = ParamSpec("P")
R = TypeVar("R")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as production
    server: _Server

    def setup(self) -> None:
        super().setup()
        # http.server writes the headers and the body separately; without TCP_NODELAY, Nagle's
        # algorithm and delayed ACKs hold the body back ~40 ms on every keep-alive answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _serve(self) -> None:
        state = self.server.state
        split = urlsplit(self.path)
        params = tuple(parse_qsl(split.query, keep_blank_values=True))
        headers = {k.lower(): v for k, v in self.headers.items()}
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(min(length, 1 << 20)) if length > 0 else b""
        req = Request(self.command, split.path, params, headers, body)
        key = (req.path, req.params)
        if req.path == STATS:  # the emulator's own counters: no latency, not a request
            reply = handle(state, req)
        else:
            state.enter(key)
            try:
                latency = state.knobs.latency
                if latency > 0:
                    time.sleep(latency)
                reply = handle(state, req)
            finally:
                state.leave(key)
        if reply is DROP:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        try:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if "Content-Length" not in reply.headers:
                self.send_header("Content-Length", str(len(reply.body)))
            else:
                # A test's reply that promises more than it sends: a truncated answer.
                self.close_connection = True
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply.body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client hung up (e.g. its timeout): not our error

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _serve

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib's name
        logger.debug("emulator: " + format, *args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128
    state: ServiceState

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.debug(
            "emulator: connection from %s ended with an error", client_address, exc_info=True
        )


class _OfState(Generic[P, R]):
    """A FakeService method that is its state's own: the same signature and docstring.

    Example: ``count = _OfState(ServiceState.count)``; ``svc.count(path)`` calls
    ``svc.state.count(path)``.
    """

    def __init__(self, method: Callable[Concatenate[ServiceState, P], R]) -> None:
        self.method = method
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, service: None, owner: type[FakeService]) -> _OfState[P, R]: ...
    @overload
    def __get__(self, service: FakeService, owner: type[FakeService]) -> Callable[P, R]: ...
    def __get__(
        self, service: FakeService | None, owner: type[FakeService]
    ) -> _OfState[P, R] | Callable[P, R]:
        if service is None:
            return self
        return functools.partial(self.method, service.state)


class FakeService:
    """The service emulator: a context manager with ``.base_url`` and ``.api_key``."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        seed: int = 0,
        **knobs: Any,
    ) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("The emulator listens on loopback only.")
        self.state = ServiceState(Knobs(**knobs), api_key=api_key, seed=seed)
        self._address = (host, port)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle ------------------------------------------------------------------------

    def start(self) -> FakeService:
        if self._server is not None:
            return self
        server = _Server(self._address, _Handler)
        server.state = self.state
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="lookup-pandas-emulator",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.base_url if self._server is not None else "stopped"
        return f"FakeService({where})"

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeService is not running; use it as a context manager.")
        host, port = self._server.server_address[:2]
        return f"http://{host.decode() if isinstance(host, bytes) else host}:{port}"

    # -- keys ------------------------------------------------------------------------------

    @property
    def api_key(self) -> str:
        """The currently valid key of the emulator's workspace."""
        return self.state.current_key

    @property
    def wrong_workspace_key(self) -> str:
        """A genuine key, but issued in another workspace: 403."""
        return self.state.wrong_workspace_key

    def rotate_key(self) -> str:
        """Issue a new key; the old one answers 403 from now on. Returns the new key."""
        return self.state.rotate_key()

    def revoke_key(self, key: str | None = None) -> None:
        """Revoke ``key`` (the current one by default) while running: 403 from now on."""
        self.state.revoke_key(key or self.api_key)

    def issue_key(self) -> str:
        """An extra valid key of this workspace."""
        return self.state.issue_key()

    # -- knobs -----------------------------------------------------------------------------

    @property
    def knobs(self) -> Knobs:
        return self.state.knobs

    def configure(self, **changes: Any) -> None:
        """Change knobs while running, e.g. ``configure(fault_rate=0.2, latency=0.01)``."""
        self.state.configure(**changes)

    def override(self, path: str, fn: Override | None) -> None:
        """Answer ``path`` with ``fn(request)`` (a Reply or (status, body)); None removes it.

        ``fn`` may return None to let the normal route answer.
        """
        with self.state.lock:
            if fn is None:
                self.state.overrides.pop(path, None)
            else:
                self.state.overrides[path] = fn

    def reset(self) -> None:
        """Knobs, keys, balance, counters, limiter, overrides and moves back to how they were
        built."""
        self.state.reset()

    # -- a world that changes --------------------------------------------------------------

    def move(self, handle: str, *, to: str, title: str | None = None) -> dict[str, Any]:
        """Move a person to company ``to`` today; returns a copy of their new record.

        The current position ends this month and a new one at ``to`` (``title``, by default the
        old title) comes first; the headline follows. Every route shows the new record (profile
        by handle and by id, batch jobs, search, both companies' employees), and the job-change
        feed lists a ``left`` event at the old company and a ``joined`` one at ``to``, dated
        today (the real UTC date). A move within one company under a new title is a
        ``title_change``. Moves last until :meth:`reset`. A ValueError for an unknown person or
        company (:meth:`.moves.Moves.moved`).

        >>> svc = FakeService()
        >>> svc.move("ada", to="globex", title="CTO")["headline"]
        'CTO at Globex'
        >>> [p["organization"]["slug"] for p in svc.move("ada", to="hooli")["positions"]]
        ['hooli', 'globex', 'acme']
        """
        return self.state.move(handle, to, title)

    # -- counters --------------------------------------------------------------------------

    count = _OfState(ServiceState.count)  # requests seen, by path, query, status, method, key

    def billed(self, path: str | None = None, *, key: str | None = None, **params: Any) -> int:
        """Billable requests seen (successes and not-founds); ``key=``: paid with that key."""
        return self.state.count(path, billed=True, key=key, **params)

    def rate_limited(self, key: str | None = None) -> int:
        """Answers 429 (the limiter's, and any a test's override sent), for every key or for
        ``key`` alone.

        Example: ``svc.rate_limited(key=svc.api_key) / svc.count(key=svc.api_key)``
        """
        return self.state.count(status=429, key=key)

    @property
    def requests(self) -> list[RequestRecord]:
        """Every request seen since the last reset, oldest first (not the batch items billed
        as they resolved: ``billed()`` counts those). Each has ``at`` (``time.monotonic()``
        when answered) and ``key_id`` (:func:`~lookup_pandas.testing.state.key_id` of its key,
        never the key)."""
        with self.state.lock:
            return [r for r in self.state.records if not r.item]

    def billed_handles(self, key: str | None = None) -> Counter[str]:
        """Credits each handle cost: billed profile lookups and batch items alike (``key``:
        those paid with that key only).

        Example: ``svc.billed_handles() == Counter({"ada": 1, "unknown-x": 1})``
        """
        return self.state.billed_handles(key)

    def stats(self) -> dict[str, Any]:
        """What it saw and billed since the last reset, as ``GET /_emulator/stats`` answers it.

        Example: ``svc.stats()`` -> ``{"requests": 3, "billed_calls": 2, "billed_batch_items":
        0, "credits": 2.0, "distinct_handles": 2, "rate_limited": 0, "balance": 99998.0}``
        """
        return stats(self.state)

    @property
    def batch_jobs(self) -> dict[str, tuple[str, ...]]:
        """Every batch job submitted since the last reset: job_id -> its inputs, in order."""
        with self.state.lock:
            return {job_id: job.inputs for job_id, job in self.state.jobs.items()}

    def max_in_flight(self, path: str | None = None, **params: Any) -> int:
        """The most identical requests (same path and query) ever answered at once."""
        want = {k: str(v) for k, v in params.items()}
        with self.state.lock:
            items = list(self.state.max_in_flight.items())
        best = 0
        for (p, query), n in items:
            if path is not None and p != path:
                continue
            q = dict(query)
            if any(q.get(k) != v for k, v in want.items()):
                continue
            best = max(best, n)
        return best

    @property
    def balance(self) -> float:
        return self.state.balance
