"""Unit tests for lookup_pandas.store.private_files: the decisions (is a mode open, which chmod
fixes
it, what the warning says), then the file system without a server: directories made 0700 and
files 0600 whatever the umask (in a subprocess: the umask is process-wide), what exists left as
it is, and one warning per path per process."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import warnings
from pathlib import Path

import pytest

from lookup_pandas.cache.sqlite import sqlite_cache_file
from lookup_pandas.errors import InsecureCacheWarning
from lookup_pandas.store.private_files import (
    chmod_command,
    insecure_message,
    make_private_file,
    open_to_others,
    prepare_sqlite_file,
    sqlite_files,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def make_file(path: Path, mode: int) -> Path:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.fchmod(fd, mode)
    os.close(fd)
    return path


def insecure(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, InsecureCacheWarning)]


# -- decisions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "is_open"),
    [
        (0o600, False),
        (0o700, False),
        (0o400, False),
        (0o100600, False),  # an st_mode: the file-type bits do not count
        (0o40700, False),
        (0o644, True),
        (0o640, True),
        (0o604, True),
        (0o620, True),  # writable by the group: also open
        (0o602, True),
        (0o610, True),
        (0o40755, True),
        (0o41777, True),  # /tmp
    ],
)
def test_open_to_others(mode, is_open):
    assert open_to_others(mode) is is_open


def test_sqlite_files_are_the_database_and_its_wal_and_shm():
    assert sqlite_files(Path("/tmp/leads.sqlite")) == [
        Path("/tmp/leads.sqlite"),
        Path("/tmp/leads.sqlite-wal"),
        Path("/tmp/leads.sqlite-shm"),
    ]


def test_chmod_command_for_files_for_dirs_and_for_both():
    files = [Path("/tmp/leads.sqlite"), Path("/tmp/leads.sqlite-wal")]
    assert chmod_command(files=files) == "chmod 600 /tmp/leads.sqlite /tmp/leads.sqlite-wal"
    assert chmod_command(dirs=[Path("/home/ana/.cache/lookup_pandas")]) == (
        "chmod 700 /home/ana/.cache/lookup_pandas"
    )
    assert chmod_command(dirs=[Path("/d")], files=[Path("/d/f")]) == (
        "chmod 700 /d && chmod 600 /d/f"
    )
    assert chmod_command() == ""


def test_chmod_command_quotes_paths_for_the_shell():
    assert chmod_command(files=[Path("/tmp/my leads.sqlite"), Path("/tmp/it's.sqlite")]) == (
        "chmod 600 '/tmp/my leads.sqlite' '/tmp/it'\"'\"'s.sqlite'"
    )


def test_insecure_message_names_each_path_its_mode_and_the_fix():
    d, f, wal = Path("/c/lookup_pandas"), Path("/c/lookup_pandas/x.sqlite"), Path("/c/x-wal")
    text = insecure_message({d: 0o40755, f: 0o100644, wal: 0o100640}, dirs=[d])
    assert "/c/lookup_pandas (directory, mode 0755)" in text
    assert "/c/lookup_pandas/x.sqlite (mode 0644)" in text
    assert "/c/x-wal (mode 0640)" in text
    assert "personal data" in text
    assert text.endswith(
        "run: chmod 700 /c/lookup_pandas && chmod 600 /c/lookup_pandas/x.sqlite /c/x-wal"
    )


def test_the_sqlite_cache_file_is_where_requests_cache_puts_it():
    assert sqlite_cache_file(Path("/tmp/leads")) == Path("/tmp/leads.sqlite")
    assert sqlite_cache_file(Path("/tmp/leads.sqlite")) == Path("/tmp/leads.sqlite")
    assert sqlite_cache_file(Path("/tmp/leads.db")) == Path("/tmp/leads.db")


# -- the file system, whatever the umask --------------------------------------------------------

UMASKS = [0o022, 0o002, 0o000, 0o277]

#: prepare_sqlite_file + SQLite in WAL mode, in a fresh interpreter (the umask is process-wide):
#: under each of UMASKS a new database two new directories deep, then under 022 a new database
#: in an existing directory of mode 1777; each time every mode under its root while the
#: connection is open, and the umask as the library left it.
_UNDER_UMASKS = """
import json, os, sqlite3, sys, tempfile
from pathlib import Path
from lookup_pandas.store.private_files import prepare_sqlite_file
runs = {}
with tempfile.TemporaryDirectory() as tmp:
    cases = {f"{u:03o}": (u, "a/b/leads.sqlite") for u in json.loads(sys.argv[1])}
    cases["existing"] = (0o022, "shared/leads.sqlite")
    for name in cases:
        Path(tmp, name).mkdir()
    Path(tmp, "existing", "shared").mkdir()
    Path(tmp, "existing", "shared").chmod(0o1777)
    for name, (umask, target) in cases.items():
        root = Path(tmp, name)
        os.umask(umask)
        prepare_sqlite_file(root / target)
        conn = sqlite3.connect(root / target)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (1)")
        conn.commit()
        modes = {}
        for dirpath, dirnames, filenames in os.walk(root):
            for entry in dirnames + filenames:
                path = os.path.join(dirpath, entry)
                modes[os.path.relpath(path, root)] = os.stat(path).st_mode & 0o7777
        conn.close()
        runs[name] = {"modes": modes, "umask": os.umask(umask), "was": umask}
