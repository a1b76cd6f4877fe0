"""status_pages

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 13:45:48.948786+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "status_page",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("engine", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("model", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("hardware", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("serving_mode", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("health_level", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("health_text", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("health_level_explicit", sa.Boolean(), nullable=False),
        sa.Column("preamble", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column(
            "layout",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_status_page")),
        sa.UniqueConstraint("slug", name=op.f("uq_status_page_slug")),
    )
    op.create_table(
        "compat_rule",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("page_id", sa.Integer(), nullable=True),
        sa.Column("component_a", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("backend_a", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("component_b", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("backend_b", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("precision", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=True),
        sa.Column("hardware", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("outcome", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("error_text", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("origin", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("created_by", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"],
            ["status_page.id"],
            name=op.f("fk_compat_rule_page_id_status_page"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_compat_rule")),
    )
    op.create_index("ix_compat_rule_components", "compat_rule", ["component_a", "component_b"], unique=False)
    op.create_index(op.f("ix_compat_rule_page_id"), "compat_rule", ["page_id"], unique=False)
    op.create_table(
        "page_section",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("page_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("precision", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=False),
        sa.Column("heading", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column(
            "columns",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "roles",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column("intro", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("outro", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"],
            ["status_page.id"],
            name=op.f("fk_page_section_page_id_status_page"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_page_section")),
        sa.UniqueConstraint("page_id", "precision", name=op.f("uq_page_section_page_id_precision")),
    )
    op.create_index(op.f("ix_page_section_page_id"), "page_section", ["page_id"], unique=False)
    op.create_table(
        "recipe",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("page_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("body", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column(
            "blocks",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["page_id"], ["status_page.id"], name=op.f("fk_recipe_page_id_status_page"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recipe")),
    )
    op.create_index(op.f("ix_recipe_page_id"), "recipe", ["page_id"], unique=False)
    op.create_table(
        "component_row",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("section_id", sa.Integer(), nullable=False),
        sa.Column("page_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("component", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("fastest_text", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("invocation", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("notes", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column(
            "extra_cells",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "source_refs",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "layout",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["page_id"],
            ["status_page.id"],
            name=op.f("fk_component_row_page_id_status_page"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["section_id"],
            ["page_section.id"],
            name=op.f("fk_component_row_section_id_page_section"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_component_row")),
        sa.UniqueConstraint("section_id", "component", name=op.f("uq_component_row_section_id_component")),
    )
    op.create_index(op.f("ix_component_row_page_id"), "component_row", ["page_id"], unique=False)
    op.create_index(op.f("ix_component_row_section_id"), "component_row", ["section_id"], unique=False)
    op.create_table(
        "backend_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("row_id", sa.Integer(), nullable=False),
        sa.Column("page_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("group_label", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("is_fastest", sa.Boolean(), nullable=False),
        sa.Column("is_fallback", sa.Boolean(), nullable=False),
        sa.Column("invocation", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("notes", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("label_as_written", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("listed", sa.Boolean(), nullable=False),
        sa.Column("status_as_imported", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column("default_as_imported", sa.Boolean(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"],
            ["status_page.id"],
            name=op.f("fk_backend_entry_page_id_status_page"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["row_id"],
            ["component_row.id"],
            name=op.f("fk_backend_entry_row_id_component_row"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_backend_entry")),
        sa.UniqueConstraint(
            "row_id", "group_label", "name", name=op.f("uq_backend_entry_row_id_group_label_name")
        ),
    )
    op.create_index(op.f("ix_backend_entry_page_id"), "backend_entry", ["page_id"], unique=False)
    op.create_index("ix_backend_entry_page_status", "backend_entry", ["page_id", "status"], unique=False)
    op.create_index(op.f("ix_backend_entry_row_id"), "backend_entry", ["row_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_backend_entry_row_id"), table_name="backend_entry")
    op.drop_index("ix_backend_entry_page_status", table_name="backend_entry")
    op.drop_index(op.f("ix_backend_entry_page_id"), table_name="backend_entry")
    op.drop_table("backend_entry")
    op.drop_index(op.f("ix_component_row_section_id"), table_name="component_row")
    op.drop_index(op.f("ix_component_row_page_id"), table_name="component_row")
    op.drop_table("component_row")
    op.drop_index(op.f("ix_recipe_page_id"), table_name="recipe")
    op.drop_table("recipe")
    op.drop_index(op.f("ix_page_section_page_id"), table_name="page_section")
    op.drop_table("page_section")
    op.drop_index(op.f("ix_compat_rule_page_id"), table_name="compat_rule")
    op.drop_index("ix_compat_rule_components", table_name="compat_rule")
    op.drop_table("compat_rule")
    op.drop_table("status_page")
