"""The "needs attention" summary: the week's problems, most urgent category first."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from app.review.history import page_url
from app.review.schema import AttentionItem, BenchmarkChange, OverdueSeries, RuleChange, StaleRef


def rank(
    *,
    new_failures: Sequence[tuple[Any, Any]],
    rule_failures: Sequence[RuleChange],
    open_regressions: Sequence[BenchmarkChange],
    stale_refs: Sequence[StaleRef],
    overdue: Sequence[OverdueSeries],
    as_of: datetime,
) -> list[AttentionItem]:
    """Lists new failures, open regressions, stale refs blocking failing entries, then overdue series."""
    items: list[AttentionItem] = []
    for event, entry in sorted(new_failures, key=lambda pair: pair[0].occurred_at, reverse=True):
        was = f"was {event.old_value}" if event.kind == "entry.status_changed" else "added as failing"
        detail = f"{was} · {event.actor}" + (f" · {event.reason}" if event.reason else "")
        items.append(
            AttentionItem(
                category="new_failure",
                title=f"{entry.label} is failing",
                detail=detail,
                url=page_url(entry.slug) if entry.slug else None,
                occurred_at=event.occurred_at,
            )
        )
    for change in sorted(rule_failures, key=lambda change: change.occurred_at, reverse=True):
        scope = f" ({change.scope})" if change.scope else ""
        detail = " · ".join(part for part in (change.error, change.issue, change.actor) if part)
        items.append(
            AttentionItem(
                category="new_failure",
                title=f"{change.backend_a} × {change.backend_b}{scope} fails",
                detail=detail,
                url=None,
                occurred_at=change.occurred_at,
            )
        )
    for regression in open_regressions:
        items.append(
            AttentionItem(
                category="open_regression",
                title=f"{regression.metric} {format_delta(regression.delta_pct)} on {regression.series_name}",
                detail=_values(regression),
                url=regression.compare_url or regression.trend_url,
                occurred_at=regression.occurred_at,
            )
        )
    for ref in stale_refs:
        if not ref.blocks_failing_entry:
            continue
        failing = [
            cell.label for cell in ref.cells if cell.target_type == "entry" and cell.status == "failing"
        ]
        items.append(
            AttentionItem(
                category="stale_blocking_ref",
                title=f"{ref.repo}#{ref.number}" + (f" {ref.title}" if ref.title else ""),
                detail=f"no activity for {ref.idle_days} days · blocks {', '.join(failing)}",
                url=ref.url,
                occurred_at=ref.last_activity_at,
            )
        )
    for series in overdue:
        late_days = (as_of - series.overdue_since).total_seconds() / 86400
        items.append(
            AttentionItem(
                category="overdue_series",
                title=series.series_name,
                detail=(
                    f"last run {series.last_run_at:%Y-%m-%d %H:%M} UTC, usually every "
                    f"{format_hours(series.median_interval_hours)}; overdue for {late_days:.1f} days"
                ),
                url=series.trend_url,
                occurred_at=series.last_run_at,
            )
        )
    return items


def format_delta(delta_pct: float | None) -> str:
    """`-20.3%`, `+6.5%`, or `?` when the detector gave no delta."""
    return "?" if delta_pct is None else f"{delta_pct:+.1f}%"


def format_hours(hours: float) -> str:
    return f"{hours / 24:.1f} days" if hours >= 48 else f"{hours:.1f} h"


def _values(change: BenchmarkChange) -> str:
    parts = []
    if change.baseline is not None and change.value is not None:
        parts.append(f"{change.baseline:g} → {change.value:g}")
    if change.label:
        parts.append(change.label)
    if change.hardware:
        parts.append(change.hardware)
    return " · ".join(parts)