print(json.dumps(runs))
"""
#: One interpreter for every case (one a case cost a second apiece), started early beside the
#: other tests (the ``fresh_runs`` fixture, tests/conftest.py).
FRESH_RUNS = {"umasks": ["-c", _UNDER_UMASKS, json.dumps(UMASKS)]}


@pytest.fixture(scope="module")
def modes_under_umasks(fresh_runs) -> dict[str, dict[str, int]]:
    """Every mode under each case's root, by case: "022", ... (UMASKS), "existing"."""
    proc = fresh_runs["umasks"]
    assert proc.returncode == 0, proc.stderr
    assert "InsecureCacheWarning" not in proc.stderr
    runs = json.loads(proc.stdout)
    for run in runs.values():
        assert run["umask"] == run["was"]  # never changed by the library
    return {name: run["modes"] for name, run in runs.items()}


@pytest.mark.parametrize("umask", UMASKS)
def test_new_dirs_are_0700_and_the_database_wal_and_shm_0600(modes_under_umasks, umask):
    assert modes_under_umasks[f"{umask:03o}"] == {
        "a": 0o700,
        os.path.join("a", "b"): 0o700,
        os.path.join("a", "b", "leads.sqlite"): 0o600,
        os.path.join("a", "b", "leads.sqlite-wal"): 0o600,
        os.path.join("a", "b", "leads.sqlite-shm"): 0o600,
    }


def test_an_existing_directory_is_left_as_it_is(modes_under_umasks):
    modes = modes_under_umasks["existing"]
    assert modes["shared"] == 0o1777
    assert modes[os.path.join("shared", "leads.sqlite")] == 0o600


def test_make_private_file_never_opens_what_exists(tmp_path):
    existing = make_file(tmp_path / "old.sqlite", 0o644)
    assert make_private_file(existing) is False
    assert mode_of(existing) == 0o644
    target = make_file(tmp_path / "target", 0o644)
    (tmp_path / "link.sqlite").symlink_to(target)
    assert make_private_file(tmp_path / "link.sqlite") is False  # not followed
    assert mode_of(target) == 0o644
    assert make_private_file(tmp_path / "new.sqlite") is True
    assert mode_of(tmp_path / "new.sqlite") == 0o600


# -- what exists: one warning per path per process ----------------------------------------------


def test_an_open_database_and_wal_warn_once_and_are_left_as_they_are(tmp_path):
    db = tmp_path / "my leads.sqlite"
    sqlite3.connect(db).close()
    db.chmod(0o644)
    wal = make_file(tmp_path / "my leads.sqlite-wal", 0o640)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prepare_sqlite_file(db)
        prepare_sqlite_file(db)  # a second Client in the same process: said already
    [text] = insecure(caught)
    assert f"{db} (mode 0644)" in text and f"{wal} (mode 0640)" in text
    assert text.endswith(f"run: chmod 600 '{db}' '{wal}'")
    assert (mode_of(db), mode_of(wal)) == (0o644, 0o640)
    assert caught[0].filename == __file__  # it points at the caller, not at the library

    # the command it gives is the fix
    subprocess.run(["sh", "-c", text.rpartition("run: ")[2]], check=True)
    assert (mode_of(db), mode_of(wal)) == (0o600, 0o600)


def test_a_private_database_does_not_warn(tmp_path):
    db = make_file(tmp_path / "leads.sqlite", 0o600)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prepare_sqlite_file(db, check_dir=True)  # tmp_path is 0700
    assert insecure(caught) == []


def test_the_directory_is_checked_only_when_asked(tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    own.chmod(0o755)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prepare_sqlite_file(own / "a.sqlite")  # a directory the user chose
        prepare_sqlite_file(own / "b.sqlite", check_dir=True)  # the library's own
        prepare_sqlite_file(own / "c.sqlite", check_dir=True)  # said already
    [text] = insecure(caught)
    assert f"{own} (directory, mode 0755)" in text
    assert text.endswith(f"run: chmod 700 {own}")
    assert mode_of(own) == 0o755
    assert [mode_of(own / n) for n in ("a.sqlite", "b.sqlite", "c.sqlite")] == [0o600] * 3


def test_a_directory_it_creates_is_not_warned_about(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prepare_sqlite_file(tmp_path / "new" / "a.sqlite", check_dir=True)
    assert insecure(caught) == []
    assert mode_of(tmp_path / "new") == 0o700


def test_a_warning_turned_into_an_error_is_raised_each_time(tmp_path):
    db = make_file(tmp_path / "leads.sqlite", 0o644)
    with warnings.catch_warnings():
        warnings.simplefilter("error", InsecureCacheWarning)
        for _ in range(2):
            with pytest.raises(InsecureCacheWarning, match="chmod 600"):
                prepare_sqlite_file(db)


def test_the_warning_is_a_user_warning_and_not_a_service_error():
    from lookup_pandas.errors import ServiceError

    assert issubclass(InsecureCacheWarning, UserWarning)
    assert not issubclass(InsecureCacheWarning, ServiceError)


# -- opening a new SQLite file while another connection sets it up -------------------------------


def test_while_locked_tries_again_only_while_the_file_is_locked(monkeypatch):
    import lookup_pandas.store.private_files as private_files

    monkeypatch.setattr(private_files.time, "sleep", lambda s: None)
    failures = [sqlite3.OperationalError("database is locked")] * 2

    def open_() -> str:
        if failures:
            raise failures.pop()
        return "opened"

    assert private_files.while_locked(open_) == "opened" and failures == []
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        private_files.while_locked(
            lambda: (_ for _ in ()).throw(sqlite3.OperationalError("no such table"))
        )
    tries: list[int] = []

    def always_locked() -> None:
        tries.append(1)
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(sqlite3.OperationalError, match="locked"):
        private_files.while_locked(always_locked, attempts=3)
    assert len(tries) == 3
