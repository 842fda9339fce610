"""Suite-wide: hypothesis profiles, the unit-only run, fresh interpreters started early.

Example::

    HYPOTHESIS_PROFILE=thorough .venv/bin/python -m pytest   # hypothesis at full strength
    .venv/bin/python -m pytest -m "not integration"          # unit tests, integration not imported
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# HYPOTHESIS_PROFILE picks one. "dev" (the default): few examples per property, every run.
# "thorough": 200, at least what each property test following the profile ran before it (40 to
# 200; tests that name their own max_examples keep it in every profile);
# "ci": hypothesis's own CI profile (derandomized, no example database) with those 200.
# No deadline in any: on a loaded machine, or at a first pandas call, one example can be slow.
settings.register_profile("dev", max_examples=10, deadline=None)
settings.register_profile("thorough", max_examples=200, deadline=None)
settings.register_profile("ci", settings.get_profile("ci"), max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

INTEGRATION = Path(__file__).parent / "integration"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m "not integration"`` skips importing tests/integration (every test there is marked
    ``integration`` by its conftest), instead of importing it only to deselect all of it."""
    if collection_path == INTEGRATION and " ".join(config.option.markexpr.split()) == (
        "not integration"
    ):
        return True
    return None


# -- fresh interpreters, started early ---------------------------------------------------------

#: Fresh interpreters by key, started as soon as the tests are chosen so that they run on the
#: other core while the tests before theirs run. Not in an xdist worker (which tests it gets is
#: known only later): there each starts when its fixture is first asked for.
_started: dict[str, subprocess.Popen[str]] = {}


def _start(key: str, args: Sequence[str]) -> None:
    if key not in _started:
        _started[key] = subprocess.Popen(
            [sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )


def _result(key: str, args: Sequence[str]) -> subprocess.CompletedProcess[str]:
    _start(key, args)
    proc = _started.pop(key)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _runs_of(item: pytest.Item) -> Iterator[tuple[str, Sequence[str]]]:
    """The interpreters the fixtures of ``item`` read: (key, arguments)."""
    names = getattr(item, "fixturenames", ())
    if "fresh_import" in names:
        yield "fresh_import", _FRESH_IMPORT
    module = getattr(item, "module", None)
    if "fresh_runs" in names and module is not None:
        for name, args in module.FRESH_RUNS.items():
            yield f"{module.__name__}:{name}", args


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    if hasattr(config, "workerinput") or config.option.collectonly:
        return
    for item in session.items:
        for key, args in _runs_of(item):
            _start(key, args)


def pytest_sessionfinish() -> None:
    for proc in _started.values():  # never read: their tests did not run (-x, Ctrl-C)
        proc.kill()
        proc.wait()
    _started.clear()


@pytest.fixture(scope="module")
def fresh_runs(request: pytest.FixtureRequest) -> dict[str, subprocess.CompletedProcess[str]]:
    """The test module's ``FRESH_RUNS`` (name: a fresh interpreter's arguments), each run side by
    side with the others: name: its CompletedProcess.

    Example::

        FRESH_RUNS = {"no-redis": ["-c", "import sys; sys.modules['redis'] = None; ..."]}

        def test_without_redis(fresh_runs):
            assert fresh_runs["no-redis"].returncode == 0
    """
    module = request.module
    keys = {name: f"{module.__name__}:{name}" for name in module.FRESH_RUNS}
    for name, args in module.FRESH_RUNS.items():
        _start(keys[name], args)
    return {name: _result(keys[name], args) for name, args in module.FRESH_RUNS.items()}


@dataclass(frozen=True)
class FreshImport:
    """The modules of a fresh interpreter after ``import lookup_pandas``, then after the first
    use of its lazy names (``lp.SearchPanel``, ``lp.testing.FakeService``)."""

    after_import: frozenset[str]
    after_first_use: frozenset[str]


_FRESH_IMPORT = [
    "-c",
    "import json, sys\n"
    "import lookup_pandas as lp\n"
    "print(json.dumps(sorted(sys.modules)))\n"
    "lp.SearchPanel, lp.testing.FakeService\n"
    "print(json.dumps(sorted(sys.modules)))\n",
]


@pytest.fixture(scope="session")
def fresh_import() -> FreshImport:
    """One interpreter for every test, in any module, of what importing the package loads."""
    done = _result("fresh_import", _FRESH_IMPORT)
    assert done.returncode == 0, done.stderr
    *_, imported, used = done.stdout.splitlines()
    return FreshImport(frozenset(json.loads(imported)), frozenset(json.loads(used)))


@pytest.fixture(autouse=True)
def python_handles_ctrl_c() -> Iterator[None]:
    """Each test starts with Ctrl-C as a user's process has it: Python's own SIGINT handler
    (KeyboardInterrupt), SIGINT not blocked. So what an earlier test of this worker left (a
    SparkContext installs its own handler and keeps it) does not decide whether an interrupt
    reaches the run under test, in this process or in a CLI it starts (which inherits an
    ignored or blocked SIGINT)."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    yield
    if before is not None:
        signal.signal(signal.SIGINT, before)


@pytest.fixture
def keys_made(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``made = keys_made(client)``: the URL of each request whose cache key ``client``'s cache
    works out from then on, to the test's end (the emulator cannot see a key being made)."""

    def spy(client: Any) -> list[str]:
        made: list[str] = []
        cache = client.session.cache
        create = cache.create_key

        def counting(request: Any, **kwargs: Any) -> str:
            made.append(request.url)
            return create(request, **kwargs)

        monkeypatch.setattr(cache, "create_key", counting)
        return made

    return spy
