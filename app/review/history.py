"""Replaying change events: the state of pages, entries, rules, refs and links as known at an instant.

Everything here reads only the events it is given (oldest first) plus the immutable facts of a ref
(its creation, close and merge dates), so replaying the same events gives the same state forever.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from urllib.parse import quote, urlencode

from app.benchmarks.context import series_label

FAILING = "failing"
HEALTH_LEVELS = ("ok", "degraded", "broken")
RULE_FAILS = "fails"
REF_OPEN_ACTIONS = {"opened", "reopened", "ready_for_review", "converted_to_draft"}


class EventLike(Protocol):
    id: int | None
    occurred_at: datetime
    actor: str
    kind: str
    subject_type: str
    subject_id: int | None
    page_id: int | None
    field_name: str | None
    old_value: Any
    new_value: Any
    reason: str | None
    context: dict[str, Any]


def page_slug(context: Mapping[str, Any]) -> str | None:
    """The page slug an event names; `slug` is the documented key, `page_slug` is accepted too."""
    value = context.get("slug") or context.get("page_slug")
    return str(value) if value else None


def page_url(slug: str) -> str:
    return f"/pages/{quote(slug)}"


def series_name(series_key: str, context: dict) -> str:
    """A series as people say it ("RTX PRO 6000 · Nemotron-3-Super · fp4 · 06aa023f"), not as a hash.

    Events carry only part of a series' context, so the key's start tells apart series they name alike.
    """
    return " · ".join(part for part in (series_label(context), series_key[:8]) if part)


def trend_url(series_key: str) -> str:
    return "/trends?" + urlencode({"series": series_key})


def compare_url(baseline_run_id: Any, run_id: Any) -> str | None:
    if baseline_run_id in (None, "") or run_id in (None, ""):
        return None
    return "/compare?" + urlencode({"a": baseline_run_id, "b": run_id})


def ref_url(repo: str, number: int, kind: str | None) -> str:
    path = "pull" if kind == "pull" else "issues"
    return f"https://github.com/{repo}/{path}/{number}"


def parse_time(value: Any) -> datetime | None:
    """Reads an ISO 8601 timestamp from an event's context; None when absent or unreadable."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else None


