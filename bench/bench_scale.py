"""Scale: 2,000,000 rows / 20,000 distinct handles (all cached) enriched by the CLI in chunks.

CSV case (``csv_case``): ``lookup-pandas enrich big.csv --chunksize 100000`` in a fresh process,
for the first 200,000 rows and for all 2,000,000 (the handles cycle, so each chunk holds all
20,000). Figures for each:

- the child's own peak RSS, goal < 300 MiB whatever the row count. It is the child's
  ``VmHWM``, read by the child as it exits. A child's ``ru_maxrss`` from ``os.wait4`` is at
  least this process's own peak, which Linux carries over fork and exec: after the other
  benchmarks of ``make bench`` it reported this runner's 388 MiB, not the CLI's;
- rows per second;
- our elapsed / pandas' elapsed for the same rows, goal <= 2, against two baselines, each timed
  inside a fresh process (no start-up): pandas ``read_csv`` + ``to_csv`` of the input itself,
  and ``read_csv`` of the input + ``to_csv`` of a frame holding our output's cells (our output
  read back as text: the same bytes to write, about 75 times the input's).

Also: the floor every run pays, the 20,000 distinct handles alone as a 20,000-row file (the
estimate's cache look-ups and the engine's cached reads, ~1.5 ms a handle), and the same
200,000 rows without chunks (peak RSS, elapsed, identical output).

The cache is filled first from an emulator in its own process (``lookup-pandas serve``, no
rate limit): one enrich run of the 20,000 handles by batch jobs. Files live in a temporary
directory and each output is deleted once measured (the 2,000,000-row output is ~3 GB).
"""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from common import emulator_process, goal, run_child

ROWS, DISTINCT, CHUNK = (200_000, 2_000_000), 20_000, 100_000
RSS_GOAL, RATIO_GOAL = 300 * 2**20, 2.0

#: pandas alone, timed inside a fresh process: read the input, write ``frame`` (argv[2]: the
#: input again, or our output read back first, untimed), print the seconds.
BASELINE = textwrap.dedent(
    """
    import sys, time
    import pandas as pd
    options = dict(dtype=str, keep_default_na=False, na_values=[""])
    source, written, target = sys.argv[1:4]
    frame = None if written == source else pd.read_csv(written, **options)
    started = time.perf_counter()
    leads = pd.read_csv(source, **options)
    (leads if frame is None else frame).to_csv(target, index=False)
    print(time.perf_counter() - started)
    """
)


#: Write ``leads(rows, distinct, prefix)`` as CSV (argv: rows, distinct, prefix, path).
WRITE_LEADS = textwrap.dedent(
    """
    import sys
    from common import leads
    rows, distinct, prefix, path = sys.argv[1:5]
    leads(int(rows), int(distinct), prefix).to_csv(path, index=False)
    """
)


def _write_leads(rows: int, path: Path, env: dict[str, str]) -> None:
    """The lead list, made in a process of its own: a child's ru_maxrss is at least this
    process's own peak RSS (Linux carries the parent's high-water mark over fork and exec), so
    building a 2,000,000-row frame here would show as every later child's peak."""
    subprocess.run(
        [sys.executable, "-c", WRITE_LEADS, str(rows), str(DISTINCT), "scale", str(path)],
        env=env,
        check=True,
        cwd=Path(__file__).parent,
    )


def _baseline(source: Path, written: Path, tmp: Path, env: dict[str, str]) -> float:
    target = tmp / "pandas.csv"
    try:
        _, _, out = run_child(
            [sys.executable, "-c", BASELINE, str(source), str(written), str(target)],
            env,
            tmp / "pandas.log",
        )
    finally:
        target.unlink(missing_ok=True)
    return float(out.strip())


def csv_case() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOKUP_")}
    cli = [sys.executable, "-m", "lookup_pandas", "enrich"]
    with (
        tempfile.TemporaryDirectory() as name,
        emulator_process("--rate-limit", "0") as (url, key),
    ):
        tmp = Path(name)
        env.update(LOOKUP_BASE_URL=url, LOOKUP_API_KEY=key, LOOKUP_CACHE=str(tmp / "c.sqlite"))
        distinct = tmp / "distinct.csv"
        _write_leads(DISTINCT, distinct, env)
        fill = [*cli, str(distinct), "-o", str(tmp / "fill.csv"), "--no-progress"]
        filled, _, _ = run_child([*fill, "--method", "batch"], env, tmp / "fill.log")
        floor, floor_rss, _ = run_child(fill, env, tmp / "floor.log")
        (tmp / "fill.csv").unlink()
        print(
            f"   cache filled: {DISTINCT} handles by batch jobs in {filled:.1f} s; floor, the "
            f"same {DISTINCT} rows again, all cached: {floor:.1f} s, peak RSS "
            f"{floor_rss / 2**20:.0f} MiB"
        )

        for rows in ROWS:
            source, ours = tmp / f"in{rows}.csv", tmp / f"out{rows}.csv"
            _write_leads(rows, source, env)
            chunked = [*cli, str(source), "-o", str(ours), "--no-progress"]
            elapsed, peak, _ = run_child(
                [*chunked, "--chunksize", str(CHUNK)], env, tmp / "ours.log"
            )
            summary = (tmp / "ours.log").read_text().strip().splitlines()[-1]
            assert summary.startswith(f"enriched {rows} rows ({rows} ok,"), summary
            size = ours.stat().st_size
            plain = _baseline(source, source, tmp, env)
            same_bytes = _baseline(source, ours, tmp, env)
            print(
                f"   {rows} rows ({source.stat().st_size / 2**20:.0f} MiB in, "
                f"{size / 2**20:.0f} MiB out) in chunks of {CHUNK}: {elapsed:.1f} s, "
                f"{rows / elapsed:,.0f} rows/s; peak RSS {peak / 2**20:.0f} MiB "
                f"(goal < {RSS_GOAL // 2**20} MiB: {goal(peak < RSS_GOAL)})"
            )
            for label, base in (
                ("read_csv + to_csv of the input", plain),
                ("read_csv of the input + to_csv of our output's cells", same_bytes),
            ):
                ratio = elapsed / base
                print(
                    f"     vs pandas {label}: {base:.1f} s; ratio {ratio:.2f} "
                    f"(goal <= {RATIO_GOAL:g}: {goal(ratio <= RATIO_GOAL)}); less the floor "
                    f"{(elapsed - floor) / base:.2f}"
                )
            if rows == ROWS[0]:
                whole = tmp / "whole.csv"
                unchunked = [
                    *cli,
                    str(source),
                    "-o",
                    str(whole),
                    "--no-progress",
                    "--chunksize",
                    "0",
                ]
                took, whole_peak, _ = run_child(unchunked, env, tmp / "whole.log")
                print(
                    f"     the same {rows} rows without chunks: {took:.1f} s, peak RSS "
                    f"{whole_peak / 2**20:.0f} MiB; output identical: "
                    f"{filecmp.cmp(ours, whole, shallow=False)}"
                )
                whole.unlink()
            ours.unlink()
            source.unlink()


def main() -> None:
    csv_case()
    from scale_dask import dask_case  # the dask.dataframe case: see bench/scale_dask.py

    dask_case()


if __name__ == "__main__":
    main()
