"""Unit tests for lookup_pandas.cli.exits: every failure as one line and its exit code, and the
package's warning records as the CLI's own lines."""

from __future__ import annotations

import logging

import pytest

from lookup_pandas import errors
from lookup_pandas.cli.exits import (
    EXIT_AUTH,
    EXIT_BUDGET,
    EXIT_CONFIG,
    EXIT_INTERRUPTED,
    EXIT_SERVICE,
    InputError,
    WarningLines,
    run,
    warning_lines,
)

# -- failures: one line and an exit code ---------------------------------------------------------


def _raises(exc: BaseException):
    def command() -> int:
        raise exc

    return command


@pytest.mark.parametrize(
    ("exc", "code", "line"),
    [
        (
            InputError("no such file: x.csv"),
            EXIT_CONFIG,
            "lookup-pandas: error: no such file: x.csv",
        ),
        (errors.UsageError("bad\n  limit"), EXIT_CONFIG, "lookup-pandas: UsageError: bad limit"),
        (
            errors.ConfigurationError("set api_key=", cli_message="set LOOKUP_API_KEY"),
            EXIT_CONFIG,
            "lookup-pandas: ConfigurationError: set LOOKUP_API_KEY",
        ),
        (errors.AuthenticationError("no"), EXIT_AUTH, "lookup-pandas: AuthenticationError: no"),
        (
            errors.BudgetExceededError("too many", needed=2, allowed=1),
            EXIT_BUDGET,
            "lookup-pandas: BudgetExceededError: too many",
        ),
        (errors.NotFoundError("gone"), EXIT_SERVICE, "lookup-pandas: NotFoundError: gone"),
        (
            KeyboardInterrupt(),
            EXIT_INTERRUPTED,
            "lookup-pandas: interrupted; what was fetched is in the cache",
        ),
    ],
)
def test_each_failure_is_one_line_and_its_exit_code(exc, code, line, capsys):
    assert run(_raises(exc)) == code
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [line]


def test_a_command_s_own_code_passes_through_and_other_errors_are_not_hidden():
    assert run(lambda: 5) == 5
    with pytest.raises(RuntimeError):
        run(_raises(RuntimeError("a bug: a traceback, not one line")))


# -- the package's warnings: lines of the CLI's own ----------------------------------------------


def test_a_command_shows_the_package_s_warning_records_as_its_own_lines(capsys):
    def command() -> int:
        logging.getLogger("lookup_pandas.http.contact").warning("pacing at %d calls/min", 7)
        logging.getLogger("lookup_pandas.http.sending").info("retrying: not shown")
        return 0

    with warning_lines():
        assert run(command) == 0
    assert capsys.readouterr().err.splitlines() == ["lookup-pandas: warning: pacing at 7 calls/min"]
    package = logging.getLogger("lookup_pandas")
    assert not any(isinstance(h, WarningLines) for h in package.handlers)  # gone after


def test_main_shows_a_warning_record_of_a_command(monkeypatch, capsys):
    from lookup_pandas import cli

    def tier() -> int:
        logging.getLogger("lookup_pandas.client.credits").warning("a credits fact is unreadable")
        return 0

    monkeypatch.setattr(cli, "command", lambda options: tier)
    assert cli.main(["tier"]) == 0
    assert capsys.readouterr().err == "lookup-pandas: warning: a credits fact is unreadable\n"