def as_text(value: Any) -> str | None:
    """A status/outcome/health as a string: events may carry it bare or as {"status": ...}."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in ("status", "outcome", "health", "health_level", "level"):
            if value.get(key) is not None:
                return str(value[key])
        return None
    return str(value)


@dataclass
class PageState:
    page_id: int
    slug: str
    title: str
    health: str | None = None
    imported_at: datetime | None = None


@dataclass
class EntryState:
    entry_id: int
    page_id: int | None
    slug: str | None
    precision: str | None
    component: str
    backend: str
    group: str | None
    status: str | None
    removed: bool = False
    # The status the same cell (page, precision, component, backend) had before this entry was added:
    # a re-import that replaces entries must not report a long-failing backend as a new failure.
    status_before_added: str | None = None

    @property
    def cell(self) -> tuple[str | None, str | None, str, str]:
        return (self.slug, self.precision, self.component, self.backend)

    @property
    def label(self) -> str:
        where = " · ".join(part for part in (self.precision, self.component) if part)
        return f"{self.backend} ({where})" + (f" on {self.slug}" if self.slug else "")


@dataclass
class RuleState:
    rule_id: int
    backend_a: str
    backend_b: str
    scope: str | None
    outcome: str | None
    removed: bool = False
    # The outcome a rule for the same combination and scope had before this one was added (see EntryState).
    outcome_before_added: str | None = None

    @property
    def label(self) -> str:
        return f"{self.backend_a} × {self.backend_b}" + (f" ({self.scope})" if self.scope else "")


@dataclass
class RefState:
    ref_id: int
    repo: str | None = None
    number: int | None = None
    title: str | None = None
    kind: str | None = None
    state: str | None = None
    last_activity_at: datetime | None = None


class History:
    """The state of everything the events describe, advanced event by event."""

    def __init__(self) -> None:
        self.pages: dict[int, PageState] = {}
        self.entries: dict[int, EntryState] = {}
        self.rules: dict[int, RuleState] = {}
        self.rows: dict[int, dict[str, Any]] = {}
        self.sections: dict[int, dict[str, Any]] = {}
        self.runs: dict[int, dict[str, Any]] = {}
        self.cell_status: dict[tuple[str | None, str | None, str, str], str | None] = {}
        self.combination_outcome: dict[tuple[str, str, str | None], str | None] = {}
        self.refs: dict[int, RefState] = {}
        # (ref_id, target_type, target_id) -> linked? as the latest ref.linked/ref.unlinked said.
        self.link_events: dict[tuple[int, str, int], tuple[bool, datetime]] = {}

    def apply_all(self, events: Iterable[EventLike]) -> None:
        for event in events:
            self.apply(event)

    def apply(self, event: EventLike) -> None:
        """Advances the state by one event; unknown kinds are ignored."""
        kind, context = event.kind, event.context or {}
        if kind.startswith("page."):
            self._apply_page(event, context)
        elif kind.startswith("entry."):
            self._apply_entry(event, context)
        elif kind.startswith("rule."):
            self._apply_rule(event, context)
        elif kind.startswith("row.") and event.subject_id is not None:
            self.rows.setdefault(event.subject_id, {}).update({**context, "page_id": event.page_id})
        elif kind == "run.uploaded" and event.subject_id is not None:
            self.runs[event.subject_id] = dict(context)
        elif kind in ("ref.linked", "ref.unlinked"):
            ref_id = context.get("ref_id")
            if isinstance(ref_id, int) and event.subject_id is not None:
                key = (ref_id, event.subject_type, event.subject_id)
                self.link_events[key] = (kind == "ref.linked", event.occurred_at)
        elif kind.startswith("ref.") and event.subject_id is not None:
            self._apply_ref(event, context)

    def _apply_page(self, event: EventLike, context: Mapping[str, Any]) -> None:
        page_id = event.subject_id if event.subject_type == "page" else event.page_id
        if page_id is None:
            return
        page = self.pages.get(page_id)
        slug = page_slug(context)
        if page is None:
            page = PageState(
                page_id=page_id, slug=slug or f"page-{page_id}", title=context.get("title") or ""
            )
            self.pages[page_id] = page
        if slug:
            page.slug = slug
        if context.get("title"):
            page.title = str(context["title"])
        if event.kind == "page.imported":
            page.imported_at = page.imported_at or event.occurred_at
            page.health = _health(context.get("health")) or _health(event.new_value) or page.health
            self._apply_snapshot(page, context.get("initial_entries") or [])
        elif event.kind == "page.health_changed":
            page.health = as_text(event.new_value)
        elif event.kind == "page.updated" and event.field_name == "title" and event.new_value:
            page.title = str(event.new_value)
        if not page.title:
            page.title = page.slug

    def _apply_snapshot(self, page: PageState, entries: list[Any]) -> None:
        """A first import writes one event carrying its entries, instead of one `entry.added` each."""
        for item in entries:
            if not isinstance(item, dict) or not isinstance(item.get("id"), int):
                continue
            entry = EntryState(
                entry_id=item["id"],
                page_id=page.page_id,
                slug=page.slug,
                precision=_str_or_none(item.get("precision")),
                component=str(item.get("component") or ""),
                backend=str(item.get("backend") or ""),
                group=_str_or_none(item.get("group")),
                status=as_text(item.get("status")),
            )
            self.entries[entry.entry_id] = entry
            self.cell_status[entry.cell] = entry.status
            cell = {"slug": page.slug, "precision": entry.precision, "component": entry.component}
            if isinstance(item.get("row_id"), int):
                self.rows.setdefault(item["row_id"], {}).update({**cell, "page_id": page.page_id})
            if isinstance(item.get("section_id"), int):
                self.sections[item["section_id"]] = {"slug": page.slug, "precision": entry.precision}

    def _apply_entry(self, event: EventLike, context: Mapping[str, Any]) -> None:
        if event.subject_id is None:
            return
        entry = self.entries.get(event.subject_id)
        if entry is None:
            entry = EntryState(
                entry_id=event.subject_id,
                page_id=event.page_id,
                slug=None,
                precision=None,
                component="",
                backend="",
                group=None,
                status=None,
            )
            self.entries[event.subject_id] = entry
        entry.page_id = event.page_id or entry.page_id
        entry.slug = page_slug(context) or entry.slug
        for name in ("precision", "component", "backend", "group"):
            if context.get(name) is not None:
                setattr(entry, name, str(context[name]))
        if event.kind == "entry.added":
            entry.status_before_added = self.cell_status.get(entry.cell)
            entry.status = as_text(context.get("status")) or as_text(event.new_value) or entry.status
            entry.removed = False
        elif event.kind == "entry.status_changed":
            entry.status = as_text(event.new_value)
        elif event.kind == "entry.removed":
            entry.removed = True
            return
        self.cell_status[entry.cell] = entry.status

    def _apply_rule(self, event: EventLike, context: Mapping[str, Any]) -> None:
        if event.subject_id is None:
            return
        rule = self.rules.get(event.subject_id)
        if rule is None:
            rule = RuleState(event.subject_id, backend_a="", backend_b="", scope=None, outcome=None)
            self.rules[event.subject_id] = rule
        for name in ("backend_a", "backend_b", "scope"):
            if context.get(name) is not None:
                setattr(rule, name, str(context[name]))
        combination = (rule.backend_a, rule.backend_b, rule.scope)
        if event.kind == "rule.removed":
            rule.removed = True
            return
        if event.kind == "rule.added":
            rule.outcome_before_added = self.combination_outcome.get(combination)
        rule.outcome = rule_outcome(event, new=True) or rule.outcome
        rule.removed = False
        self.combination_outcome[combination] = rule.outcome

    def _apply_ref(self, event: EventLike, context: Mapping[str, Any]) -> None:
        ref = self.refs.setdefault(event.subject_id, RefState(ref_id=event.subject_id))
        ref.repo = context.get("repo") or ref.repo
        ref.number = context.get("number") or ref.number
        ref.title = context.get("title") or ref.title
        ref.kind = context.get("kind") or ref.kind
        action = event.kind.removeprefix("ref.")
        if action in REF_OPEN_ACTIONS:
            ref.state = "open"
        elif action in ("merged", "closed"):
            ref.state = action
        moments = [event.occurred_at, parse_time(context.get("updated_at"))]
        known = [moment for moment in moments if moment is not None and moment <= event.occurred_at]
        if ref.last_activity_at is not None:
            known.append(ref.last_activity_at)
        ref.last_activity_at = max(known)

    def page_for(self, page_id: int | None, slug: str | None) -> PageState | None:
        if page_id is not None and page_id in self.pages:
            return self.pages[page_id]
        return next((page for page in self.pages.values() if slug and page.slug == slug), None)


def _health(value: Any) -> str | None:
    """A health level, or None: `page.imported` may carry the page title in new_value."""
    text = as_text(value)
    return text if text in HEALTH_LEVELS else None


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def rule_outcome(event: EventLike, *, new: bool) -> str | None:
    """A rule event's outcome: new_value/old_value, or `outcome`/`old_outcome` in its context."""
    context = event.context or {}
    if new:
        return as_text(event.new_value) or as_text(context.get("outcome"))
    return as_text(event.old_value) or as_text(context.get("old_outcome"))
