"""Status pages: a model × engine × GPU × serving mode, its precisions, components, backends and rules."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Column, ForeignKey, Index, Integer, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.models import json_column, timestamp_column, utcnow


def _parent(table: str, *, nullable: bool = False) -> Column:
    """A foreign key that removes the child with its parent."""
    return Column(Integer, ForeignKey(f"{table}.id", ondelete="CASCADE"), nullable=nullable, index=True)


class StatusPage(SQLModel, table=True):
    __tablename__ = "status_page"

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=200, unique=True)
    title: str
    engine: str = Field(default="", max_length=100)
    model: str = Field(default="", max_length=200)
    hardware: str = Field(default="", max_length=100)
    serving_mode: str = Field(default="", max_length=100)
    health_level: str = Field(default="ok", max_length=16)
    health_text: str = ""
    health_level_explicit: bool = False
    preamble: str = ""
    # Order of tables, recipes and the compatibility table as the source had them.
    layout: list[Any] = Field(default_factory=list, sa_column=json_column(default="[]"))
    created_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())
    updated_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())


class PageSection(SQLModel, table=True):
    """One precision's table of a page ("FP8 - Compatible")."""

    __tablename__ = "page_section"
    __table_args__ = (UniqueConstraint("page_id", "precision"),)

    id: int | None = Field(default=None, primary_key=True)
    page_id: int = Field(sa_column=_parent("status_page"))
    position: int = 0
    precision: str = Field(max_length=50)
    heading: str
    columns: list[str] = Field(default_factory=list, sa_column=json_column(default="[]"))
    roles: list[str] = Field(default_factory=list, sa_column=json_column(default="[]"))
    intro: str = ""
    outro: str = ""


class ComponentRow(SQLModel, table=True):
    __tablename__ = "component_row"
    __table_args__ = (UniqueConstraint("section_id", "component"),)

    id: int | None = Field(default=None, primary_key=True)
    section_id: int = Field(sa_column=_parent("page_section"))
    page_id: int = Field(sa_column=_parent("status_page"))
    position: int = 0
    component: str = Field(max_length=200)
    fastest_text: str = ""
    invocation: str = ""
    notes: str = ""
    extra_cells: dict[str, str] = Field(default_factory=dict, sa_column=json_column())
    source_refs: list[dict[str, Any]] = Field(default_factory=list, sa_column=json_column(default="[]"))
    layout: dict[str, Any] = Field(default_factory=dict, sa_column=json_column())


class BackendEntry(SQLModel, table=True):
    __tablename__ = "backend_entry"
    __table_args__ = (
        UniqueConstraint("row_id", "group_label", "name"),
        Index("ix_backend_entry_page_status", "page_id", "status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    row_id: int = Field(sa_column=_parent("component_row"))
    page_id: int = Field(sa_column=_parent("status_page"))
    position: int = 0
    name: str = Field(max_length=200)
    # "" when the backend is not under a parallelism group label.
    group_label: str = Field(default="", max_length=100)
    status: str = Field(default="working", max_length=32)
    is_default: bool = False
    is_fastest: bool = False
    is_fallback: bool = False
    invocation: str = ""
    notes: str = ""
    label_as_written: str = ""
    listed: bool = True
    status_as_imported: str | None = Field(default=None, max_length=32)
    default_as_imported: bool | None = None
    updated_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())


class Recipe(SQLModel, table=True):
    """An "Example Usage" section: commands to serve and benchmark, kept verbatim."""

    __tablename__ = "recipe"

    id: int | None = Field(default=None, primary_key=True)
    page_id: int = Field(sa_column=_parent("status_page"))
    position: int = 0
    title: str
    body: str = ""
    blocks: list[dict[str, Any]] = Field(default_factory=list, sa_column=json_column(default="[]"))


class CompatRule(SQLModel, table=True):
    """backend_a (of component_a) × backend_b (of component_b) → works / fails / untested, maybe scoped."""

    __tablename__ = "compat_rule"
    __table_args__ = (Index("ix_compat_rule_components", "component_a", "component_b"),)

    id: int | None = Field(default=None, primary_key=True)
    # None for a rule that belongs to no page (e.g. from a GitHub issue), scoped by hardware instead.
    page_id: int | None = Field(default=None, sa_column=_parent("status_page", nullable=True))
    component_a: str = Field(max_length=200)
    backend_a: str = Field(max_length=200)
    component_b: str = Field(max_length=200)
    backend_b: str = Field(max_length=200)
    precision: str | None = Field(default=None, max_length=50)
    hardware: str | None = Field(default=None, max_length=100)
    outcome: str = Field(max_length=16)
    error_text: str = ""
    # "notes" when read from a table's notes prose, "table" for rules kept in the Compatibility table.
    origin: str = Field(default="table", max_length=16)
    created_by: str = Field(default="importer", max_length=100)
    created_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())
    updated_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())
