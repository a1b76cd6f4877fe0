"""Detection results and series annotations, persisted so pages, the regression API and the weekly
review read them without recomputing."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.models import timestamp_column, utcnow


class AnnotationKind(StrEnum):
    distribution_change = "distribution_change"
    acknowledgement = "acknowledgement"


class RunEvaluation(SQLModel, table=True):
    """One metric of one run compared with its series' baseline at upload time (see detector.py)."""

    __tablename__ = "run_evaluation"
    __table_args__ = (
        UniqueConstraint("run_id", "metric"),
        # The trend reads one series' metric in time order; the regression list reads by label.
        Index("ix_run_evaluation_series_key_metric_run_time", "series_key", "metric", "run_time"),
        Index("ix_run_evaluation_label_run_time", "label", "run_time"),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(
        sa_column=Column(Integer, ForeignKey("benchmark_run.id", ondelete="CASCADE"), nullable=False)
    )
    series_key: str = Field(
        sa_column=Column(
            String(64), ForeignKey("benchmark_series.series_key", ondelete="CASCADE"), nullable=False
        )
    )
    metric: str = Field(max_length=200)
    run_time: datetime = Field(sa_column=timestamp_column(default_now=False))
    value: float = Field(sa_column=Column(Float, nullable=False))
    baseline: float | None = Field(default=None, sa_column=Column(Float, nullable=True))
    noise: float | None = Field(default=None, sa_column=Column(Float, nullable=True))
    delta_pct: float | None = Field(default=None, sa_column=Column(Float, nullable=True))
    allowed_pct: float | None = Field(default=None, sa_column=Column(Float, nullable=True))
    prior_runs: int = 0
    # insufficient_data | ok | suspicious | regression | improvement
    label: str = Field(max_length=32)
    # regression | improvement: which way the value moved relative to the metric's better direction.
    direction: str | None = Field(default=None, max_length=16)
    detected_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())


class SeriesAnnotation(SQLModel, table=True):
    """A person's word on a series: a distribution change from a run on, or a regression acknowledged."""

    __tablename__ = "series_annotation"
    __table_args__ = (Index("ix_series_annotation_series_key_kind", "series_key", "kind"),)

    id: int | None = Field(default=None, primary_key=True)
    series_key: str = Field(
        sa_column=Column(
            String(64), ForeignKey("benchmark_series.series_key", ondelete="CASCADE"), nullable=False
        )
    )
    kind: str = Field(max_length=32)
    run_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("benchmark_run.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    # The metric an acknowledgement is about; None: every metric of the run.
    metric: str | None = Field(default=None, max_length=200)
    note: str = Field(sa_column=Column(Text, nullable=False))
    actor: str = Field(max_length=100)
    created_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())


class EvaluationPublic(SQLModel):
    run_id: int
    metric: str
    run_time: datetime
    value: float
    baseline: float | None
    noise: float | None
    delta_pct: float | None
    allowed_pct: float | None
    prior_runs: int
    label: str
    direction: str | None


class AnnotationPublic(SQLModel):
    id: int
    series_key: str
    kind: str
    run_id: int
    metric: str | None
    note: str
    actor: str
    created_at: datetime


class DistributionChangeCreate(SQLModel):
    run_id: int = Field(description="The first run of the new distribution.")
    note: str = Field(min_length=1, max_length=2000, description="Why the numbers moved (driver, config…).")


class AcknowledgementCreate(SQLModel):
    metric: str | None = Field(default=None, max_length=200, description="None: every metric of the run.")
    note: str = Field(min_length=1, max_length=2000, description="What is known about the regression.")
