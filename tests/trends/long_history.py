"""Bulk-inserts a long nightly history of one series (faster than uploading each run)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import insert
from sqlmodel import Session

from app.benchmarks.models import BenchmarkRun, BenchmarkSeries, RunMetric
from app.trends.models import RunEvaluation

START = datetime(2020, 1, 1, tzinfo=UTC)
METRIC = "output_throughput"


def insert_long_history(
    session: Session,
    *,
    runs: int,
    series_key: str = "f" * 64,
    regression_at: int | None = None,
    seed: int = 5,
) -> list[int]:
    """A series of `runs` nightly runs of output_throughput (1 % noise); returns the run ids in time order.

    When `regression_at` is given, that run is stored with a `regression` evaluation, as the upload
    path would have stored it.
    """
    rng = np.random.default_rng(seed)
    values = 1000 * (1 + rng.normal(0, 0.01, runs))
    times = [START + timedelta(hours=6 * index) for index in range(runs)]
    session.execute(
        insert(BenchmarkSeries).values(
            series_key=series_key,
            context={"hardware": "B200", "model": "long-history"},
            hardware="B200",
            model="long-history",
            engine="vllm",
            first_run_time=times[0],
            last_run_time=times[-1],
            run_count=runs,
        )
    )
    run_rows = [
        {
            "digest": hashlib.sha256(f"{series_key}/{index}".encode()).hexdigest(),
            "series_key": series_key,
            "source_format": "vllm_serve_json",
            "raw_payload": b"{}",
            "raw_content_type": "application/json",
            "run_time": moment,
            "uploaded_by": "bench",
            "hardware": "B200",
            "model": "long-history",
            "engine": "vllm",
            "engine_version": "0.19.0",
        }
        for index, moment in enumerate(times)
    ]
    ids = list(session.execute(insert(BenchmarkRun).returning(BenchmarkRun.id), run_rows).scalars())
    session.execute(
        insert(RunMetric),
        [
            {
                "run_id": run_id,
                "name": METRIC,
                "value": float(value),
                "unit": "tok/s",
                "better_direction": "higher",
            }
            for run_id, value in zip(ids, values, strict=True)
        ],
    )
    if regression_at is not None:
        session.execute(
            insert(RunEvaluation).values(
                run_id=ids[regression_at],
                series_key=series_key,
                metric=METRIC,
                run_time=times[regression_at],
                value=float(values[regression_at]),
                baseline=1000.0,
                noise=10.0,
                delta_pct=-20.0,
                allowed_pct=5.0,
                prior_runs=10,
                label="regression",
                direction="regression",
            )
        )
    session.flush()
    return ids
