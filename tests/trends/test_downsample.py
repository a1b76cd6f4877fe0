"""Downsampling long histories keeps extremes and flagged points within the budget."""

from __future__ import annotations

import numpy as np
import pytest

from app.trends.downsample import downsample_indexes


def long_history(size: int = 20000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    return np.arange(size, dtype=float) * 3600, 1000 + np.cumsum(rng.normal(0, 1, size))


@pytest.mark.parametrize("max_points", [2, 3, 10, 2000])
def test_never_more_than_max_points(max_points: int) -> None:
    times, values = long_history()
    chosen = downsample_indexes(times, values, max_points=max_points, keep=[5, 17, 19000])
    assert len(chosen) <= max_points
    assert np.all(np.diff(chosen) > 0)


def test_keeps_extremes_ends_and_every_flagged_point() -> None:
    times, values = long_history()
    flagged = [3, 4, 5, 12345, 19998]
    chosen = set(downsample_indexes(times, values, max_points=500, keep=flagged).tolist())
    assert {0, len(values) - 1, int(np.argmin(values)), int(np.argmax(values)), *flagged} <= chosen
    assert 490 <= len(chosen) <= 500  # the sampler may pick some kept points too


def test_short_series_are_returned_whole() -> None:
    times, values = long_history(50)
    assert downsample_indexes(times, values, max_points=2000).tolist() == list(range(50))


def test_too_many_flagged_points_keeps_the_newest() -> None:
    times, values = long_history(100)
    chosen = downsample_indexes(times, values, max_points=5, keep=range(100))
    assert chosen.tolist() == [95, 96, 97, 98, 99]


def test_max_points_below_two_is_refused() -> None:
    times, values = long_history(10)
    with pytest.raises(ValueError):
        downsample_indexes(times, values, max_points=1)
