"""Trend API on long histories: time to read, detect change points and downsample one series.

Inserts nightly histories of 20,000 and 100,000 runs into a scratch database, then times
`series_trend` (the trend endpoint's work: indexed query, change points, MinMaxLTTB downsampling to
2,000 points) and shows that the query reads the (series_key, run_time) index.
"""

from __future__ import annotations

import statistics
import time

from sqlalchemy import create_engine, text
from sqlmodel import Session

from benchmarks.support import bench_database
from tests.trends.long_history import METRIC, insert_long_history

SIZES = (20_000, 100_000)
# Many short series around the long ones, so the plan for one series is the plan of a real table.
SMALL_SERIES = 200
SMALL_SERIES_RUNS = 50
REPEATS = 5


def _plan(session: Session, series_key: str) -> str:
    """The scans PostgreSQL picks for the trend query (a series that is a small part of the table)."""
    rows = session.execute(
        text(
            "EXPLAIN SELECT r.id, r.run_time, m.value FROM benchmark_run r "
            "JOIN run_metric m ON m.run_id = r.id AND m.name = :metric "
            "WHERE r.series_key = :key ORDER BY r.run_time"
        ),
        {"metric": METRIC, "key": series_key},
    )
    scans = [row[0].strip().lstrip("-> ") for row in rows if "Scan" in row[0]]
    return "; ".join(scan.split("  (")[0] for scan in scans)


def run() -> list[str]:
    from app.trends.trend import series_trend

    lines: list[str] = []
    with bench_database("trends") as url:
        engine = create_engine(url)
        try:
            for number, size in enumerate(SIZES):
                key = f"{number:x}" * 64
                with Session(engine) as session:
                    started = time.perf_counter()
                    insert_long_history(session, runs=size, series_key=key[:64], regression_at=size // 2)
                    session.commit()
                    lines.append(f"inserted {size:,} runs in {time.perf_counter() - started:.1f}s")
                with Session(engine) as session:
                    session.execute(text("ANALYZE"))
                    timings = []
                    for _ in range(REPEATS):
                        started = time.perf_counter()
                        found = series_trend(session=session, series_key=key[:64], metric=METRIC)
                        timings.append(time.perf_counter() - started)
                    lines.append(
                        f"{size:>7,} runs → {len(found.points):,} points: trend median "
                        f"{statistics.median(timings) * 1000:.0f} ms (min {min(timings) * 1000:.0f} ms)"
                    )
            with Session(engine) as session:
                for number in range(SMALL_SERIES):
                    insert_long_history(session, runs=SMALL_SERIES_RUNS, series_key=f"s{number:063x}")
                session.commit()
                session.execute(text("ANALYZE"))
                lines.append(f"plan for one of {SMALL_SERIES} small series: {_plan(session, f's{0:063x}')}")
        finally:
            engine.dispose()
    return lines
