"""The weekly review as plain data: what the page, the JSON API, the Markdown export and the CLI share.

Dataclasses rather than table models: a review is computed, never stored (only its sign-off is).
FastAPI serialises them directly, so the JSON answer and its OpenAPI schema follow these definitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

# The order of the "needs attention" summary: the first category is the most urgent.
ATTENTION_CATEGORIES = ("new_failure", "open_regression", "stale_blocking_ref", "overdue_series")
ATTENTION_LABELS = {
    "new_failure": "New failure",
    "open_regression": "Open regression",
    "stale_blocking_ref": "Stale ref blocking a failing entry",
    "overdue_series": "Overdue benchmark series",
}
# GitHub lifecycle actions the review reports, in the order it shows them.
REF_ACTIONS = ("opened", "merged", "closed", "reopened", "ready_for_review", "converted_to_draft")


@dataclass
class AttentionItem:
    category: str
    title: str
    detail: str
    url: str | None = None
    occurred_at: datetime | None = None


@dataclass
class StatusChange:
    occurred_at: datetime
    actor: str
    precision: str | None
    component: str
    backend: str
    group: str | None
    old_status: str | None
    new_status: str | None
    reason: str | None


@dataclass
class ComponentChanges:
    precision: str | None
    component: str
    changes: list[StatusChange] = field(default_factory=list)


@dataclass
class HealthChange:
    occurred_at: datetime
    actor: str
    old_health: str | None
    new_health: str | None
    reason: str | None


@dataclass
class PageReview:
    page_id: int | None
    slug: str
    title: str
    url: str
    health_at_start: str | None
    health_now: str | None
    imported_at: datetime | None = None
    health_changes: list[HealthChange] = field(default_factory=list)
    components: list[ComponentChanges] = field(default_factory=list)

    @property
    def status_change_count(self) -> int:
        return sum(len(group.changes) for group in self.components)


@dataclass
class RefActivity:
    occurred_at: datetime
    actor: str
    action: str
    repo: str
    number: int
    title: str | None
    kind: str | None
    url: str


@dataclass
class LinkedCell:
    target_type: str
    target_id: int
    label: str
    url: str | None
    status: str | None = None


@dataclass
class StaleRef:
    ref_id: int
    repo: str
    number: int
    title: str | None
    kind: str | None
    url: str
    last_activity_at: datetime
    idle_days: int
    blocks_failing_entry: bool
    cells: list[LinkedCell] = field(default_factory=list)


@dataclass
class GitHubReview:
    stale_after_days: int
    activity: dict[str, list[RefActivity]] = field(default_factory=dict)
    stale: list[StaleRef] = field(default_factory=list)


@dataclass
class HardwareUploads:
    hardware: str
    runs: int
    series: int


@dataclass
class BenchmarkChange:
    occurred_at: datetime
    kind: str
    run_id: int | None
    series_key: str
    series_name: str
    metric: str
    baseline: float | None
    value: float | None
    delta_pct: float | None
    label: str | None
    hardware: str | None
    trend_url: str
    compare_url: str | None


@dataclass
class OverdueSeries:
    series_key: str
    series_name: str
    hardware: str | None
    model: str | None
    runs: int
    last_run_at: datetime
    median_interval_hours: float
    overdue_since: datetime
    trend_url: str


@dataclass
class BenchmarkReview:
    runs_uploaded: int = 0
    uploads_by_hardware: list[HardwareUploads] = field(default_factory=list)
    regressions: list[BenchmarkChange] = field(default_factory=list)
    improvements: list[BenchmarkChange] = field(default_factory=list)
    open_regressions: list[BenchmarkChange] = field(default_factory=list)
    overdue: list[OverdueSeries] = field(default_factory=list)


@dataclass
class RuleChange:
    occurred_at: datetime
    actor: str
    change: str
    backend_a: str
    backend_b: str
    scope: str | None
    old_outcome: str | None
    new_outcome: str | None
    issue: str | None
    error: str | None
    reason: str | None


@dataclass
class CompatibilityReview:
    new_failures: list[RuleChange] = field(default_factory=list)
    fixed: list[RuleChange] = field(default_factory=list)
    other_changes: list[RuleChange] = field(default_factory=list)


@dataclass
class SignoffInfo:
    week: str
    actor: str
    signed_at: datetime
    notes: str


@dataclass
class WeekReview:
    week: str
    start: datetime
    end: datetime
    # Only events before `as_of` count: the week's end for a past week, the present for the current one.
    as_of: datetime
    complete: bool
    previous_week: str
    next_week: str | None
    event_count: int
    needs_attention: list[AttentionItem] = field(default_factory=list)
    pages: list[PageReview] = field(default_factory=list)
    github: GitHubReview = field(default_factory=lambda: GitHubReview(stale_after_days=14))
    benchmarks: BenchmarkReview = field(default_factory=BenchmarkReview)
    compatibility: CompatibilityReview = field(default_factory=CompatibilityReview)
    signoff: SignoffInfo | None = None

    @property
    def last_day(self) -> date:
        """The Sunday that closes the week (its `end` is the next Monday, exclusive)."""
        return (self.end - timedelta(days=1)).date()
