"""The PyTorch benchmark format (`*.pytorch.json`): a list of records, one per metric.

Each record is `{"benchmark": {"name", "extra_info": {"args": {...}}}, "model": {"name"},
"metric": {"name", "benchmark_values": [...], "extra_info": {...}}}`; the value stored is the mean of
`benchmark_values` (vLLM writes a single value for serving metrics, every sample for latency).
"""

from __future__ import annotations

from typing import Any

from app.benchmarks.formats.base import MetricCollector, ParsedResult, number_or_error
from app.core.errors import InvalidInput

FORMAT = "pytorch_benchmark_json"
# vLLM's argument names in `benchmark.extra_info.args` that are context.
_ARG_CONTEXT = {
    "tensor_parallel_size": ("parallelism", "tp"),
    "pipeline_parallel_size": ("parallelism", "pp"),
    "data_parallel_size": ("parallelism", "dp"),
    "max_concurrency": ("workload", "concurrency"),
    "num_prompts": ("workload", "num_prompts"),
    "input_len": ("workload", "input_len"),
    "output_len": ("workload", "output_len"),
    "dataset_name": ("workload", "dataset"),
}


def looks_like_pytorch(data: Any) -> bool:
    return (
        isinstance(data, list)
        and bool(data)
        and all(isinstance(item, dict) and "metric" in item and "benchmark" in item for item in data)
    )


def parse(data: list[dict[str, Any]], raw: bytes) -> ParsedResult:
    """Reads every record into one run."""
    metrics = MetricCollector()
    context: dict[str, Any] = {}
    details: dict[str, Any] = {"records": len(data)}
    for index, record in enumerate(data):
        where = f"result[{index}].metric"
        metric = record.get("metric")
        if not isinstance(metric, dict) or not isinstance(metric.get("name"), str):
            raise InvalidInput(f"{where}.name: expected the metric's name", field=f"{where}.name")
        values = metric.get("benchmark_values")
        if not isinstance(values, list) or not values:
            raise InvalidInput(
                f"{where}.benchmark_values: expected a non-empty list of numbers",
                field=f"{where}.benchmark_values",
            )
        numbers = [number_or_error(value, f"{where}.benchmark_values[{i}]") for i, value in enumerate(values)]
        metrics.add(
            metric["name"], sum(numbers) / len(numbers), source_key=f"[{index}].metric.benchmark_values"
        )
        benchmark = record.get("benchmark") or {}
        details.setdefault("benchmark_name", benchmark.get("name"))
        model = record.get("model") or {}
        if isinstance(model, dict) and isinstance(model.get("name"), str):
            context.setdefault("model", model["name"])
        args = (benchmark.get("extra_info") or {}).get("args") or {}
        if isinstance(args, dict):
            for key, target in _ARG_CONTEXT.items():
                if args.get(key) is not None:
                    context.setdefault(target[0], {}).setdefault(target[1], args[key])
    return ParsedResult(
        source_format=FORMAT, raw=raw, metrics=metrics.as_list(), context=context, details=details
    )
