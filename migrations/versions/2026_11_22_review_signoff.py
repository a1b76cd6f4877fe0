"""review_signoff: the weekly review's sign-offs

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 13:43:16.987209+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "review_signoff",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("week", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column("actor", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("notes", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("signed_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_signoff")),
        sa.UniqueConstraint("week", name=op.f("uq_review_signoff_week")),
    )


def downgrade() -> None:
    op.drop_table("review_signoff")
