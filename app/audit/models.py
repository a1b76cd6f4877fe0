"""Change events: the audit trail of every change to statuses, health, links, rules and runs.

The weekly review is computed from these rows, so an event carries enough context (names, not only ids)
to be read after the thing it describes has changed again or been removed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from app.core.models import json_column, timestamp_column, utcnow


class ChangeEvent(SQLModel, table=True):
    __tablename__ = "change_event"
    __table_args__ = (
        Index("ix_change_event_kind_occurred_at", "kind", "occurred_at"),
        Index("ix_change_event_subject", "subject_type", "subject_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    occurred_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column(index=True))
    actor: str = Field(max_length=100)
    # Dotted verb naming what happened, e.g. "entry.status_changed", "ref.merged", "run.regression".
    kind: str = Field(max_length=64)
    subject_type: str = Field(max_length=32)
    subject_id: int | None = None
    # The status page the event belongs to, when it belongs to one; lets the review group by page.
    page_id: int | None = Field(default=None, index=True)
    field_name: str | None = Field(default=None, max_length=64)
    old_value: Any = Field(default=None, sa_column=json_column(default="null", nullable=True))
    new_value: Any = Field(default=None, sa_column=json_column(default="null", nullable=True))
    reason: str | None = None
    context: dict[str, Any] = Field(default_factory=dict, sa_column=json_column())


class ChangeEventPublic(SQLModel):
    id: int
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
