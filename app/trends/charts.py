"""Chart builders: trend rows → a plotly figure dict (pure; the page hands it to `Plotly.newPlot`).

One subplot per metric, stacked, sharing the time axis. Per series and metric: the tolerance band around
the baseline (baseline ± allowed %), the values as a line with markers (engine version, commit, run and
label in the hover), and marker traces for regressions, improvements and suspicious runs. Vertical lines
mark distribution changes (annotations) and detected change points. Every trace carries
`meta = series_key` so the page's legend table can toggle one series across all subplots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# Colour-blind-safe palette (Okabe–Ito plus darker tones) cycled over series.
PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#332288", "#117733",
    "#882255", "#44AA99", "#999933", "#AA4499",
)  # fmt: skip
REGRESSION_COLOUR = "#c0392b"
IMPROVEMENT_COLOUR = "#1e8449"
SUSPICIOUS_COLOUR = "#d68910"
DISTRIBUTION_CHANGE_COLOUR = "#6c3483"
GAP_BETWEEN_SUBPLOTS = 0.06


@dataclass(frozen=True)
class TrendPoint:
    run_id: int
    run_time: datetime
    value: float
    engine_version: str | None = None
    engine_commit: str | None = None
    label: str | None = None
    direction: str | None = None
    baseline: float | None = None
    allowed_pct: float | None = None
    delta_pct: float | None = None


@dataclass(frozen=True)
class Mark:
    """A vertical line: a distribution change (annotation) or a detected change point."""

    run_time: datetime
    kind: str  # distribution_change | change_point
    text: str


@dataclass
class TrendLine:
    """One series' points of one metric, oldest first."""

    series_key: str
    series_name: str
    metric: str
    unit: str
    points: list[TrendPoint]
    marks: list[Mark] = field(default_factory=list)


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def _hover(line: TrendLine) -> str:
    return (
        "%{x|%Y-%m-%d %H:%M} UTC<br>"
        f"<b>%{{y:.4~g}} {line.unit}</b> (%{{customdata[4]}})<br>"
        "engine %{customdata[0]} · commit %{customdata[1]}<br>"
        "run #%{customdata[2]} · %{customdata[3]}"
        f"<extra>{line.series_name}</extra>"
    )


def _customdata(point: TrendPoint) -> list[Any]:
    delta = "no baseline" if point.delta_pct is None else f"{point.delta_pct:+.1f}% vs baseline"
    return [
        point.engine_version or "?",
        (point.engine_commit or "?")[:12],
        point.run_id,
        point.label or "not evaluated",
        delta,
    ]


def _band_traces(line: TrendLine, *, colour: str, axes: dict[str, str]) -> list[dict[str, Any]]:
    banded = [point for point in line.points if point.baseline is not None and point.allowed_pct is not None]
    if not banded:
        return []
    times = [_iso(point.run_time) for point in banded]
    lower = [point.baseline * (1 - point.allowed_pct / 100) for point in banded]  # type: ignore[operator]
    upper = [point.baseline * (1 + point.allowed_pct / 100) for point in banded]  # type: ignore[operator]
    common = {"mode": "lines", "line": {"width": 0, "shape": "hv"}, "hoverinfo": "skip", "showlegend": False}
    return [
        {"type": "scatter", "x": times, "y": lower, "name": f"{line.series_name} band", **common, **axes},
        {
            "type": "scatter",
            "x": times,
            "y": upper,
            "name": f"{line.series_name} baseline band",
            "fill": "tonexty",
            "fillcolor": _transparent(colour, 0.15),
            **common,
            **axes,
        },
        {
            "type": "scatter",
            "x": times,
            "y": [point.baseline for point in banded],
            "name": f"{line.series_name} baseline",
            "mode": "lines",
            "line": {"color": colour, "width": 1, "dash": "dot", "shape": "hv"},
            "hoverinfo": "skip",
            "showlegend": False,
            **axes,
        },
    ]


def _transparent(colour: str, alpha: float) -> str:
    red, green, blue = (int(colour[position : position + 2], 16) for position in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def _flag_trace(line: TrendLine, *, label: str, axes: dict[str, str]) -> dict[str, Any] | None:
    if label == "suspicious":
        flagged = [point for point in line.points if point.label == "suspicious"]
        marker = {"symbol": "circle-open", "size": 13, "color": SUSPICIOUS_COLOUR, "line": {"width": 2}}
    elif label == "regression":
        flagged = [point for point in line.points if point.label == "regression"]
        marker = {"symbol": "triangle-down", "size": 13, "color": REGRESSION_COLOUR}
    else:
        flagged = [point for point in line.points if point.label == "improvement"]
        marker = {"symbol": "triangle-up", "size": 13, "color": IMPROVEMENT_COLOUR}
    if not flagged:
        return None
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{line.series_name}: {label}",
        "x": [_iso(point.run_time) for point in flagged],
        "y": [point.value for point in flagged],
        "customdata": [_customdata(point) for point in flagged],
        "hovertemplate": _hover(line),
        "marker": marker,
        "showlegend": False,
        **axes,
    }


