"""The command line's failures, end to end (in this process): one line, the exit code, no cost.

Exit codes: 2 configuration or input, 1 other service error, 3 authentication. Every bad input
ends with exactly one non-empty stderr line and no traceback; nothing is paid for before the
input, the columns and the output file are known to be usable.
"""

from __future__ import annotations

import functools
import http.server
import socket
import threading
from pathlib import Path

import pandas as pd
import pytest

import lookup_pandas as lp

from ..cli_helpers import CliMain, Done
from ..helpers import PROFILE


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def _env(**extra: str) -> dict[str, str]:
    """No LOOKUP_* setting but ``extra`` (cli_main runs with those alone)."""
    return dict(extra)


def _svc_env(svc, tmp_path: Path, **extra: str) -> dict[str, str]:
    """Settings pointing at the emulator, with a cache file of the test's own."""
    settings = {
        "LOOKUP_BASE_URL": svc.base_url,
        "LOOKUP_API_KEY": svc.api_key,
        "LOOKUP_CACHE": str(tmp_path / "cli-cache.sqlite"),
    }
    settings.update(extra)
    return _env(**settings)


def _cli(cli_main: CliMain, env: dict[str, str], *args: str) -> Done:
    return cli_main(env, *args)


def _run(cli_main: CliMain, svc, tmp_path: Path, *args: str, **env: str) -> Done:
    """A service command against the emulator, without a progress bar."""
    return _cli(cli_main, _svc_env(svc, tmp_path, **env), *args, "--no-progress")


def _fails(done: Done, code: int, *phrases: str) -> str:
    """``done`` exited ``code`` with one non-empty stderr line holding every phrase; the line."""
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].strip(), done.stderr
    for phrase in phrases:
        assert phrase in lines[0], (phrase, lines[0])
    return lines[0]


