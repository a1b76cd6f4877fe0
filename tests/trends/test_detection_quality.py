"""Measures the detector on the labelled synthetic corpus: precision and recall, printed and enforced.

An alarm is a run of consecutive `regression`/`improvement` labels of the windowed detector in one
direction, or one change point. It is right when it points at a true step or drift of the same direction
(a windowed alarm within `LABEL_DELAY_RUNS` runs after the change starts, a change point within
`CHANGE_POINT_TOLERANCE_RUNS` runs of it). A true step counts as found when any right alarm points at it.
Recall is enforced for steps (and drifts) of at least 3× the noise; precision over every alarm. Single
outliers are checked by attribution: the same history without them must raise exactly the same alarms.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest

from app.trends.changepoints import find_change_points
from app.trends.detector import Direction, Label, Point, evaluate_series
from tests.trends.corpus import SyntheticSeries, TrueEvent, generate_corpus

LABEL_DELAY_RUNS = 10
CHANGE_POINT_TOLERANCE_RUNS = 3
MIN_PRECISION = 0.95
MIN_RECALL = 0.90


@dataclass(frozen=True)
class Alarm:
    source: str
    index: int
    direction: Direction


def windowed_alarms(series: SyntheticSeries, values: np.ndarray | None = None) -> list[Alarm]:
    """Runs of consecutive confirmed labels of one direction, each as one alarm at its first run."""
    history = series.values if values is None else values
    points = [
        Point(run_id=index, run_time=time, value=float(value))
        for index, (time, value) in enumerate(zip(series.run_times, history, strict=True))
    ]
    alarms: list[Alarm] = []
    previous: tuple[int, Direction] | None = None
    for index, evaluation in enumerate(evaluate_series(points, better=series.better)):
        if evaluation.label not in (Label.regression, Label.improvement):
            continue
        assert evaluation.direction is not None
        continuing = previous is not None and previous == (index - 1, evaluation.direction)
        if not continuing:
            alarms.append(Alarm("windowed", index, evaluation.direction))
        previous = (index, evaluation.direction)
    return alarms


def change_point_alarms(series: SyntheticSeries, values: np.ndarray | None = None) -> list[Alarm]:
    found = find_change_points(
        series.values if values is None else values,
        run_ids=list(range(len(series.values))),
        run_times=series.run_times,
        better=series.better,
    )
    return [Alarm("change_point", point.index, point.direction) for point in found if point.direction]


def points_at(alarm: Alarm, event: TrueEvent) -> bool:
    if alarm.direction != event.direction:
        return False
    if alarm.source == "windowed":
        return event.start <= alarm.index <= event.end + LABEL_DELAY_RUNS
    return event.start - CHANGE_POINT_TOLERANCE_RUNS <= alarm.index <= event.end + CHANGE_POINT_TOLERANCE_RUNS


def big_enough(event: TrueEvent, series: SyntheticSeries) -> bool:
    return abs(event.size_pct) >= 3 * series.noise_pct


@pytest.fixture(scope="module")
def scored() -> dict[str, object]:
    corpus = generate_corpus()
    alarms_by_source: Counter[str] = Counter()
    right_by_source: Counter[str] = Counter()
    found_by: dict[str, Counter[str]] = {"step": Counter(), "drift": Counter()}
    expected: Counter[str] = Counter()
    outlier_alarms: list[str] = []
    for series in corpus:
        alarms = windowed_alarms(series) + change_point_alarms(series)
        for alarm in alarms:
            alarms_by_source[alarm.source] += 1
            if any(points_at(alarm, event) for event in series.events):
                right_by_source[alarm.source] += 1
        if series.kind == "outliers":
            # Whatever alarm the same history without its outliers does not raise, the outliers caused.
            clean_values = series.clean_values
            clean = windowed_alarms(series, clean_values) + change_point_alarms(series, clean_values)
            outlier_alarms += [f"{series.name}: {alarm}" for alarm in set(alarms) - set(clean)]
        for event in series.events:
            if not big_enough(event, series):
                continue
            expected[event.kind] += 1
            sources = {alarm.source for alarm in alarms if points_at(alarm, event)}
            for source in sources:
                found_by[event.kind][source] += 1
            if sources:
                found_by[event.kind]["any"] += 1
    total_alarms = sum(alarms_by_source.values())
    result = {
        "series": len(corpus),
        "precision": sum(right_by_source.values()) / total_alarms,
        "precision_windowed": right_by_source["windowed"] / max(alarms_by_source["windowed"], 1),
        "precision_change_point": right_by_source["change_point"] / max(alarms_by_source["change_point"], 1),
        "recall_steps": found_by["step"]["any"] / expected["step"],
        "recall_steps_windowed": found_by["step"]["windowed"] / expected["step"],
        "recall_steps_change_point": found_by["step"]["change_point"] / expected["step"],
        "recall_drifts": found_by["drift"]["any"] / expected["drift"],
        "steps": expected["step"],
        "drifts": expected["drift"],
        "alarms": total_alarms,
        "outlier_alarms": outlier_alarms,
    }
    print("\ndetector quality on the synthetic corpus:")
    for name, value in result.items():
        if isinstance(value, float):
            print(f"  {name:28s} {value:.3f}")
        elif not isinstance(value, list):
            print(f"  {name:28s} {value}")
    return result


def test_detector_precision_is_at_least_95_percent(scored: dict[str, object]) -> None:
    assert scored["precision"] >= MIN_PRECISION


def test_detector_finds_90_percent_of_steps_of_three_times_the_noise(scored: dict[str, object]) -> None:
    assert scored["recall_steps"] >= MIN_RECALL


def test_detector_finds_slow_drifts(scored: dict[str, object]) -> None:
    assert scored["recall_drifts"] >= MIN_RECALL


def test_single_outliers_are_never_called_regressions(scored: dict[str, object]) -> None:
    assert scored["outlier_alarms"] == []
