"""Reading trends: series lists with filters, one metric's history (downsampled), comparisons of two runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import exists, func, literal_column
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from app.benchmarks.context import series_label
from app.benchmarks.models import BenchmarkRun, BenchmarkSeries, RunMetric
from app.core.errors import NotFound
from app.core.models import utcnow
from app.trends.changepoints import ChangePoint, find_change_points
from app.trends.charts import Mark, TrendPoint
from app.trends.compare import MetricComparison, MetricValue, compare_metrics
from app.trends.detector import DEFAULT_CONFIG
from app.trends.downsample import DEFAULT_MAX_POINTS, downsample_indexes
from app.trends.models import AnnotationKind, RunEvaluation, SeriesAnnotation
from app.trends.overdue import Cadence, cadence
from app.trends.service import get_run, get_series, list_annotations

# The default metric set of the trend page: throughput and the latency percentiles people quote.
DEFAULT_METRICS = (
    "output_throughput",
    "total_token_throughput",
    "median_ttft_ms",
    "p99_ttft_ms",
    "median_tpot_ms",
    "median_itl_ms",
)
FLAGGED_LABELS = ("suspicious", "regression", "improvement")
# Cadence looks at the recent rhythm only; a series' first year says little about its current schedule.
CADENCE_RUNS = 50


@dataclass(frozen=True)
class SeriesFilters:
    hardware: str | None = None
    model: str | None = None
    precision: str | None = None
    backend: str | None = None
    dataset: str | None = None
    input_len: int | None = None
    output_len: int | None = None
    concurrency: int | None = None


def series_name(series: BenchmarkSeries) -> str:
    """A readable one-line name of a series: hardware, model, precision, backends, workload."""
    return series_label(
        {
            **(series.context or {}),
            "hardware": series.hardware,
            "gpu_count": series.gpu_count,
            "model": series.model,
            "precision": series.precision,
        }
    )


def list_series(*, session: Session, filters: SeriesFilters, limit: int = 200) -> list[BenchmarkSeries]:
    """Series matching every given filter (case-insensitive text), most recently run first."""
    query = select(BenchmarkSeries)
    for name in ("hardware", "model", "precision"):
        wanted = getattr(filters, name)
        if wanted:
            query = query.where(func.lower(getattr(BenchmarkSeries, name)) == wanted.lower())
    context = col(BenchmarkSeries.context)
    if filters.backend:
        backends = func.jsonb_each_text(context["backends"]).table_valued("key", "value")
        query = query.where(
            exists(
                sa_select(literal_column("1"))
                .select_from(backends)
                .where(func.lower(backends.c.value) == filters.backend.lower())
            )
        )
    if filters.dataset:
        query = query.where(func.lower(context["workload"]["dataset"].astext) == filters.dataset.lower())
    for name in ("input_len", "output_len", "concurrency"):
        wanted = getattr(filters, name)
        if wanted is not None:
            query = query.where(context["workload"][name].astext == str(wanted))
    query = query.order_by(col(BenchmarkSeries.last_run_time).desc()).limit(limit)
    return list(session.exec(query))


def series_cadences(
    *, session: Session, series_keys: list[str], now: datetime | None = None
) -> dict[str, Cadence]:
    """Each series' rhythm from its last runs, in one query."""
    if not series_keys:
        return {}
    ranked = (
        sa_select(
            BenchmarkRun.series_key,
            BenchmarkRun.run_time,
            func.row_number()
            .over(partition_by=BenchmarkRun.series_key, order_by=col(BenchmarkRun.run_time).desc())
            .label("position"),
        )
        .where(col(BenchmarkRun.series_key).in_(series_keys))
        .subquery()
    )
    times: dict[str, list[datetime]] = {key: [] for key in series_keys}
    for key, run_time in session.execute(
        sa_select(ranked.c.series_key, ranked.c.run_time).where(ranked.c.position <= CADENCE_RUNS)
    ):
        times[key].append(run_time)
    moment = now or utcnow()
    return {key: cadence(run_times, now=moment) for key, run_times in times.items()}


