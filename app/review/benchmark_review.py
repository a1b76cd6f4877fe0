"""Benchmark facts from run events: detected changes, regressions still open, overdue series."""

from __future__ import annotations

import statistics
from datetime import datetime, timedelta
from typing import Any

from app.review.history import EventLike, History, compare_url, series_name, trend_url
from app.review.schema import BenchmarkChange, OverdueSeries

# The trend pages' rule: three runs (two intervals) before a series has a rhythm it can be late for.
MIN_RUNS_FOR_CADENCE = 3
DETECTOR_LABELS = {"regression", "improvement", "suspicious", "ok", "insufficient_data"}
# Events that end an open regression without being a detected change.
CLOSING_KINDS = ("regression.acknowledged", "series.distribution_change")
OVERDUE_FACTOR = 2


def benchmark_change(event: EventLike, history: History) -> BenchmarkChange | None:
    context = event.context or {}
    series_key = context.get("series_key")
    if not series_key:
        return None
    run = history.runs.get(event.subject_id or -1, {})
    return BenchmarkChange(
        occurred_at=event.occurred_at,
        kind=event.kind.removeprefix("run."),
        run_id=event.subject_id,
        series_key=str(series_key),
        series_name=series_name(str(series_key), {**run, **context}),
        metric=str(context.get("metric") or ""),
        baseline=_number(context.get("baseline")),
        value=_number(context.get("value")),
        delta_pct=_number(context.get("delta_pct")),
        label=run_label(context, history.runs.get(event.subject_id or -1, {})),
        hardware=context.get("hardware") or run.get("hardware"),
        trend_url=trend_url(str(series_key)),
        compare_url=compare_url(context.get("baseline_run_id"), event.subject_id),
    )


def run_label(context: dict[str, Any], run: dict[str, Any]) -> str | None:
    """The run's own label ("after #30014"), not the detector's verdict some events carry as `label`."""
    label = context.get("run_label") or run.get("label")
    if label:
        return str(label)
    label = context.get("label")
    return str(label) if label and label not in DETECTOR_LABELS else None


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def open_regressions(log: list[tuple[EventLike, BenchmarkChange | None]]) -> list[BenchmarkChange]:
    """The latest regression per series and metric, unless acknowledged, re-baselined or recovered since."""
    open_by_key: dict[tuple[str, str], BenchmarkChange] = {}
    for event, change in log:
        context = event.context or {}
        if event.kind == "regression.acknowledged":
            metrics = acknowledged_metrics(event)
            for key, regression in list(open_by_key.items()):
                if regression.run_id == event.subject_id and (not metrics or regression.metric in metrics):
                    del open_by_key[key]
        elif event.kind == "series.distribution_change":
            # A declared new normal: what regressed before it is the new baseline, not an open problem.
            for key in [key for key in open_by_key if key[0] == context.get("series_key")]:
                del open_by_key[key]
        elif change is not None and change.kind == "regression":
            open_by_key[(change.series_key, change.metric)] = change
        elif change is not None:
            open_by_key.pop((change.series_key, change.metric), None)
    return sorted(open_by_key.values(), key=lambda change: -abs(change.delta_pct or 0))


def acknowledged_metrics(event: EventLike) -> set[str]:
    """The metrics an acknowledgement covers; empty means every metric of the run."""
    context = event.context or {}
    metrics = context.get("metrics")
    if isinstance(metrics, list) and metrics:
        return {str(metric) for metric in metrics}
    single = context.get("metric") or event.field_name
    return {str(single)} if single else set()


def overdue_series(
    upload_times: dict[str, list[datetime]], series_context: dict[str, dict[str, Any]], as_of: datetime
) -> list[OverdueSeries]:
    """Series whose last run is older than twice their median interval between runs."""
    overdue = []
    for series_key, times in upload_times.items():
        times = sorted(times)
        if len(times) < MIN_RUNS_FOR_CADENCE:
            continue
        median = statistics.median(later - earlier for earlier, later in zip(times, times[1:], strict=False))
        overdue_since = times[-1] + OVERDUE_FACTOR * median
        if median <= timedelta(0) or as_of <= overdue_since:
            continue
        context = series_context.get(series_key, {})
        overdue.append(
            OverdueSeries(
                series_key=series_key,
                series_name=series_name(series_key, context),
                hardware=context.get("hardware"),
                model=context.get("model"),
                runs=len(times),
                last_run_at=times[-1],
                median_interval_hours=round(median.total_seconds() / 3600, 1),
                overdue_since=overdue_since,
                trend_url=trend_url(series_key),
            )
        )
    return sorted(overdue, key=lambda series: series.overdue_since)
