"""Level shifts: change points in the worse direction in the recent history of the active series.

The windowed detector labels single runs against a 5 % floor; change-point detection also finds steps
below it (3 % on a 1 %-noise series) and slow drifts the rolling baseline follows. Shifts are computed
when asked (regressions API and page), over the last `HISTORY_RUNS` runs of each series run since `since`
and after its last distribution change; an acknowledgement of the shift's run and metric closes it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.benchmarks.models import BenchmarkRun, BenchmarkSeries, RunMetric
from app.core.models import utcnow
from app.trends.changepoints import ChangePoint, find_change_points
from app.trends.detector import Direction, Label
from app.trends.models import AnnotationKind, RunEvaluation, SeriesAnnotation
from app.trends.service import DIRECTED, distribution_starts, open_regressions

HISTORY_RUNS = 200
MAX_SERIES = 500


@dataclass(frozen=True)
class Shift:
    """A change point that made a metric worse, with the run it starts at."""

    series: BenchmarkSeries
    metric: str
    change_point: ChangePoint
    run: BenchmarkRun


def _history(*, session: Session, series_key: str, since_start: datetime | None) -> dict[str, list[tuple]]:
    """(run_id, run_time, value, better) per directed metric over the series' last runs, oldest first."""
    recent = (
        select(BenchmarkRun.id)
        .where(BenchmarkRun.series_key == series_key)
        .order_by(col(BenchmarkRun.run_time).desc(), col(BenchmarkRun.id).desc())
        .limit(HISTORY_RUNS)
    )
    if since_start is not None:
        recent = recent.where(BenchmarkRun.run_time >= since_start)
    query = (
        select(
            RunMetric.name,
            BenchmarkRun.id,
            BenchmarkRun.run_time,
            RunMetric.value,
            RunMetric.better_direction,
        )
        .join(BenchmarkRun, col(BenchmarkRun.id) == col(RunMetric.run_id))
        .where(col(RunMetric.run_id).in_(recent.subquery().select()))
        .where(col(RunMetric.better_direction).in_(DIRECTED))
        .order_by(col(BenchmarkRun.run_time), col(BenchmarkRun.id))
    )
    history: dict[str, list[tuple]] = defaultdict(list)
    for name, run_id, run_time, value, better in session.exec(query):
        history[name].append((run_id, run_time, value, better))
    return history


def series_shifts(
    *, session: Session, series: BenchmarkSeries, since: datetime
) -> list[tuple[str, ChangePoint]]:
    """(metric, change point) of the worse direction starting at or after `since` in one series."""
    starts = distribution_starts(session=session, series_key=series.series_key)
    history = _history(
        session=session, series_key=series.series_key, since_start=starts[-1] if starts else None
    )
    found: list[tuple[str, ChangePoint]] = []
    for metric, rows in history.items():
        points = find_change_points(
            [row[2] for row in rows],
            run_ids=[row[0] for row in rows],
            run_times=[row[1] for row in rows],
            better=rows[0][3],
        )
        found += [
            (metric, point)
            for point in points
            if point.direction == Direction.regression and point.run_time >= since
        ]
    return found


def recent_shifts(*, session: Session, since: datetime) -> list[Shift]:
    """Unacknowledged worse-direction shifts starting at or after `since`, newest first."""
    active = list(
        session.exec(
            select(BenchmarkSeries)
            .where(BenchmarkSeries.last_run_time >= since)
            .order_by(col(BenchmarkSeries.last_run_time).desc())
            .limit(MAX_SERIES)
        )
    )
    candidates = [
        (series, metric, point)
        for series in active
        for metric, point in series_shifts(session=session, series=series, since=since)
    ]
    if not candidates:
        return []
    acknowledged_until = _acknowledged_until(
        session=session, series_keys={series.series_key for series in active}
    )
    run_ids = {point.run_id for _, _, point in candidates}
    runs = {
        run.id: run for run in session.exec(select(BenchmarkRun).where(col(BenchmarkRun.id).in_(run_ids)))
    }
    shifts = [
        Shift(series=series, metric=metric, change_point=point, run=runs[point.run_id])
        for series, metric, point in candidates
        if not _covered(acknowledged_until, series.series_key, metric, point.run_time)
    ]
    return sorted(shifts, key=lambda shift: (shift.change_point.run_time, shift.metric), reverse=True)


