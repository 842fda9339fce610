"""The docs site: built as `make docs` builds it, whole, and usable opened as a file.

One ``mkdocs build --strict`` per session (it runs the five notebooks against the emulator),
into a temporary folder; then, read from its files: every link of every page leads to a file
of the site, no page loads a script, stylesheet, font or image from the network, search works
without a server, the notebooks are there with their outputs, and the reference page of
``enrich_profiles`` shows its signature as the code declares it.

Where mkdocs or its plugins are not installed the tests skip with a reason, unless
LOOKUP_REQUIRE_DOCS=1 (set by .ci/run): then they fail.
"""

from __future__ import annotations

import html
import importlib.util
import inspect
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from lookup_pandas.accessor import LookupAccessor

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[3]
#: What the build needs: mkdocs, the theme, the API reference, the notebooks.
BUILD_MODULES = ("mkdocs", "material", "mkdocstrings_handlers.python", "mkdocs_jupyter")
#: One page per guide (the issue's list), and the notebooks' pages.
GUIDES = (
    "getting-started",
    "enriching",
    "data-api",
    "emails",
    "credits",
    "notebooks",
    "refresh",
    "cli",
    "scaling",
    "your-data",
    "emulator",
    "performance",
    "architecture",
    "decisions",
)
NOTEBOOKS = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
ACCESSOR_PAGE = "reference/accessor.html"
#: Attributes that make the browser fetch something as the page loads.
LOADING = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "link": ("href",),  # stylesheets, icons, preloads: every link element loads its href
}
NETWORK = re.compile(r"^(?:https?:)?//", re.IGNORECASE)
CSS_NETWORK = re.compile(r"(?:url\(\s*['\"]?|@import\s+['\"])(?:https?:)?//", re.IGNORECASE)


def _missing_build_module() -> str | None:
    for name in BUILD_MODULES:
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            return f"{name.split('.')[0]} is not installed (pip install -e '.[docs]')"
    return None


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built by ``mkdocs build --strict`` as ``make docs`` runs it."""
    missing = _missing_build_module()
    if missing:
        if os.environ.get("LOOKUP_REQUIRE_DOCS") == "1":
            pytest.fail(f"LOOKUP_REQUIRE_DOCS=1 but {missing}")
        pytest.skip(missing)
    out = tmp_path_factory.mktemp("docs") / "site"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env["NO_MKDOCS_2_WARNING"] = "1"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert build.returncode == 0, build.stderr[-5000:]
    return out


class _Page(HTMLParser):
    """A page's ids, its links (``a href``), what it loads, and its inline scripts' text."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.loads: list[tuple[str, str]] = []
        self.inline_scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self.links.append(values["href"])
        for name in LOADING.get(tag, ()):
            if values.get(name):
                self.loads.append((tag, values[name]))
        if tag in ("script", "style") and not values.get("src"):
            self._in = tag

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.inline_scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _pages(site: Path) -> list[Path]:
    """Every page, but 404.html: a server's error page, written with links from the server's
    root (``/index.html``); opened as a file, no link leads to it."""
    return sorted(p for p in site.rglob("*.html") if p != site / "404.html")


