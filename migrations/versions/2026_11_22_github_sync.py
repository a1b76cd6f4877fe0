"""github_sync

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 13:43:40.238768+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "github_repo_cursor",
        sa.Column("repo", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("listing_etag", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("repo", name=op.f("pk_github_repo_cursor")),
    )
    op.create_table(
        "github_sync_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("trigger", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
        sa.Column("requests", sa.Integer(), nullable=False),
        sa.Column("not_modified", sa.Integer(), nullable=False),
        sa.Column("refs_checked", sa.Integer(), nullable=False),
        sa.Column("refs_changed", sa.Integer(), nullable=False),
        sa.Column(
            "errors",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column("message", sqlmodel.sql.sqltypes.AutoString(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_github_sync_run")),
    )
    op.create_index(op.f("ix_github_sync_run_started_at"), "github_sync_run", ["started_at"], unique=False)
    op.create_table(
        "github_webhook_delivery",
        sa.Column("delivery_id", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("event", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=False),
        sa.Column("action", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=True),
        sa.Column("repo", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("number", sa.Integer(), nullable=True),
        sa.Column("outcome", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("delivery_id", name=op.f("pk_github_webhook_delivery")),
    )
    op.create_index(
        op.f("ix_github_webhook_delivery_received_at"),
        "github_webhook_delivery",
        ["received_at"],
        unique=False,
    )
    op.add_column(
        "github_ref",
        sa.Column("review_requested", sa.Boolean(), server_default=sa.text("false"), nullable=False),
    )


def downgrade() -> None:
    op.drop_column("github_ref", "review_requested")
    op.drop_index(op.f("ix_github_webhook_delivery_received_at"), table_name="github_webhook_delivery")
    op.drop_table("github_webhook_delivery")
    op.drop_index(op.f("ix_github_sync_run_started_at"), table_name="github_sync_run")
    op.drop_table("github_sync_run")
    op.drop_table("github_repo_cursor")
