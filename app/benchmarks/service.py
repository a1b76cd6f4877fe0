"""Storing benchmark runs, their metrics and series, and reading them back."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, text, tuple_
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
from app.benchmarks.formats.base import ParsedResult, json_safe
from app.benchmarks.models import (
    BenchmarkRun,
    BenchmarkSeries,
    MetricPublic,
    RunMetric,
    RunPublic,
    RunSummaryPublic,
)
from app.core.errors import InvalidInput, NotFound
from app.core.models import utcnow
from app.github_refs.models import LinkTarget
from app.github_refs.service import get_or_create_ref, link_ref, parse_ref, refs_for_targets
from app.trends.service import baseline_comparison, evaluate_run


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
        raw_filename=raw_filename[:300] if raw_filename else None,
        run_time=run_time,
        uploaded_at=uploaded_at,
        uploaded_by=actor,
        context=json_safe(context),
        details=json_safe(parsed.details),
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
    for position, (written, address) in enumerate(zip(context["links"], addresses, strict=True)):
        ref = get_or_create_ref(session=session, address=address)
        link_ref(
            session=session,
            ref=ref,
            target_type=LinkTarget.run,
            target_id=run.id,
            text_as_written=written,
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
            "run_time": run.run_time.isoformat(),
            "label": run.label,
        },
        occurred_at=uploaded_at,
    )
    session.flush()
    # Trends: compare the new run with its series' baseline in the same transaction (app/trends).
    evaluate_run(session=session, run=run, actor=actor)
    return run, True


def metrics_of(*, session: Session, run_id: int) -> list[RunMetric]:
    """Returns a run's metrics in the order they were read."""
    return list(session.exec(select(RunMetric).where(RunMetric.run_id == run_id).order_by(col(RunMetric.id))))


def run_links(*, run: BenchmarkRun) -> dict[str, str]:
    """Where to find a run and its series, for API answers."""
    return {
        "self": f"/api/v1/runs/{run.id}",
        "raw": f"/api/v1/runs/{run.id}/raw",
        "html": f"/benchmarks/runs/{run.id}",
        "series_runs": f"/benchmarks?series={run.series_key}",
    }


def upload_answer(*, session: Session, run: BenchmarkRun, created: bool) -> dict[str, Any]:
    """The answer to one stored upload: the run, its series, its metrics and where to look next."""
    return {
        "id": run.id,
        "series_key": run.series_key,
        "created": created,
        "format": run.source_format,
        "run_time": run.run_time.isoformat(),
        "label": run.label,
        "metrics": [
            MetricPublic.model_validate(metric, from_attributes=True).model_dump()
            for metric in metrics_of(session=session, run_id=run.id)
        ],
        "links": run_links(run=run),
        "baseline": baseline_comparison(session=session, run=run),
    }


def get_run(*, session: Session, run_id: int) -> BenchmarkRun:
    """Returns a run or raises `NotFound`."""
    run = session.get(BenchmarkRun, run_id)
    if run is None:
        raise NotFound(f"no benchmark run {run_id}", field="id")
    return run


@dataclass(frozen=True)
class RunFilters:
    """What a list of runs can be narrowed by; every field is optional."""

    hardware: str | None = None
    model: str | None = None
    precision: str | None = None
    engine: str | None = None
    backend: str | None = None
    label: str | None = None
    series_key: str | None = None
    source_format: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def is_empty(self) -> bool:
        return all(value in (None, "") for value in self.__dict__.values())


