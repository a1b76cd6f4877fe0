"""How a benchmark run reads where a GitHub ref is linked from it ("run 12 · B200 · DeepSeek-R1 · fp4")."""

from __future__ import annotations

from sqlmodel import Session, col, select

from app.benchmarks.models import BenchmarkRun
from app.github_refs.targets import TargetLabel


def describe_runs(session: Session, ids: list[int]) -> dict[int, TargetLabel]:
    """Labels runs by id, in one query."""
    rows = session.exec(select(BenchmarkRun).where(col(BenchmarkRun.id).in_(ids)))
    labels = {}
    for run in rows:
        parts = [f"run {run.id}", run.hardware, run.model.rsplit("/", 1)[-1]]
        if run.precision:
            parts.append(run.precision)
        if run.label:
            parts.append(run.label)
        labels[run.id] = TargetLabel(" · ".join(parts), f"/benchmarks/runs/{run.id}")
    return labels
