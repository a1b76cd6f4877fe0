"""Edits by people: statuses, flags, notes, invocations, health, rows, entries and rules, each with a reason.

Every edit writes one change event per changed field. The row's Markdown cells stay the source of the
export, so an entry's notes and invocation are written back into its row's cells as the team writes them
("Name: note", "**Name**: `ENV=1`").
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from app.audit.service import record_event
from app.core.errors import Conflict, InvalidInput, NotFound
from app.core.models import utcnow
from app.github_refs.models import LinkTarget
from app.status_pages.cell_sync import drop_links, remove_row_cells
from app.status_pages.models import BackendEntry, ComponentRow, PageSection, StatusPage
from app.status_pages.status_mapping import (
    ALLOWED_HEALTH_LEVELS,
    ALLOWED_STATUSES,
    Status,
    parse_status,
    render_label,
)


def require_reason(reason: str | None) -> str:
    """Every edit says why; an empty reason is refused."""
    if reason is None or not reason.strip():
        raise InvalidInput("a reason is required for every change", field="reason")
    return reason.strip()


def checked_status(value: str) -> Status:
    """Reads a status or refuses it with the allowed values."""
    try:
        return parse_status(value)
    except ValueError as exc:
        raise InvalidInput(str(exc), field="status", details={"allowed": ALLOWED_STATUSES}) from None


def _escape_pipes(text: str) -> str:
    return "".join(
        "\\|" if char == "|" and (index == 0 or text[index - 1] != "\\") else char
        for index, char in enumerate(text)
    )


def _line_body(line: str) -> str:
    """A cell line without its bullet and its "Name:" / "**Name**:" label."""
    stripped = line.strip().removeprefix("- ").strip()
    return re.sub(r"^(\*\*[^*]+\*\*|[A-Za-z][\w .+/()-]{0,60}?)\s*(\([^)]*\))?\s*:\s*", "", stripped)


def rewrite_attributed(cell: str, old: str, new: str, *, label: str, separate: bool = False) -> str:
    """Replaces an entry's lines inside its row's cell, labelled so that a re-import finds them again."""
    name = label.strip("*")
    new_lines = [
        line if line.lower().startswith(name.lower()) else f"{label}: {line}"
        for line in _escape_pipes(new.strip()).split("\n")
        if line.strip()
    ]
    old_lines = {line.strip() for line in old.split("\n") if line.strip()}
    kept: list[str] = []
    insert_at: int | None = None
    for line in cell.split("\n"):
        if old_lines and (line.strip() in old_lines or _line_body(line) in old_lines):
            insert_at = len(kept) if insert_at is None else insert_at
            continue
        kept.append(line)
    if insert_at is None:
        while kept and not kept[-1].strip():
            kept.pop()
        if separate and kept and new_lines:
            kept.append("")
        insert_at = len(kept)
    kept[insert_at:insert_at] = new_lines
    return "\n".join(kept).strip("\n")


def _entry_context(session: Session, entry: BackendEntry) -> tuple[StatusPage, ComponentRow, dict[str, Any]]:
    row = session.get(ComponentRow, entry.row_id)
    section = session.get(PageSection, row.section_id)
    page = session.get(StatusPage, entry.page_id)
    context = {
        "slug": page.slug,
        "precision": section.precision,
        "component": row.component,
        "backend": entry.name,
        "group": entry.group_label,
    }
    return page, row, context


def update_entry(
    *, session: Session, entry: BackendEntry, changes: dict[str, Any], reason: str | None, actor: str
) -> list[str]:
    """Applies status/flag/notes/invocation changes; returns the names of the fields that changed."""
    why = require_reason(reason)
    if "status" in changes and changes["status"] is not None:
        changes["status"] = checked_status(changes["status"]).value
    page, row, context = _entry_context(session, entry)
    changed = []
    for name in ("status", "is_default", "is_fastest", "notes", "invocation"):
        value = changes.get(name)
        if value is None or getattr(entry, name) == value:
            continue
        old = getattr(entry, name)
        kind = "entry.status_changed" if name == "status" else "entry.updated"
        record_event(
            session=session,
            actor=actor,
            kind=kind,
            subject_type="entry",
            subject_id=entry.id,
            page_id=page.id,
            field_name=name,
            old_value=old,
            new_value=value,
            reason=why,
            context=context,
        )
        if name == "notes":
            row.notes = rewrite_attributed(row.notes, old, value, label=entry.name)
        elif name == "invocation":
            row.invocation = rewrite_attributed(
                row.invocation, old, value, label=f"**{entry.name}**", separate=True
            )
        elif not entry.listed:
            # A backend known only from the notes joins the list once someone states its status.
            entry.listed = True
        setattr(entry, name, value)
        changed.append(name)
    if changed:
        entry.updated_at = page.updated_at = utcnow()
        session.add_all([entry, row, page])
        session.flush()
    return changed


def update_health(
    *, session: Session, page: StatusPage, level: str | None, text: str | None, reason: str | None, actor: str
) -> list[str]:
    """Changes the page's health level and/or text."""
    why = require_reason(reason)
    changed = []
    if level is not None and level not in ALLOWED_HEALTH_LEVELS:
        raise InvalidInput(
            f"unknown health level {level!r}; allowed: {', '.join(ALLOWED_HEALTH_LEVELS)}",
            field="health_level",
            details={"allowed": ALLOWED_HEALTH_LEVELS},
        )
    if level is not None and level != page.health_level:
        record_event(
            session=session,
            actor=actor,
            kind="page.health_changed",
            subject_type="page",
            subject_id=page.id,
            page_id=page.id,
            field_name="health_level",
            old_value=page.health_level,
            new_value=level,
            reason=why,
            context={"slug": page.slug, "title": page.title},
        )
        page.health_level = level
        changed.append("health_level")
    if text is not None and text.strip() != page.health_text:
        record_event(
            session=session,
            actor=actor,
            kind="page.updated",
            subject_type="page",
            subject_id=page.id,
            page_id=page.id,
            field_name="health_text",
            old_value=page.health_text,
            new_value=text.strip(),
            reason=why,
            context={"slug": page.slug},
        )
        page.health_text = text.strip()
        changed.append("health_text")
    if changed:
        page.updated_at = utcnow()
        session.add(page)
        session.flush()
    return changed


