"""Builds a week's review from change events and tracked refs, without touching the database.

The rules (documented in docs/review.md):
- only events with `occurred_at < as_of` are read, where `as_of` is the week's end for a past week and
  the present for the current week ("so far"); later events never change a past week;
- a past week reads a ref's state and last activity from its `ref.*` events and its creation/close/merge
  dates, never from its current row, so a later sync cannot rewrite it; the current week also trusts the
  ref's live state and `updated_at` from the last sync.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from app.review import attention
from app.review.history import (
    FAILING,
    RULE_FAILS,
    EventLike,
    History,
    as_text,
    compare_url,
    page_slug,
    page_url,
    parse_time,
    ref_url,
    rule_outcome,
    trend_url,
)
from app.review.schema import (
    REF_ACTIONS,
    BenchmarkChange,
    BenchmarkReview,
    CompatibilityReview,
    ComponentChanges,
    GitHubReview,
    HardwareUploads,
    HealthChange,
    LinkedCell,
    OverdueSeries,
    PageReview,
    RefActivity,
    RuleChange,
    SignoffInfo,
    StaleRef,
    StatusChange,
    WeekReview,
)
from app.review.weeks import IsoWeek

# The trend pages' rule: three runs (two intervals) before a series has a rhythm it can be late for.
MIN_RUNS_FOR_CADENCE = 3
OVERDUE_FACTOR = 2


class RefLike(Protocol):
    id: int | None
    repo: str
    number: int
    kind: str
    title: str | None
    state: str | None
    merged: bool
    merged_at: datetime | None
    gh_created_at: datetime | None
    gh_updated_at: datetime | None
    gh_closed_at: datetime | None


class LinkLike(Protocol):
    ref_id: int
    target_type: str
    target_id: int
    created_at: datetime


@dataclass
class _WeekEvents:
    """What happened inside the week, collected while replaying."""

    status_changes: list[tuple[EventLike, Any]]
    health_changes: list[EventLike]
    new_failures: list[tuple[EventLike, Any]]
    rule_changes: list[RuleChange]
    rule_new_failures: list[tuple[RuleChange, int]]
    ref_activity: dict[str, list[RefActivity]]
    uploads: list[EventLike]
    regressions: list[BenchmarkChange]
    improvements: list[BenchmarkChange]
    count: int = 0


def compose_review(
    *,
    week: IsoWeek,
    now: datetime,
    events: Iterable[EventLike],
    refs: Sequence[RefLike],
    links: Sequence[LinkLike],
    stale_after_days: int,
    signoff: SignoffInfo | None = None,
) -> WeekReview:
    """Computes the review of `week` from events (oldest first), refs and links, as known at its end."""
    complete = now >= week.end
    as_of = week.end if complete else now
    history = History()
    collected = _WeekEvents([], [], [], [], [], {action: [] for action in REF_ACTIONS}, [], [], [])
    health_at_start: dict[int, str | None] | None = None
    benchmark_log: list[tuple[EventLike, BenchmarkChange | None]] = []
    upload_times: dict[str, list[datetime]] = defaultdict(list)
    series_context: dict[str, dict[str, Any]] = {}

    for event in events:
        if event.occurred_at >= as_of:
            break
        in_week = event.occurred_at >= week.start
        if in_week and health_at_start is None:
            health_at_start = {page_id: page.health for page_id, page in history.pages.items()}
        history.apply(event)
        if event.kind in ("run.regression", "run.improvement"):
            benchmark_log.append((event, _benchmark_change(event, history)))
        elif event.kind == "regression.acknowledged":
            benchmark_log.append((event, None))
        elif event.kind == "run.uploaded":
            series_key = (event.context or {}).get("series_key")
            if series_key:
                # When the benchmark ran, not when it was uploaded: a backfill of old runs keeps its rhythm.
                ran_at = parse_time(event.context.get("run_time")) or event.occurred_at
                upload_times[str(series_key)].append(ran_at)
                series_context[str(series_key)] = event.context
        if in_week:
            _collect(event, history, collected)
    if health_at_start is None:
        health_at_start = {page_id: page.health for page_id, page in history.pages.items()}

    benchmarks = _benchmarks(collected, benchmark_log, upload_times, series_context, as_of)
    compatibility = _compatibility(collected)
    stale = _stale_refs(
        history, refs, links, as_of=as_of, live=not complete, stale_after_days=stale_after_days
    )
    new_failures = [
        (event, entry)
        for event, entry in collected.new_failures
        if entry.status == FAILING and not entry.removed
    ]
    rule_failures = [
        change
        for change, rule_id in collected.rule_new_failures
        if history.rules[rule_id].outcome == RULE_FAILS and not history.rules[rule_id].removed
    ]
    return WeekReview(
        week=week.label,
        start=week.start,
        end=week.end,
        as_of=as_of,
        complete=complete,
        previous_week=week.previous().label,
        next_week=week.next().label if complete else None,
        event_count=collected.count,
        needs_attention=attention.rank(
            new_failures=new_failures,
            rule_failures=rule_failures,
            open_regressions=benchmarks.open_regressions,
            stale_refs=stale,
            overdue=benchmarks.overdue,
            as_of=as_of,
        ),
        pages=_pages(history, collected, health_at_start),
        github=GitHubReview(stale_after_days=stale_after_days, activity=collected.ref_activity, stale=stale),
        benchmarks=benchmarks,
        compatibility=compatibility,
        signoff=signoff,
    )


def _collect(event: EventLike, history: History, collected: _WeekEvents) -> None:
    """Files one in-week event (already applied to `history`) under the section it belongs to."""
    collected.count += 1
    kind = event.kind
    if kind == "entry.status_changed":
        entry = history.entries[event.subject_id]
        collected.status_changes.append((event, entry))
        if as_text(event.new_value) == FAILING and as_text(event.old_value) != FAILING:
            collected.new_failures.append((event, entry))
    elif kind == "entry.added" and event.subject_id is not None:
        entry = history.entries[event.subject_id]
        if entry.status == FAILING:
            collected.new_failures.append((event, entry))
    elif kind == "page.health_changed":
        collected.health_changes.append(event)
    elif kind.startswith("rule.") and event.subject_id is not None:
        change = _rule_change(event, history)
        if change.change == "new_failure":
            collected.rule_new_failures.append((change, event.subject_id))
        collected.rule_changes.append(change)
    elif (
        kind.startswith("ref.") and kind.removeprefix("ref.") in REF_ACTIONS and event.subject_id is not None
    ):
        ref = history.refs[event.subject_id]
        if ref.repo and ref.number:
            collected.ref_activity[kind.removeprefix("ref.")].append(
                RefActivity(
                    occurred_at=event.occurred_at,
                    actor=event.actor,
                    action=kind.removeprefix("ref."),
                    repo=ref.repo,
                    number=int(ref.number),
                    title=ref.title,
                    kind=ref.kind,
                    url=ref_url(ref.repo, int(ref.number), ref.kind),
                )
            )
    elif kind == "run.uploaded":
        collected.uploads.append(event)
    elif kind in ("run.regression", "run.improvement"):
        change = _benchmark_change(event, history)
        if change is not None:
            (collected.regressions if kind == "run.regression" else collected.improvements).append(change)


def _benchmark_change(event: EventLike, history: History) -> BenchmarkChange | None:
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
        metric=str(context.get("metric") or ""),
        baseline=_number(context.get("baseline")),
        value=_number(context.get("value")),
        delta_pct=_number(context.get("delta_pct")),
        label=context.get("label"),
        hardware=context.get("hardware") or run.get("hardware"),
        trend_url=trend_url(str(series_key)),
        compare_url=compare_url(context.get("baseline_run_id"), event.subject_id),
    )


def _number(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _rule_change(event: EventLike, history: History) -> RuleChange:
    rule = history.rules[event.subject_id]
    context = event.context or {}
    new = None if event.kind == "rule.removed" else rule_outcome(event, new=True)
    old = rule_outcome(event, new=False) if event.kind != "rule.added" else None
    if new == RULE_FAILS and old != RULE_FAILS:
        change = "new_failure"
    elif old == RULE_FAILS and new == "works":
        change = "fixed"
    else:
        change = event.kind.removeprefix("rule.")
    return RuleChange(
        occurred_at=event.occurred_at,
        actor=event.actor,
        change=change,
        backend_a=rule.backend_a,
        backend_b=rule.backend_b,
        scope=rule.scope,
        old_outcome=old,
        new_outcome=new,
        issue=context.get("issue"),
        error=context.get("error"),
        reason=event.reason,
    )


def _pages(
    history: History, collected: _WeekEvents, health_at_start: dict[int, str | None]
) -> list[PageReview]:
    reviews: dict[int | str, PageReview] = {}

    def review_for(page_id: int | None, slug: str | None) -> PageReview:
        page = history.page_for(page_id, slug)
        key: int | str = page.page_id if page else (slug or "unknown")
        if key not in reviews:
            name = page.slug if page else (slug or "unknown")
            reviews[key] = PageReview(
                page_id=page.page_id if page else page_id,
                slug=name,
                title=page.title if page else name,
                url=page_url(name),
                health_at_start=health_at_start.get(page.page_id) if page else None,
                health_now=page.health if page else None,
            )
        return reviews[key]

    for page_id, page in history.pages.items():
        review_for(page_id, page.slug)
    for event in collected.health_changes:
        review = review_for(event.subject_id if event.subject_type == "page" else event.page_id, None)
        review.health_changes.append(
            HealthChange(
                occurred_at=event.occurred_at,
                actor=event.actor,
                old_health=as_text(event.old_value),
                new_health=as_text(event.new_value),
                reason=event.reason,
            )
        )
    for event, entry in collected.status_changes:
        review = review_for(entry.page_id, page_slug(event.context or {}) or entry.slug)
        group = next(
            (
                g
                for g in review.components
                if (g.precision, g.component) == (entry.precision, entry.component)
            ),
            None,
        )
        if group is None:
            group = ComponentChanges(precision=entry.precision, component=entry.component)
            review.components.append(group)
        group.changes.append(
            StatusChange(
                occurred_at=event.occurred_at,
                actor=event.actor,
                precision=entry.precision,
                component=entry.component,
                backend=entry.backend,
                group=entry.group,
                old_status=as_text(event.old_value),
                new_status=as_text(event.new_value),
                reason=event.reason,
            )
        )
    for review in reviews.values():
        review.components.sort(key=lambda g: (g.precision or "", g.component))
    return sorted(reviews.values(), key=lambda review: (review.title.lower(), review.slug))


def _benchmarks(
    collected: _WeekEvents,
    log: list[tuple[EventLike, BenchmarkChange | None]],
    upload_times: dict[str, list[datetime]],
    series_context: dict[str, dict[str, Any]],
    as_of: datetime,
) -> BenchmarkReview:
    by_hardware: dict[str, list[str]] = defaultdict(list)
    for event in collected.uploads:
        context = event.context or {}
        by_hardware[str(context.get("hardware") or "unknown")].append(str(context.get("series_key") or ""))
    uploads = [
        HardwareUploads(hardware=hardware, runs=len(keys), series=len(set(keys)))
        for hardware, keys in sorted(by_hardware.items())
    ]
    return BenchmarkReview(
        runs_uploaded=len(collected.uploads),
        uploads_by_hardware=uploads,
        regressions=collected.regressions,
        improvements=collected.improvements,
        open_regressions=_open_regressions(log),
        overdue=_overdue_series(upload_times, series_context, as_of),
    )


def _open_regressions(log: list[tuple[EventLike, BenchmarkChange | None]]) -> list[BenchmarkChange]:
    """The latest regression per series and metric, unless acknowledged or followed by an improvement."""
    open_by_key: dict[tuple[str, str], BenchmarkChange] = {}
    for event, change in log:
        if event.kind == "regression.acknowledged":
            metric = (event.context or {}).get("metric")
            for key, regression in list(open_by_key.items()):
                if regression.run_id == event.subject_id and (not metric or metric == regression.metric):
                    del open_by_key[key]
        elif change is not None and change.kind == "regression":
            open_by_key[(change.series_key, change.metric)] = change
        elif change is not None:
            open_by_key.pop((change.series_key, change.metric), None)
    return sorted(open_by_key.values(), key=lambda change: -abs(change.delta_pct or 0))


def _overdue_series(
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


def _compatibility(collected: _WeekEvents) -> CompatibilityReview:
    review = CompatibilityReview()
    for change in collected.rule_changes:
        if change.change == "new_failure":
            review.new_failures.append(change)
        elif change.change == "fixed":
            review.fixed.append(change)
        else:
            review.other_changes.append(change)
    return review


def _stale_refs(
    history: History,
    refs: Sequence[RefLike],
    links: Sequence[LinkLike],
    *,
    as_of: datetime,
    live: bool,
    stale_after_days: int,
) -> list[StaleRef]:
    """Open refs whose last known activity is at least `stale_after_days` before `as_of`."""
    cells_by_ref = _cells_at(history, links, as_of)
    threshold = timedelta(days=stale_after_days)
    stale = []
    for ref in refs:
        if ref.id is None:
            continue
        known = history.refs.get(ref.id)
        is_open, last_activity = _ref_at(ref, known, as_of=as_of, live=live)
        if not is_open or last_activity is None or as_of - last_activity < threshold:
            continue
        cells = cells_by_ref.get(ref.id, [])
        stale.append(
            StaleRef(
                ref_id=ref.id,
                repo=ref.repo,
                number=ref.number,
                title=ref.title or (known.title if known else None),
                kind=ref.kind,
                url=ref_url(ref.repo, ref.number, ref.kind if ref.kind != "unknown" else "pull"),
                last_activity_at=last_activity,
                idle_days=(as_of - last_activity).days,
                blocks_failing_entry=any(
                    cell.target_type == "entry" and cell.status == FAILING for cell in cells
                ),
                cells=cells,
            )
        )
    return sorted(stale, key=lambda ref: (not ref.blocks_failing_entry, ref.last_activity_at))


def _ref_at(ref: RefLike, known: Any, *, as_of: datetime, live: bool) -> tuple[bool, datetime | None]:
    """Whether a ref was open at `as_of`, and its last activity known then."""
    moments = [known.last_activity_at] if known is not None and known.last_activity_at else []
    if ref.gh_created_at is not None and ref.gh_created_at < as_of:
        moments.append(ref.gh_created_at)
    if live and ref.state is not None:
        if ref.gh_updated_at is not None:
            moments.append(ref.gh_updated_at)
        is_open = ref.state == "open" and not ref.merged
    elif known is not None and known.state is not None:
        is_open = known.state == "open"
    elif ref.gh_created_at is not None and ref.gh_created_at < as_of:
        ended = [moment for moment in (ref.gh_closed_at, ref.merged_at) if moment is not None]
        is_open = not any(moment < as_of for moment in ended)
    else:
        return False, None
    return is_open, max(moments) if moments else None


def _cells_at(history: History, links: Sequence[LinkLike], as_of: datetime) -> dict[int, list[LinkedCell]]:
    """The cells each ref was linked to at `as_of`: link rows created before then, corrected by events."""
    linked: dict[tuple[int, str, int], bool] = {}
    for link in links:
        if link.created_at < as_of:
            linked[(link.ref_id, link.target_type, link.target_id)] = True
    for key, (is_linked, moment) in history.link_events.items():
        row = next((link for link in links if (link.ref_id, link.target_type, link.target_id) == key), None)
        if row is None or moment >= row.created_at:
            linked[key] = is_linked
    cells: dict[int, list[LinkedCell]] = defaultdict(list)
    for (ref_id, target_type, target_id), is_linked in sorted(linked.items()):
        if is_linked:
            cells[ref_id].append(_cell(history, target_type, target_id))
    return cells


def _cell(history: History, target_type: str, target_id: int) -> LinkedCell:
    """Names a linked cell from what the events said about it."""
    if target_type == "entry" and target_id in history.entries:
        entry = history.entries[target_id]
        status = None if entry.removed else entry.status
        return LinkedCell(
            target_type, target_id, entry.label, page_url(entry.slug) if entry.slug else None, status
        )
    if target_type == "page" and target_id in history.pages:
        page = history.pages[target_id]
        return LinkedCell(target_type, target_id, page.title, page_url(page.slug), page.health)
    if target_type == "rule" and target_id in history.rules:
        rule = history.rules[target_id]
        return LinkedCell(target_type, target_id, rule.label, None, rule.outcome)
    if target_type == "row" and target_id in history.rows:
        row = history.rows[target_id]
        slug = page_slug(row)
        where = " · ".join(str(row[name]) for name in ("precision", "component") if row.get(name))
        label = where + (f" on {slug}" if slug else "")
        return LinkedCell(
            target_type, target_id, label or f"row {target_id}", page_url(slug) if slug else None
        )
    if target_type == "run" and target_id in history.runs:
        series_key = history.runs[target_id].get("series_key")
        url = trend_url(str(series_key)) if series_key else None
        return LinkedCell(target_type, target_id, f"run {target_id} ({series_key})", url)
    return LinkedCell(target_type, target_id, f"{target_type} {target_id}", None)
