"""Chart builders turn trend rows into valid plotly figures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import plotly.graph_objects as go

from app.trends.charts import Mark, TrendLine, TrendPoint, trend_figure

START = datetime(2026, 3, 1, tzinfo=UTC)


def line(key: str, metric: str, labels: list[str | None]) -> TrendLine:
    points = [
        TrendPoint(
            run_id=index + 1,
            run_time=START + timedelta(days=index),
            value=100.0 - (20 if label == "regression" else 0),
            engine_version="0.19.0",
            engine_commit="0123456789abcdef",
            label=label,
            baseline=100.0 if label else None,
            allowed_pct=5.0 if label else None,
            delta_pct=-20.0 if label == "regression" else (0.0 if label else None),
        )
        for index, label in enumerate(labels)
    ]
    return TrendLine(series_key=key, series_name=f"series {key}", metric=metric, unit="tok/s", points=points)


def test_figure_is_valid_plotly_with_one_subplot_per_metric() -> None:
    lines = [
        line("a", "output_throughput", [None, None, None, "ok", "suspicious", "regression"]),
        line("b", "output_throughput", [None, None, None, "ok", "ok", "ok"]),
        line("a", "median_ttft_ms", [None, None, None, "ok", "ok", "improvement"]),
    ]
    lines[0].marks.append(
        Mark(run_time=START + timedelta(days=4), kind="distribution_change", text="new driver")
    )
    figure = trend_figure(lines, metrics=["output_throughput", "median_ttft_ms"])
    go.Figure(figure)  # raises on any invalid property
    layout = figure["layout"]
    assert layout["yaxis"]["domain"][0] > layout["yaxis2"]["domain"][1]
    assert layout["xaxis2"]["matches"] == "x"
    names = [trace["name"] for trace in figure["data"]]
    assert "series a: regression" in names
    assert "series a: suspicious" in names
    assert "series a: improvement" in names
    assert "series a baseline band" in names
    assert {trace["meta"] for trace in figure["data"]} == {"a", "b"}
    assert layout["shapes"][0]["x0"] == (START + timedelta(days=4)).isoformat()
    assert layout["annotations"][0]["text"] == "new driver"


def test_hover_names_engine_version_and_commit() -> None:
    figure = trend_figure([line("a", "output_throughput", [None])], metrics=["output_throughput"])
    main = next(trace for trace in figure["data"] if trace["mode"] == "lines+markers")
    assert "engine %{customdata[0]} · commit %{customdata[1]}" in main["hovertemplate"]
    assert main["customdata"][0][:2] == ["0.19.0", "0123456789ab"]


def test_a_single_run_gives_one_point_and_no_band() -> None:
    figure = trend_figure([line("a", "output_throughput", [None])], metrics=["output_throughput"])
    go.Figure(figure)
    assert [len(trace["x"]) for trace in figure["data"]] == [1]
