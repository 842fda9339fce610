"""The wheel works outside the repository, installed as a user installs it (issue 33, item 3).

Once per session: the sdist and the wheel are built from this checkout (``python -m build``:
the wheel from the sdist, in an isolated build environment), and the wheel is installed, not
editable, with the ``[redis,dask,polars]`` extras, into a fresh venv in a temporary folder
outside the checkout (by this interpreter's pip, ``--python`` the venv's, with no byte-compiling
ahead). Its dependencies come from the package index pip is configured with
(pip's cache is reused). Then, in that folder, with no PYTHONPATH and a home of its own:
``lookup-pandas demo``, a short enrichment against ``lookup_pandas.testing.FakeService``,
``lookup-pandas --version``, and the wheel's files against the checkout's.

Where the wheel cannot be built or installed (no ``build`` module, no index) the tests skip
with the reason, unless LOOKUP_REQUIRE_WHEEL=1 (set by .ci/run): then they fail.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import lookup_pandas as lp

# A cold pip cache downloads dask, polars and pyarrow: minutes, not seconds.
pytestmark = pytest.mark.timeout(900)

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "lookup_pandas"
PLUGIN = "pytest_lookup_pandas.py"
EXTRAS = "redis,dask,polars"
#: Files a user's install needs beside the modules: the type marker, the demo's lead list, the
#: notebooks' helper module and the emulator's data (modules, checked by name all the same).
NEEDED = [
    "lookup_pandas/py.typed",
    "lookup_pandas/data/sample_leads.csv",
    "lookup_pandas/testing/notebook.py",
    "lookup_pandas/testing/data.py",
    PLUGIN,
]


@dataclass
class Installed:
    """The wheel and the venv it is installed in, and the folder the commands run in."""

    wheel: Path
    venv: Path
    home: Path

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``args`` in the install's folder: no PYTHONPATH, no LOOKUP_* variable, its own home."""
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not k.startswith("LOOKUP_")
        }
        env.update(
            HOME=str(self.home),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            PATH=f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        )
        return subprocess.run(
            args, cwd=self.home, env=env, capture_output=True, text=True, timeout=timeout
        )


def unavailable(reason: str) -> None:
    """Skip with ``reason``, or fail where the wheel test is required (CI)."""
    if os.environ.get("LOOKUP_REQUIRE_WHEEL") == "1":
        pytest.fail(f"LOOKUP_REQUIRE_WHEEL=1 but {reason}")
    pytest.skip(reason)


