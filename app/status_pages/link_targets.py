"""How status page cells read where a GitHub ref is linked from them ("B200 · FP8 · MOE · DeepGemm")."""

from __future__ import annotations

from urllib.parse import urlencode

from sqlmodel import Session, col, select

from app.github_refs.targets import TargetLabel
from app.status_pages.models import BackendEntry, CompatRule, ComponentRow, PageSection, StatusPage


def describe_pages(session: Session, ids: list[int]) -> dict[int, TargetLabel]:
    """Labels pages by id, in one query."""
    pages = session.exec(select(StatusPage).where(col(StatusPage.id).in_(ids)))
    return {page.id: TargetLabel(page.title, f"/pages/{page.slug}") for page in pages}


def describe_rows(session: Session, ids: list[int]) -> dict[int, TargetLabel]:
    """Labels component rows ("B200 · FP8 · MOE") with a link to their tab, in one query."""
    rows = session.exec(
        select(ComponentRow, PageSection, StatusPage)
        .join(PageSection, col(PageSection.id) == col(ComponentRow.section_id))
        .join(StatusPage, col(StatusPage.id) == col(ComponentRow.page_id))
        .where(col(ComponentRow.id).in_(ids))
    )
    labels = {}
    for row, section, page in rows:
        query = urlencode({"precision": section.precision, "component": row.component})
        label = " · ".join([page.hardware or page.title, section.precision, row.component])
        labels[row.id] = TargetLabel(label, f"/pages/{page.slug}?{query}")
    return labels


def describe_entries(session: Session, ids: list[int]) -> dict[int, TargetLabel]:
    """Labels backend entries ("B200 · FP8 · MOE · DeepGemm") with a link to their history, in one query."""
    rows = session.exec(
        select(BackendEntry, ComponentRow, PageSection, StatusPage)
        .join(ComponentRow, col(ComponentRow.id) == col(BackendEntry.row_id))
        .join(PageSection, col(PageSection.id) == col(ComponentRow.section_id))
        .join(StatusPage, col(StatusPage.id) == col(BackendEntry.page_id))
        .where(col(BackendEntry.id).in_(ids))
    )
    labels = {}
    for entry, row, section, page in rows:
        label = " · ".join([page.hardware or page.title, section.precision, row.component, entry.name])
        labels[entry.id] = TargetLabel(label, f"/pages/{page.slug}/entries/{entry.id}/history")
    return labels


def describe_rules(session: Session, ids: list[int]) -> dict[int, TargetLabel]:
    """Labels compatibility rules ("flashinfer_cutedsl × deepep_low_latency: fails"), in one query."""
    rules = session.exec(select(CompatRule).where(col(CompatRule.id).in_(ids)))
    labels = {}
    for rule in rules:
        query = urlencode({"a": rule.component_a, "b": rule.component_b})
        label = f"{rule.backend_a} × {rule.backend_b}: {rule.outcome}"
        if rule.hardware:
            label += f" ({rule.hardware})"
        labels[rule.id] = TargetLabel(label, f"/compat?{query}")
    return labels
