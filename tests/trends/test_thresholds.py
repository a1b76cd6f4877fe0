"""Regression thresholds are configurable per metric through the settings."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.core.settings import Settings
from app.trends.service import detector_config


def build(**values) -> Settings:
    return Settings(_env_file=None, **values)


def test_default_threshold_is_five_percent() -> None:
    assert detector_config(settings=build(), metric="output_throughput").threshold_pct == 5.0


def test_per_metric_thresholds_from_pairs_or_json() -> None:
    settings = build(REGRESSION_THRESHOLDS="p99_ttft_ms=10, p99_itl_ms=12.5", REGRESSION_THRESHOLD_PCT="3")
    assert detector_config(settings=settings, metric="p99_ttft_ms").threshold_pct == 10.0
    assert detector_config(settings=settings, metric="p99_itl_ms").threshold_pct == 12.5
    assert detector_config(settings=settings, metric="output_throughput").threshold_pct == 3.0
    assert build(REGRESSION_THRESHOLDS='{"median_ttft_ms": 8}').regression_thresholds == {
        "median_ttft_ms": 8.0
    }


def test_malformed_thresholds_name_the_variable() -> None:
    with pytest.raises(ValidationError, match="REGRESSION_THRESHOLDS"):
        build(REGRESSION_THRESHOLDS="p99_ttft_ms")
