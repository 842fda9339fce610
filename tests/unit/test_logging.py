"""Logging as a library does it: loggers under ``lookup_pandas``, a NullHandler on the package's,
and nothing written to stderr outside tqdm's bars, warnings and the command line.

tests/integration/logs/test_records.py shows the records of a real run, and that none holds the
key.
"""

from __future__ import annotations

import ast
import logging
from pathlib import Path

import lookup_pandas

PACKAGE = Path(lookup_pandas.__file__).parent

#: Fresh interpreters (the ``fresh_runs`` fixture, tests/conftest.py): a WARNING record of the
#: package with logging left unconfigured, which Python's last-resort handler would print.
FRESH_RUNS = {
    "unconfigured": [
        "-c",
        "import logging, lookup_pandas; "
        "logging.getLogger('lookup_pandas.http.contact').warning('could not read the tier')",
    ]
}

#: The only modules outside cli/ that write to a terminal, and why: the demo is a command's
#: output (stdout), a job's text line is its display where no widget can show (stdout), and
#: the progress bars are tqdm's (stderr).
PRINTS = {"demo.py", "display/job_view.py"}
STDERR = {"display/progress.py"}


def modules() -> dict[str, ast.Module]:
    """Each module of the package outside cli/, parsed, by its path in the package."""
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "cli"
    }


def calls(tree: ast.Module, name: str) -> list[ast.Call]:
    """The calls of ``name`` (a bare name or an attribute) in ``tree``."""
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == name)
            or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
        )
    ]


def test_the_package_logger_has_a_null_handler_and_no_level_of_its_own():
    logger = logging.getLogger("lookup_pandas")
    assert any(isinstance(h, logging.NullHandler) for h in logger.handlers)
    assert logger.level == logging.NOTSET  # the application's configuration decides


def test_every_logger_is_named_for_its_module():
    named = {}
    for path, tree in modules().items():
        for call in calls(tree, "getLogger"):
            named[path] = [ast.unparse(arg) for arg in call.args]
    assert named and set(map(tuple, named.values())) == {("__name__",)}, named
    assert {"http/sending.py", "http/contact.py", "store/pacing.py", "store/claims.py"} <= set(
        named
    )
    assert {"client/batch_jobs.py", "enrichment/batch_run.py"} <= set(named)


def test_nothing_outside_the_command_line_prints_but_the_demo_and_a_job_s_text_line():
    printing = {path for path, tree in modules().items() if calls(tree, "print")}
    assert printing == PRINTS


def test_only_the_progress_bars_write_to_stderr_outside_the_command_line():
    writing = {
        path
        for path, tree in modules().items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr in ("stderr", "__stderr__")
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    }
    assert writing == STDERR


def test_a_warning_record_with_logging_unconfigured_prints_nothing(fresh_runs):
    done = fresh_runs["unconfigured"]
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # without the NullHandler: "could not read the tier"