def _local_target(page: Path, url: str) -> tuple[Path, str] | None:
    """The file a relative URL of ``page`` names, and its fragment; None for other URLs."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith(("#", "mailto:", "javascript:")):
        return None
    return (page.parent / unquote(parts.path)).resolve(), parts.fragment


def test_the_site_has_every_guide_the_notebooks_and_the_reference(site: Path) -> None:
    missing = [
        name
        for name in (
            "index.html",
            *(f"{guide}.html" for guide in GUIDES),
            *(f"notebooks/{name}.html" for name in NOTEBOOKS),
            ACCESSOR_PAGE,
            "reference/index.html",
            "reference/errors.html",
            "reference/testing.html",
        )
        if not (site / name).is_file()
    ]
    assert not missing, missing
    assert len(NOTEBOOKS) == 6


def test_every_link_of_every_page_resolves_to_a_file_and_an_anchor_of_the_site(
    site: Path,
) -> None:
    pages = _pages(site)
    assert len(pages) > 25
    ids = {page.resolve(): _parse(page).ids for page in pages}
    broken = []
    for page in pages:
        for url in _parse(page).links:
            target = _local_target(page, url)
            if target is None:
                continue
            path, fragment = target
            if path.is_dir():
                path = path / "index.html"
            if not path.is_file() or not path.is_relative_to(site.resolve()):
                broken.append(f"{page.relative_to(site)}: {url}")
            elif fragment and path in ids and unquote(fragment) not in ids[path]:
                broken.append(f"{page.relative_to(site)}: {url} (no such anchor)")
    assert not broken, broken


def test_no_page_loads_anything_from_the_network(site: Path) -> None:
    fetched = []
    for page in _pages(site):
        parsed = _parse(page)
        name = str(page.relative_to(site))
        fetched += [f"{name}: <{tag}> {url}" for tag, url in parsed.loads if NETWORK.match(url)]
        for target in (u for _, u in parsed.loads):
            local = _local_target(page, target.split()[0])
            if local is not None and not local[0].is_file():
                fetched.append(f"{name}: {target} is not in the site")
        styles, scripts = " ".join(parsed.styles), " ".join(parsed.inline_scripts)
        fetched += [f"{name}: a <style> loads {m}" for m in CSS_NETWORK.findall(styles)]
        fetched += [f"{name}: a script names {u}" for u in re.findall(r"https?://\S+", scripts)]
    for css in site.rglob("*.css"):
        if CSS_NETWORK.search(css.read_text(encoding="utf-8")):
            fetched.append(f"{css.relative_to(site)} loads from the network")
    assert not fetched, fetched


def test_search_works_without_a_server(site: Path) -> None:
    """The offline plugin inlines the index; the worker shim is our own copy, not a CDN's."""
    index = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert index.startswith("var __index")
    loads = [url for _, url in _parse(site / "index.html").loads]
    assert "assets/iframe-worker/shim.js" in loads
    assert (site / "assets" / "iframe-worker" / "shim.js").is_file()


def test_the_reference_page_of_enrich_profiles_shows_its_signature(site: Path) -> None:
    text = (site / ACCESSOR_PAGE).read_text(encoding="utf-8")
    anchor = 'id="lookup_pandas.accessor.LookupAccessor.enrich_profiles"'
    assert anchor in text
    block = text[text.index(anchor) :]
    block = block[block.index('<div class="doc-signature') :]
    shown = " ".join(html.unescape(re.sub(r"<[^>]+>", "", block[: block.index("</pre>")])).split())
    declared = inspect.signature(LookupAccessor.enrich_profiles)
    assert shown.startswith('enrich_profiles( column: str = "handle", *,'), shown
    position = 0
    for name, parameter in list(declared.parameters.items())[1:]:  # self is not shown
        found = shown.find(f" {name}: ", position)
        assert found > position, (name, shown)
        position = found
        if parameter.default is not inspect.Parameter.empty:
            default = repr(parameter.default).replace("'", '"')
            assert re.match(rf" {name}: [^,=]+ = {re.escape(default)},", shown[found:]), name
    assert shown.endswith(") -> DataFrame | EnrichmentJob"), shown
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", block)).split())
    assert "A new frame: each row's profile joined on. The input frame is not modified." in words


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_each_notebook_is_rendered_with_its_outputs_from_the_emulator(
    site: Path, name: str
) -> None:
    page = (site / "notebooks" / f"{name}.html").read_text(encoding="utf-8")
    outputs = re.findall(r'class="jp-OutputArea-child[ "]', page)
    assert len(outputs) >= 2, f"{name}: {len(outputs)} outputs"
    assert "widget-state+json" not in page  # the widgets' static text, no CDN script for them
