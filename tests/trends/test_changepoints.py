"""Change-point detection over whole histories."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from app.trends.changepoints import find_change_points
from app.trends.detector import Direction

START = datetime(2026, 3, 1, tzinfo=UTC)


def detect(values: np.ndarray, better: str = "higher"):
    return find_change_points(
        values,
        run_ids=list(range(100, 100 + values.size)),
        run_times=[START + timedelta(days=index) for index in range(values.size)],
        better=better,
    )


def test_a_step_down_is_found_where_it_happens() -> None:
    rng = np.random.default_rng(1)
    values = np.r_[rng.normal(100, 1, 30), rng.normal(94, 1, 30)]
    found = detect(values)
    assert len(found) == 1
    assert abs(found[0].index - 30) <= 1
    assert found[0].run_id == 100 + found[0].index
    assert found[0].direction == Direction.regression
    assert found[0].delta_pct < -4


def test_a_step_in_a_lower_is_better_metric_upwards_is_a_regression() -> None:
    rng = np.random.default_rng(2)
    values = np.r_[rng.normal(20, 0.2, 25), rng.normal(23, 0.2, 25)]
    assert [point.direction for point in detect(values, better="lower")] == [Direction.regression]


def test_single_outliers_are_not_change_points() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(100, 1, 60)
    values[[15, 35, 50]] = [70, 140, 65]
    assert detect(values) == []


def test_a_slow_drift_is_found() -> None:
    rng = np.random.default_rng(4)
    values = 100 * (1 - np.clip((np.arange(80) - 30) / 25, 0, 1) * 0.15) + rng.normal(0, 1, 80)
    found = detect(values)
    assert found
    assert all(30 - 3 <= point.index <= 55 + 3 for point in found)
    assert all(point.direction == Direction.regression for point in found)


def test_short_or_constant_histories_have_no_change_points() -> None:
    assert detect(np.array([1.0, 2.0, 3.0])) == []
    assert detect(np.full(20, 5.0)) == []


def test_long_histories_are_reduced_to_blocks_and_still_find_a_step() -> None:
    rng = np.random.default_rng(5)
    values = np.r_[rng.normal(100, 1, 30000), rng.normal(95, 1, 20000)]
    found = detect(values)
    assert len(found) == 1
    assert abs(found[0].index - 30000) <= 25  # blocks of 25 runs
    assert found[0].delta_pct == pytest.approx(-5, abs=0.3)
