"""Evaluation storage: one row per run and metric, whatever the path that (re)computes it."""

from __future__ import annotations

from sqlmodel import func, select

from app.benchmarks.models import BenchmarkRun
from app.trends.models import RunEvaluation
from app.trends.service import evaluate_run, reevaluate_series
from tests.trends.factories import STEADY, upload_history


def test_evaluating_again_updates_rows_instead_of_adding_them(client, auth_header, session, settings) -> None:
    answers = upload_history(client, auth_header("upload"), [*STEADY, 74.0, 73.5])
    run = session.get(BenchmarkRun, answers[-1]["id"])
    before = session.exec(select(func.count()).select_from(RunEvaluation)).one()
    evaluate_run(session=session, run=run, actor="test", settings=settings)
    assert reevaluate_series(session=session, series_key=run.series_key, settings=settings) > 0
    assert session.exec(select(func.count()).select_from(RunEvaluation)).one() == before
    row = session.exec(
        select(RunEvaluation).where(
            RunEvaluation.run_id == run.id, RunEvaluation.metric == "output_throughput"
        )
    ).one()
    assert row.label == "regression" and row.baseline == 92.05
