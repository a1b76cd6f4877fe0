"""Builds a week's review from change events and tracked refs, without touching the database.

The rules (documented in docs/review.md):
- only events with `occurred_at < as_of` are read, where `as_of` is the week's end for a past week and
  the present for the current week ("so far"); later events never change a past week;
- a past week reads a ref's state and last activity from its `ref.*` events and its creation/close/merge
  dates, never from its current row, so a later sync cannot rewrite it; the current week also trusts the
  ref's live state and `updated_at` from the last sync.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.review import attention
from app.review.benchmark_review import CLOSING_KINDS, benchmark_change, open_regressions, overdue_series
from app.review.history import (
    FAILING,
    RULE_FAILS,
    EventLike,
    History,
    as_text,
    page_slug,
    page_url,
    parse_time,
    ref_url,
    rule_outcome,
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
    PageReview,
    RefActivity,
    RuleChange,
    SignoffInfo,
    StatusChange,
    WeekReview,
)
from app.review.stale_refs import LinkLike, RefLike, stale_refs
from app.review.weeks import IsoWeek


@dataclass
class _WeekEvents:
    """What happened inside the week, collected while replaying."""

    status_changes: list[tuple[EventLike, Any]]
    health_changes: list[EventLike]
    new_failures: list[tuple[EventLike, Any]]
    rule_changes: list[RuleChange]
    rule_new_failures: list[RuleChange]
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

    week_start = week.start
    for event in events:
        if event.occurred_at >= as_of:
            break
        in_week = event.occurred_at >= week_start
        if in_week and health_at_start is None:
            health_at_start = {page_id: page.health for page_id, page in history.pages.items()}
        history.apply(event)
        if event.kind in ("run.regression", "run.improvement"):
            change = benchmark_change(event, history)
            benchmark_log.append((event, change))
            if in_week and change is not None:
                (collected.regressions if change.kind == "regression" else collected.improvements).append(
                    change
                )
        elif event.kind in CLOSING_KINDS:
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
    stale = stale_refs(
        history, refs, links, as_of=as_of, live=not complete, stale_after_days=stale_after_days
    )
    # Still failing at the end, judged by cell and combination: a re-import gives them new ids.
    failing_cells = {e.cell for e in history.entries.values() if e.status == FAILING and not e.removed}
    failing_combinations = {
        (r.backend_a, r.backend_b, r.scope)
        for r in history.rules.values()
        if r.outcome == RULE_FAILS and not r.removed
    }
    # One item per cell or combination: the latest time it started failing this week.
    new_failures = list(
        {
            entry.cell: (event, entry)
            for event, entry in collected.new_failures
            if entry.cell in failing_cells
        }.values()
    )
    rule_failures = list(
        {
            (change.backend_a, change.backend_b, change.scope): change
            for change in collected.rule_new_failures
            if (change.backend_a, change.backend_b, change.scope) in failing_combinations
        }.values()
    )
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
    if kind == "entry.status_changed" and event.subject_id is not None:
        entry = history.entries[event.subject_id]
        collected.status_changes.append((event, entry))
        if as_text(event.new_value) == FAILING and as_text(event.old_value) != FAILING:
            collected.new_failures.append((event, entry))
    elif kind == "entry.added" and event.subject_id is not None:
        entry = history.entries[event.subject_id]
        if entry.status == FAILING and entry.status_before_added != FAILING:
            collected.new_failures.append((event, entry))
    elif kind == "page.health_changed":
        collected.health_changes.append(event)
    elif kind.startswith("rule.") and event.subject_id is not None:
        change = _rule_change(event, history)
        if change.change == "new_failure":
            collected.rule_new_failures.append(change)
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


def _rule_change(event: EventLike, history: History) -> RuleChange:
    rule = history.rules[event.subject_id]
    context = event.context or {}
    new = None if event.kind == "rule.removed" else rule_outcome(event, new=True)
    old = rule_outcome(event, new=False) if event.kind != "rule.added" else rule.outcome_before_added
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
                imported_at=page.imported_at if page else None,
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
        open_regressions=open_regressions(log),
        overdue=overdue_series(upload_times, series_context, as_of),
    )


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
