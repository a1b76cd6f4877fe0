"""trends

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 13:46:22.843985+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "run_evaluation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("series_key", sa.String(length=64), nullable=False),
        sa.Column("metric", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("run_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("baseline", sa.Float(), nullable=True),
        sa.Column("noise", sa.Float(), nullable=True),
        sa.Column("delta_pct", sa.Float(), nullable=True),
        sa.Column("allowed_pct", sa.Float(), nullable=True),
        sa.Column("prior_runs", sa.Integer(), nullable=False),
        sa.Column("label", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("direction", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("detected_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["benchmark_run.id"],
            name=op.f("fk_run_evaluation_run_id_benchmark_run"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["series_key"],
            ["benchmark_series.series_key"],
            name=op.f("fk_run_evaluation_series_key_benchmark_series"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_evaluation")),
        sa.UniqueConstraint("run_id", "metric", name=op.f("uq_run_evaluation_run_id_metric")),
    )
    op.create_index("ix_run_evaluation_label_run_time", "run_evaluation", ["label", "run_time"], unique=False)
    op.create_index(
        "ix_run_evaluation_series_key_metric_run_time",
        "run_evaluation",
        ["series_key", "metric", "run_time"],
        unique=False,
    )
    op.create_table(
        "series_annotation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("series_key", sa.String(length=64), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("metric", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["benchmark_run.id"],
            name=op.f("fk_series_annotation_run_id_benchmark_run"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["series_key"],
            ["benchmark_series.series_key"],
            name=op.f("fk_series_annotation_series_key_benchmark_series"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_series_annotation")),
    )
    op.create_index(op.f("ix_series_annotation_run_id"), "series_annotation", ["run_id"], unique=False)
    op.create_index(
        "ix_series_annotation_series_key_kind", "series_annotation", ["series_key", "kind"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_series_annotation_series_key_kind", table_name="series_annotation")
    op.drop_index(op.f("ix_series_annotation_run_id"), table_name="series_annotation")
    op.drop_table("series_annotation")
    op.drop_index("ix_run_evaluation_series_key_metric_run_time", table_name="run_evaluation")
    op.drop_index("ix_run_evaluation_label_run_time", table_name="run_evaluation")
    op.drop_table("run_evaluation")