def trend_figure(lines: Sequence[TrendLine], *, metrics: Sequence[str], title: str = "") -> dict[str, Any]:
    """Builds the figure: one subplot per metric (in `metrics` order), every series on each."""
    count = max(len(metrics), 1)
    height_each = (1.0 - GAP_BETWEEN_SUBPLOTS * (count - 1)) / count
    layout: dict[str, Any] = {
        "title": {"text": title} if title else None,
        "showlegend": False,
        "hovermode": "closest",
        "height": 140 + 260 * count,
        "margin": {"l": 70, "r": 20, "t": 40 if title else 20, "b": 40},
        "shapes": [],
        "annotations": [],
        "xaxis": {"type": "date"},
    }
    series_keys = list(dict.fromkeys(line.series_key for line in lines))
    colours = {key: PALETTE[position % len(PALETTE)] for position, key in enumerate(series_keys)}
    traces: list[dict[str, Any]] = []
    for position, metric in enumerate(metrics):
        suffix = "" if position == 0 else str(position + 1)
        top = 1.0 - position * (height_each + GAP_BETWEEN_SUBPLOTS)
        units = {line.unit for line in lines if line.metric == metric}
        layout[f"yaxis{suffix}"] = {
            "domain": [max(top - height_each, 0.0), top],
            "title": {"text": f"{metric}" + (f" ({units.pop()})" if len(units) == 1 else "")},
            "zeroline": False,
        }
        if position:
            layout[f"xaxis{suffix}"] = {"type": "date", "matches": "x", "anchor": f"y{suffix}"}
            layout[f"yaxis{suffix}"]["anchor"] = f"x{suffix}"
        axes = {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}
        for line in (line for line in lines if line.metric == metric):
            colour = colours[line.series_key]
            line_traces = _band_traces(line, colour=colour, axes=axes)
            line_traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": line.series_name,
                    "x": [_iso(point.run_time) for point in line.points],
                    "y": [point.value for point in line.points],
                    "customdata": [_customdata(point) for point in line.points],
                    "hovertemplate": _hover(line),
                    "line": {"color": colour, "width": 2},
                    "marker": {"color": colour, "size": 6},
                    **axes,
                }
            )
            for label in ("regression", "improvement", "suspicious"):
                flag = _flag_trace(line, label=label, axes=axes)
                if flag:
                    line_traces.append(flag)
            for trace in line_traces:
                trace["meta"] = line.series_key
                trace["legendgroup"] = line.series_key
            traces.extend(line_traces)
            for mark in line.marks:
                layout["shapes"].append(_mark_shape(mark, suffix=suffix, colour=colour))
                if mark.kind == "distribution_change":
                    layout["annotations"].append(
                        {
                            "x": _iso(mark.run_time),
                            "xref": f"x{suffix}",
                            "y": 1.0,
                            "yref": f"y{suffix} domain",
                            "text": mark.text,
                            "showarrow": False,
                            "xanchor": "left",
                            "font": {"size": 10, "color": DISTRIBUTION_CHANGE_COLOUR},
                        }
                    )
    # The shared time axis is named once, under the lowest subplot.
    last = "" if count == 1 else str(count)
    layout.setdefault(f"xaxis{last}", {"type": "date"})["title"] = {"text": "run time (UTC)"}
    if layout["title"] is None:
        del layout["title"]
    return {"data": traces, "layout": layout}


def _mark_shape(mark: Mark, *, suffix: str, colour: str) -> dict[str, Any]:
    distribution = mark.kind == "distribution_change"
    return {
        "type": "line",
        "x0": _iso(mark.run_time),
        "x1": _iso(mark.run_time),
        "xref": f"x{suffix}",
        "y0": 0,
        "y1": 1,
        "yref": f"y{suffix} domain",
        "line": {
            "color": DISTRIBUTION_CHANGE_COLOUR if distribution else colour,
            "width": 2 if distribution else 1,
            "dash": "solid" if distribution else "dash",
        },
        "name": mark.text,
    }