def add_row(
    *, session: Session, page: StatusPage, precision: str, component: str, reason: str | None, actor: str
) -> ComponentRow:
    """Adds a component row to one precision's table."""
    why = require_reason(reason)
    section = session.exec(
        select(PageSection).where(PageSection.page_id == page.id, PageSection.precision == precision)
    ).first()
    if section is None:
        raise NotFound(f"page {page.slug!r} has no {precision!r} table", field="precision")
    component = component.strip()
    if not component:
        raise InvalidInput("the component needs a name", field="component")
    if session.exec(
        select(ComponentRow).where(ComponentRow.section_id == section.id, ComponentRow.component == component)
    ).first():
        raise Conflict(f"{precision} already has a component {component!r}", field="component")
    position = session.exec(select(func.count()).where(ComponentRow.section_id == section.id)).one()
    row = ComponentRow(
        section_id=section.id,
        page_id=page.id,
        component=component,
        position=position,
        layout={"component_bold": True},
    )
    session.add(row)
    session.flush()
    record_event(
        session=session,
        actor=actor,
        kind="row.added",
        subject_type="row",
        subject_id=row.id,
        page_id=page.id,
        new_value=component,
        reason=why,
        context={"slug": page.slug, "precision": precision, "component": component},
    )
    return row


def remove_row(*, session: Session, row: ComponentRow, reason: str | None, actor: str) -> None:
    """Removes a component row with its backends."""
    why = require_reason(reason)
    page = session.get(StatusPage, row.page_id)
    section = session.get(PageSection, row.section_id)
    record_event(
        session=session,
        actor=actor,
        kind="row.removed",
        subject_type="row",
        subject_id=row.id,
        page_id=page.id,
        old_value=row.component,
        reason=why,
        context={"slug": page.slug, "precision": section.precision, "component": row.component},
    )
    remove_row_cells(session=session, row=row)
    session.flush()


def add_entry(
    *,
    session: Session,
    row: ComponentRow,
    name: str,
    group: str | None,
    status: str,
    is_default: bool,
    reason: str | None,
    actor: str,
) -> BackendEntry:
    """Adds a backend to a row, written back as a `- name (status)` item."""
    why = require_reason(reason)
    checked = checked_status(status)
    name = name.strip()
    if not name:
        raise InvalidInput("the backend needs a name", field="name")
    group_label = (group or "").strip()
    if session.exec(
        select(BackendEntry).where(
            BackendEntry.row_id == row.id, BackendEntry.name == name, BackendEntry.group_label == group_label
        )
    ).first():
        raise Conflict(f"{row.component} already lists {name!r}", field="name")
    position = session.exec(select(func.count()).where(BackendEntry.row_id == row.id)).one()
    entry = BackendEntry(
        row_id=row.id,
        page_id=row.page_id,
        name=name,
        group_label=group_label,
        status=checked.value,
        is_default=is_default,
        position=position,
        label_as_written=render_label(name, checked, is_default=is_default),
        status_as_imported=checked.value,
        default_as_imported=is_default,
    )
    session.add(entry)
    session.flush()
    page, _, context = _entry_context(session, entry)
    record_event(
        session=session,
        actor=actor,
        kind="entry.added",
        subject_type="entry",
        subject_id=entry.id,
        page_id=page.id,
        new_value=entry.status,
        reason=why,
        context={**context, "status": entry.status},
    )
    return entry


def remove_entry(*, session: Session, entry: BackendEntry, reason: str | None, actor: str) -> None:
    """Removes a backend from its row."""
    why = require_reason(reason)
    page, _, context = _entry_context(session, entry)
    record_event(
        session=session,
        actor=actor,
        kind="entry.removed",
        subject_type="entry",
        subject_id=entry.id,
        page_id=page.id,
        old_value=entry.status,
        reason=why,
        context=context,
    )
    drop_links(session=session, target=LinkTarget.entry, target_ids=[entry.id])
    session.delete(entry)
    session.flush()


def get_row(*, session: Session, row_id: int) -> ComponentRow:
    """Returns one component row or raises NotFound."""
    row = session.get(ComponentRow, row_id)
    if row is None:
        raise NotFound(f"no component row {row_id}", field="row_id")
    return row
