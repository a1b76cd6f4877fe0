"""Overdue series: no run for more than twice the median interval."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.trends.overdue import cadence

START = datetime(2026, 3, 1, tzinfo=UTC)
NIGHTLY = [START + timedelta(days=day) for day in (0, 1, 2, 4, 5)]


def test_a_nightly_series_is_overdue_after_two_quiet_days() -> None:
    result = cadence(NIGHTLY, now=NIGHTLY[-1] + timedelta(days=2, hours=1))
    assert result.median_interval == timedelta(days=1)
    assert result.due_by == NIGHTLY[-1] + timedelta(days=2)
    assert result.overdue


def test_not_overdue_within_twice_the_interval() -> None:
    assert not cadence(NIGHTLY, now=NIGHTLY[-1] + timedelta(days=1, hours=23)).overdue


def test_two_runs_are_not_a_rhythm() -> None:
    result = cadence(NIGHTLY[:2], now=START + timedelta(days=100))
    assert not result.overdue
    assert result.median_interval is None
    assert result.last_run_time == NIGHTLY[1]
