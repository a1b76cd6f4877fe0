"""foundation

Revision ID: 0001
Revises:
Create Date: 2026-11-22 13:32:30.234588+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "api_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("token_prefix", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("token_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("scopes", postgresql.ARRAY(sa.String(length=16)), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_token")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_token_token_hash")),
    )
    op.create_index(op.f("ix_api_token_name"), "api_token", ["name"], unique=False)
    op.create_table(
        "change_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("occurred_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("subject_type", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("subject_id", sa.Integer(), nullable=True),
        sa.Column("page_id", sa.Integer(), nullable=True),
        sa.Column("field_name", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column(
            "old_value",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'null'::jsonb"),
            nullable=True,
        ),
        sa.Column(
            "new_value",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'null'::jsonb"),
            nullable=True,
        ),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column(
            "context",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_change_event")),
    )
    op.create_index("ix_change_event_kind_occurred_at", "change_event", ["kind", "occurred_at"], unique=False)
    op.create_index(op.f("ix_change_event_occurred_at"), "change_event", ["occurred_at"], unique=False)
    op.create_index(op.f("ix_change_event_page_id"), "change_event", ["page_id"], unique=False)
    op.create_index("ix_change_event_subject", "change_event", ["subject_type", "subject_id"], unique=False)
    op.create_table(
        "github_ref",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("repo", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("title", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("draft", sa.Boolean(), nullable=False),
        sa.Column("merged", sa.Boolean(), nullable=False),
        sa.Column("merged_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "labels",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column("author", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("gh_created_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("gh_updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("gh_closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("html_url", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("etag", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("last_modified", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("last_synced_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_sync_error", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("not_found", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_github_ref")),
        sa.UniqueConstraint("repo", "number", name=op.f("uq_github_ref_repo_number")),
    )
    op.create_index(op.f("ix_github_ref_repo"), "github_ref", ["repo"], unique=False)
    op.create_table(
        "github_ref_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("ref_id", sa.Integer(), nullable=False),
        sa.Column("target_type", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("text_as_written", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("created_by", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.ForeignKeyConstraint(
            ["ref_id"],
            ["github_ref.id"],
            name=op.f("fk_github_ref_link_ref_id_github_ref"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_github_ref_link")),
        sa.UniqueConstraint(
            "ref_id", "target_type", "target_id", name=op.f("uq_github_ref_link_ref_id_target_type_target_id")
        ),
    )
    op.create_index(
        "ix_github_ref_link_target", "github_ref_link", ["target_type", "target_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_github_ref_link_target", table_name="github_ref_link")
    op.drop_table("github_ref_link")
    op.drop_index(op.f("ix_github_ref_repo"), table_name="github_ref")
    op.drop_table("github_ref")
    op.drop_index("ix_change_event_subject", table_name="change_event")
    op.drop_index(op.f("ix_change_event_page_id"), table_name="change_event")
    op.drop_index(op.f("ix_change_event_occurred_at"), table_name="change_event")
    op.drop_index("ix_change_event_kind_occurred_at", table_name="change_event")
    op.drop_table("change_event")
    op.drop_index(op.f("ix_api_token_name"), table_name="api_token")
    op.drop_table("api_token")
