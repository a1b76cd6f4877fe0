"""The console block people paste: `==== Serving Benchmark Result ====` … a line of `=`.

vLLM's (`vllm bench serve`, `benchmark_serving.py`) and SGLang's (`bench_serving`) blocks share the frame.
Labels are matched case-insensitively with spaces collapsed; optional lines and sections (probe requests,
speculative decoding) are read when present; prose around the block is ignored. Several blocks in one paste
are several runs, each keeping its own lines verbatim.
"""

from __future__ import annotations

import math
import re
from typing import Any

from app.benchmarks.formats.base import MetricCollector, ParsedResult
from app.core.errors import InvalidInput

FORMAT = "vllm_serve_console"
SGLANG_FORMAT = "sglang_serve_console"
HEADER = re.compile(r"^\s*=+\s*Serving Benchmark Result\s*=+\s*$", re.IGNORECASE)
_FOOTER = re.compile(r"^\s*={10,}\s*$")
_SECTION = re.compile(r"^\s*-{3,}\s*(?P<title>.*?)\s*-{3,}\s*$")
_LINE = re.compile(r"^\s*(?P<label>[^:]+?)\s*:\s*(?P<value>.*?)\s*$")
_STATISTIC = re.compile(r"^(?P<stat>mean|median|std|max|min|p\d+(?:\.\d+)?) (?P<what>.+) \(ms\)$")
_POSITION = re.compile(r"^position (?P<index>\d+)$")

# Lowercased, space-collapsed label → metric name (vLLM's JSON key).
METRIC_LABELS = {
    "successful requests": "completed",
    "failed requests": "failed",
    "benchmark duration (s)": "duration",
    "total input tokens": "total_input_tokens",
    "total generated tokens": "total_output_tokens",
    "total generated tokens (retokenized)": "total_output_tokens_retokenized",
    "request throughput (req/s)": "request_throughput",
    "request goodput (req/s)": "request_goodput",
    "input token throughput (tok/s)": "input_throughput",
    "output token throughput (tok/s)": "output_throughput",
    "peak output token throughput (tok/s)": "max_output_tokens_per_s",
    "peak concurrent requests": "max_concurrent_requests",
    "total token throughput (tok/s)": "total_token_throughput",
    "rtfx (inverse real-time factor)": "rtfx",
    "input throughput (inputs/s)": "input_sequence_throughput",
    "concurrency": "concurrency",
    "accept length": "spec_decode_acceptance_length",
    "acceptance rate (%)": "spec_decode_acceptance_rate",
    "acceptance length": "spec_decode_acceptance_length",
    "drafts": "spec_decode_num_drafts",
    "draft tokens": "spec_decode_draft_tokens",
    "accepted tokens": "spec_decode_accepted_tokens",
    "probe requests completed": "probe_completed",
    "probe requests failed": "probe_failed",
}
# Labels that are context, not measurements.
CONTEXT_LABELS = {
    "maximum request concurrency": "concurrency",
    "max request concurrency": "concurrency",
    "max reqeuest concurrency": "concurrency",  # sic: older SGLang builds print this typo
    "request rate configured (rps)": "request_rate",
    "traffic request rate": "request_rate",
}
_STATISTIC_NAMES = {
    "ttft": "ttft",
    "tpot": "tpot",
    "itl": "itl",
    "e2el": "e2el",
    "e2e latency": "e2el",
    "client queue time": "client_queue_time",
    "e2el incl. client queue": "e2el_including_client_queue",
}
# Labels SGLang prints and vLLM does not.
_SGLANG_LABELS = {
    "backend",
    "traffic request rate",
    "total generated tokens (retokenized)",
    "accept length",
    "max reqeuest concurrency",
}


def contains_block(text: str) -> bool:
    return any(HEADER.match(line) for line in text.splitlines())


def _normalise_label(label: str) -> str:
    return re.sub(r"\s+", " ", label.strip()).lower()


