"""`vllm bench latency` JSON (seconds; `percentiles` keyed by strings) and `vllm bench throughput` JSON."""

from __future__ import annotations

from typing import Any

from app.benchmarks.formats.base import MetricCollector, ParsedResult
from app.core.errors import InvalidInput

LATENCY_FORMAT = "vllm_latency_json"
THROUGHPUT_FORMAT = "vllm_throughput_json"
THROUGHPUT_KEYS = (
    "elapsed_time",
    "num_requests",
    "total_num_tokens",
    "requests_per_second",
    "tokens_per_second",
)


def looks_like_latency(data: Any) -> bool:
    return isinstance(data, dict) and "avg_latency" in data


def looks_like_throughput(data: Any) -> bool:
    return isinstance(data, dict) and "requests_per_second" in data and "elapsed_time" in data


def parse_latency(data: dict[str, Any], raw: bytes) -> ParsedResult:
    """Reads `{"avg_latency": s, "latencies": [...], "percentiles": {"10": s, …}}`."""
    metrics = MetricCollector()
    metrics.add("avg_latency", data.get("avg_latency"))
    percentiles = data.get("percentiles") or {}
    if not isinstance(percentiles, dict):
        raise InvalidInput(
            'result.percentiles: expected an object such as {"50": 1.2}', field="result.percentiles"
        )
    for key, value in percentiles.items():
        try:
            percentile = float(key)
        except ValueError:
            raise InvalidInput(
                f"result.percentiles: {key!r} is not a percentile", field=f"result.percentiles.{key}"
            ) from None
        if not 0 <= percentile <= 100:
            raise InvalidInput(
                f"result.percentiles: {key!r} is not between 0 and 100", field=f"result.percentiles.{key}"
            )
        word = str(int(percentile)) if percentile == int(percentile) else f"{percentile:g}"
        metrics.add(f"latency_p{word}", value, source_key=f"percentiles.{key}")
    latencies = data.get("latencies")
    details: dict[str, Any] = {}
    if latencies is not None:
        if not isinstance(latencies, list):
            raise InvalidInput("result.latencies: expected a list of seconds", field="result.latencies")
        details["latencies"] = {"count": len(latencies)}
    extra = {
        key: value for key, value in data.items() if key not in ("avg_latency", "percentiles", "latencies")
    }
    if extra:
        details["other"] = extra
    return ParsedResult(source_format=LATENCY_FORMAT, raw=raw, metrics=metrics.as_list(), details=details)


def parse_throughput(data: dict[str, Any], raw: bytes) -> ParsedResult:
    """Reads `{"elapsed_time", "num_requests", "total_num_tokens", "requests_per_second", …}`."""
    metrics = MetricCollector()
    details: dict[str, Any] = {}
    for key, value in data.items():
        if key in THROUGHPUT_KEYS or (isinstance(value, int | float) and not isinstance(value, bool)):
            metrics.add(key, value)
        else:
            details.setdefault("other", {})[key] = value
    return ParsedResult(source_format=THROUGHPUT_FORMAT, raw=raw, metrics=metrics.as_list(), details=details)
