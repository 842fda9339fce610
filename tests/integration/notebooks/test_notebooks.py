"""The notebooks in notebooks/ run top to bottom, in both modes, and are committed clean.

* Emulator mode: no LOOKUP_* variable set, so each notebook's first cell starts the bundled
  emulator inside the kernel. Each notebook is executed once per record mode (a module
  fixture) and several tests read the result: "full" records, and "sparse" ones that carry only
  id, handle and some of the other fields (LOOKUP_EMULATOR_SPARSE=1), so a notebook that
  depends on any one field fails here.
* Environment mode: LOOKUP_BASE_URL / LOOKUP_API_KEY name the test session's emulator, so the
  billable calls of 02 can be counted from here, and the key looked for in what it wrote.

Every notebook is copied to a temporary directory first and runs there, so files it writes
land there, never in the repository. The kernel inherits os.environ when it starts.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import pytest
from nbclient import NotebookClient

from lookup_pandas.demo import sample_crm_path, sample_leads_path
from lookup_pandas.identifiers import emails
from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.service.paths import COMPANY_BATCH_PATH, COMPANY_PATH
from lookup_pandas.testing import FakeService, mailboxes
from lookup_pandas.testing import data as emulator_data

from ..conftest import QUIET_BURST

pytestmark = pytest.mark.timeout(300)

NOTEBOOK_DIR = Path(__file__).resolve().parents[3] / "notebooks"
NOTEBOOKS = (
    "01_quickstart.ipynb",
    "02_enrich_leads.ipynb",
    "03_search_panel.ipynb",
    "04_accounts.ipynb",
    "05_refresh.ipynb",
    "06_crm_export.ipynb",
)
ENV_VARS = ("LOOKUP_BASE_URL", "LOOKUP_API_KEY", "LOOKUP_CACHE")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
KEY_LIKE = re.compile(r"lk_[A-Za-z0-9_]{4,}")
ABSOLUTE_PATHS = ("/home/", "/root/", "/tmp/", "/work/")


@dataclass
class Run:
    """One execution of one notebook: the executed notebook, or what stopped it."""

    workdir: Path
    nb: Any = None
    error: BaseException | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def executed(self) -> Any:
        if self.error is not None:
            pytest.fail(f"the notebook did not run to the end: {self.error}", pytrace=False)
        return self.nb


def execute(name: str, workdir: Path) -> Run:
    """Copy ``name`` into ``workdir`` and execute it there; never raises (see Run.error)."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / name
    shutil.copyfile(NOTEBOOK_DIR / name, path)
    nb = nbformat.read(path, as_version=4)
    run = Run(workdir)
    try:
        NotebookClient(
            nb,
            timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(workdir)}},
            **IOPUB,
        ).execute()
    except Exception as exc:  # CellExecutionError, a dead kernel, a cell timeout
        run.error = exc
    run.nb = nb
    return run


#: nbclient waits only 4 s for a cell's output messages after it ran and then drops the rest
#: silently: on a loaded CI machine a print went missing. Wait longer (it stops waiting as
#: soon as the kernel says it is idle), and fail loudly rather than judge a notebook on
#: outputs that never arrived.
IOPUB: dict[str, Any] = {"iopub_timeout": 60, "raise_on_iopub_timeout": True}


def outputs_text(cell: Any) -> str:
    """Everything a code cell showed: streams, text/plain and text/html of results.

    A stream's text carries its own newlines, and the kernel may send one print in pieces
    (a flush between its writes, on a loaded machine), with a display update between them:
    the stream is read whole, as the user sees it, and the rest after it.
    """
    streams: list[str] = []
    parts: list[str] = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            streams.append(out.get("text", ""))
        elif out.get("output_type") == "error":
            parts.append("\n".join(out.get("traceback", [])))
        else:
            data = out.get("data", {})
            for mime in ("text/plain", "text/html"):
                value = data.get(mime, "")
                parts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(["".join(streams), *parts])


def code_cells(nb: Any) -> list[Any]:
    return [c for c in nb.cells if c.cell_type == "code"]


