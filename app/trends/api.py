"""JSON API of trends: series, one metric's trend, comparisons, regressions and annotations."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Query
from sqlmodel import Field, SQLModel

from app.auth.deps import Editor, Reader
from app.benchmarks.models import SeriesPublic
from app.core.database import SessionDep, SettingsDep
from app.trends import service, trend
from app.trends.downsample import DEFAULT_MAX_POINTS, MAX_MAX_POINTS, MIN_MAX_POINTS
from app.trends.models import (
    AcknowledgementCreate,
    AnnotationPublic,
    DistributionChangeCreate,
    EvaluationPublic,
)
from app.trends.shifts import Finding, open_findings

router = APIRouter(tags=["trends"])


class SeriesSummary(SeriesPublic):
    name: str
    median_interval_hours: float | None
    overdue: bool
    links: dict[str, str]


class TrendPointPublic(SQLModel):
    run_id: int
    run_time: datetime
    value: float
    engine_version: str | None
    engine_commit: str | None
    label: str | None
    direction: str | None
    baseline: float | None
    allowed_pct: float | None
    delta_pct: float | None


class ChangePointPublic(SQLModel):
    run_id: int
    run_time: datetime
    before: float
    after: float
    delta_pct: float
    shift_in_noise: float
    direction: str | None


class TrendPublic(SQLModel):
    series_key: str
    series_name: str
    metric: str
    unit: str
    better_direction: str
    total_points: int
    returned_points: int
    downsampled: bool
    baseline_note: str | None
    points: list[TrendPointPublic]
    change_points: list[ChangePointPublic]
    annotations: list[AnnotationPublic]


class ComparisonRowPublic(SQLModel):
    metric: str
    unit: str
    better_direction: str
    a: float | None
    b: float | None
    delta_pct: float | None
    direction: str | None
    noise_pct: float | None
    beyond_noise: bool | None
    tone: str


class ComparisonPublic(SQLModel):
    a: int
    b: int
    same_series: bool
    metrics: list[ComparisonRowPublic]
    links: dict[str, str]


class RegressionRunPublic(SQLModel):
    run_id: int
    run_time: datetime
    value: float
    delta_pct: float | None


class RegressionPublic(SQLModel):
    kind: str = Field(
        description="threshold: the run is labelled regression; change_point: a level shift starts at it"
    )
    run_id: int
    series_key: str
    metric: str
    run_time: datetime
    value: float = Field(
        description="The run's value (threshold) or the median after the shift (change_point)"
    )
    baseline: float | None = Field(description="The baseline (threshold) or the median before the shift")
    delta_pct: float | None
    allowed_pct: float | None
    hardware: str
    model: str
    precision: str | None
    engine_version: str | None
    engine_commit: str | None
    runs: list[RegressionRunPublic] = Field(description="The runs it covers, oldest first")
    links: dict[str, str]


def series_links(series_key: str) -> dict[str, str]:
    return {"trend_page": f"/trends?series={series_key}", "trend_api": f"/api/v1/series/{series_key}/trend"}


@router.get("/series", response_model=list[SeriesSummary])
def get_series_list(
    session: SessionDep,
    principal: Reader,
    hardware: str | None = None,
    model: str | None = None,
    precision: str | None = None,
    backend: str | None = Query(None, description="Any component's backend, e.g. MARLIN."),
    dataset: str | None = None,
    input_len: int | None = Query(None, ge=0),
    output_len: int | None = Query(None, ge=0),
    concurrency: int | None = Query(None, ge=0),
    limit: int = Query(200, ge=1, le=1000),
) -> list[SeriesSummary]:
    """Series (one configuration's runs) matching the filters, most recently run first."""
    filters = trend.SeriesFilters(
        hardware=hardware,
        model=model,
        precision=precision,
        backend=backend,
        dataset=dataset,
        input_len=input_len,
        output_len=output_len,
        concurrency=concurrency,
    )
    found = trend.list_series(session=session, filters=filters, limit=limit)
    cadences = trend.series_cadences(session=session, series_keys=[series.series_key for series in found])
    summaries = []
    for series in found:
        rhythm = cadences[series.series_key]
        interval = rhythm.median_interval
        summaries.append(
            SeriesSummary.model_validate(
                series,
                update={
                    "name": trend.series_name(series),
                    "median_interval_hours": interval.total_seconds() / 3600 if interval else None,
                    "overdue": rhythm.overdue,
                    "links": series_links(series.series_key),
                },
            )
        )
    return summaries


@router.get("/series/{series_key}/trend", response_model=TrendPublic)
def get_trend(
    series_key: str,
    session: SessionDep,
    principal: Reader,
    metric: str = Query(..., description="Metric name, e.g. total_token_throughput."),
    since: datetime | None = Query(None, description="Only runs at or after this time (ISO 8601)."),
    max_points: int = Query(DEFAULT_MAX_POINTS, ge=MIN_MAX_POINTS, le=MAX_MAX_POINTS),
) -> TrendPublic:
    """One metric of one series over time, downsampled on the server to at most `max_points` points."""
    found = trend.series_trend(
        session=session, series_key=series_key, metric=metric, since=since, max_points=max_points
    )
    return TrendPublic(
        series_key=series_key,
        series_name=trend.series_name(found.series),
        metric=metric,
        unit=found.unit,
        better_direction=found.better,
        total_points=found.total_points,
        returned_points=len(found.points),
        downsampled=found.downsampled,
        baseline_note=found.baseline_note,
        points=[TrendPointPublic.model_validate(point, from_attributes=True) for point in found.points],
        change_points=[
            ChangePointPublic.model_validate(point, from_attributes=True) for point in found.change_points
        ],
        annotations=[AnnotationPublic.model_validate(note) for note in found.annotations],
    )


@router.get("/compare", response_model=ComparisonPublic)
def get_comparison(
    session: SessionDep,
    principal: Reader,
    a: int = Query(..., description="The run to compare from (before)."),
    b: int = Query(..., description="The run to compare to (after)."),
) -> ComparisonPublic:
    """Run `b` against run `a`: per-metric values, % delta, better or worse, beyond the noise or not."""
    comparison = trend.compare_runs(session=session, a=a, b=b)
    rows = [
        ComparisonRowPublic(
            metric=row.name,
            unit=row.unit,
            better_direction=row.better,
            a=row.a,
            b=row.b,
            delta_pct=row.delta_pct,
            direction=row.direction.value if row.direction else None,
            noise_pct=row.noise_pct,
            beyond_noise=row.beyond_noise,
            tone=row.tone,
        )
        for row in comparison.rows
    ]
    return ComparisonPublic(
        a=a, b=b, same_series=comparison.same_series, metrics=rows, links={"page": f"/compare?a={a}&b={b}"}
    )


@router.get("/regressions", response_model=list[RegressionPublic])
def get_regressions(
    session: SessionDep,
    principal: Reader,
    since: datetime | None = Query(None, description="Only runs at or after this time (ISO 8601)."),
    shifts: bool = Query(True, description="Include level shifts (change points; 30 days back by default)."),
    limit: int = Query(500, ge=1, le=5000),
) -> list[RegressionPublic]:
    """Open regressions, one per series and metric, most recent first: runs labelled `regression` and
    level shifts, not acknowledged. `run_id` is where it starts; `runs` lists every run it covers."""
    found = open_findings(session=session, since=since, include_shifts=shifts, limit=limit)
    return [regression_public(finding) for finding in found]


def regression_public(finding: Finding) -> RegressionPublic:
    run, metric = finding.run, finding.metric
    return RegressionPublic(
        kind=finding.kind,
        run_id=run.id,
        series_key=run.series_key,
        metric=metric,
        run_time=run.run_time,
        value=finding.value,
        baseline=finding.baseline,
        delta_pct=finding.delta_pct,
        allowed_pct=finding.allowed_pct,
        hardware=run.hardware,
        model=run.model,
        precision=run.precision,
        engine_version=run.engine_version,
        engine_commit=run.engine_commit,
        runs=[RegressionRunPublic(**item) for item in finding.runs],
        links={
            "run": f"/api/v1/runs/{run.id}",
            "trend_page": f"/trends?series={run.series_key}&metric={metric}",
            "trend_api": f"/api/v1/series/{run.series_key}/trend?metric={metric}",
        },
    )


@router.get("/runs/{run_id}/evaluations", response_model=list[EvaluationPublic])
def get_run_evaluations(run_id: int, session: SessionDep, principal: Reader) -> list[EvaluationPublic]:
    """How each metric of a run compared with its series' baseline when it arrived."""
    service.get_run(session=session, run_id=run_id)
    return [
        EvaluationPublic.model_validate(row) for row in service.evaluations_of(session=session, run_id=run_id)
    ]


@router.get("/series/{series_key}/annotations", response_model=list[AnnotationPublic])
def get_annotations(series_key: str, session: SessionDep, principal: Reader) -> list[AnnotationPublic]:
    """Distribution changes and acknowledgements of a series, oldest first."""
    service.get_series(session=session, series_key=series_key)
    return [
        AnnotationPublic.model_validate(note)
        for note in service.list_annotations(session=session, series_key=series_key)
    ]


@router.post("/series/{series_key}/distribution-changes", response_model=AnnotationPublic, status_code=201)
def post_distribution_change(
    series_key: str,
    body: DistributionChangeCreate,
    session: SessionDep,
    settings: SettingsDep,
    principal: Editor,
) -> AnnotationPublic:
    """Marks a run as the first of a new distribution (new driver, new default…): the baseline restarts."""
    annotation = service.mark_distribution_change(
        session=session,
        series_key=series_key,
        run_id=body.run_id,
        note=body.note,
        actor=principal.name,
        settings=settings,
    )
    session.commit()
    return AnnotationPublic.model_validate(annotation)


@router.post("/runs/{run_id}/acknowledgements", response_model=AnnotationPublic, status_code=201)
def post_acknowledgement(
    run_id: int, body: AcknowledgementCreate, session: SessionDep, principal: Editor
) -> AnnotationPublic:
    """Acknowledges, with a note, the series' regressions and level shifts of one metric (or all) up to this
    run; they leave the open list, later ones open again."""
    annotation = service.acknowledge_regression(
        session=session, run_id=run_id, metric=body.metric, note=body.note, actor=principal.name
    )
    session.commit()
    return AnnotationPublic.model_validate(annotation)
