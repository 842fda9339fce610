"""Spellings: 500,000 rows naming 5,000 people in four spellings, all cached (issue 30).

The lead list holds each person as ``handle``, ``HANDLE``, ``https://www.linkedin.com/in/handle/``
and ``@handle`` (20,000 distinct values, each on 25 rows). Figures, each against a bound measured
in the same run:

- ``enrich_profiles`` / the same job written by hand, goal <= 1.5. By hand: each distinct
  spelling normalised once with the library's ``normalise_handle``, each answer read from a bare
  requests-cache ``CachedSession`` over the same cache file, ``pd.json_normalize`` once, one
  ``merge`` onto the rows;
- ``estimate_profiles`` / that same hand-written time, goal <= 0.5;
- the CLI's own peak RSS on the same file as CSV (``lookup-pandas enrich file.csv -o out.csv``,
  no flags), goal < 250 MB (its ``VmHWM`` as it exits: see bench_scale.py).

The Python timings run in a fresh process (the frames stay out of this runner's memory), the
best of REPEATS runs each, a new Client or session each time. The cache is filled first from an
emulator in its own process (no rate limit, batch items resolved at once): one CLI run over the
5,000 bare handles by batch jobs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
from common import emulator_process, goal, run_child, spellings
from requests_cache import CachedSession, SQLiteCache

import lookup_pandas as lp
from lookup_pandas.identifiers.handles import normalise_handle
from lookup_pandas.testing import PROFILE

ROWS, PEOPLE, REPEATS = 500_000, 5_000, 3
ENRICH_GOAL, ESTIMATE_GOAL, RSS_GOAL = 1.5, 0.5, 250 * 10**6
HERE = Path(__file__).resolve().parent


def by_hand(frame: pd.DataFrame, base_url: str, cache: str) -> pd.DataFrame:
    """The job written by hand: distinct spellings normalised, answers read from a bare
    CachedSession, flattened once, merged onto the rows."""
    raw = frame["handle"]
    handle_of = {s: normalise_handle(s) for s in pd.unique(raw)}
    wanted = list(dict.fromkeys(h for h in handle_of.values() if h is not None))
    with CachedSession(backend=SQLiteCache(cache, wal=True)) as session:
        answers = [session.get(base_url + PROFILE, params={"handle": h}) for h in wanted]
    if not all(a.from_cache for a in answers):
        raise RuntimeError("the bare session missed the cache")
    flat = pd.json_normalize([a.json()["data"] for a in answers]).add_prefix("profile_")
    keyed = frame.assign(_handle=raw.map(handle_of))
    return keyed.merge(flat, how="left", left_on="_handle", right_on="profile_handle")


def _best(run: Any) -> tuple[float, Any]:
    """The shortest of REPEATS runs of ``run()``, and its last result."""
    times, out = [], None
    for _ in range(REPEATS):
        started = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - started)
    return min(times), out


def measure(base_url: str, api_key: str, cache: str, source: str) -> None:
    """In a fresh process: the three Python timings, printed as one JSON line."""
    frame = pd.read_csv(source)

    def ours() -> pd.DataFrame:
        with lp.Client(api_key=api_key, base_url=base_url, cache=cache) as client:
            out: pd.DataFrame = frame.lookup.enrich_profiles(
                "handle", client=client, progress=False
            )
            return out

    def estimate() -> lp.Estimate:
        with lp.Client(api_key=api_key, base_url=base_url, cache=cache) as client:
            return frame.lookup.estimate_profiles("handle", client=client)

    hand, merged = _best(lambda: by_hand(frame, base_url, cache))
    enrich, enriched = _best(ours)
    est, estimated = _best(estimate)
    ok = int((enriched["lookup_status"] == "ok").sum())
    same = bool((enriched["profile_id"].to_numpy() == merged["profile_id"].to_numpy()).all())
    print(
        json.dumps(
            {
                "hand": hand,
                "enrich": enrich,
                "estimate": est,
                "ok": ok,
                "same_ids": same,
                "cached": estimated.cached,
                "unique": estimated.unique,
            }
        )
    )


MEASURE = "import sys; sys.path.insert(0, sys.argv[1]); import bench_spellings as b; " + (
    "b.measure(*sys.argv[2:])"
)


def main() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    cli = [sys.executable, "-m", "lookup_pandas", "enrich"]
    with (
        tempfile.TemporaryDirectory() as name,
        emulator_process("--rate-limit", "0", "--batch-resolve-rate", "0") as (url, key),
    ):
        tmp = Path(name)
        cache = tmp / "c.sqlite"
        env.update(LOOKUP_BASE_URL=url, LOOKUP_API_KEY=key, LOOKUP_CACHE=str(cache))
        source, people = tmp / "spellings.csv", tmp / "people.csv"
        leads = spellings(ROWS, PEOPLE)
        leads.to_csv(source, index=False)
        leads.head(PEOPLE).to_csv(people, index=False)  # the bare handles, once each
        del leads
        fill = [*cli, str(people), "-o", str(tmp / "fill.csv"), "--method", "batch"]
        filled, _, _ = run_child(fill, env, tmp / "fill.log")
        print(f"   cache filled: {PEOPLE} people by batch jobs in {filled:.1f} s")

        done = subprocess.run(
            [sys.executable, "-c", MEASURE, str(HERE), url, key, str(cache), str(source)],
            capture_output=True,
            text=True,
            timeout=1800,
            env=env,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the Python measure failed: {done.stderr[-2000:]}")
        got = json.loads(done.stdout.strip().splitlines()[-1])
        hand, enrich, est = got["hand"], got["enrich"], got["estimate"]
        print(
            f"   by hand (normalise {4 * PEOPLE} spellings, {PEOPLE} bare cache reads, "
            f"json_normalize, merge): {hand:.2f} s; best of {REPEATS}"
        )
        ratio = enrich / hand
        print(
            f"   enrich_profiles: {enrich:.2f} s, {got['ok']} ok, same ids as by hand: "
            f"{got['same_ids']}; / by hand {ratio:.2f} (goal <= {ENRICH_GOAL:g}: "
            f"{goal(ratio <= ENRICH_GOAL)})"
        )
        ratio = est / hand
        print(
            f"   estimate_profiles: {est:.2f} s ({got['unique']} distinct, {got['cached']} "
            f"cached); / by hand {ratio:.2f} (goal <= {ESTIMATE_GOAL:g}: "
            f"{goal(ratio <= ESTIMATE_GOAL)})"
        )

        out = tmp / "out.csv"
        elapsed, peak, _ = run_child([*cli, str(source), "-o", str(out)], env, tmp / "cli.log")
        summary = (tmp / "cli.log").read_text().strip().splitlines()[-1]
        if not summary.startswith(f"enriched {ROWS} rows ({ROWS} ok,"):
            raise RuntimeError(f"the CLI did not enrich every row: {summary}")
        print(
            f"   CLI `enrich {source.name} -o out.csv` ({source.stat().st_size / 10**6:.0f} MB "
            f"in, {out.stat().st_size / 10**6:.0f} MB out): {elapsed:.1f} s; peak RSS "
            f"{peak / 10**6:.0f} MB (goal < {RSS_GOAL // 10**6} MB: {goal(peak < RSS_GOAL)})"
        )


if __name__ == "__main__":
    main()
