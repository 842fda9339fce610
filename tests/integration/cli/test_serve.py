"""``lookup-pandas serve`` in a subprocess: what it billed (SIGUSR1, GET /_emulator/stats, on exit)
and its batch and record knobs, against ``lookup_pandas.Client`` over loopback."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
import requests

import lookup_pandas as lp
from lookup_pandas.testing import BATCH, PROFILE, data

from ..cli_helpers import CliMain

CLI = [sys.executable, "-m", "lookup_pandas"]
WAIT = 60.0  # seconds: the longest any one step may take (start-up imports pandas)
NAMES = ("requests seen", "429s", "billed calls", "billed batch items", "credits")
COUNT = re.compile("(" + "|".join([*NAMES, "distinct handles billed"]) + r") (\d+)")

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="POSIX signals")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}


class Serve:
    """``lookup-pandas serve`` running in a subprocess; its stdout read line by line by a thread,
    so every wait is bounded."""

    def __init__(self, *options: str) -> None:
        self.proc = subprocess.Popen(
            [*CLI, "serve", "--port", "0", *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        head = self.until("Billed counts")
        self.base_url = re.search(r"LOOKUP_BASE_URL=(\S+)", head).group(1)
        self.api_key = re.search(r"LOOKUP_API_KEY=(\S+)", head).group(1)
        self.header = head
        assert self.base_url.startswith("http://127.0.0.1:")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def until(self, marker: str, *, lines_after: int = 0) -> str:
        """The output up to the line holding ``marker`` (and ``lines_after`` more)."""
        deadline = time.monotonic() + WAIT
        seen: list[str] = []
        left = None
        while left != 0:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {marker!r} within {WAIT}s; got {seen!r}") from None
            seen.append(line)
            if left is not None:
                left -= 1
            elif marker in line:
                left = lines_after
        return "".join(seen)

    def counts(self) -> dict[str, int]:
        """The next counts block it prints."""
        block = self.until("emulator counts:", lines_after=2)
        return {name: int(value) for name, value in COUNT.findall(block)}

    def stats(self) -> dict[str, Any]:
        answer = requests.get(self.base_url + "/_emulator/stats", timeout=WAIT)
        assert answer.status_code == 200
        return dict(answer.json())

    def stop(self, signum: int = signal.SIGINT) -> None:
        self.proc.send_signal(signum)
        assert self.proc.wait(timeout=WAIT) == 0

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)


def _as_block(stats: dict[str, Any]) -> dict[str, int]:
    """The JSON's numbers under the names the printed block gives them."""
    return {
        "requests seen": stats["requests"],
        "429s": stats["rate_limited"],
        "billed calls": stats["billed_calls"],
        "billed batch items": stats["billed_batch_items"],
        "credits": int(stats["credits"]),
        "distinct handles billed": stats["distinct_handles"],
    }


def test_serve_reports_what_it_billed_on_sigusr1_on_the_stats_route_and_on_exit(tmp_path):
    serve = Serve("--rate-limit", "0", "--batch-resolve-rate", "0")
    try:
        assert "batch jobs on (at once, 100 a poll)" in serve.header
        with lp.Client(
            api_key=serve.api_key, base_url=serve.base_url, cache=str(tmp_path / "c.sqlite")
        ) as client:
            assert client.profile("ada")["handle"] == "ada"
            assert client.profile("grace")["handle"] == "grace"
            assert client.profile("unknown-x") is None  # a billed not-found
            assert client.profile("ada")["handle"] == "ada"  # a cache hit: nothing paid
            batch = [f"serve-{i}" for i in range(20)]
            frame = lp.get_profiles(["ada", *batch], method="batch", client=client, progress=False)
            assert (frame["lookup_status"] == "ok").all()
            sent = client.stats.sent

        serve.proc.send_signal(signal.SIGUSR1)
        on_signal = serve.counts()
        assert serve.proc.poll() is None, "SIGUSR1 prints the counts and keeps it running"
        stats = serve.stats()
        assert _as_block(stats) == on_signal
        assert stats["billed_calls"] == 3  # ada, grace, unknown-x: once each
        assert stats["billed_batch_items"] == 20  # ada was cached: not submitted
        assert stats["credits"] == 23
        assert stats["distinct_handles"] == 23
        assert stats["rate_limited"] == 0
        assert stats["requests"] == sent, "every request the client sent, and nothing else"
        assert serve.stats() == stats, "the stats route is neither billed nor counted"

        # it goes on serving and counting after SIGUSR1
        answer = requests.get(
            serve.base_url + PROFILE,
            params={"handle": "linus"},
            headers={"X-service-apikey": serve.api_key},
            timeout=WAIT,
        )
        assert answer.status_code == 200
        after = serve.stats()
        assert after["billed_calls"] == 4 and after["requests"] == sent + 1
        assert after["distinct_handles"] == 24 and after["credits"] == 24

        serve.stop(signal.SIGINT)
        final = serve.counts()
        assert final == _as_block(after)
        assert final["billed calls"] == 4 and final["billed batch items"] == 20
        assert "stopped" in serve.until("stopped")
    finally:
        serve.kill()


