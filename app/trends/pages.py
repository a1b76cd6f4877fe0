"""HTML pages of trends: the trend chart with its series table, the comparison of two runs, the
regressions list, and the forms that annotate a series."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.auth.deps import Editor, Reader
from app.core.database import SessionDep, SettingsDep
from app.core.errors import InvalidInput, NotFound
from app.core.templating import templates
from app.trends import service, trend
from app.trends.charts import PALETTE, TrendLine, trend_figure
from app.trends.downsample import DEFAULT_MAX_POINTS
from app.trends.shifts import SHIFT_LOOKBACK, open_findings

router = APIRouter(tags=["pages"])

# More series than this on one chart is unreadable; the table says which were left out.
MAX_CHART_SERIES = 24


def display_number(value: float | None) -> str:
    """Whole numbers with thousands separators (1,048,064), others to six significant digits."""
    if value is None:
        return "—"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:.6g}"


def _blank_to_none(value: str | None) -> str | None:
    return value.strip() or None if value is not None else None


def _whole_number(value: str | None, field: str) -> int | None:
    """Form fields arrive as text and may be empty; empty means no filter."""
    text = _blank_to_none(value)
    if text is None:
        return None
    if not text.isdigit():
        raise InvalidInput(f"{field}: expected a whole number, got {text!r}", field=field)
    return int(text)


def _moment(value: str | None, field: str) -> datetime | None:
    """A date (2026-11-16) or an ISO time; dates without a zone are UTC."""
    text = _blank_to_none(value)
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(f"{field}: expected a date like 2026-11-16, got {text!r}", field=field) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@router.get("/trends", include_in_schema=False)
def trends_page(
    request: Request,
    session: SessionDep,
    principal: Reader,
    series: Annotated[list[str], Query()] = [],  # noqa: B006 - FastAPI reads list defaults per request
    metric: Annotated[list[str], Query()] = [],  # noqa: B006
    hardware: str | None = None,
    model: str | None = None,
    precision: str | None = None,
    backend: str | None = None,
    dataset: str | None = None,
    input_len: str | None = None,
    output_len: str | None = None,
    concurrency: str | None = None,
    since: str | None = None,
) -> Response:
    filters = trend.SeriesFilters(
        hardware=_blank_to_none(hardware),
        model=_blank_to_none(model),
        precision=_blank_to_none(precision),
        backend=_blank_to_none(backend),
        dataset=_blank_to_none(dataset),
        input_len=_whole_number(input_len, "input_len"),
        output_len=_whole_number(output_len, "output_len"),
        concurrency=_whole_number(concurrency, "concurrency"),
    )
    since_time = _moment(since, "since")
    matching = trend.list_series(session=session, filters=filters)
    selected_keys = list(dict.fromkeys(series))[:MAX_CHART_SERIES]
    selected = [service.get_series(session=session, series_key=key) for key in selected_keys]
    available = sorted(
        {name for key in selected_keys for name in trend.series_metric_names(session=session, series_key=key)}
    )
    for name in metric:
        if selected and name not in available:
            raise NotFound(f"metric {name!r} not found in the selected series", field="metric")
    metrics = list(dict.fromkeys(metric)) or [name for name in trend.DEFAULT_METRICS if name in available]
    lines: list[TrendLine] = []
    rows: list[dict[str, Any]] = []
    cadences = trend.series_cadences(session=session, series_keys=selected_keys)
    for position, item in enumerate(selected):
        name = trend.series_name(item)
        notes: list[str] = []
        latest: dict[str, Any] = {}
        flagged: list[dict[str, Any]] = []
        for metric_name in metrics:
            if not trend.metric_exists(session=session, series_key=item.series_key, metric=metric_name):
                notes.append(f"no {metric_name}")
                continue
            found = trend.series_trend(
                session=session,
                series_key=item.series_key,
                metric=metric_name,
                since=since_time,
                max_points=DEFAULT_MAX_POINTS,
            )
            lines.append(
                TrendLine(
                    series_key=item.series_key,
                    series_name=name,
                    metric=metric_name,
                    unit=found.unit,
                    points=found.points,
                    marks=found.marks,
                )
            )
            if found.points and not latest:
                latest = {"metric": metric_name, "point": found.points[-1], "unit": found.unit}
            if found.baseline_note and found.baseline_note not in notes:
                notes.append(found.baseline_note)
            flagged += [
                {"metric": metric_name, "point": point, "unit": found.unit}
                for point in found.points
                if point.label == "regression"
            ]
        recent = trend.latest_runs(session=session, series_key=item.series_key)
        rows.append(
            {
                "series": item,
                "name": name,
                "colour": PALETTE[position % len(PALETTE)],
                "latest": latest,
                "notes": notes,
                "cadence": cadences[item.series_key],
                "regressions": flagged,
                "compare": (recent[1].id, recent[0].id) if len(recent) == 2 else None,
                "other_backends_url": other_backends_url(item, selected_keys),
                "annotations": service.list_annotations(session=session, series_key=item.series_key),
            }
        )
    figure = trend_figure(lines, metrics=metrics) if lines else None
    context = {
        "principal": principal,
        "filters": filters,
        "since": since_time,
        "matching": matching,
        "selected_keys": selected_keys,
        "rows": rows,
        "metrics": metrics,
        "chosen_metrics": list(dict.fromkeys(metric)),
        "available_metrics": available,
        "default_metrics": trend.DEFAULT_METRICS,
        "figure": figure,
        "series_name": trend.series_name,
        "can_edit": principal is not None and principal.has_scope("edit"),
        "here": str(request.url.path) + ("?" + request.url.query if request.url.query else ""),
    }
    return templates.TemplateResponse(request, "trends/index.html", context)


@router.get("/compare", include_in_schema=False)
def compare_page(
    request: Request,
    session: SessionDep,
    principal: Reader,
    a: Annotated[int | None, Query()] = None,
    b: Annotated[int | None, Query()] = None,
) -> Response:
    comparison = trend.compare_runs(session=session, a=a, b=b) if a is not None and b is not None else None
    series_names = {}
    if comparison:
        for run in (comparison.a, comparison.b):
            series_names[run.id] = trend.series_name(
                service.get_series(session=session, series_key=run.series_key)
            )
    context = {
        "principal": principal,
        "a": a,
        "b": b,
        "comparison": comparison,
        "series_names": series_names,
        "number": display_number,
    }
    return templates.TemplateResponse(request, "trends/compare.html", context)


@router.get("/regressions", include_in_schema=False)
def regressions_page(
    request: Request, session: SessionDep, principal: Reader, since: str | None = None
) -> Response:
    since_time = _moment(since, "since")
    found = open_findings(session=session, since=since_time)
    context = {
        "principal": principal,
        "since": since_time,
        "regressions": found,
        "shift_lookback_days": SHIFT_LOOKBACK.days,
        "can_edit": principal is not None and principal.has_scope("edit"),
    }
    return templates.TemplateResponse(request, "trends/regressions.html", context)


def other_backends_url(series: Any, selected_keys: list[str]) -> str:
    """The trend page filtered to this series' hardware, model, precision and workload: its siblings
    differ only in backends (or flags), ready to be ticked onto the same chart."""
    workload = (series.context or {}).get("workload") or {}
    parameters: list[tuple[str, Any]] = [("series", key) for key in selected_keys]
    parameters += [("hardware", series.hardware), ("model", series.model)]
    if series.precision:
        parameters.append(("precision", series.precision))
    for name in ("dataset", "input_len", "output_len", "concurrency"):
        if workload.get(name) is not None:
            parameters.append((name, workload[name]))
    return "/trends?" + urlencode(parameters)


def _back(next_url: str) -> RedirectResponse:
    # Only local paths: a form must not send people elsewhere.
    target = next_url if next_url.startswith("/") and not next_url.startswith("//") else "/trends"
    return RedirectResponse(target, status_code=303)


@router.post("/trends/acknowledgements", include_in_schema=False)
def acknowledge_form(
    session: SessionDep,
    principal: Editor,
    run_id: Annotated[int, Form()],
    note: Annotated[str, Form()],
    metric: Annotated[str | None, Form()] = None,
    next_url: Annotated[str, Form(alias="next")] = "/trends",
) -> Response:
    if not note.strip():
        raise InvalidInput("note: say what is known about the regression", field="note")
    service.acknowledge_regression(
        session=session, run_id=run_id, metric=metric or None, note=note.strip(), actor=principal.name
    )
    session.commit()
    return _back(next_url)


@router.post("/trends/distribution-changes", include_in_schema=False)
def distribution_change_form(
    session: SessionDep,
    settings: SettingsDep,
    principal: Editor,
    series_key: Annotated[str, Form()],
    run_id: Annotated[int, Form()],
    note: Annotated[str, Form()],
    next_url: Annotated[str, Form(alias="next")] = "/trends",
) -> Response:
    if not note.strip():
        raise InvalidInput("note: say why the distribution changed", field="note")
    service.mark_distribution_change(
        session=session,
        series_key=series_key,
        run_id=run_id,
        note=note.strip(),
        actor=principal.name,
        settings=settings,
    )
    session.commit()
    return _back(next_url)
