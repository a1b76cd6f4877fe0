"""A labelled synthetic corpus of benchmark histories, generated from a fixed seed.

Each series has a base level, a better direction, Gaussian noise of 1–5 %, daily runs with some days
missing (and now and then a gap longer than the 30-day window) and one kind of event: none, a step of
3–30 % up or down, two steps, single outliers, or a slow drift. The truth records where each step or
drift happens so the quality test can score the detector.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import numpy as np

from app.trends.detector import Better, Direction

SEED = 20261122
RUNS_PER_SERIES = 60
NOISE_LEVELS_PCT = (1.0, 2.0, 3.0, 4.0, 5.0)
STEP_SIZES_PCT = (3.0, 5.0, 8.0, 12.0, 20.0, 30.0)
KINDS = ("flat", "step", "two_steps", "outliers", "drift")
START = datetime(2026, 1, 5, 2, 0, tzinfo=UTC)


@dataclass(frozen=True)
class TrueEvent:
    """A real change: a step (start == end) or a drift over [start, end], in run indexes."""

    kind: str
    start: int
    end: int
    size_pct: float
    direction: Direction


@dataclass
class SyntheticSeries:
    name: str
    kind: str
    better: Better
    noise_pct: float
    run_times: list[datetime]
    values: np.ndarray
    # The same history without its injected outliers: tells which alarms the outliers alone caused.
    clean_values: np.ndarray
    events: list[TrueEvent] = field(default_factory=list)
    outlier_indexes: list[int] = field(default_factory=list)


def _direction(change_pct: float, better: Better) -> Direction:
    return Direction.improvement if (change_pct > 0) == (better == Better.higher) else Direction.regression


def _run_times(rng: np.random.Generator, count: int) -> list[datetime]:
    """Nightly runs; about one night in six is missing, and one series in ten has a 35-day outage."""
    gaps = np.where(rng.random(count) < 0.15, 2, 1)
    if rng.random() < 0.1:
        gaps[rng.integers(5, count - 5)] = 35
    days = np.cumsum(gaps)
    return [START + timedelta(days=int(day), minutes=int(rng.integers(0, 60))) for day in days]


def generate_corpus(series_per_kind: int = 80, seed: int = SEED) -> list[SyntheticSeries]:
    """Generates `series_per_kind` series of each kind with their truth; the same seed, the same corpus."""
    rng = np.random.default_rng(seed)
    corpus: list[SyntheticSeries] = []
    count = RUNS_PER_SERIES
    for kind in KINDS:
        for number in range(series_per_kind):
            better = Better.higher if rng.random() < 0.5 else Better.lower
            noise_pct = float(rng.choice(NOISE_LEVELS_PCT))
            level = float(rng.uniform(20.0, 80000.0))
            multiplier = np.ones(count)
            events: list[TrueEvent] = []
            outliers: list[int] = []
            if kind in ("step", "two_steps"):
                positions = [int(rng.integers(20, 45))] if kind == "step" else [20, 42]
                for position in positions:
                    size = float(rng.choice(STEP_SIZES_PCT)) * (1 if rng.random() < 0.5 else -1)
                    multiplier[position:] *= 1 + size / 100
                    events.append(TrueEvent("step", position, position, size, _direction(size, better)))
            elif kind == "drift":
                start = int(rng.integers(15, 30))
                length = int(rng.integers(15, 25))
                size = float(rng.uniform(10.0, 30.0)) * (1 if rng.random() < 0.5 else -1)
                ramp = np.clip((np.arange(count) - start) / length, 0.0, 1.0)
                multiplier *= 1 + ramp * size / 100
                events.append(TrueEvent("drift", start, start + length, size, _direction(size, better)))
            noise = rng.normal(0.0, noise_pct / 100, count)
            values = level * multiplier * (1 + noise)
            clean_values = values.copy()
            if kind == "outliers":
                # Spaced at least four runs apart: each is a single outlier, never two in a row.
                slots = rng.choice(np.arange(12, count - 2, 5), 3, replace=False)
                outliers = sorted(int(slot + rng.integers(0, 2)) for slot in slots)
                for index in outliers:
                    # A lone bad (or lucky) run: 15–40 % off, far beyond the noise.
                    values[index] *= 1 + float(rng.choice((-1, 1))) * float(rng.uniform(0.15, 0.4))
            corpus.append(
                SyntheticSeries(
                    name=f"{kind}-{number}",
                    kind=kind,
                    better=better,
                    noise_pct=noise_pct,
                    run_times=_run_times(rng, count),
                    values=values,
                    clean_values=clean_values,
                    events=events,
                    outlier_indexes=outliers,
                )
            )
    return corpus
