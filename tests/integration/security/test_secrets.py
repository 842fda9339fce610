"""The API key never lands in the cache file, a log line, a repr or an exception message.

A recognisable key is used so that a leak anywhere is a plain byte search away.
"""

from __future__ import annotations

import logging
import pickle
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from lookup_pandas import (
    AuthenticationError,
    RateLimitError,
    ResponseError,
    ServerError,
    ServiceError,
    TransportError,
    ValidationError,
)
from lookup_pandas.testing import FakeService

from ..helpers import (
    DROP,
    EMPLOYEES,
    PROFILE,
    SEARCH,
    TIER,
    make_client,
    rate_limited,
    server_error,
)

ROOT = Path(__file__).resolve().parents[3]
KEY = "lk_test_SECRETSECRET123"
KEY_BYTES = KEY.encode()
HANDLE = "ada-lovelace-secret-test"
LOGGERS = ("", "urllib3", "requests", "requests_cache", "lookup_pandas")


@pytest.fixture
def secret_service() -> Iterator[FakeService]:
    with FakeService(api_key=KEY) as svc:
        yield svc


def cache_bytes(cache_path: Path) -> bytes:
    """Every file of the SQLite cache (the database, -wal, -shm), concatenated."""
    files = sorted(p for p in cache_path.parent.iterdir() if p.name.startswith(cache_path.name))
    assert files, "no cache file was written"
    return b"".join(p.read_bytes() for p in files)


def assert_no_key(text: str | bytes, where: str) -> None:
    for key in (KEY, EVERYWHERE_KEY):
        if isinstance(text, bytes):
            assert key.encode() not in text, f"the API key leaked into {where}"
            assert key.encode("utf-16-le") not in text, f"the API key leaked into {where} (UTF-16)"
        else:
            assert key not in text, f"the API key leaked into {where}"


def exercise(client, svc: FakeService) -> list[ServiceError]:
    """Successful calls on every surface, then every kind of failure; returns the failures."""
    assert client.profile(HANDLE)["handle"] == HANDLE
    assert client.profile("unknown-secret") is None
    assert (
        len(list(client.paginate(EMPLOYEES, {"slug": "acme", "limit": 50}, progress=False))) == 137
    )
    assert (
        len(
            list(
                client.paginate(
                    SEARCH, {"title": "engineer", "limit": 50}, max_records=120, progress=False
                )
            )
        )
        == 120
    )
    assert client.credits_tier()["balance"] > 0
    assert client.get(TIER)["success"] is True
    client.profile(HANDLE)  # a cache hit

    failures: list[ServiceError] = []

    def expect(exc_type, fn):
        with pytest.raises(exc_type) as info:
            fn()
        failures.append(info.value)

    expect(ValidationError, lambda: client.get(EMPLOYEES, {"slug": "acme", "limit": 0}))
    expect(ValidationError, lambda: client.get(SEARCH, {"title": "x", "cursor": "bogus"}))

    svc.override(PROFILE, lambda req: server_error())
    expect(ServerError, lambda: client.profile("grace"))
    svc.override(PROFILE, lambda req: (502, "<html>Bad Gateway</html>"))
    expect(ServerError, lambda: client.profile("grace"))
    svc.override(PROFILE, lambda req: (200, "<html>not json</html>"))
    expect(ResponseError, lambda: client.profile("grace"))
    svc.override(PROFILE, lambda req: rate_limited(0))
    expect(RateLimitError, lambda: client.profile("grace"))
    svc.override(PROFILE, lambda req: DROP)
    expect(TransportError, lambda: client.profile("grace"))
    svc.override(PROFILE, None)

    svc.rotate_key()  # the client's key is now refused: 403
    expect(AuthenticationError, lambda: client.profile("linus"))
    return failures


