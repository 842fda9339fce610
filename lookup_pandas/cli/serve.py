"""``lookup-pandas serve`` (the emulator in the foreground) and ``lookup-pandas demo``.

Example: ``serve(ServeOptions(port=8080, duration=5))`` prints the base URL and a key, serves
for five seconds, then prints what it billed; ``move_rate=30`` moves someone every two seconds.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

from .exits import InputError
from .options import DemoOptions, ServeOptions

if TYPE_CHECKING:
    from ..testing import FakeService


def serve(options: ServeOptions) -> int:
    """Run the emulator until Ctrl-C, SIGTERM or ``--duration``, then print what it billed.

    SIGUSR1 prints the counts too, and it goes on. ``GET /_emulator/stats`` answers the same
    numbers as JSON.
    """
    from ..testing import FakeService

    o = options
    knobs: dict[str, Any] = {
        "batch_resolve_rate": o.batch_resolve_rate,
        "batch_page_size": o.batch_page_size,
    }
    svc = FakeService(
        port=o.port,
        latency=o.latency,
        rate_limit_per_minute=o.rate_limit or None,
        fault_rate=o.fault_rate,
        api_key=o.api_key,
        sparse_records=o.sparse,
        batch=o.batch,
        emails=o.emails,
        **{name: value for name, value in knobs.items() if value is not None},
    )
    try:
        svc.start()
    except OSError as exc:
        raise InputError(
            f"cannot listen on 127.0.0.1:{o.port}: {exc.strerror or exc}"
            " (pick another --port, or 0 for any free one)"
        ) from None
    tick = _Mover(svc, o.move_rate).tick  # --move-rate 0: nobody moves
    with svc:  # the banner once Ctrl-C is handled: whoever reads it may stop it at once
        _serve_until_stopped(svc, o.duration, ready=lambda: _print_banner(svc, o), tick=tick)
    return 0


class _Mover:
    """``--move-rate``: people of the emulator's population move to another company,
    ``per_minute`` a minute on average, each time the serve loop ticks (every tenth of a second).

    A tick makes the moves due since the start, at most ``MOST``: a loop that stalled skips the
    moves it missed rather than making them in a burst. Each move is printed.
    """

    MOST = 100

    def __init__(self, svc: FakeService, per_minute: float, start: float | None = None) -> None:
        self.svc, self.per_minute = svc, per_minute
        self.start = time.monotonic() if start is None else start
        self.done = 0
        self.rng = random.Random(0)  # the same movers, in the same order, every run

    def tick(self, now: float) -> None:
        from ..testing.moves import pick_move

        due = int((now - self.start) * self.per_minute / 60) - self.done
        for _ in range(min(due, self.MOST)):
            handle, to = pick_move(self.rng, self.svc.state.world)
            print(f"  moved {handle}: {self.svc.move(handle, to=to)['headline']}", flush=True)
        self.done += max(0, due)


def _print_banner(svc: FakeService, o: ServeOptions) -> None:
    # This is the emulator's own test key, made up for this process: printing it is the point.
    print(f"lookup_pandas emulator listening on {svc.base_url}", flush=True)
    print(f"  export LOOKUP_BASE_URL={svc.base_url}", flush=True)
    print(f"  export LOOKUP_API_KEY={svc.api_key}", flush=True)
    k = svc.knobs
    limit = f"{o.rate_limit:g}/min" if o.rate_limit else "none"
    rate = f"{k.batch_resolve_rate:g} items/s" if k.batch_resolve_rate else "at once"
    batch = f"on ({rate}, {k.batch_page_size} a poll)" if k.batch else "off (404)"
    print(
        f"  latency {o.latency:g}s, rate limit {limit}, fault rate {o.fault_rate:g}, "
        f"batch jobs {batch}, Email API {'on' if k.emails else 'off (404)'}, "
        f"{'sparse' if k.sparse_records else 'full'} records.",
        flush=True,
    )
    if o.move_rate:
        print(f"  {o.move_rate:g} people move to another company a minute.", flush=True)
    print(
        f"  Billed counts: GET {svc.base_url}/_emulator/stats, or kill -USR1 {os.getpid()}. "
        "Ctrl-C stops it and prints them.",
        flush=True,
    )


def _serve_until_stopped(
    svc: FakeService,
    duration: float | None,
    ready: Callable[[], None],
    tick: Callable[[float], None],
) -> None:
    """Call ``ready`` once the signals are handled, then wait for SIGINT, SIGTERM or the duration.

    SIGUSR1 prints the counts and goes on. The handlers only set flags, and the loop acts on them
    within a tenth of a second; it calls ``tick`` with ``time.monotonic()`` as often (the moves
    of ``--move-rate``), so they stop with it. Signals are handled in the main thread only.
    """
    flags = {"stop": False, "report": False}
    wanted = {signal.SIGINT: "stop", signal.SIGTERM: "stop"}
    if hasattr(signal, "SIGUSR1"):
        wanted[signal.SIGUSR1] = "report"
    previous: dict[int, Any] = {}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        flags[wanted[signal.Signals(signum)]] = True

    try:
        if threading.current_thread() is threading.main_thread():
            for signum in wanted:
                previous[signum] = signal.signal(signum, on_signal)
        ready()
        deadline = time.monotonic() + duration if duration else None
        while not flags["stop"] and (deadline is None or time.monotonic() < deadline):
            if flags["report"]:
                flags["report"] = False
                _print_serve_stats(svc.stats())
            tick(time.monotonic())
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass  # a SIGINT before the handler was in place
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    _print_serve_stats(svc.stats())
    print("stopped", flush=True)


def _print_serve_stats(stats: dict[str, Any]) -> None:
    """The counts block ``serve`` prints: on SIGUSR1 and when it stops.

    Example:
        >>> _print_serve_stats({"requests": 6, "rate_limited": 0, "billed_calls": 1,
        ...                     "billed_batch_items": 190, "credits": 191, "distinct_handles": 191})
        emulator counts:
          requests seen 6, 429s 0
          billed calls 1, billed batch items 190, credits 191, distinct handles billed 191
    """
    print(
        "emulator counts:\n"
        f"  requests seen {stats['requests']}, 429s {stats['rate_limited']}\n"
        f"  billed calls {stats['billed_calls']}, billed batch items "
        f"{stats['billed_batch_items']}, credits {stats['credits']:g}, "
        f"distinct handles billed {stats['distinct_handles']}",
        flush=True,
    )


def demo(options: DemoOptions) -> int:
    """The emulator and the bundled sample lead list, end to end (:mod:`lookup_pandas.demo`)."""
    from ..demo import run_demo

    return run_demo(options.workdir, progress=options.progress, sparse=options.sparse)