def test_sigterm_prints_the_counts_and_the_stats_route_needs_no_key():
    serve = Serve("--rate-limit", "0")
    try:
        answer = requests.post(serve.base_url + "/_emulator/stats", timeout=WAIT)
        assert answer.status_code == 405  # read-only
        assert serve.stats()["requests"] == 0, "neither answer was counted"
        # outside the API's namespace: no such endpoint under /api/ (a request, counted)
        assert (
            requests.get(serve.base_url + "/api/_emulator/stats", timeout=WAIT).status_code == 404
        )
        assert serve.stats()["requests"] == 1
        serve.stop(signal.SIGTERM)
        final = serve.counts()
        assert final["billed calls"] == 0 and final["credits"] == 0
    finally:
        serve.kill()


def test_no_batch_answers_the_batch_endpoint_404():
    body = json.dumps({"ids": [], "handles": ["ada"], "enrich_live": False})
    for option, status in (("--no-batch", 404), ("--batch", 202)):
        serve = Serve("--rate-limit", "0", option)
        try:
            assert ("batch jobs off" in serve.header) == (option == "--no-batch")
            answer = requests.post(
                serve.base_url + BATCH,
                data=body,
                headers={"X-service-apikey": serve.api_key, "Content-Type": "application/json"},
                timeout=WAIT,
            )
            assert answer.status_code == status, option
            serve.stop()
        finally:
            serve.kill()


def test_no_emails_answers_the_email_api_404():
    for option, status in (("--no-emails", 404), ("--emails", 200)):
        serve = Serve("--rate-limit", "0", option)
        try:
            assert ("Email API off" in serve.header) == (option == "--no-emails")
            answer = requests.get(serve.base_url + "/api/emails/v1/health", timeout=WAIT)
            assert answer.status_code == status, option
            serve.stop()
        finally:
            serve.kill()


def test_batch_page_size_and_resolve_rate_shape_the_polls():
    serve = Serve("--rate-limit", "0", "--batch-page-size", "2", "--batch-resolve-rate", "0")
    try:
        headers = {"X-service-apikey": serve.api_key}
        handles = ["ada", "grace", "linus", "unknown-z", "margaret"]
        submit = requests.post(
            serve.base_url + BATCH,
            json={"ids": [], "handles": handles},
            headers=headers,
            timeout=WAIT,
        )
        assert submit.status_code == 202
        job_id = submit.json()["data"]["job_id"]
        poll = requests.get(
            serve.base_url + BATCH,
            params={"job_id": job_id, "after": 0},
            headers=headers,
            timeout=WAIT,
        ).json()["data"]
        assert poll["status"] == "completed" and poll["resolved"] == 5  # resolved at once
        assert sorted(poll["profiles"]) == ["ada", "grace"] and poll["next_cursor"] == 2
        assert serve.stats()["billed_batch_items"] == 5  # billed as they resolved
        serve.stop()
    finally:
        serve.kill()


def test_sparse_records_end_to_end(tmp_path):
    serve = Serve("--rate-limit", "0", "--sparse")
    try:
        assert "sparse records" in serve.header
        with lp.Client(api_key=serve.api_key, base_url=serve.base_url, cache=False) as client:
            for handle in ("ada", "grace", "linus"):
                full = data.person(handle)
                assert client.profile(handle) == data.thin(full)
            assert any(len(client.profile(h)) < len(data.person(h)) for h in ("ada", "grace"))
        serve.stop()
    finally:
        serve.kill()


def test_bad_batch_settings_exit_2_with_usage(capsys):
    cli_main = CliMain(capsys)  # refused by the parser: no process needed
    for option, value in (("--batch-page-size", "0"), ("--batch-resolve-rate", "-1")):
        done = cli_main({}, "serve", option, value)
        assert done.returncode == 2, option
        assert "Traceback" not in done.stderr


def test_move_rate_moves_people_a_refresh_can_find():
    serve = Serve("--rate-limit", "0", "--move-rate", "1200")  # 20 a second
    try:
        assert "1200 people move to another company a minute" in serve.header
        line = serve.until("  moved ")
        handle, headline = re.search(r"  moved (\S+): (.+)$", line, re.M).groups()
        with lp.Client(api_key=serve.api_key, base_url=serve.base_url, cache=False) as client:
            now = client.profile(handle)  # the same first mover every run: it moves once
            assert now["headline"] == headline != data.person(handle)["headline"]
            assert now["positions"][0]["organization"]["slug"] in data.ORGANIZATIONS
            events = lp.job_changes(organization_ids=[now["positions"][0]["organization"]["id"]],
                                    days_ago=1, client=client, progress=False)  # fmt: skip
            mine = events[events["person.handle"] == handle]
            assert "joined" in set(mine["event_type"])
        serve.stop()
        assert "stopped" in serve.until("stopped")
    finally:
        serve.kill()
