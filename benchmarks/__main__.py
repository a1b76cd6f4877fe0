"""Runs every benchmark module in BENCHMARKS and prints its figures.

Each module exposes `run() -> list[str]` returning the lines to print. Benchmarks that need a database get
one from `benchmarks.support.bench_database()` (the embedded server, or DATABASE_URL's server).
"""

from __future__ import annotations

import importlib
import sys
import time

# Added by each domain as it gains a performance target.
BENCHMARKS: list[str] = [
    "benchmarks.github_sync",
    "benchmarks.benchmark_ingest",
    "benchmarks.trend_downsampling",
    "benchmarks.review",
]


def main(argv: list[str]) -> int:
    selected = [name for name in BENCHMARKS if not argv or any(arg in name for arg in argv)]
    if not selected:
        print("no benchmarks registered" if not BENCHMARKS else f"no benchmark matches {argv}")
        return 0
    for name in selected:
        started = time.perf_counter()
        print(f"== {name}")
        for line in importlib.import_module(name).run():
            print(f"   {line}")
        print(f"   ({time.perf_counter() - started:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
