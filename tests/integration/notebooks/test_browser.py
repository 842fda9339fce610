"""A real browser: JupyterLab on loopback, notebooks run in headless Chromium.

03_search_panel.ipynb: the search panel, driven as a person would. 02_enrich_leads.ipynb: a
background enrichment job's live view, which must update while the notebook goes on.

Debian's ``chromium`` package, driven by playwright's Python package with ``executable_path``
(playwright's own browser download does not work here). Where chromium is missing the test
skips with a reason, unless LOOKUP_REQUIRE_BROWSER=1 (set by .ci/run): then it fails.
The screenshots are saved next to the tests' output (tmp_path); with LOOKUP_UPDATE_DOCS=1 they
also replace docs/search_panel.png and docs/background_job.png, the ones the docs site shows
(docs/notebooks.md, and the rendered notebooks in place of their widgets).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from ..helpers import SEARCH

pytestmark = pytest.mark.timeout(300)

ROOT = Path(__file__).resolve().parents[3]
NOTEBOOK = ROOT / "notebooks" / "03_search_panel.ipynb"
ENRICH_NOTEBOOK = ROOT / "notebooks" / "02_enrich_leads.ipynb"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PAGE_SIZE = 50  # the panel's default


def _chromium() -> str:
    path = os.environ.get("LOOKUP_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    missing = None
    if not Path(path).exists():
        missing = f"chromium not found at {path} (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = "the playwright Python package is not installed"
    if missing:
        if os.environ.get("LOOKUP_REQUIRE_BROWSER") == "1":
            pytest.fail(f"LOOKUP_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def jupyterlab(request, tmp_path: Path, fake_service) -> Iterator[tuple[str, str]]:
    """JupyterLab serving a copy of the notebook; its kernels use the test emulator.

    The notebook is NOTEBOOK, or another one by indirect parametrization:
    ``@pytest.mark.parametrize("jupyterlab", [ENRICH_NOTEBOOK], indirect=True)``.
    """
    notebook: Path = getattr(request, "param", NOTEBOOK)
    root = tmp_path / "lab"
    root.mkdir()
    shutil.copy(notebook, root / notebook.name)
    port, token = _free_port(), os.urandom(16).hex()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOOKUP_", "JUPYTER"))}
    env.update(
        LOOKUP_BASE_URL=fake_service.base_url,
        LOOKUP_API_KEY=fake_service.api_key,
        LOOKUP_CACHE=str(tmp_path / "lab-cache.sqlite"),
        JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"),
        IPYTHONDIR=str(tmp_path / "ipython"),
    )
    log = open(tmp_path / "jupyterlab.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if requests.get(f"{url}/api/status", params={"token": token}, timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(
                    "JupyterLab did not start:\n"
                    + (tmp_path / "jupyterlab.log").read_text()[-3000:]
                )
            time.sleep(0.5)
        yield url, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _run_all_until(page, target, attempts: int = 3) -> None:
    """Run > Run All Cells once the kernel is up, until ``target`` shows.

    The status bar's "<kernel> | Idle" is the signal: the execution indicator reads idle even
    while the status bar still says "No Kernel | Initializing", and cells run then are lost.
    JupyterLab can also drop its first kernel connection while starting (a 500 on the kernel's
    channels websocket in its log); running all cells again is harmless.
    """
    for attempt in range(1, attempts + 1):
        page.get_by_text(re.compile(r"\(ipykernel\) \| Idle")).first.wait_for()
        page.locator(".lm-MenuBar-item", has_text="Run").first.click()
        page.locator(".lm-Menu-item", has_text="Run All Cells").first.click()
        try:
            target.wait_for(state="visible", timeout=45_000)
            return
        except Exception:
            if attempt == attempts:
                raise


def _text_matching(locator, pattern: re.Pattern[str], seconds: float = 60) -> str:
    """The locator's text once it matches ``pattern``, read in the same look.

    ``expect(...).to_have_text`` then ``inner_text()`` is two looks: a widget redrawn between
    them (its HTML replaced from the job's thread) can read as "" in the second. The DOM's text
    is read, not the rendered text: JupyterLab stops rendering cells scrolled far out of view
    (notebook 02 runs on past the job's cells), and their ``inner_text()`` is then "".
    """
    deadline = time.monotonic() + seconds
    text = ""
    while time.monotonic() < deadline:
        text = (locator.text_content() or "").strip()
        if pattern.search(text):
            return text
        time.sleep(0.05)
    raise AssertionError(f"{pattern.pattern!r} not seen in {seconds} s; last text: {text!r}")


@contextlib.contextmanager
def _notebook_page(url: str, token: str, notebook: Path, tmp_path: Path) -> Iterator[Any]:
    """Headless Chromium on ``notebook`` in the JupyterLab at ``url``, its cells shown; a
    failure leaves ``failure.png`` in ``tmp_path``."""
    chromium = _chromium()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=90_000)  # a kernel start on a busy 2-core machine
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.set_default_timeout(90_000)
            page.goto(f"{url}/lab/tree/{notebook.name}?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell")
            yield page
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            raise
        finally:
            browser.close()


def test_search_panel_in_jupyterlab(jupyterlab, fake_service, tmp_path):
    from playwright.sync_api import expect

    url, token = jupyterlab
    rows = ".lookup-search-panel table.lookup-results tbody tr"
    with _notebook_page(url, token, NOTEBOOK, tmp_path) as page:
        title = page.locator(".lookup-search-panel input[type='text']")
        # The notebook runs one search itself (so it shows results when run headless):
        # wait for the line its cell prints, then search as a person would.
        _run_all_until(page, page.get_by_text(re.compile(r"\d+ loaded;")).first)
        expect(page.locator(".lookup-results th")).to_have_text(
            ["Name", "Headline", "Company", "City", "Handle"]
        )
        title.fill("engineer")
        title.press("Enter")
        expect(page.locator(rows)).to_have_count(PAGE_SIZE)
        expect(page.locator(".lookup-summary")).to_have_text(f"loaded {PAGE_SIZE} · more available")

        more = page.locator(".lookup-search-panel button", has_text="Load more")
        expect(more).to_be_enabled()
        more.click()
        expect(page.locator(rows)).to_have_count(2 * PAGE_SIZE)
        expect(page.locator(".lookup-summary")).to_have_text(
            f"loaded {2 * PAGE_SIZE} · more available"
        )
        first_cells = page.locator(f"{rows} >> nth=0 >> td").all_inner_texts()
        assert len(first_cells) == 5 and first_cells[4].strip()  # a handle on every row

        # Search again with the button: a new first page, not an appended one.
        page.locator(".lookup-search-panel button", has_text="Search").click()
        expect(page.locator(rows)).to_have_count(PAGE_SIZE)

        news = page.locator(".jp-toast-button", has_text="No")  # JupyterLab's news prompt
        if news.count():
            news.first.click()
        shot = tmp_path / "search_panel.png"
        page.screenshot(path=str(shot), full_page=True)
        html = page.content()

    assert shot.stat().st_size > 10_000
    if os.environ.get("LOOKUP_UPDATE_DOCS") == "1":
        shutil.copy(shot, ROOT / "docs" / "search_panel.png")
    # Two pages were fetched from the service; the repeated first page came from the cache.
    searches = [
        r for r in fake_service.requests if r.path == SEARCH and r.param("title") == "engineer"
    ]
    assert len(searches) == 2
    assert searches[0].param("cursor") is None and searches[1].param("cursor")
    assert fake_service.api_key not in html  # the key is nowhere in the page


#: Batch items the emulator resolves per second in the job test: the notebook's 190 distinct
#: handles go through one batch job, so it runs ~10 s (polled every ~1.5 s, each poll a redraw).
SLOW_BATCH_RATE = 20.0


@pytest.mark.parametrize("jupyterlab", [ENRICH_NOTEBOOK], ids=["02_enrich_leads"], indirect=True)
def test_background_job_view_updates_in_jupyterlab(jupyterlab, fake_service, tmp_path):
    """``enrich_profiles(..., background=True)`` shown as a cell's last line: its widget is
    redrawn from the job's thread while the next cell waits in ``job.result()``: the line shows
    one count of profiles, then a larger one (or the end), then the summary, with no re-run."""
    from playwright.sync_api import expect

    url, token = jupyterlab
    fake_service.configure(batch_resolve_rate=SLOW_BATCH_RATE)
    # The job's own widget (cell 7 also prints job.line(), as plain text: not matched here).
    view = ".jp-OutputArea-output .widget-vbox"
    line = f"{view} .widget-html code"
    seen: list[str] = []
    with _notebook_page(url, token, ENRICH_NOTEBOOK, tmp_path) as page:
        code = page.locator(line)
        _run_all_until(page, code.first)
        expect(code).to_have_count(1)

        # Running, with the total known: some N of 190 profiles.
        seen.append(_text_matching(code, re.compile(r"^running: \d+/190 profiles")))
        first = int(re.match(r"running: (\d+)/", seen[0]).group(1))  # type: ignore[union-attr]
        bar = page.locator(f"{view} .widget-hprogress")  # IntProgress (ipywidgets 8)
        expect(bar).to_have_count(1)
        expect(bar).to_contain_text("profiles")  # its description

        # Redrawn by the job, the cell not run again: a larger count, or the end.
        seen.append(_text_matching(code, re.compile(rf"^(?!running: {first}/)(running|done): \d+")))
        later = re.match(r"(running|done): (\d+)", seen[1])
        assert later, seen
        assert later.group(1) == "done" or int(later.group(2)) > first, seen

        seen.append(_text_matching(code, re.compile(r"^done: 250 rows ")))
        # The next cell waited for the job and printed the same summary.
        printed = page.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']",
            has_text=re.compile(r"^done: 250 rows "),
        )
        expect(printed).to_have_count(1)
        said = _text_matching(printed, re.compile(r"^done: 250 rows "))
        assert said.strip() == seen[-1].strip()
        expect(bar).to_have_count(1)

        news = page.locator(".jp-toast-button", has_text="No")  # JupyterLab's news prompt
        if news.count():
            news.first.click()
        code.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "job_view.png"))
        # the job's cell alone (its code and its finished view), for the docs site
        job_cell = page.locator(".jp-CodeCell", has=page.locator(view))
        shot = tmp_path / "background_job.png"
        job_cell.screenshot(path=str(shot))
        html = page.content()

    (tmp_path / "job_view_lines.txt").write_text("\n".join(seen) + "\n")  # what was seen
    assert shot.stat().st_size > 5_000
    if os.environ.get("LOOKUP_UPDATE_DOCS") == "1":
        shutil.copy(shot, ROOT / "docs" / "background_job.png")
    # One batch job, slowed: the widget showed it running before it ended.
    assert len(fake_service.batch_jobs) == 1, fake_service.batch_jobs
    assert seen[0].startswith("running:") and seen[-1].startswith("done: 250 rows"), seen
    assert fake_service.api_key not in html  # the key is nowhere in the page
