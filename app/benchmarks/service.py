"""Storing benchmark runs, their metrics and series, and reading them back."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlalchemy.dialects.postgresql import insert
from sqlmodel import Session, col, select

from app.audit.service import record_event
from app.benchmarks.context import (
    merge_contexts,
    normalise_context,
    series_context,
    series_key,
    upload_digest,
)
from app.benchmarks.formats.base import ParsedResult
from app.benchmarks.models import BenchmarkRun, BenchmarkSeries, RunMetric
from app.core.models import utcnow
from app.github_refs.models import LinkTarget
from app.github_refs.service import get_or_create_ref, link_ref, parse_ref


def prepare_context(*, parsed: ParsedResult, supplied: dict[str, Any]) -> dict[str, Any]:
    """Lays the supplied context over what the file states, and normalises the result."""
    return normalise_context(merge_contexts(parsed.context, supplied))


def get_run_by_digest(*, session: Session, digest: str) -> BenchmarkRun | None:
    """Returns the run stored for an upload digest, if any."""
    return session.exec(select(BenchmarkRun).where(BenchmarkRun.digest == digest)).first()


def _upsert_series(*, session: Session, context: dict[str, Any], key: str, run_time: datetime) -> None:
    values = {
        "series_key": key,
        "context": series_context(context),
        "hardware": context["hardware"],
        "gpu_count": context["gpu_count"],
        "model": context["model"],
        "precision": context["precision"],
        "engine": context["engine"],
        "first_run_time": run_time,
        "last_run_time": run_time,
        "run_count": 1,
    }
    table = BenchmarkSeries.__table__
    statement = insert(BenchmarkSeries).values(**values)
    # Concurrent uploads to one series both land: the counter and the time range update in place.
    statement = statement.on_conflict_do_update(
        index_elements=["series_key"],
        set_={
            "first_run_time": func.least(table.c.first_run_time, statement.excluded.first_run_time),
            "last_run_time": func.greatest(table.c.last_run_time, statement.excluded.last_run_time),
            "run_count": table.c.run_count + 1,
        },
    )
    session.execute(statement)


def store_run(
    *,
    session: Session,
    parsed: ParsedResult,
    supplied_context: dict[str, Any],
    actor: str,
    default_repo: str,
    repo_aliases: dict[str, str],
    raw_content_type: str = "application/octet-stream",
    raw_filename: str | None = None,
    now: datetime | None = None,
) -> tuple[BenchmarkRun, bool]:
    """Stores one parsed run (or finds the identical earlier upload); returns (run, created)."""
    context = prepare_context(parsed=parsed, supplied=supplied_context)
    # The digest is taken before run_time defaults to the upload time, so re-sending stays idempotent.
    digest = upload_digest(source_format=parsed.source_format, context=context, raw=parsed.raw)
    existing = get_run_by_digest(session=session, digest=digest)
    if existing is not None:
        return existing, False
    # Parse every ref before writing anything, so a bad reference stores nothing.
    addresses = [
        parse_ref(text, default_repo=default_repo, aliases=repo_aliases) for text in context["links"]
    ]
    uploaded_at = now or utcnow()
    run_time = datetime.fromisoformat(context["run_time"]) if context["run_time"] else uploaded_at
    context["run_time"] = run_time.isoformat()
    key = series_key(context)
    _upsert_series(session=session, context=context, key=key, run_time=run_time)
    run = BenchmarkRun(
        digest=digest,
        series_key=key,
        source_format=parsed.source_format,
        raw_payload=parsed.raw,
        raw_content_type=raw_content_type,
        raw_filename=raw_filename,
        run_time=run_time,
        uploaded_at=uploaded_at,
        uploaded_by=actor,
        context=context,
        details=parsed.details,
        hardware=context["hardware"],
        gpu_count=context["gpu_count"],
        model=context["model"],
        precision=context["precision"],
        engine=context["engine"],
        engine_version=context["engine_version"],
        engine_commit=context["engine_commit"],
        label=context["label"],
    )
    session.add(run)
    session.flush()
    for metric in parsed.metrics:
        session.add(
            RunMetric(
                run_id=run.id,
                name=metric.name,
                value=metric.value,
                unit=metric.unit,
                better_direction=metric.better_direction,
            )
        )
    for position, (text, address) in enumerate(zip(context["links"], addresses, strict=True)):
        ref = get_or_create_ref(session=session, address=address)
        link_ref(
            session=session,
            ref=ref,
            target_type=LinkTarget.run,
            target_id=run.id,
            text_as_written=text,
            position=position,
            actor=actor,
        )
    record_event(
        session=session,
        actor=actor,
        kind="run.uploaded",
        subject_type="run",
        subject_id=run.id,
        new_value=parsed.source_format,
        context={
            "series_key": key,
            "hardware": run.hardware,
            "model": run.model,
            "precision": run.precision,
        },
        occurred_at=uploaded_at,
    )
    session.flush()
    return run, True


def metrics_of(*, session: Session, run_id: int) -> list[RunMetric]:
    """Returns a run's metrics in the order they were read."""
    return list(session.exec(select(RunMetric).where(RunMetric.run_id == run_id).order_by(col(RunMetric.id))))