def test_key_is_absent_from_cache_logs_reprs_and_exceptions(secret_service, tmp_path, caplog):
    cache_path = tmp_path / "secret-cache.sqlite"
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name or None)

    client = make_client(secret_service, api_key=KEY, cache=cache_path, max_retries=1)
    try:
        failures = exercise(client, secret_service)

        # The cache, while the client is open (WAL not yet checkpointed) ...
        stored = cache_bytes(cache_path)
        assert HANDLE.encode() in stored, "the cache holds no response: this test proves nothing"
        assert_no_key(stored, "the cache file")

        # ... the reprs ...
        for obj in (client, client.settings, client.stats, client.session.headers):
            assert_no_key(repr(obj), f"repr({type(obj).__name__})")
            assert_no_key(str(obj), f"str({type(obj).__name__})")
    finally:
        client.close()

    # ... and the cache again once closed (the WAL may have been folded into the database).
    stored = cache_bytes(cache_path)
    assert HANDLE.encode() in stored
    assert_no_key(stored, "the cache file after close")

    # The log: every record of every logger, at DEBUG, with its traceback if any.
    assert any(PROFILE in r.getMessage() for r in caplog.records), "nothing was logged"
    assert any(r.name.startswith("urllib3") for r in caplog.records)
    for record in caplog.records:
        assert_no_key(record.getMessage(), f"the log line of {record.name}")
    assert_no_key(caplog.text, "the formatted log")

    # The exceptions: message, str, repr, the printed traceback, the pickle.
    assert len(failures) == 8
    kinds = {type(e) for e in failures}
    assert {
        ValidationError,
        ServerError,
        ResponseError,
        RateLimitError,
        TransportError,
        AuthenticationError,
    } <= kinds
    for exc in failures:
        where = type(exc).__name__
        assert_no_key(str(exc), f"str({where})")
        assert_no_key(repr(exc), f"repr({where})")
        assert_no_key(exc.message, f"{where}.message")
        assert_no_key(repr(vars(exc)), f"vars({where})")
        assert_no_key("".join(traceback.format_exception(exc)), f"the traceback of {where}")
        assert_no_key(pickle.dumps(exc), f"pickle of {where}")
        # No requests exception in the chain: its .request carries the key header, and tblib's
        # pickling (which Dask's distributed installs) pickles __context__ even under `from None`.
        chained, seen = exc.__context__ or exc.__cause__, 0
        while chained is not None and seen < 20:
            assert not isinstance(chained, requests.RequestException), f"{where} chains {chained!r}"
            chained, seen = chained.__context__ or chained.__cause__, seen + 1
    assert failures[-1].status_code == 403


def test_panel_key_header_is_redacted_too(secret_service, tmp_path):
    """Even if a panel answer were stored, its request's X-AUTHAPI-Key would not be."""
    cache_path = tmp_path / "panel.sqlite"
    with make_client(secret_service, api_key=KEY, cache=cache_path) as client:
        client.profile(HANDLE)
        for _ in range(3):
            client.credits_tier()
        stored = cache_bytes(cache_path)
    assert HANDLE.encode() in stored
    assert_no_key(stored, "the cache file")
    assert_no_key(cache_bytes(cache_path), "the cache file after close")


# -- one test, every public entry point, every artefact ----------------------------------------

EVERYWHERE_KEY = "lk_test_EVERYWHERE_7f3a9c1d"


