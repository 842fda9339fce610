"""``lookup-pandas`` run in this process (``lookup_pandas.cli.main``), as a subprocess would run it.

Example::

    @pytest.fixture
    def cli_main(capsys):
        return CliMain(capsys)

    def test_tier(cli_main, fake_service):
        done = cli_main({"LOOKUP_BASE_URL": fake_service.base_url, ...}, "tier")
        assert done.returncode == 0

Starting an interpreter (and importing pandas in it) costs about a second a run; the CLI tests
run ``main`` here instead, wherever a real process is not the point. What a fresh process has is
given to each run: only the ``LOOKUP_*`` variables passed, a standard input of its own (empty
unless given: never a terminal), a working directory, Python's default warning filters, and
argparse's exit turned into the exit code.
"""

from __future__ import annotations

import io
import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from lookup_pandas.cli import main
from lookup_pandas.testing import FakeService


@dataclass(frozen=True)
class Done:
    """What ``subprocess.run(..., capture_output=True, text=True)`` would have given."""

    returncode: int
    stdout: str
    stderr: str


class CliMain:
    """Runs ``main(args)`` with an environment, stdin and working directory of its own."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(
        self,
        env: Mapping[str, str],
        *args: str,
        stdin: str | bytes = b"",
        cwd: Path | str | None = None,
    ) -> Done:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
            for name in [n for n in os.environ if n.startswith("LOOKUP_")]:
                patch.delenv(name)
            for name, value in env.items():
                patch.setenv(name, value)
            patch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
            if cwd is not None:
                patch.chdir(cwd)
            _fresh_warning_filters()
            self.capsys.readouterr()  # what came before is not this run's
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse: --help, --version, a bad argument
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            out, err = self.capsys.readouterr()
        return Done(code, out, err)


def emulator_env(svc: FakeService, cache: Path | str) -> dict[str, str]:
    """What a command needs to reach ``svc``: its URL and key, and ``cache`` as its cache.

    Example: ``CliMain(capsys)(emulator_env(svc, tmp_path / "c.sqlite"), "tier")``
    """
    return {"LOOKUP_BASE_URL": svc.base_url, "LOOKUP_API_KEY": svc.api_key,
            "LOOKUP_CACHE": str(cache)}  # fmt: skip


def _fresh_warning_filters() -> None:
    """The filters a new interpreter starts with (pytest's own show every DeprecationWarning)."""
    warnings.resetwarnings()
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category)
