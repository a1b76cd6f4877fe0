"""Shared pieces of every table: the constraint naming convention and column helpers."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, DateTime, func, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import SQLModel

# Named constraints make migrations reproducible: autogenerate and downgrades refer to stable names.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
SQLModel.metadata.naming_convention = NAMING_CONVENTION

# Every module that defines tables; Alembic and the tests import them all through `import_all_models`.
MODEL_MODULES = [
    "app.auth.models",
    "app.audit.models",
    "app.github_refs.models",
    "app.status_pages.models",
    "app.benchmarks.models",
    "app.review.models",
    "app.trends.models",
]


def import_all_models() -> Any:
    """Imports every domain's tables and returns the metadata that holds them."""
    for module in MODEL_MODULES:
        importlib.import_module(module)
    return SQLModel.metadata


def utcnow() -> datetime:
    """Returns the current time in UTC, timezone-aware."""
    return datetime.now(UTC)


def timestamp_column(*, nullable: bool = False, index: bool = False, default_now: bool = True) -> Column:
    """A `timestamptz` column, filled by the database with now() unless told otherwise."""
    return Column(
        DateTime(timezone=True),
        nullable=nullable,
        index=index,
        server_default=func.now() if default_now else None,
    )


def json_column(*, default: str = "{}", nullable: bool = False) -> Column:
    """A JSONB column with a server default (`{}` or `[]`)."""
    return Column(JSONB, nullable=nullable, server_default=text(f"'{default}'::jsonb"))
