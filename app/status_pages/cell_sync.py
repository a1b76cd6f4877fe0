"""Bringing a stored page's sections, rows, entries and their links in line with an imported document.

Things are matched by name (section by precision, row by component, entry by group + name) and updated in
place, so ids stay and nothing is duplicated; every difference is one change event.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import delete
from sqlmodel import Session, col, select

from app.audit.service import record_event
from app.core.models import utcnow
from app.github_refs.models import GitHubRefLink, LinkTarget, RefKind
from app.github_refs.service import RefAddress, get_or_create_ref, link_ref, unlink_ref
from app.status_pages import document as doc
from app.status_pages.models import BackendEntry, ComponentRow, PageSection, StatusPage

ROW_FIELDS = ("fastest_text", "invocation", "notes", "extra_cells")
ENTRY_FIELDS = ("is_default", "is_fastest", "is_fallback", "invocation", "notes", "listed")


@dataclass
class ChangeWriter:
    """Carries who imports and which page, and counts the events written."""

    session: Session
    page: StatusPage
    actor: str
    audit: bool
    changes: int = 0

    def event(self, kind: str, subject_type: str, subject_id: int | None, **values: Any) -> None:
        self.changes += 1
        if self.audit:
            context = {"slug": self.page.slug, **values.pop("context", {})}
            record_event(
                session=self.session,
                actor=self.actor,
                kind=kind,
                subject_type=subject_type,
                subject_id=subject_id,
                page_id=self.page.id,
                context=context,
                **values,
            )

    def apply(
        self,
        target: Any,
        values: dict[str, Any],
        *,
        compared: Iterable[str],
        kind: str,
        subject_type: str,
        subject_id: int | None,
        context: dict[str, Any] | None = None,
        field_prefix: str = "",
    ) -> None:
        """Sets `values` on `target`, writing one `kind` event per field of `compared` whose value changes."""
        for name in compared:
            old = getattr(target, name)
            if old != values[name]:
                self.event(
                    kind,
                    subject_type,
                    subject_id,
                    field_name=f"{field_prefix}{name}",
                    old_value=old,
                    new_value=values[name],
                    context=context or {},
                )
        for name, value in values.items():
            setattr(target, name, value)
        self.session.add(target)


def sync_links(writer: ChangeWriter, target: LinkTarget, target_id: int, refs: list[doc.RefText]) -> None:
    session = writer.session
    existing = {
        link.ref_id: link
        for link in session.exec(
            select(GitHubRefLink).where(
                GitHubRefLink.target_type == target.value, GitHubRefLink.target_id == target_id
            )
        )
    }
    wanted: set[int] = set()
    for ref_text in refs:
        address = RefAddress(ref_text.repo, ref_text.number, RefKind(ref_text.kind))
        ref = get_or_create_ref(session=session, address=address, title=ref_text.title)
        wanted.add(ref.id)
        if ref.id not in existing:
            writer.changes += 1
        link_ref(
            session=session,
            ref=ref,
            target_type=target,
            target_id=target_id,
            text_as_written=ref_text.text_as_written,
            position=ref_text.position,
            actor=writer.actor,
            page_id=writer.page.id,
            audit=writer.audit,
        )
    for ref_id in set(existing) - wanted:
        writer.changes += 1
        unlink_ref(
            session=session,
            ref_id=ref_id,
            target_type=target,
            target_id=target_id,
            actor=writer.actor,
            reason="removed from the imported page",
            page_id=writer.page.id,
        )


def drop_links(*, session: Session, target: LinkTarget, target_ids: list[int]) -> None:
    """Removes the links of cells that no longer exist (the refs themselves stay tracked)."""
    if target_ids:
        session.execute(
            delete(GitHubRefLink).where(
                GitHubRefLink.target_type == target.value, col(GitHubRefLink.target_id).in_(target_ids)
            )
        )


def _entry_context(section: PageSection, row: ComponentRow, entry: BackendEntry) -> dict[str, Any]:
    return {
        "precision": section.precision,
        "component": row.component,
        "backend": entry.name,
        "group": entry.group_label,
    }


def _entry_values(parsed: doc.Entry, position: int) -> dict[str, Any]:
    return {
        "name": parsed.name,
        "group_label": parsed.group or "",
        "status": parsed.status.value,
        "is_default": parsed.is_default,
        "is_fastest": parsed.is_fastest,
        "is_fallback": parsed.is_fallback,
        "invocation": parsed.invocation,
        "notes": parsed.notes,
        "label_as_written": parsed.label_as_written,
        "listed": parsed.listed,
        "position": position,
        # An imported label always stands for what was just read from it.
        "status_as_imported": parsed.status.value,
        "default_as_imported": parsed.is_default,
    }


def _sync_entries(
    writer: ChangeWriter, section: PageSection, row: ComponentRow, parsed_row: doc.Row, fresh: bool
):
    session = writer.session
    existing = {
        (entry.group_label, entry.name): entry
        for entry in session.exec(select(BackendEntry).where(BackendEntry.row_id == row.id))
    }
    for position, parsed in enumerate(parsed_row.entries):
        values = _entry_values(parsed, position)
        entry = existing.pop((values["group_label"], parsed.name), None)
        if entry is None:
            entry = BackendEntry(row_id=row.id, page_id=writer.page.id, **values)
            session.add(entry)
            session.flush()
            if not fresh:
                writer.event(
                    "entry.added",
                    "entry",
                    entry.id,
                    new_value=entry.status,
                    context={**_entry_context(section, row, entry), "status": entry.status},
                )
        else:
            context = _entry_context(section, row, entry)
            if entry.status != values["status"]:
                writer.event(
                    "entry.status_changed",
                    "entry",
                    entry.id,
                    field_name="status",
                    old_value=entry.status,
                    new_value=values["status"],
                    context=context,
                )
            writer.apply(
                entry,
                {**values, "updated_at": utcnow()},
                compared=ENTRY_FIELDS,
                kind="entry.updated",
                subject_type="entry",
                subject_id=entry.id,
                context=context,
            )
        sync_links(writer, LinkTarget.entry, entry.id, parsed.refs)
    for entry in existing.values():
        writer.event(
            "entry.removed",
            "entry",
            entry.id,
            old_value=entry.status,
            context=_entry_context(section, row, entry),
        )
        drop_links(session=session, target=LinkTarget.entry, target_ids=[entry.id])
        session.delete(entry)


def remove_row_cells(*, session: Session, row: ComponentRow) -> None:
    """Deletes a row with its entries and the links of both."""
    entry_ids = list(session.exec(select(BackendEntry.id).where(BackendEntry.row_id == row.id)))
    drop_links(session=session, target=LinkTarget.entry, target_ids=entry_ids)
    drop_links(session=session, target=LinkTarget.row, target_ids=[row.id])
    session.execute(delete(BackendEntry).where(BackendEntry.row_id == row.id))
    session.delete(row)


def _row_values(parsed: doc.Row, position: int) -> dict[str, Any]:
    return {
        "component": parsed.component,
        "fastest_text": parsed.fastest_text,
        "invocation": parsed.invocation,
        "notes": parsed.notes,
        "extra_cells": parsed.extra_cells,
        "source_refs": [asdict(source) for source in parsed.source_refs],
        "layout": parsed.layout,
        "position": position,
    }


def _sync_rows(writer: ChangeWriter, section: PageSection, parsed_section: doc.Section, fresh: bool) -> None:
    session = writer.session
    existing = {
        row.component: row
        for row in session.exec(select(ComponentRow).where(ComponentRow.section_id == section.id))
    }
    for position, parsed in enumerate(parsed_section.rows):
        values = _row_values(parsed, position)
        row = existing.pop(parsed.component, None)
        context = {"precision": section.precision, "component": parsed.component}
        if row is None:
            row = ComponentRow(section_id=section.id, page_id=writer.page.id, **values)
            session.add(row)
            session.flush()
            if not fresh:
                writer.event("row.added", "row", row.id, new_value=row.component, context=context)
        else:
            writer.apply(
                row,
                values,
                compared=ROW_FIELDS,
                kind="row.updated",
                subject_type="row",
                subject_id=row.id,
                context=context,
            )
        _sync_entries(writer, section, row, parsed, fresh)
        sync_links(writer, LinkTarget.row, row.id, parsed.refs)
    for row in existing.values():
        writer.event(
            "row.removed",
            "row",
            row.id,
            old_value=row.component,
            context={"precision": section.precision, "component": row.component},
        )
        remove_row_cells(session=session, row=row)


def sync_sections(writer: ChangeWriter, document: doc.Document, fresh: bool) -> None:
    session = writer.session
    existing = {
        section.precision: section
        for section in session.exec(select(PageSection).where(PageSection.page_id == writer.page.id))
    }
    for position, parsed in enumerate(document.sections):
        values = {
            "heading": parsed.heading,
            "columns": parsed.columns,
            "roles": parsed.roles,
            "intro": parsed.intro,
            "outro": parsed.outro,
            "position": position,
        }
        section = existing.pop(parsed.precision, None)
        if section is None:
            section = PageSection(page_id=writer.page.id, precision=parsed.precision, **values)
            session.add(section)
            session.flush()
            if not fresh:
                writer.event(
                    "page.updated",
                    "page",
                    writer.page.id,
                    field_name="section",
                    new_value=parsed.heading,
                    context={"precision": parsed.precision},
                )
        else:
            writer.apply(
                section,
                values,
                compared=("heading", "columns", "intro", "outro"),
                kind="page.updated",
                subject_type="page",
                subject_id=writer.page.id,
                context={"precision": parsed.precision},
                field_prefix="section.",
            )
        _sync_rows(writer, section, parsed, fresh)
    for section in existing.values():
        for row in session.exec(select(ComponentRow).where(ComponentRow.section_id == section.id)):
            writer.event(
                "row.removed",
                "row",
                row.id,
                old_value=row.component,
                context={"precision": section.precision, "component": row.component},
            )
            remove_row_cells(session=session, row=row)
        session.delete(section)
