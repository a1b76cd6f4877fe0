"""Recording and reading change events."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from app.audit.models import ChangeEvent
from app.core.models import utcnow


def record_event(
    *,
    session: Session,
    actor: str,
    kind: str,
    subject_type: str,
    subject_id: int | None = None,
    page_id: int | None = None,
    field_name: str | None = None,
    old_value: Any = None,
    new_value: Any = None,
    reason: str | None = None,
    context: dict[str, Any] | None = None,
    occurred_at: datetime | None = None,
) -> ChangeEvent:
    """Adds one change event to the session; it commits with the change it describes."""
    event = ChangeEvent(
        occurred_at=occurred_at or utcnow(),
        actor=actor,
        kind=kind,
        subject_type=subject_type,
        subject_id=subject_id,
        page_id=page_id,
        field_name=field_name,
        old_value=old_value,
        new_value=new_value,
        reason=reason,
        context=context or {},
    )
    session.add(event)
    return event


def list_events(
    *,
    session: Session,
    since: datetime | None = None,
    until: datetime | None = None,
    kinds: Sequence[str] | None = None,
    kind_prefix: str | None = None,
    subject_type: str | None = None,
    subject_ids: Sequence[int] | None = None,
    page_id: int | None = None,
    limit: int | None = None,
) -> list[ChangeEvent]:
    """Lists events oldest first, in [since, until), filtered as asked."""
    query = select(ChangeEvent)
    if since is not None:
        query = query.where(ChangeEvent.occurred_at >= since)
    if until is not None:
        query = query.where(ChangeEvent.occurred_at < until)
    if kinds:
        query = query.where(col(ChangeEvent.kind).in_(list(kinds)))
    if kind_prefix:
        query = query.where(col(ChangeEvent.kind).startswith(kind_prefix))
    if subject_type:
        query = query.where(ChangeEvent.subject_type == subject_type)
    if subject_ids is not None:
        query = query.where(col(ChangeEvent.subject_id).in_(list(subject_ids)))
    if page_id is not None:
        query = query.where(ChangeEvent.page_id == page_id)
    query = query.order_by(ChangeEvent.occurred_at, ChangeEvent.id)
    if limit is not None:
        query = query.limit(limit)
    return list(session.exec(query))