def step(what: str, args: list[str], cwd: Path, timeout: float) -> None:
    """Run one set-up command; if it fails, skip (or fail) with the end of what it said."""
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        said = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        unavailable(f"{what} failed (exit {done.returncode}):\n{said}")


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel, built once and installed with its extras in a fresh venv outside the checkout."""
    try:
        import build  # noqa: F401  the dev extra's; `python -m build` is what make dist runs
    except ImportError:
        unavailable("the build package is not installed (pip install -e '.[dev]')")
    top = tmp_path_factory.mktemp("wheel")
    assert ROOT not in top.parents and top != ROOT, "the install must be outside the checkout"
    dist, venv, home = top / "dist", top / "venv", top / "home"
    home.mkdir()
    build_args = [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)]
    step("python -m build", build_args, top, 600)  # the sdist, then the wheel from it
    wheels = sorted(dist.glob("*.whl"))
    assert len(wheels) == 1, wheels
    step("python -m venv", [sys.executable, "-m", "venv", "--without-pip", str(venv)], top, 300)
    # this pip, installing into the venv (--python), and no .pyc written ahead (--no-compile):
    # Python compiles what it imports; byte-compiling every module of pandas, dask and polars
    # was most of the fixture's time
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install"]
    pip += ["--disable-pip-version-check", "--no-compile"]
    step(f"pip install the wheel[{EXTRAS}]", [*pip, f"{wheels[0]}[{EXTRAS}]"], top, 800)
    return Installed(wheels[0], venv, home)


def test_the_demo_runs_from_the_installed_wheel(installed):
    done = installed.run(installed.bin("lookup-pandas"), "demo")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Lead list sample_leads.csv: 250 rows" in done.stdout, done.stdout[-3000:]
    assert (installed.home / "lookup-demo" / "enriched_leads.csv").is_file()


ENRICH = textwrap.dedent(
    """
    import sys
    import dask.dataframe, pandas as pd, polars as pl, redis
    import lookup_pandas as lp
    from lookup_pandas.testing import FakeService

    with FakeService() as svc:
        client = lp.Client(api_key=svc.api_key, base_url=svc.base_url, cache="leads.sqlite")
        leads = pd.DataFrame({"handle": ["ada-lovelace", "unknown-bob", "", "ada-lovelace"]})
        out = leads.lookup.enrich_profiles("handle", client=client, progress=False)
        print(out["lookup_status"].tolist())
        print(out["profile_first_name"].iloc[0])
        polars = pl.DataFrame({"handle": ["ada-lovelace"]}).lookup.enrich_profiles(
            "handle", client=client, progress=False
        )
        print(polars["lookup_status"].to_list(), dict(sorted(svc.billed_handles().items())))
        client.close()
    ddf = dask.dataframe.from_pandas(leads, npartitions=1)
    print(hasattr(ddf, "lookup"), lp.__file__)
    """
)


def test_an_enrichment_against_the_emulator_runs_from_the_installed_wheel(installed):
    done = installed.run(installed.bin("python"), "-c", ENRICH)
    assert done.returncode == 0, done.stderr[-3000:]
    statuses, name, polars, dask = done.stdout.splitlines()[-4:]
    assert statuses == "['ok', 'not_found', 'invalid', 'ok']"
    assert name == "Ada"
    assert polars == "['ok'] {'ada-lovelace': 1, 'unknown-bob': 1}"  # the polars run: cached
    registered, where = dask.split(" ", 1)
    assert registered == "True"
    assert Path(where).is_relative_to(installed.venv / "lib"), where  # the wheel's, not ours
    assert (installed.home / "leads.sqlite").is_file()


def test_the_installed_version_is_the_checkout_s(installed):
    done = installed.run(installed.bin("lookup-pandas"), "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"lookup-pandas {lp.__version__}"
    meta = installed.run(
        installed.bin("python"),
        "-c",
        "import importlib.metadata as m, lookup_pandas as lp; "
        "print(m.version('lookup-pandas'), lp.__version__)",
    )
    assert meta.stdout.split() == [lp.__version__, lp.__version__], meta.stderr
    assert installed.wheel.name == f"lookup_pandas-{lp.__version__}-py3-none-any.whl"


def test_the_wheel_holds_every_file_of_the_package_and_nothing_else(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    dist_info = f"lookup_pandas-{lp.__version__}.dist-info/"
    ours = {
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }
    shipped = {n for n in names if not n.startswith(dist_info)}
    assert set(NEEDED) <= shipped, set(NEEDED) - shipped
    assert shipped == ours | {PLUGIN}, (ours | {PLUGIN}) ^ shipped
    assert {f"{dist_info}{n}" for n in ("METADATA", "RECORD", "entry_points.txt")} <= names


def test_the_sdist_holds_every_file_the_readme_links(installed):
    # the README's relative links lead into the source: a clone, or this sdist (issue 39)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = {link for link in re.findall(r"\]\(([^)#\s]+)", readme) if "://" not in link}
    (sdist,) = installed.wheel.parent.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        top = f"lookup_pandas-{lp.__version__}/"
        names = {n.removeprefix(top) for n in archive.getnames()}
    assert len(linked) >= 13 and linked <= names, linked - names


def opened_files() -> set[str]:
    """The files the package's code opens by path, as written in it: the string parts of each
    ``resources.files(...) / "..."`` or ``Path(__file__)... / "..."`` chain."""
    found = set()
    for module in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            parts: list[str] = []
            while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                if isinstance(node.right, ast.Constant) and isinstance(node.right.value, str):
                    parts.insert(0, node.right.value)
                node = node.left
            opener = ast.unparse(node) if parts else ""
            if "files(" in opener or "__file__" in opener:
                base = PACKAGE if "files(" in opener else module.parent
                found.add((base / "/".join(parts)).relative_to(ROOT).as_posix())
    # a chain's inner steps (files(...) / "data") are folders of its whole (.../data/x.csv)
    return {f for f in found if not any(g.startswith(f + "/") for g in found)}


def test_every_file_the_code_opens_is_in_the_wheel(installed):
    opened = opened_files()
    assert "lookup_pandas/data/sample_leads.csv" in opened, opened  # the scan finds them
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert opened <= names, opened - names


def test_the_data_files_the_code_opens_are_found_in_the_install(installed):
    # the code opens its files by importlib.resources: each must be there once installed
    done = installed.run(
        installed.bin("python"),
        "-c",
        "import importlib.resources as r, lookup_pandas.demo as d; "
        "print(d.sample_leads_path().is_file(), len(d.sample_leads()), "
        "(r.files('lookup_pandas') / 'py.typed').is_file())",
    )
    assert done.stdout.split() == ["True", "250", "True"], done.stderr
