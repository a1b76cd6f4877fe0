"""Evaluating runs against their baselines, annotations, and the list of open regressions."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import and_, exists, or_
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from app.audit.service import record_event
from app.benchmarks.models import BenchmarkRun, BenchmarkSeries, RunMetric
from app.core.errors import InvalidInput, NotFound
from app.core.settings import Settings, get_settings
from app.trends.detector import DEFAULT_CONFIG, DetectorConfig, Evaluation, Label, Point, evaluate_series
from app.trends.models import AnnotationKind, RunEvaluation, SeriesAnnotation

# Labels that become change events: only confirmed ones. A single violation (`suspicious`) is as often
# a noisy run as a real change; the weekly review should not read one event per noisy night.
EVENT_KIND_BY_LABEL = {Label.regression: "run.regression", Label.improvement: "run.improvement"}
DIRECTED = ("higher", "lower")


def detector_config(*, settings: Settings, metric: str) -> DetectorConfig:
    """The detector rules for one metric: the default threshold unless the settings override it."""
    threshold = settings.regression_thresholds.get(metric, settings.regression_threshold_pct)
    return DetectorConfig(threshold_pct=float(threshold))


def distribution_starts(*, session: Session, series_key: str) -> list[datetime]:
    """Run times from which a new distribution was marked in a series (oldest first)."""
    query = (
        select(BenchmarkRun.run_time)
        .join(SeriesAnnotation, col(SeriesAnnotation.run_id) == col(BenchmarkRun.id))
        .where(SeriesAnnotation.series_key == series_key)
        .where(SeriesAnnotation.kind == AnnotationKind.distribution_change.value)
        .order_by(col(BenchmarkRun.run_time))
    )
    return list(session.exec(query))


def _history_points(
    *, session: Session, series_key: str, until: datetime, metrics: Iterable[str], runs: int
) -> dict[str, list[Point]]:
    """The last `runs` runs of a series up to `until` (inclusive), as points per metric."""
    recent_runs = (
        select(BenchmarkRun.id)
        .where(BenchmarkRun.series_key == series_key)
        .where(BenchmarkRun.run_time <= until)
        .order_by(col(BenchmarkRun.run_time).desc(), col(BenchmarkRun.id).desc())
        .limit(runs)
        .subquery()
    )
    query = (
        select(RunMetric.run_id, RunMetric.name, RunMetric.value, BenchmarkRun.run_time)
        .join(BenchmarkRun, col(BenchmarkRun.id) == col(RunMetric.run_id))
        .where(col(RunMetric.run_id).in_(select(recent_runs.c.id)))
        .where(col(RunMetric.name).in_(list(metrics)))
    )
    points: dict[str, list[Point]] = defaultdict(list)
    for run_id, name, value, run_time in session.exec(query):
        points[name].append(Point(run_id=run_id, run_time=run_time, value=value))
    return points


def baseline_run_id(points: list[Point], *, run: BenchmarkRun, baseline: float | None) -> int | None:
    """The earlier run that stands for the baseline (closest to its median among the window's runs).

    The baseline is a median of several runs; links such as `/compare?a=…&b=…` need one run to show.
    """
    earlier = sorted(
        (point for point in points if point.run_id != run.id and point.run_time <= run.run_time),
        key=lambda point: (point.run_time, point.run_id),
    )[-DEFAULT_CONFIG.window_runs :]
    if baseline is None or not earlier:
        return None
    return min(reversed(earlier), key=lambda point: abs(point.value - baseline)).run_id


def evaluate_run(
    *, session: Session, run: BenchmarkRun, actor: str, settings: Settings | None = None
) -> list[RunEvaluation]:
    """Evaluates every directed metric of a new run, stores the results and records confirmed changes."""
    assert run.id is not None
    # Uploads reach this from the benchmarks service, which has no settings at hand.
    settings = settings or get_settings()
    metrics = {
        metric.name: metric
        for metric in session.exec(select(RunMetric).where(RunMetric.run_id == run.id))
        if metric.better_direction in DIRECTED
    }
    if not metrics:
        return []
    # Enough runs for the noise window and the streak that may confirm this run's violation.
    depth = (
        max(DEFAULT_CONFIG.window_runs, DEFAULT_CONFIG.noise_window_runs)
        + DEFAULT_CONFIG.consecutive_violations
    )
    history = _history_points(
        session=session, series_key=run.series_key, until=run.run_time, metrics=metrics, runs=depth + 1
    )
    starts = distribution_starts(session=session, series_key=run.series_key)
    # Evaluating a run again (re-sent upload paths, tests) updates its rows instead of duplicating them.
    existing = {
        row.metric: row for row in session.exec(select(RunEvaluation).where(RunEvaluation.run_id == run.id))
    }
    stored: list[RunEvaluation] = []
    for name, metric in metrics.items():
        evaluations = evaluate_series(
            history[name],
            better=metric.better_direction,
            config=detector_config(settings=settings, metric=name),
            distribution_changes=starts,
        )
        mine = next(evaluation for evaluation in evaluations if evaluation.run_id == run.id)
        row = existing.get(name) or RunEvaluation(run_id=run.id, series_key=run.series_key, metric=name)
        _fill(row, mine)
        session.add(row)
        stored.append(row)
        event_kind = EVENT_KIND_BY_LABEL.get(mine.label)
        if event_kind:
            record_event(
                session=session,
                actor=actor,
                kind=event_kind,
                subject_type="run",
                subject_id=run.id,
                field_name=name,
                old_value=mine.baseline,
                new_value=mine.value,
                context={
                    "series_key": run.series_key,
                    "metric": name,
                    "baseline": mine.baseline,
                    "value": mine.value,
                    "delta_pct": round(mine.delta_pct or 0.0, 2),
                    "label": mine.label.value,
                    "run_label": run.label,
                    "hardware": run.hardware,
                    "model": run.model,
                    "precision": run.precision,
                    "baseline_run_id": baseline_run_id(history[name], run=run, baseline=mine.baseline),
                },
            )
    session.flush()
    return stored


# How a run reads overall: its most telling metric label wins.
LABEL_PRIORITY = ("regression", "suspicious", "improvement", "ok", "insufficient_data")


def baseline_comparison(*, session: Session, run: BenchmarkRun) -> dict[str, Any]:
    """The run against its series' baseline, for the upload answer: an overall label and each metric."""
    evaluations = evaluations_of(session=session, run_id=run.id or 0)
    labels = {evaluation.label for evaluation in evaluations}
    overall = next((label for label in LABEL_PRIORITY if label in labels), "insufficient_data")
    return {
        "label": overall,
        "regressions": sorted(row.metric for row in evaluations if row.label == Label.regression.value),
        "improvements": sorted(row.metric for row in evaluations if row.label == Label.improvement.value),
        "suspicious": sorted(row.metric for row in evaluations if row.label == Label.suspicious.value),
        "metrics": [
            {
                "metric": row.metric,
                "value": row.value,
                "baseline": row.baseline,
                "delta_pct": None if row.delta_pct is None else round(row.delta_pct, 3),
                "allowed_pct": None if row.allowed_pct is None else round(row.allowed_pct, 3),
                "prior_runs": row.prior_runs,
                "label": row.label,
                "direction": row.direction,
            }
            for row in evaluations
        ],
        "links": {"trend_page": f"/trends?series={run.series_key}"},
    }


def reevaluate_series(*, session: Session, series_key: str, settings: Settings) -> int:
    """Recomputes the stored evaluations of a whole series (after a mark or a late upload); no events."""
    rows = session.exec(
        select(
            RunMetric.run_id,
            RunMetric.name,
            RunMetric.value,
            RunMetric.better_direction,
            BenchmarkRun.run_time,
        )
        .join(BenchmarkRun, col(BenchmarkRun.id) == col(RunMetric.run_id))
        .where(BenchmarkRun.series_key == series_key)
        .where(col(RunMetric.better_direction).in_(DIRECTED))
    )
    points: dict[str, list[Point]] = defaultdict(list)
    better: dict[str, str] = {}
    for run_id, name, value, direction, run_time in rows:
        points[name].append(Point(run_id=run_id, run_time=run_time, value=value))
        better[name] = direction
    starts = distribution_starts(session=session, series_key=series_key)
    existing = {
        (row.run_id, row.metric): row
        for row in session.exec(select(RunEvaluation).where(RunEvaluation.series_key == series_key))
    }
    count = 0
    for name, history in points.items():
        config = detector_config(settings=settings, metric=name)
        for evaluation in evaluate_series(
            history, better=better[name], config=config, distribution_changes=starts
        ):
            row = existing.get((evaluation.run_id, name))
            if row is None:
                row = RunEvaluation(run_id=evaluation.run_id, series_key=series_key, metric=name)
            _fill(row, evaluation)
            session.add(row)
            count += 1
    session.flush()
    return count


def _fill(row: RunEvaluation, evaluation: Evaluation) -> None:
    row.run_time = evaluation.run_time
    row.value = evaluation.value
    row.baseline = evaluation.baseline
    row.noise = evaluation.noise
    row.delta_pct = evaluation.delta_pct
    row.allowed_pct = evaluation.allowed_pct
    row.prior_runs = evaluation.prior_runs
    row.label = evaluation.label.value
    row.direction = evaluation.direction.value if evaluation.direction else None


def get_run(*, session: Session, run_id: int, field: str = "run_id") -> BenchmarkRun:
    """Returns a run or raises NotFound naming it."""
    run = session.get(BenchmarkRun, run_id)
    if run is None:
        raise NotFound(f"run {run_id} not found", field=field)
    return run


def get_series(*, session: Session, series_key: str) -> BenchmarkSeries:
    """Returns a series or raises NotFound naming it."""
    series = session.get(BenchmarkSeries, series_key)
    if series is None:
        raise NotFound(f"series {series_key!r} not found", field="series_key")
    return series


def mark_distribution_change(
    *, session: Session, series_key: str, run_id: int, note: str, actor: str, settings: Settings
) -> SeriesAnnotation:
    """Marks `run_id` as the first run of a new distribution: the baseline restarts there."""
    get_series(session=session, series_key=series_key)
    run = get_run(session=session, run_id=run_id)
    if run.series_key != series_key:
        raise InvalidInput(f"run {run_id} belongs to another series", field="run_id")
    annotation = SeriesAnnotation(
        series_key=series_key,
        kind=AnnotationKind.distribution_change.value,
        run_id=run_id,
        note=note,
        actor=actor,
    )
    session.add(annotation)
    session.flush()
    record_event(
        session=session,
        actor=actor,
        kind="series.distribution_change",
        subject_type="series",
        subject_id=annotation.id,
        reason=note,
        context={
            "series_key": series_key,
            "run_id": run_id,
            "note": note,
            "hardware": run.hardware,
            "model": run.model,
        },
    )
    reevaluate_series(session=session, series_key=series_key, settings=settings)
    return annotation


def acknowledge_regression(
    *, session: Session, run_id: int, metric: str | None, note: str, actor: str
) -> SeriesAnnotation:
    """Acknowledges, with a note, a series' regressions and level shifts of one metric (or all) up to run
    `run_id`: they leave the open list; later ones open again.
    """
    run = get_run(session=session, run_id=run_id)
    query = (
        select(RunEvaluation.metric)
        .where(RunEvaluation.series_key == run.series_key, RunEvaluation.label == Label.regression.value)
        .where(RunEvaluation.run_time <= run.run_time)
        .distinct()
    )
    if metric is not None:
        query = query.where(RunEvaluation.metric == metric)
    metrics = set(session.exec(query))
    # Imported here: shifts builds on this module.
    from app.trends.shifts import series_shifts

    series = get_series(session=session, series_key=run.series_key)
    metrics |= {
        name
        for name, point in series_shifts(session=session, series=series, since=series.first_run_time)
        if point.run_time <= run.run_time and metric in (None, name)
    }
    if not metrics:
        what = f"metric {metric!r} of run {run_id}'s series" if metric else f"run {run_id}'s series"
        raise InvalidInput(
            f"{what} has no regression or level shift up to run {run_id} to acknowledge",
            field="metric" if metric else "run_id",
        )
    annotation = SeriesAnnotation(
        series_key=run.series_key,
        kind=AnnotationKind.acknowledgement.value,
        run_id=run_id,
        metric=metric,
        note=note,
        actor=actor,
    )
    session.add(annotation)
    session.flush()
    record_event(
        session=session,
        actor=actor,
        kind="regression.acknowledged",
        subject_type="run",
        subject_id=run_id,
        field_name=metric,
        reason=note,
        context={
            "series_key": run.series_key,
            "metrics": sorted(metrics),
            "hardware": run.hardware,
            "model": run.model,
        },
    )
    return annotation


def evaluations_of(*, session: Session, run_id: int) -> list[RunEvaluation]:
    """A run's stored evaluations, by metric name."""
    query = select(RunEvaluation).where(RunEvaluation.run_id == run_id).order_by(col(RunEvaluation.metric))
    return list(session.exec(query))


def list_annotations(*, session: Session, series_key: str) -> list[SeriesAnnotation]:
    """A series' annotations, oldest first."""
    query = (
        select(SeriesAnnotation)
        .where(SeriesAnnotation.series_key == series_key)
        .order_by(col(SeriesAnnotation.created_at), col(SeriesAnnotation.id))
    )
    return list(session.exec(query))


def open_regressions(
    *, session: Session, since: datetime | None = None, limit: int = 500
) -> list[dict[str, Any]]:
    """Run metrics labelled `regression` and not acknowledged, newest first.

    An acknowledgement at run R covers the metric's regressions in R's series up to R's run time. A
    distribution change marked at or before such a run re-evaluates it, so it no longer reads as one.
    """
    acknowledged_run = aliased(BenchmarkRun)
    acknowledged = exists().where(
        SeriesAnnotation.kind == AnnotationKind.acknowledgement.value,
        col(SeriesAnnotation.series_key) == col(RunEvaluation.series_key),
        or_(
            col(SeriesAnnotation.metric).is_(None), col(SeriesAnnotation.metric) == col(RunEvaluation.metric)
        ),
        col(SeriesAnnotation.run_id) == acknowledged_run.id,
        acknowledged_run.run_time >= col(RunEvaluation.run_time),
    )
    query = (
        select(RunEvaluation, BenchmarkRun)
        .join(BenchmarkRun, col(BenchmarkRun.id) == col(RunEvaluation.run_id))
        .where(and_(RunEvaluation.label == Label.regression.value, ~acknowledged))
        .order_by(col(RunEvaluation.run_time).desc(), col(RunEvaluation.metric))
        .limit(limit)
    )
    if since is not None:
        query = query.where(RunEvaluation.run_time >= since)
    return [{"evaluation": evaluation, "run": run} for evaluation, run in session.exec(query)]
