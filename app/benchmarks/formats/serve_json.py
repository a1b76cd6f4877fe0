"""`vllm bench serve --save-result` JSON, the older `benchmark_serving.py` shape, and `--append-result` lines.

Setup keys become context (model, date, label, workload) and details; every numeric key is a metric;
per-request lists from `--save-detailed` stay in the raw upload and are summarised in details; any
other string key is a `--metadata KEY=VALUE` pair, routed onto context fields or kept as a tag.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.benchmarks.catalogue import describe_metric
from app.benchmarks.context import route_pairs
from app.benchmarks.formats.base import MetricCollector, ParsedResult, load_json
from app.core.errors import InvalidInput

FORMAT = "vllm_serve_json"
OLDER_FORMAT = "vllm_benchmark_serving_json"

# Keys that describe how the benchmark was run, not what it measured.
SETUP_KEYS = {
    "date", "backend", "endpoint_type", "label", "model_id", "tokenizer_id", "num_prompts", "request_rate",
    "burstiness", "max_concurrency", "best_of", "use_beam_search", "ramp_up_strategy", "ramp_up_start_rps",
    "ramp_up_end_rps", "percentile_metrics", "metric_percentiles",
    # SGLang bench_serving's JSON lines carry their workload settings beside the results.
    "random_input_len", "random_output_len", "random_range_ratio", "sharegpt_output_len",
}  # fmt: skip
# Per-request lists written by --save-detailed.
DETAILED_KEYS = {
    "input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times",
    "generated_texts", "errors", "rps_change_events", "spec_decode_per_position_acceptance_rates",
}  # fmt: skip
# Keys whose presence marks a serving result.
MARKER_KEYS = {"completed", "duration", "request_throughput", "output_throughput", "total_token_throughput"}
# The older script wrote this key with a stray colon; it is the goodput.
RENAMED_KEYS = {
    "request_goodput:": "request_goodput",
    # SGLang spells end-to-end latency out; the same statistic is stored under vLLM's name.
    **{
        f"{stat}_e2e_latency_ms": f"{stat}_e2el_ms" for stat in ("mean", "median", "std", "p90", "p95", "p99")
    },
}
_NUMBER = (int, float)
_LATENCY_KEY = re.compile(r"^(mean|median|std|p\d+(\.\d+)?)_\w+_ms$")


def is_metric_name(name: str) -> bool:
    """Names the catalogue knows as measurements; a string under such a name is an error, not metadata."""
    return name in MARKER_KEYS or bool(_LATENCY_KEY.match(name)) or describe_metric(name)[0] != ""


def looks_like_serve_result(data: Any) -> bool:
    """Answers whether a decoded JSON value is one serving benchmark result."""
    return isinstance(data, dict) and bool(MARKER_KEYS & data.keys() or any(map(_LATENCY_KEY.match, data)))


def is_older_shape(data: dict[str, Any]) -> bool:
    """The pre-`vllm bench` script: a `request_goodput:` key and no `failed` count."""
    return "request_goodput:" in data or ("failed" not in data and "completed" in data)


def parse_object(data: dict[str, Any], raw: bytes, *, where: str = "result") -> ParsedResult:
    """Reads one decoded serving result."""
    if not isinstance(data, dict):
        raise InvalidInput(f"{where}: expected a JSON object", field=where)
    source_format = OLDER_FORMAT if is_older_shape(data) else FORMAT
    metrics = MetricCollector(where=where)
    details: dict[str, Any] = {"setup": {}, "per_request": {}}
    metadata: dict[str, Any] = {}
    for key, value in data.items():
        name = RENAMED_KEYS.get(key, key)
        if name in SETUP_KEYS:
            details["setup"][name] = value
        elif name in DETAILED_KEYS:
            details["per_request"][name] = _summarise_list(name, value, f"{where}.{key}")
            if name == "spec_decode_per_position_acceptance_rates" and isinstance(value, list):
                for position, rate in enumerate(value):
                    metrics.add(
                        f"spec_decode_acceptance_rate_position_{position}",
                        rate * 100 if isinstance(rate, _NUMBER) and not isinstance(rate, bool) else rate,
                        source_key=f"{key}[{position}]",
                    )
        elif value is None:
            continue  # e.g. request_goodput without --goodput
        elif is_metric_name(name) and (isinstance(value, str | bool | list | dict)):
            metrics.add(name, value, source_key=key)  # raises: a measurement must be a number
        elif isinstance(value, str):
            metadata[key] = value
        elif isinstance(value, bool | list | dict):
            details.setdefault("other", {})[key] = value
        else:
            metrics.add(name, value, source_key=key)
    if not metrics.metrics:
        raise InvalidInput(f"{where}: a serving result without any numeric metric", field=where)
    errors = details["per_request"].get("errors")
    if errors:
        details["error_count"] = errors["non_empty"]
    return ParsedResult(
        source_format=source_format,
        raw=raw,
        metrics=metrics.as_list(),
        context=_context_of(data, metadata, where),
        details={key: value for key, value in details.items() if value != {}},
    )


def _context_of(data: dict[str, Any], metadata: dict[str, Any], where: str) -> dict[str, Any]:
    context = route_pairs(metadata)
    if isinstance(data.get("model_id"), str):
        context.setdefault("model", data["model_id"])
    if isinstance(data.get("date"), str):
        context.setdefault("run_time", data["date"])
    if isinstance(data.get("label"), str) and data["label"]:
        context.setdefault("label", data["label"])
    workload = context.setdefault("workload", {})
    for key, target in (
        ("num_prompts", "num_prompts"),
        ("max_concurrency", "concurrency"),
        ("random_input_len", "input_len"),
        ("random_output_len", "output_len"),
    ):
        if data.get(key) is not None:
            workload.setdefault(target, data[key])
    if data.get("request_rate") is not None:
        workload.setdefault("request_rate", data["request_rate"])
    return context


def _summarise_list(name: str, value: Any, field: str) -> dict[str, Any]:
    """A few numbers about a per-request list; the list itself stays in the raw upload."""
    if not isinstance(value, list):
        raise InvalidInput(f"{field}: expected a list of per-request values", field=field)
    summary: dict[str, Any] = {"count": len(value)}
    if name in ("errors", "generated_texts"):
        summary["non_empty"] = sum(1 for item in value if item)
        if name == "errors":
            summary["examples"] = sorted({str(item)[:200] for item in value if item})[:5]
    return summary


def parse(raw: bytes) -> list[ParsedResult]:
    """Reads a result file: one JSON object, a JSON array of them, or `--append-result` lines."""
    text = raw.decode("utf-8-sig", errors="strict")
    stripped = text.strip()
    if stripped.startswith("[") or "\n" not in stripped:
        data = load_json(raw)
        if isinstance(data, list):
            return [
                parse_object(item, json.dumps(item).encode(), where=f"result[{index}]")
                for index, item in enumerate(data)
            ]
        return [parse_object(data, raw)]
    try:
        return [parse_object(json.loads(stripped), raw)]
    except json.JSONDecodeError:
        return parse_lines(raw)


def parse_lines(raw: bytes) -> list[ParsedResult]:
    """Reads JSON lines (`--append-result`): one run per non-empty line, each line kept verbatim."""
    results = []
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        data = load_json(line, what=f"line {number}", first_line=number)
        results.append(parse_object(data, line.rstrip(b"\r"), where=f"line {number}"))
    return results