def cell_with(nb: Any, snippet: str) -> Any:
    matches = [c for c in code_cells(nb) if snippet in c.source]
    assert len(matches) == 1, f"expected one code cell containing {snippet!r}"
    return matches[0]


def all_output_text(nb: Any) -> str:
    return "\n".join(outputs_text(c) for c in code_cells(nb))


def expected_profile_calls() -> set[str]:
    """The distinct valid handles of the sample lead list: one billable call each."""
    with open(sample_leads_path(), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 250
    return {h for h in (normalise_handle(r["handle"] or None) for r in rows) if h is not None}


# -- emulator mode ---------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["full", "sparse"])
def emulator_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Run]:
    """Each notebook executed once with no LOOKUP_* variable: its own emulator in the kernel."""
    root = tmp_path_factory.mktemp(f"notebooks-emulator-{request.param}")
    runs: dict[str, Run] = {}
    with pytest.MonkeyPatch.context() as mp:
        for var in ENV_VARS:
            mp.delenv(var, raising=False)
        if request.param == "sparse":
            mp.setenv("LOOKUP_EMULATOR_SPARSE", "1")
        else:
            mp.delenv("LOOKUP_EMULATOR_SPARSE", raising=False)
        for name in NOTEBOOKS:
            stem = name.removesuffix(".ipynb")
            kernel_tmp = root / f"{stem}-tmp"  # the notebook's temporary cache lands here
            kernel_tmp.mkdir()
            mp.setenv("TMPDIR", str(kernel_tmp))
            runs[name] = execute(name, root / stem)
            runs[name].extra["kernel_tmp"] = kernel_tmp
    return runs


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_runs_in_emulator_mode(emulator_runs, name):
    nb = emulator_runs[name].executed()
    cells = code_cells(nb)
    assert cells and all(c.execution_count is not None for c in cells)
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1))
    for cell in cells:
        assert not any(o.get("output_type") == "error" for o in cell.outputs), cell.source
    text = nbformat.writes(nb)
    assert not KEY_LIKE.search(text), f"a key-like string in executed {name}"
    # No LOOKUP_CACHE: notebook_client() cached to a fresh temporary directory.
    made = list(emulator_runs[name].extra["kernel_tmp"].glob("lookup-notebook-*"))
    assert len(made) == 1, made


def test_quickstart_outputs(emulator_runs):
    nb = emulator_runs["01_quickstart.ipynb"].executed()
    text = all_output_text(nb)
    assert "120 people" in text
    n_acme = len(emulator_data.employees("acme"))
    assert n_acme == 137
    employees = outputs_text(cell_with(nb, 'lp.company_employees("acme")'))
    assert f"{n_acme} current employees" in employees, employees
    assert "Client(base_url=" in outputs_text(cell_with(nb, "client = notebook_client()"))
    de = outputs_text(cell_with(nb, 'geo_country_code="DE"'))
    assert re.search(r"\b[1-9]\d* engineers in Germany", de), de
    # lp.overview's columns, whatever the records hold
    assert all(
        c in outputs_text(cell_with(nb, "lp.overview(people)"))
        for c in ("name", "headline", "company", "city", "handle")
    )
    tier = outputs_text(cell_with(nb, "lp.credits_tier()"))
    assert "limit_per_minute" in tier and "balance" in tier


