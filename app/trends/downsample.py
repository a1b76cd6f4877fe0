"""Server-side downsampling of long histories that keeps what a reader must see.

tsdownsample's MinMaxLTTB (min/max preselection, then Largest-Triangle-Three-Buckets) keeps the visual
shape of a series in a fixed number of points. On top of it we always keep the first and the last run,
the global minimum and maximum, and every flagged run (regressions, improvements, suspicious runs,
change points, annotations), then fill the rest of the budget with the sampler's choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from tsdownsample import MinMaxLTTBDownsampler

DEFAULT_MAX_POINTS = 2000
MIN_MAX_POINTS = 2
MAX_MAX_POINTS = 10000


def downsample_indexes(
    times: Sequence[float] | np.ndarray,
    values: Sequence[float] | np.ndarray,
    *,
    max_points: int = DEFAULT_MAX_POINTS,
    keep: Iterable[int] = (),
) -> np.ndarray:
    """Returns sorted indexes of at most `max_points` points; `times` must be non-decreasing.

    Indexes in `keep` are always included unless they alone exceed the budget, in which case the most
    recent of them win (the newest regressions matter most).
    """
    if max_points < MIN_MAX_POINTS:
        raise ValueError(f"max_points must be at least {MIN_MAX_POINTS}")
    x = np.asarray(times, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    size = y.size
    if size <= max_points:
        return np.arange(size)
    must_keep = {0, size - 1, int(np.argmin(y)), int(np.argmax(y))}
    must_keep.update(index for index in keep if 0 <= index < size)
    if len(must_keep) >= max_points:
        return np.asarray(sorted(must_keep)[-max_points:])
    budget = max_points - len(must_keep)
    # MinMaxLTTB needs at least three output points; a smaller budget is filled evenly instead.
    if budget >= 3:
        sampled = MinMaxLTTBDownsampler().downsample(x, y, n_out=budget).astype(np.int64)
    else:
        sampled = np.linspace(0, size - 1, budget).astype(np.int64)
    # At most `budget` sampled plus `max_points - budget` kept: never more than `max_points`.
    return np.union1d(sampled, np.fromiter(must_keep, dtype=np.int64))
