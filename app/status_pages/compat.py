"""Compatibility rules: adding, removing, listing, and laying two components out as a works/fails grid."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, or_, select

from app.audit.service import record_event
from app.core.errors import InvalidInput, NotFound
from app.github_refs.models import LinkTarget
from app.github_refs.service import get_or_create_ref, link_ref, parse_ref
from app.status_pages.cell_sync import drop_links
from app.status_pages.editing import require_reason
from app.status_pages.importing import rule_context
from app.status_pages.models import CompatRule, StatusPage

OUTCOMES = ("works", "fails", "untested")


def list_rules(
    *,
    session: Session,
    page: StatusPage | None = None,
    include_global: bool = True,
    hardware: str | None = None,
    component: str | None = None,
    backend: str | None = None,
    outcome: str | None = None,
) -> list[CompatRule]:
    """Rules filtered as asked; a page's rules include the rules that belong to no page."""
    query = select(CompatRule)
    if page is not None:
        scope = CompatRule.page_id == page.id
        query = query.where(or_(scope, col(CompatRule.page_id).is_(None)) if include_global else scope)
    if hardware:
        query = query.where(col(CompatRule.hardware).ilike(f"%{hardware}%"))
    if component:
        query = query.where(or_(CompatRule.component_a == component, CompatRule.component_b == component))
    if backend:
        pattern = f"%{backend}%"
        query = query.where(
            or_(col(CompatRule.backend_a).ilike(pattern), col(CompatRule.backend_b).ilike(pattern))
        )
    if outcome:
        query = query.where(CompatRule.outcome == outcome)
    return list(session.exec(query.order_by(CompatRule.component_a, CompatRule.backend_a, CompatRule.id)))


@dataclass
class GridCell:
    outcome: str = "untested"
    rules: list[CompatRule] = field(default_factory=list)


@dataclass
class Grid:
    component_a: str
    component_b: str
    backends_a: list[str]
    backends_b: list[str]
    cells: dict[tuple[str, str], GridCell]

    def cell(self, backend_a: str, backend_b: str) -> GridCell:
        return self.cells.get((backend_a, backend_b), GridCell())


def components_of(rules: Iterable[CompatRule], extra: Iterable[str] = ()) -> list[str]:
    """Every component named by the rules (and `extra`), in first-seen order."""
    names = list(extra)
    for rule in rules:
        names.extend([rule.component_a, rule.component_b])
    return list(dict.fromkeys(name for name in names if name))


def build_grid(
    rules: Iterable[CompatRule], component_a: str, component_b: str, known_backends: dict[str, list[str]]
) -> Grid:
    """Lays out component_a's backends × component_b's; a cell fails if any rule there fails."""
    backends_a = list(known_backends.get(component_a, []))
    backends_b = list(known_backends.get(component_b, []))
    cells: dict[tuple[str, str], GridCell] = {}
    for rule in rules:
        if (rule.component_a, rule.component_b) == (component_a, component_b):
            key = (rule.backend_a, rule.backend_b)
        elif (rule.component_a, rule.component_b) == (component_b, component_a):
            key = (rule.backend_b, rule.backend_a)
        else:
            continue
        backends_a.append(key[0])
        backends_b.append(key[1])
        cell = cells.setdefault(key, GridCell())
        cell.rules.append(rule)
        if rule.outcome == "fails" or (rule.outcome == "works" and cell.outcome == "untested"):
            cell.outcome = rule.outcome
    return Grid(
        component_a, component_b, list(dict.fromkeys(backends_a)), list(dict.fromkeys(backends_b)), cells
    )


def add_rule(
    *,
    session: Session,
    values: dict[str, Any],
    page: StatusPage | None,
    issue: str | None,
    reason: str | None,
    actor: str,
    default_repo: str,
    aliases: dict[str, str],
) -> CompatRule:
    """Adds a compatibility rule (page-scoped or global), optionally linked to the issue that reports it."""
    why = require_reason(reason)
    if values.get("outcome") not in OUTCOMES:
        raise InvalidInput(
            f"outcome must be one of {', '.join(OUTCOMES)}",
            field="outcome",
            details={"allowed": list(OUTCOMES)},
        )
    for name in ("component_a", "backend_a", "component_b", "backend_b"):
        if not str(values.get(name) or "").strip():
            raise InvalidInput(f"{name} is required", field=name)
    rule = CompatRule(page_id=page.id if page else None, created_by=actor, origin="table", **values)
    session.add(rule)
    session.flush()
    if issue:
        ref = get_or_create_ref(
            session=session, address=parse_ref(issue, default_repo=default_repo, aliases=aliases)
        )
        link_ref(
            session=session,
            ref=ref,
            target_type=LinkTarget.rule,
            target_id=rule.id,
            text_as_written=issue,
            actor=actor,
            page_id=rule.page_id,
        )
    context = {**rule_context(rule, issue=issue), "slug": page.slug if page else None}
    record_event(
        session=session,
        actor=actor,
        kind="rule.added",
        subject_type="rule",
        subject_id=rule.id,
        page_id=rule.page_id,
        new_value=rule.outcome,
        reason=why,
        context=context,
    )
    return rule


def remove_rule(*, session: Session, rule: CompatRule, reason: str | None, actor: str) -> None:
    """Removes a compatibility rule."""
    why = require_reason(reason)
    record_event(
        session=session,
        actor=actor,
        kind="rule.removed",
        subject_type="rule",
        subject_id=rule.id,
        page_id=rule.page_id,
        old_value=rule.outcome,
        reason=why,
        context=rule_context(rule),
    )
    drop_links(session=session, target=LinkTarget.rule, target_ids=[rule.id])
    session.delete(rule)
    session.flush()


def get_rule(*, session: Session, rule_id: int) -> CompatRule:
    """Returns one rule or raises NotFound."""
    rule = session.get(CompatRule, rule_id)
    if rule is None:
        raise NotFound(f"no compatibility rule {rule_id}", field="rule_id")
    return rule