def test_enrich_outputs_and_csv(emulator_runs):
    run = emulator_runs["02_enrich_leads.ipynb"]
    nb = run.executed()
    counts = outputs_text(cell_with(nb, 'enriched["lookup_status"].value_counts()'))
    for status in ("ok", "not_found", "invalid"):
        assert re.search(rf"\b{status}\b", counts), f"{status!r} missing from:\n{counts}"
    assert "250 rows" in all_output_text(nb)
    # the background job's line once it is done: its JobSummary
    done = outputs_text(cell_with(nb, "enriched = job.result()"))
    assert re.search(r"done: 250 rows \(\d+ ok, \d+ not_found", done), done

    written = run.workdir / "enriched_leads.csv"
    assert written.is_file()
    frame = pd.read_csv(written)
    assert frame.shape[0] == 250
    # production's documented person fields are always columns, filled or not
    assert {
        "name",
        "handle",
        "lookup_status",
        "profile_id",
        "profile_first_name",
        "profile_geo.city",
    } <= set(frame.columns)
    assert "profile_full_name" not in frame.columns  # a field production never promised
    assert frame["lookup_status"].notna().all()
    assert set(frame["lookup_status"]) <= {"ok", "not_found", "invalid", "error"}
    assert "error" not in set(frame["lookup_status"])
    # The CSV cell reads the file back: its shape is shown.
    assert f"(250, {frame.shape[1]})" in outputs_text(cell_with(nb, "to_csv_cells"))
    # People, then their companies on one frame: the second run's statuses have its prefix.
    accounts = outputs_text(cell_with(nb, 'both["acct_lookup_status"].value_counts()'))
    assert re.search(r"\bok\b", accounts), accounts
    summary = outputs_text(cell_with(nb, "both.lookup.summary"))
    assert re.search(r"250 rows \(\d+ ok", summary) and "credits" in summary, summary
    # The parquet file read back gives the same summary.
    back = outputs_text(cell_with(nb, "pd.read_parquet(path)"))
    assert back.strip() == summary.strip(), (back, summary)


def test_search_panel_notebook_runs_a_search_headless(emulator_runs):
    nb = emulator_runs["03_search_panel.ipynb"].executed()
    loaded = outputs_text(cell_with(nb, "panel.search()"))
    match = re.search(r"(\d+) loaded", loaded)
    assert match and int(match.group(1)) > 0, loaded
    results = outputs_text(cell_with(nb, "panel.results.head()"))
    assert "handle" in results and "id" in results
    assert "company" in outputs_text(cell_with(nb, "lp.overview(panel.results)"))


#: The companies 04's account list resolves to (a URL and "ACME" among them), in its order.
ACCOUNT_COMPANIES = ("acme", "globex", "hooli", "umbrella", "initech")