def _filtered(query, filters: RunFilters):
    if filters.hardware:
        query = query.where(func.lower(BenchmarkRun.hardware) == filters.hardware.lower())
    if filters.model:
        query = query.where(col(BenchmarkRun.model).ilike(f"%{_escape_like(filters.model)}%", escape="\\"))
    if filters.precision:
        query = query.where(BenchmarkRun.precision == filters.precision.lower())
    if filters.engine:
        query = query.where(BenchmarkRun.engine == filters.engine.lower())
    if filters.label:
        query = query.where(BenchmarkRun.label == filters.label)
    if filters.series_key:
        query = query.where(BenchmarkRun.series_key == filters.series_key)
    if filters.source_format:
        query = query.where(BenchmarkRun.source_format == filters.source_format)
    if filters.since:
        query = query.where(BenchmarkRun.run_time >= filters.since)
    if filters.until:
        query = query.where(BenchmarkRun.run_time < filters.until)
    if filters.backend:
        component, equals, backend = filters.backend.partition("=")
        if equals:
            # context.backends[component] equals backend, case-insensitively.
            value = BenchmarkRun.__table__.c.context["backends"][component.strip().lower()].astext
            query = query.where(func.lower(value) == backend.strip().lower())
        else:
            any_backend = text(
                "EXISTS (SELECT 1 FROM jsonb_each_text(benchmark_run.context->'backends') AS backend_choice "
                "WHERE lower(backend_choice.value) = lower(:backend_filter))"
            ).bindparams(backend_filter=filters.backend.strip())
            query = query.where(any_backend)
    return query


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def encode_cursor(run: BenchmarkRun) -> str:
    """An opaque cursor after `run` in (run_time desc, id desc) order."""
    return base64.urlsafe_b64encode(f"{run.run_time.isoformat()}|{run.id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    """Reads a cursor from `encode_cursor`, or raises `InvalidInput` naming `cursor`."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        moment, _, run_id = base64.urlsafe_b64decode(padded.encode()).decode().partition("|")
        return datetime.fromisoformat(moment), int(run_id)
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("cursor is not one this server gave out", field="cursor") from None


def list_runs(
    *, session: Session, filters: RunFilters, limit: int = 50, cursor: str | None = None
) -> tuple[list[BenchmarkRun], str | None]:
    """Lists runs newest first; returns a page and the cursor of the next page (None at the end)."""
    query = _filtered(select(BenchmarkRun), filters)
    if cursor:
        moment, run_id = decode_cursor(cursor)
        query = query.where(tuple_(BenchmarkRun.run_time, BenchmarkRun.id) < tuple_(moment, run_id))
    query = query.order_by(col(BenchmarkRun.run_time).desc(), col(BenchmarkRun.id).desc()).limit(limit + 1)
    runs = list(session.exec(query))
    next_cursor = encode_cursor(runs[limit - 1]) if len(runs) > limit else None
    return runs[:limit], next_cursor


def filter_choices(*, session: Session) -> dict[str, list[str]]:
    """The distinct values the list filters offer (hardware, models, precisions, labels, backends)."""
    choices: dict[str, list[str]] = {}
    for name, column in (
        ("hardware", BenchmarkRun.hardware),
        ("model", BenchmarkRun.model),
        ("precision", BenchmarkRun.precision),
        ("label", BenchmarkRun.label),
    ):
        rows = session.exec(select(column).where(col(column).is_not(None)).distinct().order_by(column))
        choices[name] = [value for value in rows if value]
    backends = session.execute(
        text(
            "SELECT DISTINCT backend_choice.key || '=' || backend_choice.value FROM benchmark_run, "
            "jsonb_each_text(benchmark_run.context->'backends') AS backend_choice ORDER BY 1"
        )
    )
    choices["backend"] = [row[0] for row in backends]
    return choices


def run_public(*, session: Session, run: BenchmarkRun) -> RunPublic:
    """The whole run for the API: context, details, metrics, linked refs and links."""
    refs = refs_for_targets(session=session, target_type=LinkTarget.run, target_ids=[run.id])
    links: dict[str, Any] = dict(run_links(run=run))
    links["refs"] = [
        {"ref": ref.short_name, "url": ref.url, "state": ref.display_state, "title": ref.title}
        for ref, _ in refs.get(run.id, [])
    ]
    return RunPublic(
        **RunSummaryPublic.model_validate(run, from_attributes=True).model_dump(),
        context=run.context,
        details=run.details,
        metrics=[
            MetricPublic.model_validate(metric, from_attributes=True)
            for metric in metrics_of(session=session, run_id=run.id)
        ],
        raw_content_type=run.raw_content_type,
        raw_filename=run.raw_filename,
        raw_size=len(run.raw_payload),
        links=links,
    )


# The metric a list row shows first, by preference; the run page shows them all.
HEADLINE_METRICS = ("total_token_throughput", "output_throughput", "tokens_per_second", "avg_latency")


def headline_metrics(*, session: Session, run_ids: list[int]) -> dict[int, RunMetric]:
    """One metric per run for lists: the preferred throughput, else the first with a direction."""
    if not run_ids:
        return {}
    rows = session.exec(
        select(RunMetric).where(col(RunMetric.run_id).in_(run_ids)).order_by(col(RunMetric.id))
    )
    by_run: dict[int, list[RunMetric]] = {}
    for metric in rows:
        by_run.setdefault(metric.run_id, []).append(metric)
    headline = {}
    for run_id, metrics in by_run.items():
        named = {metric.name: metric for metric in metrics}
        preferred = next((named[name] for name in HEADLINE_METRICS if name in named), None)
        headline[run_id] = preferred or next(
            (metric for metric in metrics if metric.better_direction != "none"), metrics[0]
        )
    return headline
