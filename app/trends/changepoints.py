"""Change-point detection over a whole history, so that steps and slow drifts are found, not only drops.

ruptures' `KernelCPD` with the linear kernel is PELT on a mean-shift (least-squares) cost, implemented in C,
so thousands of runs take milliseconds. Two choices make it robust for benchmark numbers:
- the signal is first passed through a running median of 3, which removes single outliers (a lone bad run
  must never read as a change of distribution) and keeps steps where they are;
- values are divided by the series' robust noise (scaled MAD of the first differences, which steps and
  drifts barely move), so one penalty (`penalty_per_log_n` × ln n) fits every metric and noise level.
Histories longer than `max_signal_points` are first reduced to medians of consecutive blocks (PELT's cost
grows quadratically when a history has few changes); a change point then falls on the first run of its
block, which is finer than any chart of such a history can show.
A change point is reported only when the medians of the segments on either side differ by at least
`min_shift_noise` × noise, and by at least `min_shift_pct` percent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import ruptures
from scipy.ndimage import median_filter

from app.trends.detector import Better, Direction, difference_noise, direction_of, signed_delta_pct

# Below this relative noise the numbers are effectively constant; it avoids dividing by zero.
NOISE_FLOOR_FRACTION = 1e-3


@dataclass(frozen=True)
class ChangePointConfig:
    """Tunable rules of change-point detection."""

    penalty_per_log_n: float = 4.0
    min_segment_runs: int = 3
    min_shift_noise: float = 2.0
    min_shift_pct: float = 1.0
    max_signal_points: int = 2000


DEFAULT_CHANGE_POINT_CONFIG = ChangePointConfig()


@dataclass(frozen=True)
class ChangePoint:
    """The first run of a new segment: its medians before/after and the signed change between them."""

    index: int
    run_id: int
    run_time: datetime
    before: float
    after: float
    delta_pct: float
    shift_in_noise: float
    direction: Direction | None


def _block_medians(signal: np.ndarray, block: int) -> np.ndarray:
    """Medians of consecutive blocks of `block` runs (the last block may be shorter)."""
    whole = signal.size // block * block
    medians = np.median(signal[:whole].reshape(-1, block), axis=1)
    if whole < signal.size:
        medians = np.append(medians, np.median(signal[whole:]))
    return medians


def find_change_points(
    values: Sequence[float] | np.ndarray,
    *,
    run_ids: Sequence[int],
    run_times: Sequence[datetime],
    better: Better | str,
    config: ChangePointConfig = DEFAULT_CHANGE_POINT_CONFIG,
) -> list[ChangePoint]:
    """Finds where the level of a history (sorted by run time) changes beyond its noise."""
    better = Better(better)
    signal = np.asarray(values, dtype=float)
    size = signal.size
    if size < 2 * config.min_segment_runs:
        return []
    block = int(np.ceil(size / config.max_signal_points)) if size > config.max_signal_points else 1
    reduced = _block_medians(signal, block) if block > 1 else signal
    level = float(np.median(signal))
    reduced_noise = max(difference_noise(reduced), abs(level) * NOISE_FLOOR_FRACTION, np.finfo(float).tiny)
    despiked = median_filter(reduced, size=3, mode="nearest")
    normalised = ((despiked - level) / reduced_noise).reshape(-1, 1)
    algorithm = ruptures.KernelCPD(kernel="linear", min_size=config.min_segment_runs).fit(normalised)
    penalty = config.penalty_per_log_n * np.log(reduced.size)
    breakpoints = [min(int(point) * block, size) for point in algorithm.predict(pen=penalty)]
    # Shifts are judged against the noise of single runs, whatever the block size.
    noise = max(difference_noise(signal), abs(level) * NOISE_FLOOR_FRACTION, np.finfo(float).tiny)
    boundaries = [0, *breakpoints]
    found: list[ChangePoint] = []
    for position in range(1, len(boundaries) - 1):
        start, split, end = boundaries[position - 1], boundaries[position], boundaries[position + 1]
        before = float(np.median(signal[start:split]))
        after = float(np.median(signal[split:end]))
        delta_pct = signed_delta_pct(after, before)
        shift_in_noise = abs(after - before) / noise
        if shift_in_noise < config.min_shift_noise or abs(delta_pct) < config.min_shift_pct:
            continue
        found.append(
            ChangePoint(
                index=split,
                run_id=run_ids[split],
                run_time=run_times[split],
                before=before,
                after=after,
                delta_pct=delta_pct,
                shift_in_noise=shift_in_noise,
                direction=direction_of(delta_pct, better),
            )
        )
    return found