@dataclass
class Trend:
    """One metric of one series over time, possibly downsampled, with what the detector found."""

    series: BenchmarkSeries
    metric: str
    unit: str
    better: str
    total_points: int
    points: list[TrendPoint]
    change_points: list[ChangePoint]
    annotations: list[SeriesAnnotation]
    marks: list[Mark] = field(default_factory=list)
    baseline_note: str | None = None

    @property
    def downsampled(self) -> bool:
        return len(self.points) < self.total_points


def metric_exists(*, session: Session, series_key: str, metric: str) -> bool:
    """Whether any run of the series has the metric."""
    query = (
        select(RunMetric.id)
        .join(BenchmarkRun, col(BenchmarkRun.id) == col(RunMetric.run_id))
        .where(BenchmarkRun.series_key == series_key, RunMetric.name == metric)
        .limit(1)
    )
    return session.exec(query).first() is not None


def series_trend(
    *,
    session: Session,
    series_key: str,
    metric: str,
    since: datetime | None = None,
    max_points: int = DEFAULT_MAX_POINTS,
) -> Trend:
    """One metric's history of a series since `since`, at most `max_points` points (extremes and every
    flagged run kept). Raises NotFound naming the series or the metric."""
    series = get_series(session=session, series_key=series_key)
    # Served by the (series_key, run_time) index of benchmark_run and the (run_id, name) one of run_metric.
    query = (
        select(
            BenchmarkRun.id,
            BenchmarkRun.run_time,
            BenchmarkRun.engine_version,
            BenchmarkRun.engine_commit,
            RunMetric.value,
            RunMetric.unit,
            RunMetric.better_direction,
            RunEvaluation.label,
            RunEvaluation.direction,
            RunEvaluation.baseline,
            RunEvaluation.allowed_pct,
            RunEvaluation.delta_pct,
            func.extract("epoch", BenchmarkRun.run_time),
        )
        .join(RunMetric, (col(RunMetric.run_id) == col(BenchmarkRun.id)) & (col(RunMetric.name) == metric))
        .outerjoin(
            RunEvaluation,
            (col(RunEvaluation.run_id) == col(BenchmarkRun.id)) & (col(RunEvaluation.metric) == metric),
        )
        .where(BenchmarkRun.series_key == series_key)
        .order_by(col(BenchmarkRun.run_time), col(BenchmarkRun.id))
    )
    if since is not None:
        query = query.where(BenchmarkRun.run_time >= since)
    rows = list(session.exec(query))
    if not rows and not metric_exists(session=session, series_key=series_key, metric=metric):
        raise NotFound(f"metric {metric!r} not found in series {series_key}", field="metric")
    unit = rows[0][5] if rows else ""
    better = rows[0][6] if rows else "none"
    # Long histories: work on plain columns and build point objects only for the points returned.
    run_ids = [row[0] for row in rows]
    times = [row[1] for row in rows]
    values = np.fromiter((row[4] for row in rows), dtype=float, count=len(rows))
    change_points = (
        find_change_points(values, run_ids=run_ids, run_times=times, better=better)
        if better != "none"
        else []
    )
    annotations = list_annotations(session=session, series_key=series_key)
    annotated = {note.run_id for note in annotations}
    keep = {index for index, row in enumerate(rows) if row[7] in FLAGGED_LABELS or row[0] in annotated}
    keep.update(point.index for point in change_points)
    epoch = np.fromiter((row[12] for row in rows), dtype=float, count=len(rows))
    chosen = downsample_indexes(epoch, values, max_points=max_points, keep=keep) if rows else []
    marks = [
        Mark(run_time=point.run_time, kind="change_point", text=f"change {point.delta_pct:+.1f}%")
        for point in change_points
    ]
    run_time_of = {row[0]: row[1] for row in rows if row[0] in annotated}
    marks += [
        Mark(run_time=run_time_of[note.run_id], kind="distribution_change", text=note.note[:60])
        for note in annotations
        if note.kind == AnnotationKind.distribution_change.value and note.run_id in run_time_of
    ]
    return Trend(
        series=series,
        metric=metric,
        unit=unit,
        better=better,
        total_points=len(rows),
        points=[_point(rows[index]) for index in chosen],
        change_points=change_points,
        annotations=annotations,
        marks=marks,
        baseline_note=_baseline_note(len(rows), _point(rows[-1]) if rows else None),
    )