def _acknowledged_until(*, session: Session, series_keys: set[str]) -> dict[tuple[str, str | None], datetime]:
    """Per (series, metric or None for all), the run time up to which acknowledgements cover it."""
    query = (
        select(SeriesAnnotation.series_key, SeriesAnnotation.metric, func.max(BenchmarkRun.run_time))
        .join(BenchmarkRun, col(BenchmarkRun.id) == col(SeriesAnnotation.run_id))
        .where(SeriesAnnotation.kind == AnnotationKind.acknowledgement.value)
        .where(col(SeriesAnnotation.series_key).in_(series_keys))
        .group_by(SeriesAnnotation.series_key, SeriesAnnotation.metric)
    )
    return {(key, metric): until for key, metric, until in session.exec(query)}


def _covered(
    until: dict[tuple[str, str | None], datetime], series_key: str, metric: str, moment: datetime
) -> bool:
    return any(
        (limit := until.get((series_key, name))) is not None and limit >= moment for name in (metric, None)
    )


@dataclass
class Finding:
    """One open regression of one metric in one series: runs labelled `regression` (kind `threshold`;
    the numbers are those of its first run) or a level shift (kind `change_point`: `value` and
    `baseline` are the medians after and before it). `runs` are the runs it covers, oldest first."""

    kind: str
    metric: str
    run: BenchmarkRun
    value: float
    baseline: float | None
    delta_pct: float | None
    allowed_pct: float | None
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def latest_run_time(self) -> datetime:
        return self.runs[-1]["run_time"] if self.runs else self.run.run_time


SHIFT_LOOKBACK = timedelta(days=30)


def open_findings(
    *, session: Session, since: datetime | None, include_shifts: bool = True, limit: int = 500
) -> list[Finding]:
    """Open regressions, one per series and metric, most recent first: runs labelled `regression`, and
    level shifts (30 days back unless `since` says otherwise) that no `regression` label of the same metric
    at or after their start already tells of."""
    grouped: dict[tuple[str, str], Finding] = {}
    # Oldest first, so a group's first run is the start of the regression.
    for item in reversed(open_regressions(session=session, since=since, limit=limit)):
        evaluation, run = item["evaluation"], item["run"]
        finding = grouped.setdefault(
            (run.series_key, evaluation.metric),
            Finding(
                kind="threshold",
                metric=evaluation.metric,
                run=run,
                value=evaluation.value,
                baseline=evaluation.baseline,
                delta_pct=evaluation.delta_pct,
                allowed_pct=evaluation.allowed_pct,
            ),
        )
        finding.runs.append(
            {
                "run_id": run.id,
                "run_time": run.run_time,
                "value": evaluation.value,
                "delta_pct": evaluation.delta_pct,
            }
        )
    findings = list(grouped.values())
    if include_shifts:
        shift_since = since or utcnow() - SHIFT_LOOKBACK
        # Threshold regressions, open or acknowledged, already tell of the shifts they follow.
        reported = dict(
            session.exec(
                select(
                    func.concat(RunEvaluation.series_key, "/", RunEvaluation.metric),
                    func.max(RunEvaluation.run_time),
                )
                .where(RunEvaluation.label == Label.regression.value, RunEvaluation.run_time >= shift_since)
                .group_by(RunEvaluation.series_key, RunEvaluation.metric)
            ).all()
        )
        for shift in recent_shifts(session=session, since=shift_since):
            latest = reported.get(f"{shift.series.series_key}/{shift.metric}")
            if latest is not None and latest >= shift.change_point.run_time:
                continue
            findings.append(
                Finding(
                    kind="change_point",
                    metric=shift.metric,
                    run=shift.run,
                    value=shift.change_point.after,
                    baseline=shift.change_point.before,
                    delta_pct=shift.change_point.delta_pct,
                    allowed_pct=None,
                    runs=[
                        {
                            "run_id": shift.run.id,
                            "run_time": shift.run.run_time,
                            "value": shift.change_point.after,
                            "delta_pct": shift.change_point.delta_pct,
                        }
                    ],
                )
            )
    findings.sort(key=lambda finding: (finding.latest_run_time, finding.metric), reverse=True)
    return findings[:limit]
