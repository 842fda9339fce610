"""``lookup-pandas enrich --chunksize N``: end to end against the emulator (in this process;
SIGINT and a closed stdout in a real one).

What is tested: the output in chunks of 7 rows (duplicates spread over chunks, invalid values,
handles that are not found, text that needs quoting) is byte for byte the output without
chunks, by batch jobs, by single calls and with sparse records, to a file and to stdout; each
distinct handle is billed once over all chunks; the estimate and the summary describe the
whole file; ``--max-calls`` refuses the whole file's need before anything is sent; SIGINT
mid-fetch leaves neither the output nor a part file, and the re-run pays for nothing twice;
a file of more rows than a chunk is chunked unasked, however few its bytes (``--chunksize 0``:
never); a bad byte or a malformed line late in the file is the same one line as without
chunks, before anything is sent; a header-only file; stdin and a pipe are refused; a reader of
stdout that stops early (``| head``) ends the run quietly.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from lookup_pandas.csv_chunks.scan import AUTO_CHUNK_ROWS, CHUNK_ROWS
from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.testing import BATCH, PROFILE, FakeService

from ..cli_helpers import CliMain, Done
from ..enrich_helpers import expected_status, spellings

pytestmark = pytest.mark.timeout(180)

CLI = [sys.executable, "-m", "lookup_pandas"]
CHUNKS = re.compile(r"; in (\d+) chunks? of (\d+) rows?( -> .*)?$")


def _env(svc: FakeService, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    env.update(LOOKUP_BASE_URL=svc.base_url, LOOKUP_API_KEY=svc.api_key, LOOKUP_CACHE=str(cache))
    return env


@pytest.fixture
def cli_main(capsys) -> CliMain:
    """``lookup-pandas`` run in this process (see cli_helpers)."""
    return CliMain(capsys)


def _run(cli_main: CliMain, svc: FakeService, cache: Path, *args: str) -> Done:
    env = {
        "LOOKUP_BASE_URL": svc.base_url,
        "LOOKUP_API_KEY": svc.api_key,
        "LOOKUP_CACHE": str(cache),
    }
    return cli_main(env, "enrich", *args, "--no-progress")


def _lines(done: Done) -> list[str]:
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()


def _distinct(tag: str, n: int, unknown: int) -> list[str]:
    return [f"{tag}{i:03d}" for i in range(n)] + [f"unknown-{tag}{i}" for i in range(unknown)]


INVALID = ["", "N/A", "NA", "  ", "@", "www.example.com/about", "a b", "null"]


def _leads(tmp_path: Path, tag: str, rows: int = 300, n: int = 40, unknown: int = 5) -> Path:
    """A lead list of ``rows`` rows over ``n + unknown`` handles, spelled in many ways, with
    duplicates spread over the whole file, invalid values and cells that need quoting."""
    rng = random.Random(tag)
    handles = _distinct(tag, n, unknown)
    values = [rng.choice(spellings(rng.choice(handles))) for _ in range(rows)]
    for i in range(0, rows, 11):
        values[i] = rng.choice(INVALID)
    values[: len(handles)] = handles  # every handle at least once
    path = tmp_path / f"{tag}.csv"
    pd.DataFrame(
        {
            "name": [f"Lead {i}" for i in range(rows)],
            "handle": values,
            "note": [
                rng.choice(["", "a,b", 'say "hi"', "two\nlines", "NA", "1.50"]) for _ in values
            ],
        }
    ).to_csv(path, index=False)
    return path


def _billed_once(svc: FakeService, leads: Path) -> None:
    """Every distinct handle of the file was paid for exactly once."""
    values = pd.read_csv(leads, dtype=str, keep_default_na=False)["handle"].tolist()
    distinct = {h for v in values if (h := normalise_handle(v)) is not None}
    assert svc.billed_handles() == {h: 1 for h in distinct}


@pytest.mark.parametrize("mode", ["batch", "single", "sparse"])
def test_chunks_of_7_rows_write_the_bytes_of_the_whole_file_and_pay_once(
    cli_main, fake_service, tmp_path, mode
):
    if mode == "sparse":
        fake_service.configure(sparse_records=True)
    method = ["--method", "single"] if mode == "single" else []
    leads = _leads(tmp_path, f"ch{mode[:2]}")
    chunked, whole = tmp_path / "chunked.csv", tmp_path / "whole.csv"
    cache = tmp_path / "c.sqlite"

    estimate, summary = _lines(
        _run(
            cli_main,
            fake_service,
            cache,
            str(leads),
            "--chunksize",
            "7",
            "-o",
            str(chunked),
            *method,
        )
    )
    # the whole file's estimate and summary: 300 rows, 45 distinct handles, 43 chunks
    assert estimate.startswith("lookup-pandas: 300 rows, 45 distinct handles, 0 cached: 45 to")
    assert ("by batch (1 job," in estimate) == (mode != "single")
    assert summary.startswith("enriched 300 rows (")
    assert CHUNKS.search(summary).groups()[:2] == ("43", "7")
    assert summary.endswith(f"-> {chunked}")
    _billed_once(fake_service, leads)
    if mode == "single":
        assert fake_service.count(BATCH) == 0 and fake_service.count(PROFILE) == 45
    else:
        assert fake_service.count(BATCH, method="POST") == 1 and fake_service.count(PROFILE) == 0

    sent = fake_service.count()
    again = _lines(_run(cli_main, fake_service, cache, str(leads), "-o", str(whole), *method))
    assert fake_service.count() == sent  # all cached
    assert not CHUNKS.search(again[1])  # not chunked: a small file
    assert summary.split(" in ")[0] == again[1].split(" in ")[0]  # the same row statuses
    assert chunked.read_bytes() == whole.read_bytes()

    frame = pd.read_csv(chunked, dtype=str, keep_default_na=False)
    original = pd.read_csv(leads, dtype=str, keep_default_na=False)
    assert frame[original.columns].equals(original)  # input cells untouched
    assert frame["lookup_status"].tolist() == [expected_status(v) for v in original["handle"]]
    assert {"ok", "not_found", "invalid"} == set(frame["lookup_status"])

    to_stdout = _run(cli_main, fake_service, cache, str(leads), "--chunksize", "7", *method)
    assert _lines(to_stdout)[1].endswith("of 7 rows")
    assert to_stdout.stdout.encode() == whole.read_bytes()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_max_calls_counts_the_whole_file_and_refuses_before_anything_is_sent(
    cli_main, fake_service, tmp_path
):
    leads = _leads(tmp_path, "chmax", rows=120, n=30, unknown=2)
    out = tmp_path / "out.csv"
    cache = tmp_path / "c.sqlite"
    # 32 distinct handles over the file, never more than 7 in one chunk
    refused = _run(
        cli_main,
        fake_service,
        cache,
        str(leads),
        "--chunksize",
        "7",
        "--max-calls",
        "31",
        "-o",
        str(out),
    )
    assert refused.returncode == 4, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith("lookup-pandas: BudgetExceededError: This enrichment needs 32 ")
    assert "(0 of 32 distinct handles are cached)" in line and "max_calls=31" in line
    assert fake_service.count() == 0  # not even the tier
    assert [p.name for p in tmp_path.iterdir() if "out.csv" in p.name] == []  # nor a part

    done = _run(
        cli_main,
        fake_service,
        cache,
        str(leads),
        "--chunksize",
        "7",
        "--max-calls",
        "32",
        "-o",
        str(out),
    )
    assert _lines(done)[1].startswith("enriched 120 rows")
    _billed_once(fake_service, leads)


def test_sigint_mid_fetch_leaves_no_file_and_the_rerun_pays_for_nothing_twice(
    cli_main, fake_service, tmp_path
):
    # 60 handles by single calls at 300/min with 20 ms latency: about 12 s, stopped after 8
    fake_service.configure(rate_limit_per_minute=300, latency=0.02)
    leads = _leads(tmp_path, "chint", rows=200, n=57, unknown=3)
    out = tmp_path / "out.csv"
    cache = tmp_path / "c.sqlite"
    args = [*CLI, "enrich", str(leads), "--chunksize", "7", "--method", "single"]
    proc = subprocess.Popen(
        [*args, "-o", str(out), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(fake_service, cache),
    )
    try:
        deadline = time.monotonic() + 60
        while fake_service.billed(PROFILE) < 8 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert fake_service.billed(PROFILE) >= 8, proc.poll()
        assert proc.poll() is None  # still fetching
        (part,) = tmp_path.glob(".out.csv.*.part")  # made before the fetch, empty so far
        assert part.stat().st_size == 0
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == (
        "lookup-pandas: interrupted; what was fetched is in the cache"
    )
    assert "Traceback" not in err
    assert not out.exists() and not part.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if "out.csv" in p.name) == []
    paid = fake_service.billed(PROFILE)
    assert 8 <= paid < 60

    fake_service.configure(rate_limit_per_minute=6000, latency=0.0)
    estimate, summary = _lines(_run(cli_main, fake_service, cache, *args[4:], "-o", str(out)))
    assert f"60 distinct handles, {paid} cached: {60 - paid} to fetch" in estimate
    assert f"{paid} cached, {60 - paid} fetched" in summary
    _billed_once(fake_service, leads)
    whole = tmp_path / "whole.csv"
    _lines(_run(cli_main, fake_service, cache, str(leads), "-o", str(whole)))
    assert out.read_bytes() == whole.read_bytes()
    _billed_once(fake_service, leads)


def test_a_file_of_more_rows_than_a_chunk_is_chunked_unasked_and_0_means_never(
    cli_main, fake_service, tmp_path
):
    rows = AUTO_CHUNK_ROWS + 10  # more rows than one chunk: however few bytes they are
    handles = _distinct("chauto", 15, 3)
    leads = tmp_path / "big.csv"
    values = [handles[i % len(handles)] if i % 50 else "" for i in range(rows)]
    pd.DataFrame({"id": range(rows), "handle": values}).to_csv(leads, index=False)
    cache = tmp_path / "c.sqlite"
    above, never, threshold = (tmp_path / f"{n}.csv" for n in ("above", "never", "threshold"))

    # (a file of fewer rows is not chunked: see the first test)
    chunked = _lines(_run(cli_main, fake_service, cache, str(leads), "-o", str(above)))
    assert CHUNKS.search(chunked[1]).groups()[:2] == (str(-(-rows // CHUNK_ROWS)), str(CHUNK_ROWS))
    assert chunked[1].startswith(f"enriched {rows} rows (")
    whole = _lines(
        _run(
            cli_main,
            fake_service,
            cache,
            str(leads),
            *("--chunk-threshold", "1", "--chunksize", "0", "-o", str(never)),
        )
    )
    assert not CHUNKS.search(whole[1])
    assert above.read_bytes() == never.read_bytes()
    assert fake_service.billed_handles() == {h: 1 for h in handles}
    # the threshold counts rows: one row fewer than the file holds chunks it
    small = tmp_path / "small.csv"
    pd.read_csv(leads, dtype=str, keep_default_na=False).head(20).to_csv(small, index=False)
    at = _run(cli_main, fake_service, cache, str(small), "--chunk-threshold", "20")
    assert not CHUNKS.search(_lines(at)[1])
    over = _lines(
        _run(
            cli_main,
            fake_service,
            cache,
            str(small),
            "--chunk-threshold",
            "19",
            "-o",
            str(threshold),
        )
    )
    assert CHUNKS.search(over[1]).groups()[1] == str(CHUNK_ROWS)
    assert threshold.read_bytes().decode() == at.stdout


def _bad_late(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.csv"
    lines = [b"name,handle\n"] + [b"n%d,ada-lovelace\n" % i for i in range(60)]
    lines.insert(50, b"caf\xe9,grace-hopper\n" if kind == "encoding" else b"a,b,c,d\n")
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize("kind", ["encoding", "parser"])
def test_a_bad_line_late_in_the_file_is_the_same_one_line_before_anything_is_sent(
    cli_main, fake_service, tmp_path, kind
):
    leads = _bad_late(tmp_path, kind)
    out = tmp_path / "out.csv"
    cache = tmp_path / "c.sqlite"
    chunked = _run(cli_main, fake_service, cache, str(leads), "--chunksize", "7", "-o", str(out))
    whole = _run(cli_main, fake_service, cache, str(leads), "-o", str(out))
    for done in (chunked, whole):
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
    assert chunked.stderr == whole.stderr
    (line,) = chunked.stderr.strip().splitlines()
    assert line.startswith(f"lookup-pandas: error: cannot read {leads} as ")
    assert ("--encoding" in line) == (kind == "encoding")
    assert fake_service.count() == 0
    assert [p.name for p in tmp_path.iterdir() if "out.csv" in p.name] == []  # nor a part


def test_header_only_and_all_invalid_files_in_chunks(cli_main, fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    for name, text in (("empty", "name,handle\n"), ("blank", "name,handle\nA,\nB,N/A\nC,@\n")):
        leads = tmp_path / f"{name}.csv"
        leads.write_text(text)
        chunked, whole = tmp_path / f"{name}-chunked.csv", tmp_path / f"{name}-whole.csv"
        lines = _lines(
            _run(cli_main, fake_service, cache, str(leads), "--chunksize", "2", "-o", str(chunked))
        )
        assert lines[0].endswith(": nothing to fetch")
        _lines(_run(cli_main, fake_service, cache, str(leads), "-o", str(whole)))
        assert chunked.read_bytes() == whole.read_bytes(), name
    assert fake_service.billed() == 0


def test_stdin_and_pipes_cannot_be_read_in_chunks(cli_main, fake_service, tmp_path):
    cache = tmp_path / "c.sqlite"
    stdin = _run(cli_main, fake_service, cache, "-", "--chunksize", "5")
    assert stdin.returncode == 2, stdin.stderr  # "-" is standard input: read whole, not twice
    assert "cannot read - in chunks" in stdin.stderr and "--chunksize 0" in stdin.stderr
    fifo = tmp_path / "leads.fifo"
    os.mkfifo(fifo)
    piped = _run(cli_main, fake_service, cache, str(fifo), "--chunksize", "5")
    assert piped.returncode == 2, piped.stderr
    assert "not a regular file" in piped.stderr and "--chunksize 0" in piped.stderr
    assert fake_service.count() == 0


def test_a_reader_of_stdout_that_stops_early_ends_it_quietly(fake_service, tmp_path):
    leads = _leads(tmp_path, "chpipe", rows=400)  # far more than a pipe's buffer of output
    proc = subprocess.Popen(
        [*CLI, "enrich", str(leads), "--chunksize", "7", "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(fake_service, tmp_path / "c.sqlite"),
    )
    try:
        assert proc.stdout.readline().startswith(b"name,handle,note,profile_id,")
        proc.stdout.close()  # as `| head -1` does
        err = proc.stderr.read().decode()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        proc.stderr.close()
    assert proc.returncode == 141, err
    assert "Traceback" not in err and "Exception ignored" not in err
