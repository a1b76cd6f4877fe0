"""Windowed-threshold regression detection: each run against the median of the runs just before it.

Pure functions over plain values, no database: the upload service, the trend pages and the quality test
all call `evaluate_series` with a series' history of one metric.

Rules (docs/trends.md):
- baseline = median of the previous `window_runs` runs (default 10) that are at most `window_days` (30)
  older than the run and not before the last distribution-change mark;
- noise = scaled MAD (1.4826 × median absolute deviation), a robust standard deviation, or the scaled MAD
  of the first differences over √2 when that is larger (short windows often show one of the two far below
  the true noise), over the last `noise_window_runs` (30) runs of the current distribution;
- a run violates when it is worse (or better) than the baseline by more than
  max(threshold %, k × noise % × small-sample factor), the threshold being per metric (default 5 %) and the
  factor widening the band for short noise windows (Student t over normal, times √(1 + 1/n));
- labels: `insufficient_data` (fewer than 3 prior runs), `ok`, `suspicious` (one violation),
  `regression` / `improvement` (the second consecutive violation in the same direction).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import lru_cache

import numpy as np
from scipy import stats

# Scales the median absolute deviation to the standard deviation of normally distributed noise.
MAD_TO_SIGMA = 1.4826


class Better(StrEnum):
    """Which way a metric improves."""

    higher = "higher"
    lower = "lower"


class Label(StrEnum):
    """The detector's verdict on one run of one metric."""

    insufficient_data = "insufficient_data"
    ok = "ok"
    suspicious = "suspicious"
    regression = "regression"
    improvement = "improvement"


class Direction(StrEnum):
    """Whether a change makes the metric worse or better."""

    regression = "regression"
    improvement = "improvement"


@dataclass(frozen=True)
class DetectorConfig:
    """Tunable rules of the windowed-threshold detector; `threshold_pct` may be overridden per metric."""

    window_runs: int = 10
    window_days: float = 30.0
    # Noise is a property of the series: estimated over more runs than the baseline, it is far steadier.
    noise_window_runs: int = 30
    threshold_pct: float = 5.0
    noise_multiplier: float = 3.0
    min_prior_runs: int = 3
    consecutive_violations: int = 2


DEFAULT_CONFIG = DetectorConfig()


@dataclass(frozen=True)
class Point:
    """One run's value of one metric."""

    run_id: int
    run_time: datetime
    value: float


@dataclass(frozen=True)
class Evaluation:
    """A run compared with its baseline; `delta_pct` is signed (value − baseline) / |baseline|."""

    run_id: int
    run_time: datetime
    value: float
    label: Label
    direction: Direction | None
    baseline: float | None
    noise: float | None
    delta_pct: float | None
    allowed_pct: float | None
    prior_runs: int

    @property
    def is_violation(self) -> bool:
        return self.label in (Label.suspicious, Label.regression, Label.improvement)


def scaled_mad(values: np.ndarray) -> float:
    """Scaled median absolute deviation: a standard deviation that ignores outliers."""
    if values.size == 0:
        return 0.0
    return float(MAD_TO_SIGMA * np.median(np.abs(values - np.median(values))))


def difference_noise(values: np.ndarray) -> float:
    """Robust noise from first differences (scaled MAD of the differences over √2); steps barely move it."""
    if values.size < 3:
        return 0.0
    return scaled_mad(np.diff(values)) / float(np.sqrt(2.0))


def robust_noise(values: np.ndarray) -> float:
    """The larger of two robust noise estimates; each alone is often far too low over a few runs."""
    return max(scaled_mad(values), difference_noise(values))


@lru_cache(maxsize=256)
def small_sample_factor(size: int) -> float:
    """Widens k × noise for short windows, as a prediction interval does (Student t over normal).

    A scaled MAD of three or four runs is often far below the true noise; without this, a new series
    calls its first noisy runs regressions.
    """
    if size < 2:
        return float("inf")
    t_over_z = stats.t.ppf(0.975, size - 1) / stats.norm.ppf(0.975)
    return float(t_over_z * np.sqrt(1.0 + 1.0 / size))


