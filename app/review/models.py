"""The one thing the review stores: who signed a week off, when, and with which notes."""

from __future__ import annotations

from datetime import datetime

from pydantic import field_validator
from sqlmodel import Field, SQLModel

from app.core.models import timestamp_column, utcnow

NOTES_MAX_CHARS = 20_000


class ReviewSignoff(SQLModel, table=True):
    __tablename__ = "review_signoff"

    id: int | None = Field(default=None, primary_key=True)
    # `2026-W47`; unique, so a week is signed off once even when two reviewers click at the same time.
    week: str = Field(max_length=8, unique=True)
    actor: str = Field(max_length=100)
    notes: str = ""
    signed_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())


class SignoffCreate(SQLModel):
    notes: str = Field(default="", max_length=NOTES_MAX_CHARS)

    @field_validator("notes")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()


class SignoffPublic(SQLModel):
    week: str
    actor: str
    notes: str
    signed_at: datetime
