"""What the API accepts and answers; table rows never leave as they are stored."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import SQLModel

from app.github_refs.models import GitHubRef, GitHubRefLink
from app.status_pages.models import CompatRule
from app.status_pages.service import LoadedPage, PageSummary


class RefPublic(SQLModel):
    repo: str
    number: int
    kind: str
    title: str | None
    state: str
    url: str
    text_as_written: str | None


class EntryPublic(SQLModel):
    id: int
    name: str
    group: str | None
    status: str
    is_default: bool
    is_fastest: bool
    is_fallback: bool
    listed: bool
    invocation: str
    notes: str
    refs: list[RefPublic]


class RowPublic(SQLModel):
    id: int
    component: str
    fastest_text: str
    invocation: str
    notes: str
    extra_cells: dict[str, str]
    source_refs: list[dict[str, Any]]
    refs: list[RefPublic]
    entries: list[EntryPublic]


class SectionPublic(SQLModel):
    precision: str
    heading: str
    columns: list[str]
    rows: list[RowPublic]


class RecipePublic(SQLModel):
    title: str
    body: str
    blocks: list[dict[str, Any]]


class RulePublic(SQLModel):
    id: int
    page_id: int | None
    component_a: str
    backend_a: str
    component_b: str
    backend_b: str
    precision: str | None
    hardware: str | None
    outcome: str
    error_text: str
    origin: str
    issue: RefPublic | None = None


class PageSummaryPublic(SQLModel):
    slug: str
    title: str
    engine: str
    model: str
    hardware: str
    serving_mode: str
    health_level: str
    health_text: str
    entry_count: int
    failing_count: int
    last_change_at: datetime | None
    last_change_kind: str | None
    url: str


class PagePublic(SQLModel):
    id: int
    slug: str
    title: str
    engine: str
    model: str
    hardware: str
    serving_mode: str
    health_level: str
    health_text: str
    updated_at: datetime
    sections: list[SectionPublic]
    recipes: list[RecipePublic]
    rules: list[RulePublic]


class ImportWarningPublic(SQLModel):
    line: int
    message: str


class ImportResultPublic(SQLModel):
    created: bool
    changes: int
    warnings: list[ImportWarningPublic]
    page: PagePublic


class EntryUpdate(SQLModel):
    status: str | None = None
    is_default: bool | None = None
    is_fastest: bool | None = None
    notes: str | None = None
    invocation: str | None = None
    reason: str | None = None


class HealthUpdate(SQLModel):
    health_level: str | None = None
    health_text: str | None = None
    reason: str | None = None


class RowCreate(SQLModel):
    precision: str
    component: str
    reason: str | None = None


class EntryCreate(SQLModel):
    name: str
    group: str | None = None
    status: str = "working"
    is_default: bool = False
    reason: str | None = None


class RuleCreate(SQLModel):
    page: str | None = None
    component_a: str
    backend_a: str
    component_b: str
    backend_b: str
    outcome: str
    precision: str | None = None
    hardware: str | None = None
    error_text: str = ""
    issue: str | None = None
    reason: str | None = None


class ChangePublic(SQLModel):
    changed: list[str]


def ref_public(ref: GitHubRef, link: GitHubRefLink | None = None) -> RefPublic:
    return RefPublic(
        repo=ref.repo,
        number=ref.number,
        kind=ref.kind,
        title=ref.title,
        state=ref.display_state,
        url=ref.url,
        text_as_written=link.text_as_written if link else None,
    )


def rule_public(rule: CompatRule, refs: dict[int, list[tuple[GitHubRef, GitHubRefLink]]]) -> RulePublic:
    linked = refs.get(rule.id) or []
    return RulePublic(
        **rule.model_dump(exclude={"created_by", "created_at", "updated_at"}),
        issue=ref_public(*linked[0]) if linked else None,
    )


def page_public(loaded: LoadedPage) -> PagePublic:
    """The whole structured page."""
    page = loaded.page
    sections = []
    for section in loaded.sections:
        rows = []
        for row in loaded.rows.get(section.id, []):
            entries = [
                EntryPublic(
                    id=entry.id,
                    name=entry.name,
                    group=entry.group_label or None,
                    status=entry.status,
                    is_default=entry.is_default,
                    is_fastest=entry.is_fastest,
                    is_fallback=entry.is_fallback,
                    listed=entry.listed,
                    invocation=entry.invocation,
                    notes=entry.notes,
                    refs=[ref_public(*pair) for pair in loaded.entry_refs.get(entry.id, [])],
                )
                for entry in loaded.entries.get(row.id, [])
            ]
            rows.append(
                RowPublic(
                    id=row.id,
                    component=row.component,
                    fastest_text=row.fastest_text,
                    invocation=row.invocation,
                    notes=row.notes,
                    extra_cells=row.extra_cells,
                    source_refs=row.source_refs,
                    entries=entries,
                    refs=[ref_public(*pair) for pair in loaded.row_refs.get(row.id, [])],
                )
            )
        sections.append(
            SectionPublic(
                precision=section.precision, heading=section.heading, columns=section.columns, rows=rows
            )
        )
    return PagePublic(
        **page.model_dump(
            include={
                "id",
                "slug",
                "title",
                "engine",
                "model",
                "hardware",
                "serving_mode",
                "health_level",
                "health_text",
                "updated_at",
            }
        ),
        sections=sections,
        recipes=[RecipePublic(title=r.title, body=r.body, blocks=r.blocks) for r in loaded.recipes],
        rules=[rule_public(rule, loaded.rule_refs) for rule in loaded.rules],
    )


def summary_public(summary: PageSummary) -> PageSummaryPublic:
    page = summary.page
    return PageSummaryPublic(
        **page.model_dump(
            include={
                "slug",
                "title",
                "engine",
                "model",
                "hardware",
                "serving_mode",
                "health_level",
                "health_text",
            }
        ),
        entry_count=summary.entry_count,
        failing_count=summary.failing_count,
        last_change_at=summary.last_change_at,
        last_change_kind=summary.last_change_kind,
        url=f"/pages/{page.slug}",
    )
