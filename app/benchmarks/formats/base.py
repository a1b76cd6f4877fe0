"""What every parser returns, and the checks they share."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from app.benchmarks.catalogue import describe_metric
from app.core.errors import InvalidInput

MAX_METRIC_NAME = 200


@dataclass(frozen=True)
class ParsedMetric:
    name: str
    value: float
    unit: str
    better_direction: str


@dataclass
class ParsedResult:
    """One run read from an upload: its metrics, the context the file itself states, and what else it kept."""

    source_format: str
    raw: bytes
    metrics: list[ParsedMetric] = field(default_factory=list)
    # Context the file states (model_id, date, max_concurrency, --metadata pairs…), as raw context input.
    context: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)


class MetricCollector:
    """Collects metrics once each, checking that every value is a finite number of the right sign."""

    def __init__(self, *, where: str = "result"):
        self.where = where
        self.metrics: dict[str, ParsedMetric] = {}

    def add(self, name: str, value: Any, *, source_key: str | None = None, better: str | None = None) -> None:
        """Adds `name` with the catalogue's unit and direction; the error names `source_key`."""
        key = source_key or name
        if not name or len(name) > MAX_METRIC_NAME:
            raise InvalidInput(
                f"{self.where}.{key[:80]}: a metric name must be 1 to {MAX_METRIC_NAME} characters",
                field=f"{self.where}.{key[:80]}",
            )
        number = number_or_error(value, f"{self.where}.{key}")
        unit, catalogue_better, non_negative = describe_metric(name)
        better = better or catalogue_better
        if non_negative and number < 0:
            raise InvalidInput(
                f"{self.where}.{key}: must not be negative, got {number:g}", field=f"{self.where}.{key}"
            )
        self.metrics[name] = ParsedMetric(name=name, value=number, unit=unit, better_direction=better)

    def as_list(self) -> list[ParsedMetric]:
        return list(self.metrics.values())


def number_or_error(value: Any, field_name: str) -> float:
    """Returns `value` as a finite float, or raises `InvalidInput` naming the field."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(
            f"{field_name}: expected a number, got {type(value).__name__} {value!r}"[:300], field=field_name
        )
    number = float(value)
    if not math.isfinite(number):
        raise InvalidInput(f"{field_name}: expected a finite number, got {value!r}", field=field_name)
    return number


def load_json(raw: bytes, *, what: str = "the upload", first_line: int = 1) -> Any:
    """Parses JSON, raising `InvalidInput` with line and column; NaN is refused later, naming its field."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{what} is not UTF-8 text (byte {exc.start})", field="body") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        line = exc.lineno + first_line - 1
        raise InvalidInput(
            f"{what} is not valid JSON: {exc.msg} at line {line}, column {exc.colno}",
            field="body",
            details={"line": line, "column": exc.colno},
        ) from None


def json_safe(value: Any) -> Any:
    """Returns `value` storable as JSONB: NaN/Infinity become strings, NUL characters are dropped."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {json_safe(str(key)): json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return value