def _csv(tmp_path: Path, text: str, name: str = "leads.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _header(path: Path) -> str:
    return path.read_text(encoding="utf-8").splitlines()[0]


# -- a base URL where the service does not answer --------------------------------------------


def test_dead_base_url_names_the_url_and_the_variable(cli_main, tmp_path):
    """Finding: a refused connection reads as a wrong LOOKUP_BASE_URL, not a service outage."""
    url = f"http://127.0.0.1:{_free_port()}"
    leads = _csv(tmp_path, "name,handle\nAda,ada-lovelace\n")
    out = tmp_path / "out.csv"
    env = _env(
        LOOKUP_BASE_URL=url, LOOKUP_API_KEY="lk_test_x", LOOKUP_CACHE=str(tmp_path / "c.sqlite")
    )
    done = _cli(
        cli_main, env, "enrich", str(leads), "-c", "handle", "-o", str(out), "--no-progress"
    )
    line = _fails(done, 2, url, "LOOKUP_BASE_URL")
    assert "refused" in line.lower()
    assert not out.exists()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """A plain web server that logs nothing: its log would land on this process's stderr."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def test_plain_web_server_base_url_is_a_configuration_error(cli_main, tmp_path):
    """Finding: HTML 404s from a non-service host must not turn every lead into not_found."""
    leads = _csv(tmp_path, "name,handle\nAda,ada-lovelace\nGrace,grace-hopper\n")
    handler = functools.partial(_QuietHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        env = _env(
            LOOKUP_BASE_URL=url, LOOKUP_API_KEY="lk_test_x", LOOKUP_CACHE=str(tmp_path / "c.sqlite")
        )
        done = _cli(cli_main, env, "enrich", str(leads), "--no-progress")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
    _fails(done, 2, "does not answer like the service", "404", "LOOKUP_BASE_URL")
    assert "not_found" not in done.stdout


# -- input and output paths ------------------------------------------------------------------


def test_input_that_is_a_directory(cli_main, fake_service, tmp_path):
    """Finding: a directory as input gives a one-line reason, not a traceback."""
    _fails(
        _run(cli_main, fake_service, tmp_path, "enrich", str(tmp_path), "-c", "handle"),
        2,
        "is a directory",
    )
    assert fake_service.count() == 0


def test_output_in_a_missing_directory_or_a_directory_costs_nothing(
    cli_main, fake_service, tmp_path
):
    """Finding: an unwritable -o is refused before the first billable call."""
    leads = str(_csv(tmp_path, "name,handle\nAda,ada-lovelace\n"))
    missing = _run(
        cli_main, fake_service, tmp_path, "enrich", leads, "-o", "/nonexistent_dir_xyz/out.csv"
    )
    _fails(missing, 2, "no directory")
    assert fake_service.billed() == 0
    a_dir = tmp_path / "outdir"
    a_dir.mkdir()
    _fails(
        _run(cli_main, fake_service, tmp_path, "enrich", leads, "-o", str(a_dir)),
        2,
        "is a directory",
    )
    assert fake_service.billed() == 0


# -- column clashes and bad arguments: nothing sent ------------------------------------------


def test_column_clashes_and_an_empty_prefix_send_nothing(cli_main, fake_service, tmp_path):
    """Finding: enrichment must not overwrite input columns; the check happens before sending."""
    clash = _csv(tmp_path, "handle,profile_headline\nada-lovelace,x\n", "clash.csv")
    _fails(_run(cli_main, fake_service, tmp_path, "enrich", str(clash)), 2, "Give another --prefix")
    leads = _csv(tmp_path, "name,handle\nAda,ada-lovelace\n")
    _fails(
        _run(cli_main, fake_service, tmp_path, "enrich", str(leads), "--prefix", ""), 2, "prefix"
    )
    assert fake_service.count() == 0


def test_negative_max_records_is_refused_before_sending(cli_main, fake_service, tmp_path):
    """Finding: --max-records -5 is a usage error, not a silent empty or unbounded listing."""
    for args in (("employees", "acme"), ("search", "engineer")):
        _fails(
            _run(cli_main, fake_service, tmp_path, *args, "--max-records", "-5"), 2, "max_records"
        )
    assert fake_service.count() == 0


def test_out_of_range_limit_is_refused_before_sending(cli_main, fake_service, tmp_path):
    """Finding: --limit 500 went to the service (a ValidationError, exit 1); --help says 1-50."""
    done = _run(cli_main, fake_service, tmp_path, "employees", "acme", "--limit", "500")
    _fails(done, 2, "UsageError", "limit must be a whole number from 1 to 50")
    assert fake_service.count() == 0


# -- settings and authentication -------------------------------------------------------------


def test_missing_key_or_base_url_names_the_variable_not_the_keyword(
    cli_main, fake_service, tmp_path
):
    """Finding: the CLI reads the environment, so its message names LOOKUP_*, not api_key=."""
    leads = str(_csv(tmp_path, "name,handle\nAda,ada-lovelace\n"))
    cache = str(tmp_path / "c.sqlite")
    no_key = _cli(
        cli_main,
        _env(LOOKUP_BASE_URL=fake_service.base_url, LOOKUP_CACHE=cache),
        "enrich",
        leads,
        "--no-progress",
    )
    line = _fails(no_key, 2, "set the LOOKUP_API_KEY environment variable")
    assert "api_key=" not in line
    no_url = _cli(
        cli_main,
        _env(LOOKUP_API_KEY=fake_service.api_key, LOOKUP_CACHE=cache),
        "enrich",
        leads,
        "--no-progress",
    )
    line = _fails(no_url, 2, "LOOKUP_BASE_URL")
    assert "base_url=" not in line
    assert fake_service.count() == 0


def test_wrong_key_exits_3_without_echoing_the_key(cli_main, fake_service, tmp_path):
    """Finding: a rejected key names LOOKUP_API_KEY and never prints the secret."""
    leads = str(_csv(tmp_path, "name,handle\nAda,ada-lovelace\n"))
    done = _run(cli_main, fake_service, tmp_path, "enrich", leads, LOOKUP_API_KEY="lk_test_wrong")
    _fails(done, 3, "AuthenticationError", "LOOKUP_API_KEY")
    assert "lk_test_wrong" not in done.stderr and "lk_test_wrong" not in done.stdout
    assert fake_service.billed() == 0


def test_serve_on_a_busy_port_says_it_cannot_listen(cli_main):
    """Finding: serve --port on a taken port gives a one-line reason, not an OSError traceback."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _cli(cli_main, _env(), "serve", "--port", str(port), "--duration", "5")
    _fails(done, 2, "cannot listen", str(port))


# -- reading the input -----------------------------------------------------------------------


def test_latin1_input_needs_encoding_and_then_reads_correctly(cli_main, fake_service, tmp_path):
    """Finding: a non-UTF-8 CSV points at --encoding, and --encoding latin-1 then works."""
    leads = tmp_path / "latin.csv"
    leads.write_bytes("name,handle\nJosé,jose-tanaka-067\n".encode("latin-1"))
    _fails(_run(cli_main, fake_service, tmp_path, "enrich", str(leads)), 2, "--encoding")
    assert fake_service.billed() == 0
    out = tmp_path / "out.csv"
    done = _run(
        cli_main,
        fake_service,
        tmp_path,
        "enrich",
        str(leads),
        "--encoding",
        "latin-1",
        "-o",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    frame = pd.read_csv(out, encoding="utf-8", dtype=str, keep_default_na=False)
    assert frame["name"].tolist() == ["José"]
    assert frame["lookup_status"].tolist() == ["ok"]


SPELLINGS = (
    "handle\nHTTPS://WWW.EXAMPLE.COM/IN/JOSE-TANAKA-067/\njose-tanaka-067\n@Jose-Tanaka-067\n"
)


def test_case_and_at_sign_spellings_cost_one_call(cli_main, fake_service, tmp_path):
    """Finding: URL, lower-case and @-prefixed spellings of one handle are paid for once."""
    out = tmp_path / "out.csv"
    done = _run(
        cli_main, fake_service, tmp_path, "enrich", str(_csv(tmp_path, SPELLINGS)), "-o", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(out)["lookup_status"].tolist() == ["ok", "ok", "ok"]
    assert fake_service.billed(PROFILE) == 1


def test_keep_case_sends_each_distinct_spelling(cli_main, fake_service, tmp_path):
    """Finding: --keep-case sends handles as written (@ still stripped): 3 distinct spellings.

    The lower-case one is the record's own handle: answered first by a spelling's record, it is
    read through that record's alias, not bought again (one person, one price).
    """
    done = _run(
        cli_main, fake_service, tmp_path, "enrich", str(_csv(tmp_path, SPELLINGS)), "--keep-case"
    )
    assert done.returncode == 0, done.stderr
    for handle in ("JOSE-TANAKA-067", "Jose-Tanaka-067"):  # as written: no record names them
        assert fake_service.billed(PROFILE, handle=handle) == 1, handle
    assert fake_service.billed(PROFILE, handle="jose-tanaka-067") in (0, 1)
    assert fake_service.billed(PROFILE) == 2 + fake_service.billed(
        PROFILE, handle="jose-tanaka-067"
    )


def test_missing_value_strings_agree_with_pandas(cli_main, fake_service, tmp_path):
    """Finding: N/A, NA, null and blanks are invalid handles in the CLI as after pd.read_csv."""
    leads = _csv(tmp_path, "name,handle\na,ada-lovelace\nb,N/A\nc,NA\nd,null\ne,\nf,grace-hopper\n")
    expected = ["ok", "invalid", "invalid", "invalid", "invalid", "ok"]
    out = tmp_path / "out.csv"
    done = _run(cli_main, fake_service, tmp_path, "enrich", str(leads), "-o", str(out))
    assert done.returncode == 0, done.stderr
    cli = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert cli["lookup_status"].tolist() == expected
    assert cli["handle"].tolist() == ["ada-lovelace", "N/A", "NA", "null", "", "grace-hopper"]
    assert fake_service.billed(PROFILE) == 2
    client = lp.Client(
        api_key=fake_service.api_key,
        base_url=fake_service.base_url,
        cache=tmp_path / "other.sqlite",
    )
    try:
        frame = pd.read_csv(leads).lookup.enrich_profiles("handle", client=client, progress=False)
    finally:
        client.close()
    assert frame["lookup_status"].tolist() == cli["lookup_status"].tolist() == expected
    assert fake_service.billed(PROFILE) == 4


def test_header_only_csv_has_the_same_columns_as_other_runs(cli_main, fake_service, tmp_path):
    """Finding: an empty input still yields the full output header, like not-found/invalid runs."""
    headers = []
    for name, text in (
        ("empty", "name,handle\n"),
        ("ghost", "name,handle\nG,unknown-x\n"),
        ("blank", "name,handle\nB,\n"),
    ):
        out = tmp_path / f"{name}-out.csv"
        done = _run(
            cli_main,
            fake_service,
            tmp_path,
            "enrich",
            str(_csv(tmp_path, text, f"{name}.csv")),
            "-o",
            str(out),
        )
        assert done.returncode == 0, (name, done.stderr)
        headers.append(_header(out))
    assert headers[0] == headers[1] == headers[2]
    assert headers[0].startswith("name,handle,") and "lookup_status" in headers[0]


# -- the summary and the help ----------------------------------------------------------------


def test_summary_line_counts_fetches_then_cache_hits(cli_main, fake_service, tmp_path):
    """Finding: the summary line says what was fetched, retried and paid, then what was cached."""
    leads = str(_csv(tmp_path, "name,handle\na,ada-lovelace\nb,grace-hopper\nc,jose-tanaka-067\n"))
    first = _run(cli_main, fake_service, tmp_path, "enrich", leads, "-o", str(tmp_path / "out.csv"))
    estimate, line = _succeeds(first)
    assert estimate.startswith("lookup-pandas: 3 rows, 3 distinct handles, 0 cached: 3 to fetch")
    for phrase in ("3 fetched", "answered 429", "retries", "credits"):
        assert phrase in line, (phrase, line)
    assert line.startswith("enriched 3 rows (")
    again = _run(cli_main, fake_service, tmp_path, "enrich", leads, "-o", str(tmp_path / "out.csv"))
    estimate, line = _succeeds(again)
    assert estimate.endswith("3 cached: nothing to fetch")
    for phrase in ("3 cached", "0 fetched", "0 requests sent"):
        assert phrase in line, (phrase, line)
    assert line.startswith("enriched 3 rows (")


def _succeeds(done: Done) -> tuple[str, str]:
    """``done`` exited 0 with two stderr lines: the estimate before the job, the summary after."""
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2, done.stderr
    return lines[0], lines[1]


def test_help_of_service_commands_lists_the_environment(cli_main):
    """Finding: --help tells where the key, base URL and cache come from, and enrich's options."""
    for command in ("enrich", "employees", "search", "tier"):
        done = _cli(cli_main, _env(), command, "--help")
        assert done.returncode == 0, done.stderr
        for variable in ("LOOKUP_API_KEY", "LOOKUP_BASE_URL", "LOOKUP_CACHE"):
            assert variable in done.stdout, (command, variable)
        if command == "enrich":
            assert "--encoding" in done.stdout and "--keep-case" in done.stdout


def test_a_filter_cannot_set_the_commands_own_keywords(cli_main, fake_service, tmp_path):
    """--filter client=x would have reached the API function as its client= argument."""
    for key in ("client", "max_records", "limit"):
        _fails(
            _run(cli_main, fake_service, tmp_path, "search", "engineer", "--filter", f"{key}=x"),
            2,
            "is not a filter",
        )
    assert fake_service.count() == 0


def test_a_balance_that_cannot_pay_gives_the_command_lines_advice_not_pythons(
    cli_main, fake_service, tmp_path
):
    # Issue 39: it said "e.g. df.head(100)" and "max_credits=" to a person at a shell
    fake_service.configure(balance=20)
    leads = _csv(tmp_path, "handle\n" + "".join(f"broke-{i:03d}\n" for i in range(50)))
    line = _fails(
        _run(cli_main, fake_service, tmp_path, "enrich", str(leads)),
        4,
        "needs 50 credits",
        "balance is 20",
        "the file's first 20 rows (head -n 21 keeps the header",
        "--max-credits 20",
    )
    assert "df.head" not in line and "max_credits=" not in line
    assert fake_service.billed() == 0
