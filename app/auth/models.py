"""API tokens: stored as SHA-256 digests, shown once at creation, each with a set of scopes."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, String
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Field, SQLModel

from app.core.models import timestamp_column, utcnow


class Scope(StrEnum):
    read = "read"
    upload = "upload"
    edit = "edit"
    admin = "admin"


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_token"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, index=True)
    token_prefix: str = Field(max_length=16)
    token_hash: str = Field(max_length=64, unique=True)
    scopes: list[str] = Field(sa_column=Column(ARRAY(String(16)), nullable=False))
    created_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())
    last_used_at: datetime | None = Field(
        default=None, sa_column=timestamp_column(nullable=True, default_now=False)
    )
    revoked_at: datetime | None = Field(
        default=None, sa_column=timestamp_column(nullable=True, default_now=False)
    )


class ApiTokenPublic(SQLModel):
    id: int
    name: str
    token_prefix: str
    scopes: list[str]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None
