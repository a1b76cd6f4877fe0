"""The review as Markdown that reads well pasted into a GitHub issue or chat: sections, tables, links."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from app.review.attention import format_delta, format_hours
from app.review.schema import ATTENTION_LABELS, REF_ACTIONS, BenchmarkChange, RuleChange, WeekReview

ACTION_LABELS = {
    "opened": "opened",
    "merged": "merged",
    "closed": "closed",
    "reopened": "reopened",
    "ready_for_review": "ready for review",
    "converted_to_draft": "back to draft",
}


def render_review_markdown(review: WeekReview, *, base_url: str) -> str:
    """Renders `review`; relative links become absolute under `base_url` so they work where pasted."""
    base = base_url.rstrip("/")
    lines: list[str] = [f"# Weekly health review · {review.week}", "", _period(review), ""]
    if review.signoff:
        notes = f": {_inline(review.signoff.notes)}" if review.signoff.notes else ""
        lines += [f"**Signed off** by {review.signoff.actor} on {_time(review.signoff.signed_at)}{notes}", ""]
    else:
        lines += ["_Not signed off yet._", ""]
    lines += _attention(review, base)
    lines += _pages(review, base)
    lines += _github(review, base)
    lines += _benchmarks(review, base)
    lines += _compatibility(review)
    lines.append(f"[Open this review in statusboard]({base}/review/{review.week})")
    return "\n".join(lines).rstrip() + "\n"


def _period(review: WeekReview) -> str:
    last_day = review.end - timedelta(days=1)
    span = f"{review.start:%Y-%m-%d} to {last_day:%Y-%m-%d} (UTC)"
    state = "complete week" if review.complete else f"so far, as of {_time(review.as_of)}"
    return f"{span} · {state} · {review.event_count} change events"


def _attention(review: WeekReview, base: str) -> list[str]:
    lines = ["## Needs attention", ""]
    if not review.needs_attention:
        return [*lines, "Nothing needs attention.", ""]
    rows = [
        [str(number), ATTENTION_LABELS[item.category], _link(item.title, item.url, base), _cell(item.detail)]
        for number, item in enumerate(review.needs_attention, start=1)
    ]
    return [*lines, *_table(["#", "Kind", "What", "Details"], rows), ""]


def _pages(review: WeekReview, base: str) -> list[str]:
    lines = ["## Status pages", ""]
    if not review.pages:
        return [*lines, "No status pages yet.", ""]
    rows = [
        [
            _link(page.title, page.url, base) + (" (new)" if _new_in(review, page.imported_at) else ""),
            page.health_at_start or "–",
            _health_now(page.health_at_start, page.health_now),
            str(page.status_change_count),
        ]
        for page in review.pages
    ]
    now_label = "At week end" if review.complete else "Now"
    lines += [*_table(["Page", "At week start", now_label, "Status changes"], rows), ""]
    for page in review.pages:
        if not page.components and not page.health_changes:
            continue
        lines += [f"### {page.title}", ""]
        for change in page.health_changes:
            why = f" ({_inline(change.reason)})" if change.reason else ""
            lines.append(
                f"- Health {change.old_health or '–'} → **{change.new_health}** by {change.actor}, "
                f"{_time(change.occurred_at)}{why}"
            )
        if page.health_changes:
            lines.append("")
        for group in page.components:
            heading = " · ".join(part for part in (group.precision, group.component) if part)
            rows = [
                [
                    _cell(change.backend),
                    f"{change.old_status or '–'} → **{change.new_status}**",
                    change.actor,
                    _time(change.occurred_at),
                    _cell(change.reason or ""),
                ]
                for change in group.changes
            ]
            lines += [f"**{heading}**", "", *_table(["Backend", "Change", "Who", "When", "Why"], rows), ""]
    return lines


def _new_in(review: WeekReview, moment: datetime | None) -> bool:
    return moment is not None and review.start <= moment < review.end


def _health_now(start: str | None, now: str | None) -> str:
    if now is None:
        return "–"
    return f"**{now}**" if start is not None and start != now else now


def _github(review: WeekReview, base: str) -> list[str]:
    github = review.github
    counts = " · ".join(
        f"{ACTION_LABELS[action]} {len(github.activity.get(action, []))}" for action in REF_ACTIONS
    )
    lines = ["## GitHub", "", counts, ""]
    rows = [
        [
            ACTION_LABELS[activity.action],
            _link(f"{activity.repo}#{activity.number}", activity.url, base),
            _cell(activity.title or ""),
            _time(activity.occurred_at),
        ]
        for action in REF_ACTIONS
        for activity in github.activity.get(action, [])
    ]
    if rows:
        lines += [*_table(["Event", "Ref", "Title", "When"], rows), ""]
    lines += [f"**Open refs without activity for {github.stale_after_days}+ days**", ""]
    if not github.stale:
        return [*lines, "None.", ""]
    rows = [
        [
            _link(f"{ref.repo}#{ref.number}", ref.url, base),
            _cell(ref.title or ""),
            f"{ref.idle_days} days",
            _cell(
                ", ".join(cell.label + (f" ({cell.status})" if cell.status else "") for cell in ref.cells)
                or "–"
            ),
        ]
        for ref in github.stale
    ]
    return [*lines, *_table(["Ref", "Title", "Idle", "Linked cells"], rows), ""]


def _benchmarks(review: WeekReview, base: str) -> list[str]:
    benchmarks = review.benchmarks
    lines = ["## Benchmarks", "", f"Runs uploaded: {benchmarks.runs_uploaded}", ""]
    if benchmarks.uploads_by_hardware:
        rows = [
            [_cell(row.hardware), str(row.runs), str(row.series)] for row in benchmarks.uploads_by_hardware
        ]
        lines += [*_table(["Hardware", "Runs", "Series"], rows), ""]
    for title, changes in (
        ("Regressions", benchmarks.regressions),
        ("Improvements", benchmarks.improvements),
    ):
        lines += [f"**{title} detected this week**", ""]
        lines += [*_changes_table(changes, base), ""] if changes else ["None.", ""]
    still_open = [change for change in benchmarks.open_regressions if change not in benchmarks.regressions]
    if still_open:
        lines += ["**Regressions from earlier weeks still open**", "", *_changes_table(still_open, base), ""]
    if benchmarks.overdue:
        rows = [
            [
                _link(series.series_name, series.trend_url, base),
                _time(series.last_run_at),
                format_hours(series.median_interval_hours),
                _time(series.overdue_since),
            ]
            for series in benchmarks.overdue
        ]
        lines += [
            "**Overdue series**",
            "",
            *_table(["Series", "Last run", "Usual interval", "Due by"], rows),
            "",
        ]
    return lines


def _changes_table(changes: Sequence[BenchmarkChange], base: str) -> list[str]:
    rows = []
    for change in changes:
        values = (
            f"{change.baseline:g} → {change.value:g}" if None not in (change.baseline, change.value) else "–"
        )
        links = [_link("trend", change.trend_url, base)]
        if change.compare_url:
            links.append(_link("compare", change.compare_url, base))
        rows.append(
            [
                _cell(change.series_name),
                _cell(change.metric),
                values,
                format_delta(change.delta_pct),
                _cell(change.label or ""),
                " · ".join(links),
            ]
        )
    return _table(["Series", "Metric", "Baseline → value", "Δ", "Label", "Links"], rows)


def _compatibility(review: WeekReview) -> list[str]:
    compatibility = review.compatibility
    lines = ["## Compatibility", ""]
    sections = (
        ("New failures", compatibility.new_failures),
        ("Fixed", compatibility.fixed),
        ("Other rule changes", compatibility.other_changes),
    )
    if not any(changes for _, changes in sections):
        return [*lines, "No rule changed.", ""]
    for title, changes in sections:
        if changes:
            lines += [f"**{title}**", "", *_rules_table(changes), ""]
    return lines


def _rules_table(changes: Iterable[RuleChange]) -> list[str]:
    rows = [
        [
            _cell(f"{change.backend_a} × {change.backend_b}"),
            _cell(change.scope or "–"),
            f"{change.old_outcome or '–'} → {change.new_outcome or 'removed'}",
            _cell(" · ".join(part for part in (change.error, change.issue, change.reason) if part)),
            f"{change.actor}, {_time(change.occurred_at)}",
        ]
        for change in changes
    ]
    return _table(["Combination", "Scope", "Outcome", "Details", "Who, when"], rows)


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def _cell(text: str) -> str:
    """Table cells hold one line, and a `|` inside one would split it."""
    return _inline(text).replace("|", "\\|")


def _inline(text: str) -> str:
    return " ".join(text.split())


def _link(text: str, url: str | None, base: str) -> str:
    label = _cell(text).replace("[", "\\[").replace("]", "\\]")
    if not url:
        return label
    return f"[{label}]({url if url.startswith('http') else base + url})"


def _time(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
