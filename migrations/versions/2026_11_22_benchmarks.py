"""benchmarks

Revision ID: 0004
Revises: 0001
Create Date: 2026-11-22 13:41:05.936984+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "benchmark_series",
        sa.Column("series_key", sa.String(length=64), nullable=False),
        sa.Column(
            "context",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column("hardware", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("gpu_count", sa.Integer(), nullable=True),
        sa.Column("model", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("precision", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=True),
        sa.Column("engine", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=False),
        sa.Column("first_run_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_run_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("series_key", name=op.f("pk_benchmark_series")),
    )
    op.create_index(op.f("ix_benchmark_series_hardware"), "benchmark_series", ["hardware"], unique=False)
    op.create_index(op.f("ix_benchmark_series_model"), "benchmark_series", ["model"], unique=False)
    op.create_table(
        "benchmark_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("series_key", sa.String(length=64), nullable=False),
        sa.Column("source_format", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("raw_payload", sa.LargeBinary(), nullable=False),
        sa.Column("raw_content_type", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("raw_filename", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=True),
        sa.Column("run_time", sa.DateTime(timezone=True), nullable=False),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("uploaded_by", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column(
            "context",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "details",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column("hardware", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("gpu_count", sa.Integer(), nullable=True),
        sa.Column("model", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("precision", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=True),
        sa.Column("engine", sqlmodel.sql.sqltypes.AutoString(length=50), nullable=False),
        sa.Column("engine_version", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=True),
        sa.Column("engine_commit", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("label", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.ForeignKeyConstraint(
            ["series_key"],
            ["benchmark_series.series_key"],
            name=op.f("fk_benchmark_run_series_key_benchmark_series"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_benchmark_run")),
        sa.UniqueConstraint("digest", name=op.f("uq_benchmark_run_digest")),
    )
    op.create_index(op.f("ix_benchmark_run_hardware"), "benchmark_run", ["hardware"], unique=False)
    op.create_index(op.f("ix_benchmark_run_label"), "benchmark_run", ["label"], unique=False)
    op.create_index(op.f("ix_benchmark_run_model"), "benchmark_run", ["model"], unique=False)
    op.create_index(op.f("ix_benchmark_run_precision"), "benchmark_run", ["precision"], unique=False)
    op.create_index("ix_benchmark_run_run_time", "benchmark_run", ["run_time"], unique=False)
    op.create_index(
        "ix_benchmark_run_series_key_run_time", "benchmark_run", ["series_key", "run_time"], unique=False
    )
    op.create_table(
        "run_metric",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("unit", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("better_direction", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["benchmark_run.id"],
            name=op.f("fk_run_metric_run_id_benchmark_run"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_run_metric")),
        sa.UniqueConstraint("run_id", "name", name=op.f("uq_run_metric_run_id_name")),
    )
    op.create_index(op.f("ix_run_metric_name"), "run_metric", ["name"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_run_metric_name"), table_name="run_metric")
    op.drop_table("run_metric")
    op.drop_index("ix_benchmark_run_series_key_run_time", table_name="benchmark_run")
    op.drop_index("ix_benchmark_run_run_time", table_name="benchmark_run")
    op.drop_index(op.f("ix_benchmark_run_precision"), table_name="benchmark_run")
    op.drop_index(op.f("ix_benchmark_run_model"), table_name="benchmark_run")
    op.drop_index(op.f("ix_benchmark_run_label"), table_name="benchmark_run")
    op.drop_index(op.f("ix_benchmark_run_hardware"), table_name="benchmark_run")
    op.drop_table("benchmark_run")
    op.drop_index(op.f("ix_benchmark_series_model"), table_name="benchmark_series")
    op.drop_index(op.f("ix_benchmark_series_hardware"), table_name="benchmark_series")
    op.drop_table("benchmark_series")
