"""Comparing two runs metric by metric."""

from __future__ import annotations

import pytest

from app.trends.compare import MetricValue, compare_metrics
from app.trends.detector import Direction

BEFORE = {
    "total_token_throughput": MetricValue(69219.00, "tok/s", "higher"),
    "request_throughput": MetricValue(33.80, "req/s", "higher"),
    "duration": MetricValue(15.15, "s", "none"),
    "median_ttft_ms": MetricValue(100.0, "ms", "lower"),
}
AFTER = {
    "total_token_throughput": MetricValue(73714.89, "tok/s", "higher"),
    "request_throughput": MetricValue(35.99, "req/s", "higher"),
    "duration": MetricValue(14.22, "s", "none"),
    "median_ttft_ms": MetricValue(110.0, "ms", "lower"),
    "p99_ttft_ms": MetricValue(300.0, "ms", "lower"),
}


def by_name(rows):
    return {row.name: row for row in rows}


def test_pr_30014_reads_plus_six_and_a_half_percent_total_token_throughput() -> None:
    row = by_name(compare_metrics(BEFORE, AFTER))["total_token_throughput"]
    assert f"{row.delta_pct:+.1f}%" == "+6.5%"
    assert row.direction == Direction.improvement
    assert row.tone == "better"


def test_direction_follows_the_metric_better_direction() -> None:
    rows = by_name(compare_metrics(BEFORE, AFTER))
    assert rows["median_ttft_ms"].direction == Direction.regression
    assert rows["median_ttft_ms"].tone == "worse"
    assert rows["duration"].direction is None
    assert rows["duration"].tone == "neutral"


def test_metrics_of_only_one_run_are_listed_without_delta() -> None:
    row = by_name(compare_metrics(BEFORE, AFTER))["p99_ttft_ms"]
    assert row.a is None and row.b == 300.0 and row.delta_pct is None and row.tone == "missing"


def test_beyond_noise_needs_a_known_noise() -> None:
    rows = by_name(
        compare_metrics(BEFORE, AFTER, noise_pct={"total_token_throughput": 1.0, "median_ttft_ms": 4.0})
    )
    assert rows["total_token_throughput"].beyond_noise is True
    assert rows["median_ttft_ms"].beyond_noise is False
    assert rows["median_ttft_ms"].tone == "neutral"
    assert rows["request_throughput"].beyond_noise is None
    assert rows["median_ttft_ms"].delta_pct == pytest.approx(10.0)