def _point(row: Any) -> TrendPoint:
    return TrendPoint(
        run_id=row[0],
        run_time=row[1],
        engine_version=row[2],
        engine_commit=row[3],
        value=row[4],
        label=row[7],
        direction=row[8],
        baseline=row[9],
        allowed_pct=row[10],
        delta_pct=row[11],
    )


def _baseline_note(count: int, latest: TrendPoint | None) -> str | None:
    """Why the latest run has no baseline, in words; None when it has one."""
    if latest is None:
        return "no runs in this period"
    if latest.baseline is not None and latest.label not in (None, "insufficient_data"):
        return None
    needed = DEFAULT_CONFIG.min_prior_runs
    if count == 1:
        return f"only one run: a baseline needs at least {needed} earlier runs of this series"
    if latest.label is None:
        return "the latest run has not been evaluated for this metric"
    return (
        f"not enough earlier runs for a baseline (it needs {needed} within "
        f"{DEFAULT_CONFIG.window_days:.0f} days and after the last distribution change)"
    )


def _metric_values(*, session: Session, run_id: int) -> dict[str, MetricValue]:
    query = select(RunMetric).where(RunMetric.run_id == run_id).order_by(col(RunMetric.id))
    return {
        metric.name: MetricValue(value=metric.value, unit=metric.unit, better=metric.better_direction)
        for metric in session.exec(query)
    }


def _noise_pct(*, session: Session, run_ids: list[int]) -> dict[str, float]:
    """Relative noise per metric from the runs' stored evaluations (the larger when both have one)."""
    noise: dict[str, float] = {}
    query = select(RunEvaluation).where(col(RunEvaluation.run_id).in_(run_ids))
    for evaluation in session.exec(query):
        if evaluation.noise is None or not evaluation.baseline:
            continue
        relative = evaluation.noise / abs(evaluation.baseline) * 100
        noise[evaluation.metric] = max(relative, noise.get(evaluation.metric, 0.0))
    return noise


@dataclass
class Comparison:
    a: BenchmarkRun
    b: BenchmarkRun
    rows: list[MetricComparison]
    same_series: bool


def compare_runs(*, session: Session, a: int, b: int) -> Comparison:
    """Compares run `b` with run `a`, metric by metric. Raises NotFound naming `a` or `b`."""
    run_a = get_run(session=session, run_id=a, field="a")
    run_b = get_run(session=session, run_id=b, field="b")
    rows = compare_metrics(
        _metric_values(session=session, run_id=a),
        _metric_values(session=session, run_id=b),
        noise_pct=_noise_pct(session=session, run_ids=[a, b]),
    )
    return Comparison(a=run_a, b=run_b, rows=rows, same_series=run_a.series_key == run_b.series_key)


def latest_runs(*, session: Session, series_key: str, count: int = 2) -> list[BenchmarkRun]:
    """The newest runs of a series, newest first."""
    query = (
        select(BenchmarkRun)
        .where(BenchmarkRun.series_key == series_key)
        .order_by(col(BenchmarkRun.run_time).desc(), col(BenchmarkRun.id).desc())
        .limit(count)
    )
    return list(session.exec(query))


def series_metric_names(*, session: Session, series_key: str) -> list[str]:
    """The metric names any run of the series has, sorted."""
    query = (
        select(RunMetric.name)
        .join(BenchmarkRun, col(BenchmarkRun.id) == col(RunMetric.run_id))
        .where(BenchmarkRun.series_key == series_key)
        .distinct()
        .order_by(col(RunMetric.name))
    )
    return list(session.exec(query))
