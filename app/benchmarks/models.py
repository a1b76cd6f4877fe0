"""Benchmark runs, their normalised metrics, and the series that line one configuration's runs up.

A run keeps the upload verbatim (`raw_payload`) so nothing is ever lost; `context` holds the normalised
context (see `app/benchmarks/context.py`), and the columns next to it repeat the parts that lists filter on.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, LargeBinary, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.models import json_column, timestamp_column, utcnow


class BetterDirection(StrEnum):
    """Which way a metric improves; `none` for counts and descriptive values."""

    higher = "higher"
    lower = "lower"
    none = "none"


class BenchmarkSeries(SQLModel, table=True):
    """One configuration: runs whose contexts match but for time, version, commit, label, tags, links."""

    __tablename__ = "benchmark_series"

    # sha256 hex of the canonical JSON of the series context (see `context.series_key`).
    series_key: str = Field(sa_column=Column(String(64), primary_key=True))
    context: dict[str, Any] = Field(default_factory=dict, sa_column=json_column())
    hardware: str = Field(max_length=100, index=True)
    gpu_count: int | None = None
    model: str = Field(max_length=300, index=True)
    precision: str | None = Field(default=None, max_length=50)
    engine: str = Field(max_length=50)
    first_run_time: datetime = Field(sa_column=timestamp_column(default_now=False))
    last_run_time: datetime = Field(sa_column=timestamp_column(default_now=False))
    run_count: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())


class BenchmarkRun(SQLModel, table=True):
    __tablename__ = "benchmark_run"
    __table_args__ = (
        # Trend queries read one series in time order.
        Index("ix_benchmark_run_series_key_run_time", "series_key", "run_time"),
        Index("ix_benchmark_run_run_time", "run_time"),
    )

    id: int | None = Field(default=None, primary_key=True)
    # sha256 hex of (format, canonical supplied context, raw bytes): the same upload twice is one run.
    digest: str = Field(sa_column=Column(String(64), nullable=False, unique=True))
    series_key: str = Field(
        sa_column=Column(
            String(64), ForeignKey("benchmark_series.series_key", ondelete="CASCADE"), nullable=False
        )
    )
    source_format: str = Field(max_length=40)
    raw_payload: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    raw_content_type: str = Field(default="application/octet-stream", max_length=100)
    raw_filename: str | None = Field(default=None, max_length=300)
    run_time: datetime = Field(sa_column=timestamp_column(default_now=False))
    uploaded_at: datetime = Field(default_factory=utcnow, sa_column=timestamp_column())
    uploaded_by: str = Field(max_length=100)
    context: dict[str, Any] = Field(default_factory=dict, sa_column=json_column())
    # What the parser kept beside the metrics: setup keys, summaries of per-request lists, warnings.
    details: dict[str, Any] = Field(default_factory=dict, sa_column=json_column())
    hardware: str = Field(max_length=100, index=True)
    gpu_count: int | None = None
    model: str = Field(max_length=300, index=True)
    precision: str | None = Field(default=None, max_length=50, index=True)
    engine: str = Field(max_length=50)
    engine_version: str | None = Field(default=None, max_length=100)
    engine_commit: str | None = Field(default=None, max_length=64)
    label: str | None = Field(default=None, max_length=200, index=True)

    @property
    def backends(self) -> dict[str, str]:
        """Component → backend, from the context."""
        return dict(self.context.get("backends") or {})


class RunMetric(SQLModel, table=True):
    __tablename__ = "run_metric"
    __table_args__ = (UniqueConstraint("run_id", "name"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = Field(
        sa_column=Column(Integer, ForeignKey("benchmark_run.id", ondelete="CASCADE"), nullable=False)
    )
    name: str = Field(max_length=200, index=True)
    value: float = Field(sa_column=Column(Float, nullable=False))
    unit: str = Field(default="", max_length=32)
    better_direction: str = Field(default=BetterDirection.none.value, max_length=8)


class MetricPublic(SQLModel):
    name: str
    value: float
    unit: str
    better_direction: str


class RunSummaryPublic(SQLModel):
    id: int
    series_key: str
    source_format: str
    run_time: datetime
    uploaded_at: datetime
    uploaded_by: str
    hardware: str
    gpu_count: int | None
    model: str
    precision: str | None
    engine: str
    engine_version: str | None
    engine_commit: str | None
    label: str | None
    backends: dict[str, str]


class RunPublic(RunSummaryPublic):
    context: dict[str, Any]
    details: dict[str, Any]
    metrics: list[MetricPublic]
    raw_content_type: str
    raw_filename: str | None
    raw_size: int
    links: dict[str, Any]


class SeriesPublic(SQLModel):
    series_key: str
    context: dict[str, Any]
    hardware: str
    gpu_count: int | None
    model: str
    precision: str | None
    engine: str
    first_run_time: datetime
    last_run_time: datetime
    run_count: int
