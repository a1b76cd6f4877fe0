"""Reading status pages: lookups, the whole page in a fixed number of queries, history."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.audit.models import ChangeEvent
from app.audit.service import list_events
from app.core.errors import NotFound
from app.github_refs.models import GitHubRef, GitHubRefLink, LinkTarget
from app.github_refs.service import refs_for_targets
from app.status_pages import document as doc
from app.status_pages.models import BackendEntry, CompatRule, ComponentRow, PageSection, Recipe, StatusPage
from app.status_pages.status_mapping import HealthLevel, Status


def slugify(text: str) -> str:
    """Lower-case words joined by dashes: "DeepSeek-R1 vLLM B200" → "deepseek-r1-vllm-b200"."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:200] or "page"


def page_slug(document: doc.Document) -> str:
    """The slug a page gets when the importer is not told one: model, engine, hardware, serving mode."""
    parts = [document.model, document.engine, document.hardware, document.serving_mode]
    return slugify(" ".join(part for part in parts if part) or document.title)


def get_page(*, session: Session, slug: str) -> StatusPage:
    """Returns the page with `slug` or raises NotFound."""
    page = session.exec(select(StatusPage).where(StatusPage.slug == slug)).first()
    if page is None:
        raise NotFound(f"no status page {slug!r}", field="slug")
    return page


def get_entry(*, session: Session, entry_id: int) -> BackendEntry:
    """Returns one backend entry or raises NotFound."""
    entry = session.get(BackendEntry, entry_id)
    if entry is None:
        raise NotFound(f"no backend entry {entry_id}", field="entry_id")
    return entry


@dataclass
class PageSummary:
    page: StatusPage
    entry_count: int
    failing_count: int
    last_change_at: object | None
    last_change_kind: str | None


def list_pages(*, session: Session) -> list[PageSummary]:
    """Every page with its counts and its last change, in three queries."""
    pages = list(session.exec(select(StatusPage).order_by(StatusPage.title)))
    counts: dict[int, tuple[int, int]] = {}
    rows = session.exec(
        select(
            BackendEntry.page_id, func.count(), func.count().filter(BackendEntry.status == Status.failing)
        ).group_by(BackendEntry.page_id)
    )
    for page_id, total, failing in rows:
        counts[page_id] = (total, failing)
    latest = (
        select(ChangeEvent.page_id, func.max(ChangeEvent.id).label("last_id"))
        .where(col(ChangeEvent.page_id).in_([page.id for page in pages]))
        .group_by(ChangeEvent.page_id)
        .subquery()
    )
    last: dict[int, ChangeEvent] = {
        event.page_id: event
        for event in session.exec(select(ChangeEvent).join(latest, col(ChangeEvent.id) == latest.c.last_id))
    }
    return [
        PageSummary(
            page,
            *counts.get(page.id, (0, 0)),
            last[page.id].occurred_at if page.id in last else None,
            last[page.id].kind if page.id in last else None,
        )
        for page in pages
    ]


@dataclass
class LoadedPage:
    """A page and everything on it, loaded in a fixed number of queries whatever its size."""

    page: StatusPage
    sections: list[PageSection]
    rows: dict[int, list[ComponentRow]]
    entries: dict[int, list[BackendEntry]]
    recipes: list[Recipe]
    rules: list[CompatRule]
    row_refs: dict[int, list[tuple[GitHubRef, GitHubRefLink]]] = field(default_factory=dict)
    entry_refs: dict[int, list[tuple[GitHubRef, GitHubRefLink]]] = field(default_factory=dict)
    rule_refs: dict[int, list[tuple[GitHubRef, GitHubRefLink]]] = field(default_factory=dict)
    page_refs: list[tuple[GitHubRef, GitHubRefLink]] = field(default_factory=list)