def _value(text: str) -> float | str:
    """The number a line shows, or its text ("inf", "not set") when it shows none."""
    try:
        number = float(text.split()[0]) if text else math.nan
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def _metric_for(label: str) -> str | None:
    if label in METRIC_LABELS:
        return METRIC_LABELS[label]
    if match := _POSITION.match(label):
        return f"spec_decode_acceptance_rate_position_{match['index']}"
    if match := _STATISTIC.match(label):
        stat, what = match["stat"], match["what"]
        prefix = ""
        if what.startswith("probe "):
            prefix, what = "probe_", what.removeprefix("probe ")
        slug = _STATISTIC_NAMES.get(what) or re.sub(r"[^a-z0-9]+", "_", what).strip("_")
        return f"{prefix}{stat}_{slug}_ms"
    return None


def parse_block(lines: list[str], raw: bytes, *, first_line: int) -> ParsedResult:
    """Reads one block's lines (header to footer)."""
    metrics = MetricCollector(where="body")
    workload: dict[str, Any] = {}
    details: dict[str, Any] = {"sections": []}
    other: dict[str, str] = {}
    section = ""
    sglang = False
    for offset, line in enumerate(lines[1:], start=1):
        if not line.strip() or _FOOTER.match(line):
            continue
        if match := _SECTION.match(line):
            section = match["title"]
            details["sections"].append(section)
            continue
        match = _LINE.match(line)
        if not match:
            other[f"line {first_line + offset}"] = line.strip()
            continue
        label, text = _normalise_label(match["label"]), match["value"]
        sglang = sglang or label in _SGLANG_LABELS or label == "mean e2e latency (ms)"
        if label == "backend":
            details["backend"] = text
        elif label in CONTEXT_LABELS:
            value = _value(text)
            if value not in ("", "not set"):
                workload[CONTEXT_LABELS[label]] = value
        elif label == "per-position acceptance (%)" and not text:
            continue
        elif name := _metric_for(label):
            value = _value(text)
            if isinstance(value, str):
                raise InvalidInput(
                    f"line {first_line + offset}: {match['label'].strip()!r} has {text!r}, not a number",
                    field="body",
                    details={"line": first_line + offset},
                )
            metrics.add(name, value, source_key=f"line {first_line + offset} ({match['label'].strip()})")
        else:
            other[match["label"].strip()] = text
    if not metrics.metrics:
        raise InvalidInput(
            f"line {first_line}: the Serving Benchmark Result block has no metric", field="body"
        )
    if other:
        details["other"] = other
    if not details["sections"]:
        del details["sections"]
    return ParsedResult(
        source_format=SGLANG_FORMAT if sglang else FORMAT,
        raw=raw,
        metrics=metrics.as_list(),
        context={"workload": workload} if workload else {},
        details=details,
    )


def parse(raw: bytes, text: str) -> list[ParsedResult]:
    """Reads every block in a paste; one block keeps the whole paste as its raw upload."""
    lines = text.splitlines()
    starts = [index for index, line in enumerate(lines) if HEADER.match(line)]
    blocks = []
    for position, start in enumerate(starts):
        limit = starts[position + 1] if position + 1 < len(starts) else len(lines)
        end = next((index for index in range(start + 1, limit) if _FOOTER.match(lines[index])), None)
        if end is None:
            # Pastes often stop at the last metric; the block then ends at the first prose line.
            end = next(
                (
                    index - 1
                    for index in range(start + 1, limit)
                    if lines[index].strip() and not _block_line(lines[index])
                ),
                limit - 1,
            )
        blocks.append((start, end))
    results = []
    for start, end in blocks:
        block_lines = lines[start : end + 1]
        block_raw = raw if len(blocks) == 1 else "\n".join(block_lines).encode()
        result = parse_block(block_lines, block_raw, first_line=start + 1)
        preceding = next((line.strip() for line in reversed(lines[:start]) if line.strip()), None)
        if preceding and not _block_line(preceding):
            result.details["preceding_text"] = preceding[:300]
        results.append(result)
    return results


def _block_line(line: str) -> bool:
    """A line a block can hold: a frame, a section rule, or `label: short value` (prose has longer values)."""
    if _FOOTER.match(line) or _SECTION.match(line) or HEADER.match(line):
        return True
    match = _LINE.match(line)
    return bool(match and len(match["value"]) <= 30 and len(match["label"]) <= 60)