def test_accounts_outputs(emulator_runs):
    nb = emulator_runs["04_accounts.ipynb"].executed()
    costs = outputs_text(cell_with(nb, "lp.route_costs()"))
    assert re.search(r"/companies/company\s+2\b", costs), costs  # the emulator's price
    # 10 rows, 9 valid, 6 distinct companies (the URL and ACME fold onto umbrella and acme;
    # unknown-nobody is bought too), at 2 credits each by single calls
    estimate = outputs_text(cell_with(nb, 'estimate = accounts.lookup.estimate_companies("slug")'))
    # shown as its one line (Estimate's text repr)
    for part in ("10 rows", "6 distinct", "0 cached", "6 to fetch by single", "12 credits"):
        assert part in estimate, estimate
    enrich = outputs_text(cell_with(nb, 'accounts.lookup.enrich_companies("slug"'))
    assert "12 credits spent" in enrich, enrich
    counts = outputs_text(cell_with(nb, 'enriched["lookup_status"].value_counts()'))
    assert "8 of 10 rows enriched" in counts, counts
    for status, n in (("ok", 8), ("invalid", 1), ("not_found", 1)):
        assert re.search(rf"\b{status}\s+{n}\b", counts), f"{status} {n} missing from:\n{counts}"

    expected = {
        slug: len(emulator_data.employees(slug, title="data scientist", current_only=True) or [])
        for slug in ACCOUNT_COMPANIES
    }
    total = sum(expected.values())
    assert total > 0 and expected["umbrella"] == 0  # some found, and a company with none
    pages = sum(max(1, -(-n // 50)) for n in expected.values())  # 50 a page, 1 credit each
    scientists = outputs_text(cell_with(nb, "scientists = pd.concat("))
    line = f"{total} current data scientists at {len(expected)} companies, {pages} credits spent"
    assert line in scientists, scientists
    for slug, n in expected.items():
        assert re.search(rf"^{slug}\s+{n}$", scientists, re.MULTILINE), f"{slug} {n}:\n{scientists}"
    assert "handle" in outputs_text(cell_with(nb, "lp.overview(scientists)"))

    again = outputs_text(cell_with(nb, "listed = sum("))
    assert f"{total} data scientists listed again, 0 credits spent" in again, again
    assert "6 cached, nothing to fetch" in again and "0 credits spent" in again, again


def test_refresh_notebook_buys_only_the_movers(emulator_runs):
    nb = emulator_runs["05_refresh.ipynb"].executed()
    movers = outputs_text(cell_with(nb, "refreshed[refreshed["))
    bought = re.findall(r"(\S+-employee-\d{5})\s+(Head of Data at Globex|NaN)\s+single", movers)
    assert len({handle for handle, _ in bought}) == 5, movers  # each mover bought anew
    # their new job shows (sparse records hold a headline only half the time)
    assert any(headline != "NaN" for _, headline in bought), movers
    sources = outputs_text(cell_with(nb, 'refreshed["lookup_source"].value_counts()'))
    assert re.search(r"\bchecked\s+\d+", sources), sources
    spent = outputs_text(cell_with(nb, 'print(f"first purchase:'))
    first, refresh = map(float, re.findall(r"(\d+(?:\.\d+)?) credits", spent)[:2])
    # the 5 movers and the feed pages; records naming no position (sparse ones, often) cannot
    # be checked, and are kept until they expire
    assert first == 200 and 5 < refresh <= 10, spent
    again = outputs_text(cell_with(nb, "again.refresh"))
    assert "moved=0" in again and "busy=0" in again, again
    read = re.search(r"profiles bought (\d+), feed pages read (\d+), credits (\d+)", again)
    assert read is not None, again
    bought, pages, credits = map(int, read.groups())
    assert bought == 0 and credits == pages >= 1, again  # feed pages only


def test_crm_export_notebook_bills_each_step_what_the_emulator_prices(emulator_runs):
    """Each step's credits, as the notebook prints them, against the emulator's own answers
    for the sample CRM export: verify 2 per distinct address, find 3 per distinct query, reverse
    5 (3 when nobody is found, 0 when unsupported), profiles 1 per person; a re-run 0."""
    nb = emulator_runs["06_crm_export.ipynb"].executed()
    crm = pd.read_csv(sample_crm_path(), dtype=str)
    sent = [emails.address(v)[0] for v in crm["Email"]]
    addresses = {a for a in sent if a}
    deliverable = {a for a in addresses if mailboxes.verify(a)["deliverable"]}
    queries = {
        q
        for a, first, last, site in zip(
            sent, crm["First Name"], crm["Last Name"], crm["Company Website"], strict=True
        )
        if a not in deliverable and (q := emails.query((first, last, site))[0])
    }
    found = {f["email"] for q in queries if (f := mailboxes.find(*q.split("\t")))["found"]}
    reversed_ = {
        a: mailboxes.reverse(a) for a in deliverable | found if not mailboxes.unsupported(a)
    }
    reverse_credits = sum(5 if r["found"] else 3 for r in reversed_.values())
    people = {
        normalise_handle(r["person"]["profile_url"]) for r in reversed_.values() if r["person"]
    }
    assert (
        len(addresses) > len(deliverable) - 1 > 0 and found and people
    )  # the data shows each step
    spent = all_output_text(nb)
    for step, credits in (
        ("verify", 2 * len(addresses)),
        ("find", 3 * len(queries)),
        ("reverse", reverse_credits),
        ("profiles", len(people)),
    ):
        assert f"{step}: {credits} credits spent" in spent, (step, credits)
    statuses = outputs_text(cell_with(nb, 'behind = addresses.lookup.reverse_emails("email"'))
    assert "unsupported" in statuses  # the gmail address and the role account, free
    assert "to fetch again: [0, 0, 0, 0], 0 credits spent" in spent


def test_search_panel_displays_a_widget(emulator_runs):
    nb = emulator_runs["03_search_panel.ipynb"].executed()
    views = [o for c in code_cells(nb) for o in c.outputs if WIDGET_VIEW in o.get("data", {})]
    assert views, "no widget view in the outputs of 03"
    model_id = views[0]["data"][WIDGET_VIEW]["model_id"]
    assert model_id
    # nbclient saves the widget state with the notebook: the panel is in it, with no key.
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    assert model_id in state
    assert "lookup-search-panel" in json.dumps(state[model_id])
    assert not KEY_LIKE.search(json.dumps(state))


# -- environment mode ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def env_run(lookup_service: FakeService, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """02 executed once against the session's emulator, named by the LOOKUP_* variables."""
    root = tmp_path_factory.mktemp("notebooks-env")
    cache_dir = root / "cache"
    cache_dir.mkdir()
    svc = lookup_service
    svc.reset()
    svc.configure(rate_burst=QUIET_BURST)
    key = svc.api_key
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("LOOKUP_BASE_URL", svc.base_url)
            mp.setenv("LOOKUP_API_KEY", key)
            mp.setenv("LOOKUP_CACHE", str(cache_dir / "lookup-cache.sqlite"))
            run = execute("02_enrich_leads.ipynb", root / "work")
        run.extra.update(
            key=key,
            cache=cache_dir / "lookup-cache.sqlite",
            billed=svc.billed() - billed_companies(svc),  # single lookups and batch items
            companies=Counter(  # bought by single calls: a few distinct companies
                r.param("slug") for r in svc.requests if r.path == COMPANY_PATH and r.billed
            ),
            billed_per_handle={h: svc.billed(handle=h) for h in expected_profile_calls()},
            requests=svc.requests,
        )
    finally:
        svc.reset()
    return run


def test_env_mode_bills_each_distinct_handle_once(env_run):
    env_run.executed()
    expected = expected_profile_calls()
    assert len(expected) == 190
    assert env_run.extra["billed"] == len(expected)
    companies = env_run.extra["companies"]  # the section that enriches their companies
    assert companies and set(companies.values()) == {1}, companies
    # no handle paid for twice, whether it came by a single call or a batch job
    assert env_run.extra["billed_per_handle"] == {h: 1 for h in expected}
    assert all(r.status in (200, 202) for r in env_run.extra["requests"])
    assert env_run.extra["cache"].is_file()  # LOOKUP_CACHE was used


def billed_companies(svc: FakeService) -> int:
    """The company answers billed: single calls and batch items."""
    return svc.billed(COMPANY_PATH) + svc.billed(COMPANY_BATCH_PATH)


def test_env_mode_writes_no_key(env_run):
    nb = env_run.executed()
    key = env_run.extra["key"]
    assert key.startswith("lk_")
    assert key not in nbformat.writes(nb)
    assert not KEY_LIKE.search(nbformat.writes(nb))
    written = env_run.workdir / "enriched_leads.csv"
    assert written.is_file()
    assert key not in written.read_text(encoding="utf-8")
    assert pd.read_csv(written).shape[0] == 250
    # Nothing else the run left in its working directory holds the key either.
    for path in env_run.workdir.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), f"key in {path.name}"


def test_env_mode_rerun_offline_sends_nothing(env_run, lookup_service, tmp_path):
    """Issue 25: a reviewer (or CI) re-runs the notebook with LOOKUP_OFFLINE=1 on the cache the
    first run filled: every cell runs, from the cache alone, and the service sees no request."""
    env_run.executed()
    svc = lookup_service
    svc.reset()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LOOKUP_BASE_URL", svc.base_url)
        mp.setenv("LOOKUP_API_KEY", svc.api_key)
        mp.setenv("LOOKUP_CACHE", str(env_run.extra["cache"]))
        mp.setenv("LOOKUP_OFFLINE", "1")
        run = execute("02_enrich_leads.ipynb", tmp_path / "offline")
    nb = run.executed()
    assert svc.count() == 0 and svc.billed() == 0  # not even first contact
    assert "offline=True" in outputs_text(cell_with(nb, "client = notebook_client()"))
    done = outputs_text(cell_with(nb, "enriched = job.result()"))
    assert re.search(r"done: 250 rows \(225 ok, 10 not_found, 15 invalid, 0 error\)", done), done
    assert "0 requests sent" in done and "0 credits" in done
    offline = pd.read_csv(run.workdir / "enriched_leads.csv")
    online = pd.read_csv(env_run.workdir / "enriched_leads.csv")
    pd.testing.assert_frame_equal(offline, online)  # the same table, bought once


# -- the committed notebooks are clean -------------------------------------------------------------


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_notebook_is_clean(name):
    path = NOTEBOOK_DIR / name
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    assert "widgets" not in nb.metadata  # no saved widget state
    code = code_cells(nb)
    assert code, f"{name} has no code cell"
    for i, cell in enumerate(nb.cells):
        where = f"{name} cell {i}"
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{where} has outputs"
            assert cell.execution_count is None, f"{where} has an execution count"
        for label, text in (("source", cell.source), ("metadata", json.dumps(cell.metadata))):
            assert not KEY_LIKE.search(text), f"{where}: a key-like string in its {label}"
            for prefix in ABSOLUTE_PATHS:
                assert prefix not in text, f"{where}: absolute path {prefix!r} in its {label}"
    meta = json.dumps(nb.metadata)
    assert not KEY_LIKE.search(meta)
    for prefix in ABSOLUTE_PATHS:
        assert prefix not in meta, f"{name}: absolute path {prefix!r} in notebook metadata"
    raw = path.read_text(encoding="utf-8")
    assert not KEY_LIKE.search(raw)
    assert not any(prefix in raw for prefix in ABSOLUTE_PATHS)


# -- an error the user can fix is one line in a cell, not a traceback ------------------------------


def test_a_fixable_error_shows_as_one_line_in_a_notebook_cell(tmp_path, monkeypatch):
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    cells = [
        "import pandas as pd\nimport lookup_pandas as lp",
        "lp.Client(base_url='http://127.0.0.1:1')",  # no key anywhere: ConfigurationError
        "pd.DataFrame({'h': ['ada']}).lookup.enrich_profiles('handle')",  # no such column
        # the whole traceback of that one-line error is still there, as docs/notebooks.md says
        "import sys, traceback\ntraceback.print_exception(sys.last_value)",
        "raise lp.ServerError('a service fault', status_code=500)",  # not the user's to fix
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(tmp_path)}},
        **IOPUB,
    ).execute()
    errors = [[o for o in cell.outputs if o.output_type == "error"] for cell in nb.cells]
    assert errors[0] == []
    for cell_errors, ename in ((errors[1], "ConfigurationError"), (errors[2], "ColumnError")):
        (error,) = cell_errors
        assert error.ename == ename
        assert len(error.traceback) == 1 and error.traceback[0].startswith(f"{ename}: ")
    assert "pass api_key=" in errors[1][0].traceback[0]  # Python names the keyword
    printed = "".join(o.get("text", "") for o in nb.cells[3].outputs)
    assert "Traceback (most recent call last)" in printed and "ColumnError" in printed
    (service_fault,) = errors[4]
    assert len(service_fault.traceback) > 1  # a fault of the service keeps its traceback


def test_a_saved_notebook_shows_each_progress_bar_as_it_ended(emulator_runs):
    # Issue 21: an executed notebook saved the enrichment's bar as "0/136" (its text at the
    # start): the bar's output is updated when it closes, so the saved text is the end.
    bars = []
    for run in emulator_runs.values():
        for cell in code_cells(run.executed()):
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                text = data.get("text/plain", "")
                text = "".join(text) if isinstance(text, list) else text
                found = re.search(r"\|\s*(\d+)/(\d+)", text)
                if WIDGET_VIEW in data and found:
                    bars.append((text, found.group(1), found.group(2)))
    assert bars, "no progress bar among the saved outputs"
    for text, done, total in bars:
        assert done == total, text
