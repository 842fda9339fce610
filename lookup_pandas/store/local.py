"""The store on one machine: a small SQLite file beside the cache, shared by every process.

Example::

    store = LocalJobStore(Path("leads.store.sqlite"), namespace="3f2a...")
    store.remember(StoredJob("job_1", ("ada",), submitted=time.time()))

Each operation opens the file, runs one short transaction and closes it: jobs are remembered
and forgotten a few times per thousand handles, and a connection held open across threads and
processes would only add ways to stall. The file is created by the first job remembered, so a
user who never runs a batch job never gets one. WAL and a busy timeout let processes share it.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from . import StoredJob

__all__ = ["LocalJobStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS batch_jobs (
    namespace TEXT NOT NULL,
    job_id    TEXT NOT NULL,
    submitted REAL NOT NULL,
    inputs    TEXT NOT NULL,
    PRIMARY KEY (namespace, job_id)
)
"""
_BUSY_TIMEOUT_S = 30.0


class LocalJobStore:
    """Batch jobs in ``path``, filed under ``namespace`` (a hash of the key and base URL)."""

    def __init__(self, path: Path, namespace: str) -> None:
        self.path = path
        self._ns = namespace

    @contextlib.contextmanager
    def _connect(self, *, create: bool) -> Iterator[sqlite3.Connection | None]:
        if not create and not self.path.exists():
            yield None
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            yield conn
        finally:
            conn.close()

    def remember(self, job: StoredJob) -> None:
        with self._connect(create=True) as conn:
            assert conn is not None
            conn.execute(
                "INSERT OR REPLACE INTO batch_jobs (namespace, job_id, submitted, inputs) "
                "VALUES (?, ?, ?, ?)",
                (self._ns, job.job_id, job.submitted, json.dumps(list(job.inputs))),
            )

    def jobs(self) -> list[StoredJob]:
        with self._connect(create=False) as conn:
            if conn is None:
                return []
            rows = conn.execute(
                "SELECT job_id, submitted, inputs FROM batch_jobs WHERE namespace = ? "
                "ORDER BY submitted",
                (self._ns,),
            ).fetchall()
        return [
            StoredJob(job_id, tuple(json.loads(inputs)), submitted)
            for job_id, submitted, inputs in rows
        ]

    def forget(self, job_id: str) -> None:
        with self._connect(create=False) as conn:
            if conn is not None:
                conn.execute(
                    "DELETE FROM batch_jobs WHERE namespace = ? AND job_id = ?",
                    (self._ns, job_id),
                )