def _widget_states(widget) -> list[str]:
    import json

    out = [json.dumps(widget.get_state(), default=str)]
    for child in getattr(widget, "children", ()):
        out.extend(_widget_states(child))
    return out


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(300)
def test_the_key_is_in_no_artefact_of_any_entry_point(
    tmp_path, caplog, monkeypatch, isolated_default_client
):
    import json
    import os
    import subprocess
    import sys

    import nbformat
    from nbclient import NotebookClient

    import lookup_pandas as lp
    from lookup_pandas.demo import sample_leads, sample_leads_path
    from lookup_pandas.frames.records import to_csv_cells

    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name or None)
    texts: dict[str, str] = {}
    failures: list[BaseException] = []
    work = tmp_path / "work"
    work.mkdir()

    with FakeService(api_key=EVERYWHERE_KEY) as svc:
        cache = tmp_path / "cache" / "lookup.sqlite"
        monkeypatch.setenv("LOOKUP_BASE_URL", svc.base_url)
        monkeypatch.setenv("LOOKUP_API_KEY", EVERYWHERE_KEY)
        monkeypatch.setenv("LOOKUP_CACHE", str(cache))
        client = lp.default_client()

        # The DataFrame functions and the accessor.
        leads = sample_leads().head(60)
        estimate = leads.lookup.estimate_profiles("handle")
        enriched = leads.lookup.enrich_profiles("handle", progress=True)
        to_csv_cells(enriched).to_csv(work / "enriched.csv", index=False)
        frames = {
            "get_profiles": lp.get_profiles(["ada-lovelace", "unknown-x", ""]),
            "company_employees": lp.company_employees("acme", max_records=60),
            "search_people": lp.search_people("engineer", max_records=60),
            "credits_tier": lp.credits_tier(),
        }
        for name, frame in frames.items():
            texts[name] = frame.to_csv() + repr(frame)
        texts["estimate"] = repr(estimate)

        # The panel: a search, the next page, a profile.
        panel = lp.SearchPanel()
        panel.title.value = "data scientist"
        panel.search_button.click()
        panel.more_button.click()
        panel.person.value = panel.results["handle"].iloc[2]
        assert "loaded 100" in panel.summary.value and panel.profile_view.value

        # The command line, in subprocesses with the key in their environment.
        env = {k: v for k, v in os.environ.items()}
        cli = [sys.executable, "-m", "lookup_pandas"]
        runs = [
            [*cli, "enrich", str(sample_leads_path()), "-o", str(work / "cli.csv")],
            [*cli, "employees", "acme", "--max-records", "30"],
            [*cli, "search", "engineer", "--max-records", "30"],
            [*cli, "tier"],
            [*cli, "enrich", str(sample_leads_path()), "--refresh", "--max-calls", "1"],
        ]
        for i, cmd in enumerate(runs):
            done = subprocess.run(
                [*cmd, "--no-progress"],
                capture_output=True,
                text=True,
                timeout=120,
                env=env,
                cwd=work,
            )
            texts[f"cli {cmd[3]} #{i}"] = done.stdout + done.stderr
        assert "BudgetExceededError" in texts["cli enrich #4"]

        # The notebooks, executed against this emulator (the kernel inherits the variables).
        for name in ("02_enrich_leads.ipynb", "03_search_panel.ipynb"):
            nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
            NotebookClient(
                nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(work)}}
            ).execute()
            nbformat.write(nb, work / f"executed-{name}")

        # Failures: a dead server, a rotated key (in the panel too), a bad parameter.
        dead = lp.Client(
            api_key=EVERYWHERE_KEY,
            base_url=f"http://127.0.0.1:{_free_port()}",
            cache=False,
            max_retries=1,
            backoff_base=0.01,
            timeout=1,
            rate_limit_per_minute=6000,
        )
        for call in (
            lambda: dead.profile("ada"),
            lambda: client.get("/api/data/v1/companies/employees", {"slug": "acme", "limit": 0}),
        ):
            try:
                call()
            except lp.ServiceError as exc:
                failures.append(exc)
        svc.rotate_key()
        for call in (
            lambda: client.profile("someone-new"),
            lambda: lp.get_profiles(["someone-else"], errors="raise"),
            lambda: leads.assign(
                handle="new-" + leads["handle"].fillna("x")
            ).lookup.enrich_profiles("handle"),
        ):
            try:
                call()
            except lp.ServiceError as exc:
                failures.append(exc)
        panel.title.value = "product manager"
        panel.search_button.click()
        assert "AuthenticationError" in panel.message.value
        texts["widget state"] = "\n".join(_widget_states(panel))
        texts["reprs"] = "\n".join(
            repr(x) for x in (client, client.settings, client.stats, dead, panel, svc)
        )

    kinds = {type(e).__name__ for e in failures}
    # the dead server fails at first contact: a ConfigurationError whose cause (in the
    # formatted traceback below) is the TransportError
    assert {"ConfigurationError", "ValidationError", "AuthenticationError"} <= kinds, kinds
    assert any(isinstance(e.__cause__, lp.TransportError) for e in failures)
    for exc in failures:
        texts[f"exception {type(exc).__name__}"] = (
            str(exc)
            + repr(exc)
            + "".join(traceback.format_exception(exc))
            + repr(vars(exc))
            + repr(pickle.loads(pickle.dumps(exc)).__dict__)
        )
    texts["logs"] = caplog.text

    # Every file any of it wrote: the cache (database, -wal, -shm), CSVs, executed notebooks.
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {
        "lookup.sqlite",
        "enriched.csv",
        "cli.csv",
        "enriched_leads.csv",
        "executed-02_enrich_leads.ipynb",
        "executed-03_search_panel.ipynb",
    } <= names, names
    stored = b"".join(p.read_bytes() for p in files if p.name.startswith("lookup.sqlite"))
    assert b"ada-lovelace" in stored, "nothing was cached: this test would prove nothing"
    assert json.loads((work / "executed-03_search_panel.ipynb").read_text())["metadata"].get(
        "widgets"
    ), "the executed panel notebook saved no widget state to search"
    for path in files:
        assert_no_key(path.read_bytes(), str(path.relative_to(tmp_path)))
    for where, text in texts.items():
        assert text, f"{where} produced nothing: this test would prove nothing"
        assert_no_key(text, where)
