"""Overdue series: a configuration that used to run regularly and has gone quiet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median

OVERDUE_FACTOR = 2.0
# Two intervals at least: one gap says nothing about a rhythm.
MIN_RUNS_FOR_RHYTHM = 3


@dataclass(frozen=True)
class Cadence:
    """A series' rhythm: its median interval, its last run and from when it is overdue."""

    runs: int
    last_run_time: datetime | None
    median_interval: timedelta | None
    due_by: datetime | None
    overdue: bool


def cadence(run_times: Sequence[datetime], *, now: datetime, factor: float = OVERDUE_FACTOR) -> Cadence:
    """Overdue when no run came for more than `factor` × the median interval between past runs."""
    ordered = sorted(run_times)
    last = ordered[-1] if ordered else None
    intervals = [later - earlier for earlier, later in zip(ordered, ordered[1:], strict=False)]
    typical = median(intervals) if len(ordered) >= MIN_RUNS_FOR_RHYTHM else None
    if last is None or typical is None or typical <= timedelta(0):
        return Cadence(
            runs=len(ordered), last_run_time=last, median_interval=typical, due_by=None, overdue=False
        )
    due_by = last + typical * factor
    return Cadence(
        runs=len(ordered), last_run_time=last, median_interval=typical, due_by=due_by, overdue=now > due_by
    )
