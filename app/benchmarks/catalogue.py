"""The metric catalogue: the unit and the better direction of every metric name statusboard stores.

Names follow `vllm bench serve --save-result` keys (`total_token_throughput`, `p99_ttft_ms`…) so runs
uploaded as JSON and as a pasted console block line up on the same chart.
"""

from __future__ import annotations

import re

HIGHER, LOWER, NONE = "higher", "lower", "none"

# Exact names first; (unit, better direction, must not be negative).
_EXACT: dict[str, tuple[str, str, bool]] = {
    "duration": ("s", NONE, True),
    "completed": ("requests", NONE, True),
    "failed": ("requests", LOWER, True),
    "errors": ("requests", LOWER, True),
    "total_input_tokens": ("tokens", NONE, True),
    "total_output_tokens": ("tokens", NONE, True),
    "total_output_tokens_retokenized": ("tokens", NONE, True),
    "request_throughput": ("req/s", HIGHER, True),
    "request_goodput": ("req/s", HIGHER, True),
    "input_throughput": ("tok/s", HIGHER, True),
    "output_throughput": ("tok/s", HIGHER, True),
    "total_token_throughput": ("tok/s", HIGHER, True),
    "max_output_tokens_per_s": ("tok/s", HIGHER, True),
    "max_concurrent_requests": ("requests", NONE, True),
    "concurrency": ("requests", NONE, True),
    "rtfx": ("x", HIGHER, True),
    "probe_completed": ("requests", NONE, True),
    "probe_failed": ("requests", LOWER, True),
    "input_sequence_throughput": ("inputs/s", HIGHER, True),
    "total_input_sequences": ("inputs", NONE, True),
    "spec_decode_acceptance_rate": ("%", HIGHER, True),
    "spec_decode_acceptance_length": ("tokens", HIGHER, True),
    "spec_decode_num_drafts": ("drafts", NONE, True),
    "spec_decode_draft_tokens": ("tokens", NONE, True),
    "spec_decode_accepted_tokens": ("tokens", NONE, True),
    # vllm bench latency (seconds)
    "avg_latency": ("s", LOWER, True),
    # vllm bench throughput
    "elapsed_time": ("s", LOWER, True),
    "num_requests": ("requests", NONE, True),
    "total_num_tokens": ("tokens", NONE, True),
    "requests_per_second": ("req/s", HIGHER, True),
    "tokens_per_second": ("tok/s", HIGHER, True),
    "output_tokens_per_second": ("tok/s", HIGHER, True),
}
_PATTERNS: list[tuple[re.Pattern[str], tuple[str, str, bool]]] = [
    (re.compile(r"^std_\w+_ms$"), ("ms", NONE, True)),
    (re.compile(r"^(probe_)?(mean|median|max|min|p\d+(\.\d+)?)_\w+_ms$"), ("ms", LOWER, True)),
    (re.compile(r"^latency_p\d+(\.\d+)?$"), ("s", LOWER, True)),
    (re.compile(r"^spec_decode_acceptance_rate_position_\d+$"), ("%", HIGHER, True)),
    (re.compile(r"^lm_eval/.*/stderr$"), ("", NONE, True)),
    (re.compile(r"^lm_eval/.*(perplexity|bits_per_byte|ppl)"), ("", LOWER, False)),
    (re.compile(r"^lm_eval/"), ("", HIGHER, False)),
    (re.compile(r"_ms$"), ("ms", LOWER, True)),
    (re.compile(r"(throughput|_per_s(econd)?)$"), ("/s", HIGHER, True)),
]


def describe_metric(name: str) -> tuple[str, str, bool]:
    """Returns (unit, better direction, must not be negative) for a metric name; unknown names: no unit."""
    if name in _EXACT:
        return _EXACT[name]
    for pattern, description in _PATTERNS:
        if pattern.search(name):
            return description
    return ("", NONE, False)


def known_metric_names() -> list[str]:
    """The exact names of the catalogue, for documentation and the API."""
    return sorted(_EXACT)
