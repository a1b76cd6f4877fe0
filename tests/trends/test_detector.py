"""The windowed-threshold detector on small hand-made histories."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.trends.detector import (
    DetectorConfig,
    Direction,
    Label,
    Point,
    evaluate_series,
    small_sample_factor,
)

START = datetime(2026, 3, 1, tzinfo=UTC)


def history(values: list[float], *, every: timedelta = timedelta(days=1)) -> list[Point]:
    return [
        Point(run_id=index + 1, run_time=START + every * index, value=value)
        for index, value in enumerate(values)
    ]


STEADY = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8, 100.1, 99.9]


def test_first_three_runs_have_insufficient_data() -> None:
    labels = [evaluation.label for evaluation in evaluate_series(history(STEADY[:4]), better="higher")]
    assert labels == [Label.insufficient_data] * 3 + [Label.ok]


def test_one_drop_is_suspicious_and_the_second_in_a_row_is_a_regression() -> None:
    evaluations = evaluate_series(history([*STEADY, 80.0, 79.0]), better="higher")
    assert [evaluation.label for evaluation in evaluations[-3:]] == [
        Label.ok,
        Label.suspicious,
        Label.regression,
    ]
    last = evaluations[-1]
    assert last.direction == Direction.regression
    assert last.baseline == pytest.approx(100.0, abs=0.3)
    assert last.delta_pct == pytest.approx(-21.0, abs=0.5)
    assert last.allowed_pct == pytest.approx(5.0)


def test_a_single_outlier_is_only_suspicious() -> None:
    evaluations = evaluate_series(history([*STEADY, 60.0, 100.0, 100.3]), better="higher")
    assert [evaluation.label for evaluation in evaluations[-3:]] == [Label.suspicious, Label.ok, Label.ok]


def test_lower_is_better_metrics_regress_upwards() -> None:
    evaluations = evaluate_series(history([*STEADY, 120.0, 121.0]), better="lower")
    assert evaluations[-1].label == Label.regression


def test_improvements_are_labelled_the_same_way() -> None:
    evaluations = evaluate_series(history([*STEADY, 120.0, 121.0]), better="higher")
    assert [evaluation.label for evaluation in evaluations[-2:]] == [Label.suspicious, Label.improvement]
    assert evaluations[-1].direction == Direction.improvement


def test_changes_within_the_threshold_are_ok() -> None:
    evaluations = evaluate_series(history([*STEADY, 96.0, 96.0]), better="higher")
    assert evaluations[-1].label == Label.ok


def test_threshold_is_configurable() -> None:
    evaluations = evaluate_series(
        history([*STEADY, 96.0, 96.0]), better="higher", config=DetectorConfig(threshold_pct=2.0)
    )
    assert evaluations[-1].label == Label.regression


def test_noisy_series_need_a_larger_change_than_the_threshold() -> None:
    noisy = [100.0, 110.0, 90.0, 105.0, 95.0, 112.0, 88.0, 103.0, 97.0, 108.0]
    evaluations = evaluate_series(history([*noisy, 92.0, 91.0]), better="higher")
    assert evaluations[-1].label == Label.ok
    assert evaluations[-1].allowed_pct > 5.0


def test_baseline_uses_only_the_previous_ten_runs() -> None:
    values = [50.0] * 5 + [100.0] * 10 + [100.0]
    last = evaluate_series(history(values), better="higher")[-1]
    assert last.baseline == 100.0
    assert last.prior_runs == 10


def test_runs_older_than_thirty_days_leave_the_baseline() -> None:
    points = history(STEADY, every=timedelta(days=5))
    points.append(Point(run_id=99, run_time=points[-1].run_time + timedelta(days=5), value=80.0))
    last = evaluate_series(points, better="higher")[-1]
    assert last.prior_runs == 6  # runs at most 30 days older


def test_a_distribution_change_resets_the_baseline() -> None:
    points = history([*STEADY, 80.0, 80.5, 79.5, 80.2])
    marked = points[10].run_time
    evaluations = evaluate_series(points, better="higher", distribution_changes=[marked])
    assert [evaluation.label for evaluation in evaluations[10:]] == [
        Label.insufficient_data,
        Label.insufficient_data,
        Label.insufficient_data,
        Label.ok,
    ]
    assert evaluations[-1].baseline == pytest.approx(80.0, abs=0.5)


def test_points_are_sorted_by_run_time() -> None:
    points = history([*STEADY, 80.0, 79.0])
    evaluations = evaluate_series(list(reversed(points)), better="higher")
    assert evaluations[-1].run_id == points[-1].run_id
    assert evaluations[-1].label == Label.regression


def test_small_windows_widen_the_noise_band() -> None:
    assert small_sample_factor(3) > small_sample_factor(10) > small_sample_factor(30) > 1.0