def signed_delta_pct(value: float, baseline: float) -> float:
    """(value − baseline) as a percentage of |baseline|; 0 when both are 0."""
    if baseline == 0:
        return 0.0 if value == 0 else float(np.copysign(100.0, value))
    return (value - baseline) / abs(baseline) * 100.0


def direction_of(delta_pct: float, better: Better) -> Direction | None:
    """Maps a signed change to regression/improvement given the metric's better direction."""
    if delta_pct == 0:
        return None
    got_higher = delta_pct > 0
    return Direction.improvement if got_higher == (better == Better.higher) else Direction.regression


def _window_start(
    times: Sequence[datetime], index: int, *, config: DetectorConfig, distribution_start: datetime | None
) -> int:
    """First index of the baseline window for the run at `index` (the window ends just before it)."""
    start = max(0, index - config.window_runs)
    oldest = times[index] - timedelta(days=config.window_days)
    if distribution_start is not None and distribution_start > oldest:
        oldest = distribution_start
    while start < index and times[start] < oldest:
        start += 1
    return start


def current_distribution_start(starts: Sequence[datetime], moment: datetime) -> datetime | None:
    """The latest distribution-change mark at or before `moment`: runs before it leave the baseline."""
    earlier = [start for start in starts if start <= moment]
    return max(earlier) if earlier else None


def evaluate_series(
    points: Sequence[Point],
    *,
    better: Better | str,
    config: DetectorConfig = DEFAULT_CONFIG,
    distribution_changes: Sequence[datetime] = (),
) -> list[Evaluation]:
    """Evaluates every run of one metric's history (sorted here by run time) against its own baseline.

    `distribution_changes` are the run times where a new distribution starts (a marked run's time): runs
    before such a mark never enter the baseline of the runs from the mark on.
    """
    better = Better(better)
    ordered = sorted(points, key=lambda point: (point.run_time, point.run_id))
    times = [point.run_time for point in ordered]
    values = np.asarray([point.value for point in ordered], dtype=float)
    resets = sorted(distribution_changes)
    evaluations: list[Evaluation] = []
    streak_direction: Direction | None = None
    streak = 0
    for index, point in enumerate(ordered):
        distribution_start = current_distribution_start(resets, point.run_time)
        start = _window_start(times, index, config=config, distribution_start=distribution_start)
        window = values[start:index]
        if window.size < config.min_prior_runs:
            evaluations.append(
                Evaluation(
                    run_id=point.run_id,
                    run_time=point.run_time,
                    value=point.value,
                    label=Label.insufficient_data,
                    direction=None,
                    baseline=float(np.median(window)) if window.size else None,
                    noise=None,
                    delta_pct=None,
                    allowed_pct=None,
                    prior_runs=int(window.size),
                )
            )
            streak, streak_direction = 0, None
            continue
        baseline = float(np.median(window))
        # The noise window reaches further back than the baseline's (not limited to 30 days) but never
        # before the current distribution started.
        noise_start = max(0, index - config.noise_window_runs)
        if distribution_start is not None:
            noise_start = max(noise_start, bisect_left(times, distribution_start, hi=index))
        noise_start = min(noise_start, start)
        noise = robust_noise(values[noise_start:index])
        delta_pct = signed_delta_pct(point.value, baseline)
        noise_pct = noise / abs(baseline) * 100.0 if baseline else 0.0
        noise_band_pct = config.noise_multiplier * noise_pct * small_sample_factor(index - noise_start)
        allowed_pct = max(config.threshold_pct, noise_band_pct)
        direction = direction_of(delta_pct, better)
        if abs(delta_pct) > allowed_pct and direction is not None:
            streak = streak + 1 if direction == streak_direction else 1
            streak_direction = direction
            if streak >= config.consecutive_violations:
                label = Label.regression if direction == Direction.regression else Label.improvement
            else:
                label = Label.suspicious
        else:
            streak, streak_direction = 0, None
            label = Label.ok
        evaluations.append(
            Evaluation(
                run_id=point.run_id,
                run_time=point.run_time,
                value=point.value,
                label=label,
                direction=direction,
                baseline=baseline,
                noise=noise,
                delta_pct=delta_pct,
                allowed_pct=allowed_pct,
                prior_runs=int(window.size),
            )
        )
    return evaluations
