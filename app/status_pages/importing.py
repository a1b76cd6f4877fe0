"""Storing an imported document: a new page, or the stored page updated in place with one event per change."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from app.core.errors import InvalidInput, PayloadTooLarge
from app.core.models import utcnow
from app.github_refs.models import LinkTarget
from app.status_pages import document as doc
from app.status_pages.cell_sync import ChangeWriter, sync_links, sync_sections
from app.status_pages.markdown_import import decode_markdown, parse_markdown
from app.status_pages.models import BackendEntry, CompatRule, ComponentRow, PageSection, Recipe, StatusPage
from app.status_pages.service import load_page, page_slug

IMPORTER = "importer"
PAGE_FIELDS = ("title", "engine", "model", "hardware", "serving_mode", "health_text", "preamble")


@dataclass
class ImportResult:
    page: StatusPage
    created: bool
    changes: int
    warnings: list[doc.ImportWarning] = field(default_factory=list)


def read_markdown_upload(data: bytes, *, max_bytes: int, default_repo: str, aliases: Mapping[str, str]):
    """Checks size and encoding, then parses; every refusal names the line and the reason."""
    if len(data) > max_bytes:
        raise PayloadTooLarge(
            f"the Markdown is {len(data)} bytes; the limit is {max_bytes} (IMPORT_MAX_BYTES)", field="body"
        )
    try:
        return parse_markdown(decode_markdown(data), default_repo=default_repo, aliases=aliases)
    except doc.MarkdownImportError as exc:
        raise InvalidInput(
            f"cannot import: {exc}", field="body", details={"line": exc.line, "reason": exc.reason}
        ) from None


def _sync_recipes(writer: ChangeWriter, document: doc.Document) -> None:
    session = writer.session
    existing = {r.title: r for r in session.exec(select(Recipe).where(Recipe.page_id == writer.page.id))}
    for position, parsed in enumerate(document.recipes):
        blocks = [asdict(block) for block in parsed.blocks]
        recipe = existing.pop(parsed.title, None)
        if recipe is None:
            recipe = Recipe(page_id=writer.page.id, title=parsed.title)
            writer.changes += 1
        elif recipe.body != parsed.body:
            writer.event(
                "page.updated",
                "page",
                writer.page.id,
                field_name="recipe",
                old_value=recipe.body,
                new_value=parsed.body,
                context={"recipe": parsed.title},
            )
        recipe.body, recipe.blocks, recipe.position = parsed.body, blocks, position
        session.add(recipe)
    for recipe in existing.values():
        writer.event(
            "page.updated",
            "page",
            writer.page.id,
            field_name="recipe",
            old_value=recipe.title,
            context={"recipe": recipe.title},
        )
        session.delete(recipe)


def rule_context(rule: CompatRule, *, issue: str | None = None) -> dict[str, Any]:
    """The names a rule event carries so that the review can read it later (and the failure's text)."""
    scope = " ".join(part for part in (rule.precision, rule.hardware) if part) or "any"
    return {
        "component_a": rule.component_a,
        "backend_a": rule.backend_a,
        "component_b": rule.component_b,
        "backend_b": rule.backend_b,
        "scope": scope,
        "issue": issue,
        "error": rule.error_text if rule.outcome == "fails" and rule.error_text else None,
    }


def _sync_rules(writer: ChangeWriter, document: doc.Document) -> None:
    session = writer.session
    existing = {
        (r.component_a, r.backend_a, r.component_b, r.backend_b, r.precision or "", r.hardware or ""): r
        for r in session.exec(select(CompatRule).where(CompatRule.page_id == writer.page.id))
    }
    for parsed in document.rules:
        rule = existing.pop(parsed.key, None)
        issue = f"{parsed.issue.repo}#{parsed.issue.number}" if parsed.issue else None
        values = {"outcome": parsed.outcome, "error_text": parsed.error_text, "origin": parsed.origin}
        if rule is None:
            rule = CompatRule(
                page_id=writer.page.id,
                component_a=parsed.component_a,
                backend_a=parsed.backend_a,
                component_b=parsed.component_b,
                backend_b=parsed.backend_b,
                precision=parsed.precision,
                hardware=parsed.hardware,
                created_by=writer.actor,
                **values,
            )
            session.add(rule)
            session.flush()
            writer.event(
                "rule.added", "rule", rule.id, new_value=rule.outcome, context=rule_context(rule, issue=issue)
            )
        elif any(getattr(rule, name) != value for name, value in values.items()):
            old_outcome = rule.outcome
            for name, value in values.items():
                setattr(rule, name, value)
            writer.event(
                "rule.changed",
                "rule",
                rule.id,
                old_value=old_outcome,
                new_value=parsed.outcome,
                context=rule_context(rule, issue=issue),
            )
            rule.updated_at = utcnow()
            session.add(rule)
        sync_links(writer, LinkTarget.rule, rule.id, [parsed.issue] if parsed.issue else [])
    for rule in existing.values():
        writer.event("rule.removed", "rule", rule.id, old_value=rule.outcome, context=rule_context(rule))
        session.delete(rule)


def store_document(*, session: Session, document: doc.Document, slug: str | None, actor: str) -> ImportResult:
    """Creates the page, or updates the stored one in place with one change event per difference."""
    slug = slug or page_slug(document)
    page = session.exec(select(StatusPage).where(StatusPage.slug == slug)).first()
    fresh = page is None
    if page is None:
        page = StatusPage(slug=slug, title=document.title)
        session.add(page)
        session.flush()
    writer = ChangeWriter(session, page, actor, audit=True)
    writer.apply(
        page,
        {name: getattr(document, name) for name in PAGE_FIELDS},
        compared=() if fresh else PAGE_FIELDS,
        kind="page.updated",
        subject_type="page",
        subject_id=page.id,
    )
    if not fresh and page.health_level != document.health_level.value:
        writer.event(
            "page.health_changed",
            "page",
            page.id,
            field_name="health_level",
            old_value=page.health_level,
            new_value=document.health_level.value,
            context={"title": document.title},
        )
    page.health_level = document.health_level.value
    page.health_level_explicit = document.health_level_explicit
    page.layout = [list(item) for item in document.order]
    session.add(page)
    # A first import is one event, not hundreds: the review reads "page imported", not every entry.
    writer.audit = not fresh
    sync_sections(writer, document, fresh)
    _sync_recipes(writer, document)
    sync_links(writer, LinkTarget.page, page.id, document.page_refs)
    writer.audit = True
    _sync_rules(writer, document)
    if fresh:
        counts = {
            "sections": len(document.sections),
            "rules": len(document.rules),
            "entries": sum(len(row.entries) for s in document.sections for row in s.rows),
        }
        context = {"title": page.title, "health": page.health_level, "counts": counts}
        context["initial_entries"] = initial_entries(session=session, page=page)
        writer.event("page.imported", "page", page.id, new_value=page.title, context=context)
    if writer.changes:
        page.updated_at = utcnow()
        session.add(page)
    session.flush()
    return ImportResult(page, fresh, writer.changes, list(document.warnings))


def initial_entries(*, session: Session, page: StatusPage) -> list[dict[str, Any]]:
    """The entries a first import created, as `page.imported` carries them for the review (one query)."""
    rows = session.exec(
        select(BackendEntry, ComponentRow, PageSection)
        .join(ComponentRow, col(ComponentRow.id) == col(BackendEntry.row_id))
        .join(PageSection, col(PageSection.id) == col(ComponentRow.section_id))
        .where(BackendEntry.page_id == page.id)
        .order_by(PageSection.position, ComponentRow.position, BackendEntry.position)
    )
    return [
        {
            "id": entry.id,
            "section_id": section.id,
            "row_id": row.id,
            "precision": section.precision,
            "component": row.component,
            "backend": entry.name,
            "group": entry.group_label or None,
            "status": entry.status,
        }
        for entry, row, section in rows
    ]


def stored_document(*, session: Session, page: StatusPage) -> doc.Document:
    """The stored page as a document (for export)."""
    from app.status_pages.service import to_document

    return to_document(load_page(session=session, page=page))
