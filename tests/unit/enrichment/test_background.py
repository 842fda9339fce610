"""Unit tests for lookup_pandas.enrichment.background: an EnrichmentJob's life (running, done,
failed, cancelled) and its line, with a stand-in for the engine (the loopback runs are in
tests/integration/enrichment/test_background.py)."""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError
from types import SimpleNamespace

import pandas as pd
import pytest

from lookup_pandas.display.job_view import display_job, job_line
from lookup_pandas.enrichment.background import EnrichmentJob, Watch
from lookup_pandas.enrichment.results import JobSummary
from lookup_pandas.errors import AuthenticationError
from lookup_pandas.http.stats import ClientStats
from lookup_pandas.store.pacing import check_cancel

SUMMARY = JobSummary(
    rows=3,
    statuses={"ok": 2, "not_found": 1, "invalid": 0, "error": 0},
    cached=0,
    fetched=3,
    failed=0,
    credits=3.0,
    requests=3,
    rate_limited=0,
    retries=0,
    seconds=0.5,
)
FRAME = pd.DataFrame({"handle": ["a", "b", "c"], "lookup_status": ["ok", "ok", "not_found"]})


class Client:
    """What a job reads of its Client: the 429s it met."""

    def __init__(self) -> None:
        self.stats = SimpleNamespace(rate_limited=4)


def stepped(gate: threading.Event, started: threading.Event):
    """A run of 3 values that stops half-way until ``gate`` opens, obeying the job's cancel."""

    def work(watch: Watch):
        bar = watch.progress(None, total=3, desc="profiles", unit=" handle")
        bar.update(1, fetched=1, credits="1")
        started.set()
        while not gate.wait(0.01):
            check_cancel(watch.cancel, "cancelled: what was fetched is cached")
        bar.update(2, fetched=3, credits="3")
        return FRAME, SUMMARY

    return work


def test_a_job_runs_in_the_background_and_gives_its_frame_and_summary():
    gate, started = threading.Event(), threading.Event()
    job = EnrichmentJob(stepped(gate, started), Client())
    assert started.wait(10)
    assert not job.done() and job.running() and job.summary is None
    line = job.line()
    assert line.startswith("running: 1/3 profiles; fetched=1, credits=1; 0 answered 429")
    assert repr(job) == f"<EnrichmentJob {line}>"
    with pytest.raises(TimeoutError):
        job.result(timeout=0.05)
    job.watch.traffic = ClientStats(rate_limited=2)  # the run's own counters, once it runs
    assert "; 2 answered 429" in job.line()  # its own 429s, not the Client's (4 before it)
    gate.set()
    pd.testing.assert_frame_equal(job.result(timeout=10), FRAME)
    assert job.done() and job.status() == "done" and job.exception() is None
    assert job.summary is SUMMARY
    assert job.line() == f"done: {SUMMARY}"
    assert job.cancel() is False  # done already


def test_cancel_stops_the_run_and_result_raises_cancelled():
    gate, started = threading.Event(), threading.Event()
    job = EnrichmentJob(stepped(gate, started), Client())
    assert started.wait(10)
    assert job.cancel() is True
    assert job.wait(10)
    assert job.cancelled() and job.status() == "cancelled"
    with pytest.raises(CancelledError, match="what was fetched is cached"):
        job.result()
    assert job.summary is None and job.watch.done == 1  # it stopped half-way
    assert job.line().startswith("cancelled: ")


def test_an_error_in_the_job_is_raised_by_result_never_lost():
    def work(watch: Watch):
        raise AuthenticationError("Invalid API key", status_code=403)

    job = EnrichmentJob(work, Client())
    assert job.wait(10)
    assert job.status() == "failed" and isinstance(job.exception(), AuthenticationError)
    with pytest.raises(AuthenticationError, match="Invalid API key"):
        job.result()
    assert job_line(job) == "failed: Invalid API key (HTTP 403)"


def test_outside_a_kernel_the_job_shows_as_its_line(capsys):
    gate, started = threading.Event(), threading.Event()
    gate.set()
    job = EnrichmentJob(stepped(gate, started), Client())
    job.result(timeout=10)
    assert display_job(job) is None  # no kernel here: no widget
    assert capsys.readouterr().out.strip() == repr(job)


def test_time_left_follows_the_pace_since_the_first_progress():
    watch = Watch(total=10)
    bar = watch.progress(None, total=10, desc="profiles")
    assert watch.seconds_left() is None  # nothing done yet
    bar.update(2)  # the first progress: the pace is measured from here
    assert watch.seconds_left() is None
    at, done = watch.mark or (0.0, 0)
    watch.mark = (at - 10.0, done)  # 10 s ago
    bar.update(3)  # 3 more in 10 s: 5 left take about 16.7 s
    left = watch.seconds_left()
    assert left is not None and 15.0 <= left <= 18.0