def load_page(*, session: Session, page: StatusPage, with_global_rules: bool = False) -> LoadedPage:
    """Loads the page's sections, rows, entries, recipes, rules and all their refs (nine queries)."""
    sections = list(
        session.exec(select(PageSection).where(PageSection.page_id == page.id).order_by(PageSection.position))
    )
    rows: dict[int, list[ComponentRow]] = defaultdict(list)
    for row in session.exec(
        select(ComponentRow).where(ComponentRow.page_id == page.id).order_by(ComponentRow.position)
    ):
        rows[row.section_id].append(row)
    entries: dict[int, list[BackendEntry]] = defaultdict(list)
    for entry in session.exec(
        select(BackendEntry).where(BackendEntry.page_id == page.id).order_by(BackendEntry.position)
    ):
        entries[entry.row_id].append(entry)
    recipes = list(session.exec(select(Recipe).where(Recipe.page_id == page.id).order_by(Recipe.position)))
    rule_filter = CompatRule.page_id == page.id
    if with_global_rules:
        rule_filter = rule_filter | col(CompatRule.page_id).is_(None)
    rules = list(session.exec(select(CompatRule).where(rule_filter).order_by(CompatRule.id)))
    row_ids = [row.id for group in rows.values() for row in group]
    entry_ids = [entry.id for group in entries.values() for entry in group]
    return LoadedPage(
        page=page,
        sections=sections,
        rows=rows,
        entries=entries,
        recipes=recipes,
        rules=rules,
        row_refs=refs_for_targets(session=session, target_type=LinkTarget.row, target_ids=row_ids),
        entry_refs=refs_for_targets(session=session, target_type=LinkTarget.entry, target_ids=entry_ids),
        rule_refs=refs_for_targets(
            session=session, target_type=LinkTarget.rule, target_ids=[r.id for r in rules]
        ),
        page_refs=refs_for_targets(session=session, target_type=LinkTarget.page, target_ids=[page.id])[
            page.id
        ],
    )


def _ref_text(ref: GitHubRef, link: GitHubRefLink) -> doc.RefText:
    return doc.RefText(ref.repo, ref.number, ref.kind, ref.title, link.text_as_written, link.position)


def to_document(loaded: LoadedPage) -> doc.Document:
    """The stored page as a plain document, ready for export or comparison with an import."""
    page = loaded.page
    sections = []
    for section in loaded.sections:
        rows = []
        for row in loaded.rows.get(section.id, []):
            entries = [
                doc.Entry(
                    name=entry.name,
                    group=entry.group_label or None,
                    status=Status(entry.status),
                    is_default=entry.is_default,
                    is_fastest=entry.is_fastest,
                    is_fallback=entry.is_fallback,
                    invocation=entry.invocation,
                    notes=entry.notes,
                    label_as_written=entry.label_as_written,
                    listed=entry.listed,
                    refs=[_ref_text(*pair) for pair in loaded.entry_refs.get(entry.id, [])],
                    imported_status=Status(entry.status_as_imported) if entry.status_as_imported else None,
                    imported_default=entry.default_as_imported,
                )
                for entry in loaded.entries.get(row.id, [])
            ]
            rows.append(
                doc.Row(
                    component=row.component,
                    fastest_text=row.fastest_text,
                    invocation=row.invocation,
                    notes=row.notes,
                    extra_cells=dict(row.extra_cells),
                    entries=entries,
                    refs=[_ref_text(*pair) for pair in loaded.row_refs.get(row.id, [])],
                    source_refs=[doc.SourceRef(**source) for source in row.source_refs],
                    layout=dict(row.layout),
                )
            )
        sections.append(
            doc.Section(
                section.heading,
                section.precision,
                list(section.columns),
                list(section.roles),
                rows,
                section.intro,
                section.outro,
            )
        )
    rules = []
    for rule in loaded.rules:
        if rule.page_id != page.id:
            continue
        issue = loaded.rule_refs.get(rule.id)
        rules.append(
            doc.Rule(
                rule.component_a,
                rule.backend_a,
                rule.component_b,
                rule.backend_b,
                rule.outcome,
                rule.precision,
                rule.hardware,
                rule.error_text,
                rule.origin,
                _ref_text(*issue[0]) if issue else None,
            )
        )
    return doc.Document(
        title=page.title,
        engine=page.engine,
        model=page.model,
        hardware=page.hardware,
        serving_mode=page.serving_mode,
        health_text=page.health_text,
        health_level=HealthLevel(page.health_level),
        health_level_explicit=page.health_level_explicit,
        preamble=page.preamble,
        sections=sections,
        recipes=[
            doc.Recipe(
                recipe.title,
                recipe.body,
                [doc.RecipeBlock(**block) for block in recipe.blocks],
                [],
                recipe.position,
            )
            for recipe in loaded.recipes
        ],
        rules=rules,
        order=[tuple(item) for item in page.layout],
    )


def page_history(*, session: Session, page: StatusPage, limit: int = 500) -> list[ChangeEvent]:
    """The page's change events, newest first."""
    events = list_events(session=session, page_id=page.id)
    return list(reversed(events))[:limit]


def entry_history(*, session: Session, entry: BackendEntry) -> list[ChangeEvent]:
    """The change events of one backend entry, newest first."""
    events = list_events(session=session, subject_type="entry", subject_ids=[entry.id])
    return list(reversed(events))
