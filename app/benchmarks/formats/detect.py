"""Recognising an upload's format and dispatching to its parser."""

from __future__ import annotations

import json
from typing import Any

from app.benchmarks.formats import console, latency_throughput, lm_eval, pytorch, serve_json
from app.benchmarks.formats.base import ParsedResult, load_json
from app.core.errors import InvalidInput

# Every format name an uploader may pass as `format=`; the run records the precise one the parser saw.
FORMATS: dict[str, str] = {
    serve_json.FORMAT: "vllm bench serve --save-result JSON (also --append-result JSON lines)",
    serve_json.OLDER_FORMAT: "benchmarks/benchmark_serving.py JSON (older shape)",
    latency_throughput.LATENCY_FORMAT: "vllm bench latency JSON",
    latency_throughput.THROUGHPUT_FORMAT: "vllm bench throughput JSON",
    console.FORMAT: "the pasted '==== Serving Benchmark Result ====' console block (vLLM)",
    console.SGLANG_FORMAT: "SGLang bench_serving console block",
    lm_eval.JSON_FORMAT: "lm-eval results JSON",
    lm_eval.MARKDOWN_FORMAT: "the Markdown table lm-eval prints",
    pytorch.FORMAT: "PyTorch benchmark format (*.pytorch.json)",
}


def accepted_formats_message() -> str:
    return "; ".join(f"{name} ({description})" for name, description in FORMATS.items())


def _unrecognised(what: str) -> InvalidInput:
    return InvalidInput(
        f"{what} is not a benchmark result statusboard recognises; "
        f"accepted formats: {accepted_formats_message()}",
        field="body",
        details={"accepted_formats": list(FORMATS)},
    )


def parse_decoded(data: Any, raw: bytes, *, where: str = "result") -> list[ParsedResult]:
    """Classifies an already decoded JSON value and parses it."""
    if lm_eval.looks_like_lm_eval(data):
        return [lm_eval.parse_json(data, raw)]
    if latency_throughput.looks_like_latency(data):
        return [latency_throughput.parse_latency(data, raw)]
    if latency_throughput.looks_like_throughput(data):
        return [latency_throughput.parse_throughput(data, raw)]
    if pytorch.looks_like_pytorch(data):
        return [pytorch.parse(data, raw)]
    if serve_json.looks_like_serve_result(data):
        return [serve_json.parse_object(data, raw, where=where)]
    if isinstance(data, list) and data and all(serve_json.looks_like_serve_result(item) for item in data):
        return [
            serve_json.parse_object(item, json.dumps(item).encode(), where=f"{where}[{index}]")
            for index, item in enumerate(data)
        ]
    if isinstance(data, str):
        return parse_text(data, data.encode())
    raise _unrecognised("the JSON")


def parse_text(text: str, raw: bytes) -> list[ParsedResult]:
    """Parses text that is not JSON: a console block or an lm-eval table."""
    if console.contains_block(text):
        return console.parse(raw, text)
    if lm_eval.TABLE_HEADER.search(text):
        return [lm_eval.parse_markdown(text, raw)]
    raise _unrecognised("the text")


def _decode(raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"the upload is not UTF-8 text (byte {exc.start})", field="body") from None


def _looks_like_json_lines(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines)


def parse_upload(raw: bytes, *, format_name: str | None = None) -> list[ParsedResult]:
    """Parses an upload into one run or several; `format_name` names the format instead of detecting it."""
    if format_name is not None and format_name not in FORMATS:
        raise InvalidInput(
            f"format {format_name!r} is unknown; accepted formats: {accepted_formats_message()}",
            field="format",
            details={"accepted_formats": list(FORMATS)},
        )
    text = _decode(raw)
    stripped = text.strip()
    if not stripped:
        raise InvalidInput("the upload is empty", field="body")
    if format_name in (console.FORMAT, console.SGLANG_FORMAT):
        if not console.contains_block(text):
            raise InvalidInput("no '==== Serving Benchmark Result ====' block in the upload", field="body")
        return console.parse(raw, text)
    if format_name == lm_eval.MARKDOWN_FORMAT:
        if not lm_eval.TABLE_HEADER.search(text):
            raise InvalidInput("no |Tasks|Version|…| table in the upload", field="body")
        return [lm_eval.parse_markdown(text, raw)]
    if stripped[0] in "[{":
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            if _looks_like_json_lines(text):
                return serve_json.parse_lines(raw)
            load_json(raw)  # raises with line and column
            raise
        results = parse_decoded(data, raw)
    elif format_name is not None:
        raise InvalidInput(f"the upload is not JSON, as format {format_name!r} requires", field="body")
    else:
        results = parse_text(text, raw)
    if format_name is not None and not _same_family(format_name, results[0].source_format):
        raise InvalidInput(
            f"the upload was named {format_name!r} but reads as {results[0].source_format!r}", field="format"
        )
    return results


def _same_family(named: str, seen: str) -> bool:
    families = [{serve_json.FORMAT, serve_json.OLDER_FORMAT}, {console.FORMAT, console.SGLANG_FORMAT}]
    return named == seen or any(named in family and seen in family for family in families)
