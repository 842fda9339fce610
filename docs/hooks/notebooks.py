"""An mkdocs hook: the notebooks of notebooks/, run against the emulator, become pages.

Each notebook is copied to a temporary folder and executed there (nbclient, a fresh kernel),
so its files land there and notebooks/ stays clean (a test checks it is committed without
outputs). The kernel gets the environment without any ``LOOKUP_*`` variable, so each
notebook's ``notebook_client()`` starts the bundled emulator: a docs build never reaches a real
service or spends a credit. mkdocs-jupyter then renders the executed copies (``execute:
false`` in mkdocs.yml) as ``notebooks/<name>.html``.

A notebook that fails to run fails the build. Widget state is not stored: the static page
could only draw widgets with a script fetched from a CDN, and the site fetches nothing. A
progress bar shows as its text. A panel or a live job view shows as a screenshot of it in
JupyterLab (docs/*.png, taken by tests/integration/notebooks/test_browser.py), said to be one.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files
from nbclient import NotebookClient

log = logging.getLogger("mkdocs.hooks.notebooks")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
#: The folder of the pages in the site: notebooks/01_quickstart.html.
FOLDER = "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: A widget whose text is its repr (``SearchPanel(children=(...``), not a progress bar's line.
WIDGET_REPR = re.compile(r"^\w+\(children=")
#: The screenshot of each notebook's widget, from JupyterLab (the browser test takes them).
SCREENSHOTS = {
    "02_enrich_leads.ipynb": ("background_job.png", "the background job's view"),
    "03_search_panel.ipynb": ("search_panel.png", "the search panel"),
}
#: Scripts nbconvert's template puts on every notebook page, each to fetch from a CDN: MathJax
#: (its URL is empty here, and its configuration), and mermaid (imported only for a diagram).
#: The notebooks have neither math nor diagrams; the site fetches nothing.
CDN_SCRIPTS = re.compile(
    r'<script src="">\s*</script>'
    r'|<script type="text/x-mathjax-config">.*?</script>'
    r'|<script type="module">(?:(?!</script>).)*cdnjs\.cloudflare\.com(?:(?!</script>).)*</script>',
    re.DOTALL,
)
#: Each cell may take this long (the slowest takes seconds against the emulator).
CELL_TIMEOUT = 180

_workdir: Path | None = None


def kernel_environment() -> dict[str, str]:
    """This process's environment without LOOKUP_*: every notebook runs on its own emulator."""
    return {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}


def execute(source: Path, folder: Path) -> Path:
    """Copy ``source`` into ``folder``, run it there, write it back with its outputs."""
    path = folder / source.name
    shutil.copyfile(source, path)
    nb = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
        store_widget_state=False,
        iopub_timeout=60,
        raise_on_iopub_timeout=True,
    )
    try:
        client.execute(env=kernel_environment())
    except Exception as exc:  # a failing cell, a dead kernel, a timeout
        raise PluginError(f"notebooks/{source.name} did not run: {exc}") from exc
    static_widgets(nb, source.name)
    nbformat.write(nb, path)  # type: ignore[no-untyped-call]
    return path


def static_widgets(nb: Any, name: str) -> None:
    """Widget outputs as a static page can show them: see the module."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            del data[WIDGET_VIEW]
            text = data.get("text/plain", "")
            if WIDGET_REPR.match(text if isinstance(text, str) else "".join(text)):
                data.clear()
                data["text/html"] = _screenshot(name)


def _screenshot(name: str) -> str:
    image, what = SCREENSHOTS.get(name, (None, "a widget"))
    note = f"<p><em>In Jupyter, this cell shows {what}: a live ipywidgets view."
    if image is None:
        return note + "</em></p>"
    return (
        f'{note} As it looks in JupyterLab:</em></p><img src="../{image}" '
        f'alt="{what} in JupyterLab" style="max-width: 100%">'
    )


@event_priority(100)  # before mkdocs-jupyter's on_files, which makes .ipynb files pages
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add each executed notebook as ``notebooks/<name>.ipynb`` of the site."""
    global _workdir
    _workdir = Path(tempfile.mkdtemp(prefix="lookup-docs-notebooks-"))
    folder = _workdir / FOLDER
    folder.mkdir()
    for source in sorted(NOTEBOOKS.glob("*.ipynb")):
        log.info("running notebooks/%s against the emulator", source.name)
        execute(source, folder)
        files.append(
            File(
                f"{FOLDER}/{source.name}",
                src_dir=str(_workdir),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    return files


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    """A notebook's page without the scripts it would fetch from a CDN (see CDN_SCRIPTS)."""
    if not page.file.src_uri.startswith(f"{FOLDER}/"):
        return html
    return CDN_SCRIPTS.sub("", html)


def on_post_build(config: MkDocsConfig) -> None:
    """Remove the executed copies."""
    _remove_copies()


def on_build_error(error: Exception) -> None:
    """Remove the executed copies of a build that failed."""
    _remove_copies()


def _remove_copies() -> None:
    if _workdir is not None:
        shutil.rmtree(_workdir, ignore_errors=True)
