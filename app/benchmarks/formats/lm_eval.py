"""lm-eval results: the JSON file (`results` → task → `"metric,filter"`) and the Markdown table it prints.

Metric names are `lm_eval/<task>/<metric>/<filter>`, and `…/stderr` for the standard error, so the JSON
and the pasted table of one evaluation store the same names.
"""

from __future__ import annotations

import re
from typing import Any

from app.benchmarks.catalogue import HIGHER, LOWER
from app.benchmarks.formats.base import MetricCollector, ParsedResult
from app.core.errors import InvalidInput

JSON_FORMAT = "lm_eval_json"
MARKDOWN_FORMAT = "lm_eval_markdown"
TABLE_HEADER = re.compile(r"^\s*\|\s*Tasks\s*\|\s*Version\s*\|", re.IGNORECASE | re.MULTILINE)
_MODEL_ARG = re.compile(r"(?:^|[,(\s])(?:pretrained|model)=([^,)\s]+)")


def looks_like_lm_eval(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("results"), dict)
        and ("versions" in data or "n-shot" in data or "config" in data or "configs" in data)
    )


def metric_name(task: str, metric: str, filter_name: str, *, stderr: bool = False) -> str:
    name = f"lm_eval/{task.strip()}/{metric.strip()}/{(filter_name or 'none').strip()}"
    return f"{name}/stderr" if stderr else name


def model_from_args(model_args: Any) -> str | None:
    """Finds `pretrained=` or `model=` in lm-eval's `model_args` (a string or an object)."""
    if isinstance(model_args, dict):
        value = model_args.get("pretrained") or model_args.get("model")
        return str(value) if value else None
    if isinstance(model_args, str) and (match := _MODEL_ARG.search(model_args)):
        return match[1]
    return None


def parse_json(data: dict[str, Any], raw: bytes) -> ParsedResult:
    """Reads an lm-eval results JSON."""
    metrics = MetricCollector()
    higher_is_better = data.get("higher_is_better") or {}
    for task, values in data["results"].items():
        if not isinstance(values, dict):
            raise InvalidInput(
                f"result.results.{task}: expected an object of metrics", field=f"result.results.{task}"
            )
        for key, value in values.items():
            if "," not in key or value in ("N/A", None):
                continue  # "alias", "name" and metrics without a stderr
            metric, _, filter_name = key.partition(",")
            is_stderr = metric.endswith("_stderr")
            base = metric.removesuffix("_stderr")
            better = None
            if (
                not is_stderr
                and isinstance(higher_is_better.get(task), dict)
                and base in higher_is_better[task]
            ):
                better = HIGHER if higher_is_better[task][base] else LOWER
            metrics.add(
                metric_name(task, base, filter_name, stderr=is_stderr),
                value,
                source_key=f"results.{task}.{key}",
                better=better,
            )
    if not metrics.metrics:
        raise InvalidInput("result.results: no task metric found", field="result.results")
    config = data.get("config") or {}
    context: dict[str, Any] = {}
    model = model_from_args(config.get("model_args")) if isinstance(config, dict) else None
    if model:
        context["model"] = model
    tasks = sorted(data["results"])
    details = {
        "tasks": tasks,
        "n_shot": data.get("n-shot") or {},
        "versions": data.get("versions") or {},
        "model_args": config.get("model_args") if isinstance(config, dict) else None,
        "limit": config.get("limit") if isinstance(config, dict) else None,
    }
    date = data.get("date")
    if isinstance(date, int | float) and not isinstance(date, bool):
        from datetime import UTC, datetime

        context["run_time"] = datetime.fromtimestamp(date, UTC).isoformat()
    return ParsedResult(
        source_format=JSON_FORMAT, raw=raw, metrics=metrics.as_list(), context=context, details=details
    )


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def parse_markdown(text: str, raw: bytes) -> ParsedResult:
    """Reads the `|Tasks|Version|Filter|n-shot|Metric| |Value| |Stderr|` table (and the line above it)."""
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if TABLE_HEADER.match(line))
    header = [cell.lower() for cell in _cells(lines[start])]
    columns = {
        name: header.index(name)
        for name in ("tasks", "filter", "n-shot", "metric", "value")
        if name in header
    }
    if len(columns) < 5:
        raise InvalidInput(
            "the lm-eval table lacks a Tasks, Filter, n-shot, Metric or Value column", field="body"
        )
    value_column = columns["value"]
    arrow_column = value_column - 1
    stderr_column = header.index("stderr") if "stderr" in header else None
    metrics = MetricCollector()
    n_shot: dict[str, str] = {}
    task = ""
    for number, line in enumerate(lines[start + 2 :], start=start + 3):
        if not line.strip().startswith("|"):
            break
        cells = _cells(line)
        if len(cells) < len(header):
            raise InvalidInput(f"line {number}: the lm-eval table row has too few cells", field="body")
        task = cells[columns["tasks"]].lstrip("- ").strip() or task
        if not task:
            raise InvalidInput(f"line {number}: a table row without a task", field="body")
        n_shot.setdefault(task, cells[columns["n-shot"]])
        arrow = cells[arrow_column] if arrow_column not in columns.values() else ""
        better = HIGHER if "↑" in arrow else LOWER if "↓" in arrow else None
        name = metric_name(task, cells[columns["metric"]], cells[columns["filter"]])
        metrics.add(name, _number(cells[value_column], number, "Value"), better=better)
        if stderr_column is not None and cells[stderr_column] not in ("", "N/A"):
            stderr_name = metric_name(task, cells[columns["metric"]], cells[columns["filter"]], stderr=True)
            metrics.add(stderr_name, _number(cells[stderr_column], number, "Stderr"))
    if not metrics.metrics:
        raise InvalidInput("the lm-eval table has no rows", field="body")
    context: dict[str, Any] = {}
    settings_line = next((line for line in reversed(lines[:start]) if line.strip()), "")
    if model := model_from_args(settings_line):
        context["model"] = model
    details = {"tasks": sorted(n_shot), "n_shot": n_shot, "settings": settings_line.strip()[:2000]}
    return ParsedResult(
        source_format=MARKDOWN_FORMAT, raw=raw, metrics=metrics.as_list(), context=context, details=details
    )


def _number(text: str, line: int, column: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise InvalidInput(f"line {line}: {column} {text!r} is not a number", field="body") from None
