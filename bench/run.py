"""Run every benchmark in bench/ (``make bench``); each prints its figure and its bound.

Example: ``python bench/run.py rate_bound`` runs only bench_rate_bound.py.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the benchmarks share bench/common.py


def main(argv: list[str]) -> int:
    wanted = set(argv)
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if wanted and name not in wanted:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        print(f"== {name}: {module.__doc__.strip().splitlines()[0]}", flush=True)
        started = time.perf_counter()
        module.main()
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
