"""Every upload format, read by the pure parsers (no database)."""

from pathlib import Path

import pytest

from app.benchmarks.context import normalise_context
from app.benchmarks.formats.detect import parse_upload
from app.core.errors import InvalidInput

SAMPLES = Path(__file__).parent / "samples"
DEMO = Path(__file__).parents[2] / "app" / "benchmarks" / "demo_data"


def read(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def metrics_of(result) -> dict[str, float]:
    return {metric.name: metric.value for metric in result.metrics}


def test_serve_json_reads_metrics_setup_context_and_metadata_pairs():
    [result] = parse_upload(read("serve_result.json"))
    assert result.source_format == "vllm_serve_json"
    values = metrics_of(result)
    assert values["total_token_throughput"] == 73714.89
    assert values["p99.9_ttft_ms"] == 3550.0
    assert "request_goodput" not in values  # null without --goodput
    by_name = {metric.name: metric for metric in result.metrics}
    assert (by_name["p99_ttft_ms"].unit, by_name["p99_ttft_ms"].better_direction) == ("ms", "lower")
    assert (by_name["total_token_throughput"].unit, by_name["total_token_throughput"].better_direction) == (
        "tok/s",
        "higher",
    )
    assert result.context["model"] == "nvidia/DeepSeek-R1-0528-FP4-v2"
    assert result.context["run_time"] == "20251204-101500"
    assert result.context["workload"] == {"num_prompts": 512, "concurrency": 128, "request_rate": "inf"}
    assert result.context["hardware"] == "GB200" and result.context["precision"] == "fp4"
    assert result.context["parallelism"] == {"tp": "1", "dp": "4"}
    assert result.context["backends"] == {"moe": "flashinfer_trtllm"}
    assert result.context["tags"] == {"ci_job": "nightly-42"}
    assert result.details["setup"]["burstiness"] == 1.0


def test_save_detailed_lists_are_summarised_with_the_error_count_and_spec_decode_is_read():
    [result] = parse_upload(read("serve_detailed_spec.json"))
    assert result.details["error_count"] == 1
    assert result.details["per_request"]["errors"]["examples"] == ["Bad Gateway"]
    assert result.details["per_request"]["ttfts"] == {"count": 3}
    values = metrics_of(result)
    assert values["spec_decode_acceptance_rate"] == 62.5
    assert values["spec_decode_acceptance_rate_position_1"] == 62.5
    assert values["failed"] == 1 and values["p50_ttft_ms"] == 25.0 and values["request_goodput"] == 1.0
    assert "ttfts" not in values
    assert result.context["workload"]["request_rate"] == 4.0 and result.context["label"] == "eagle3"


def test_older_benchmark_serving_shape_with_its_colon_key():
    [result] = parse_upload(read("older_benchmark_serving.json"))
    assert result.source_format == "vllm_benchmark_serving_json"
    assert metrics_of(result)["request_goodput"] == 15.2
    assert "failed" not in metrics_of(result)


def test_append_result_lines_are_several_runs_each_keeping_its_line():
    results = parse_upload(read("appended.jsonl"))
    assert [metrics_of(result)["output_throughput"] for result in results] == [92.1, 600.5]
    assert results[0].raw == read("appended.jsonl").split(b"\n")[0]
    assert results[1].context["workload"]["concurrency"] == 8


def test_latency_json_in_seconds_with_string_percentile_keys():
    [result] = parse_upload(read("latency.json"))
    assert result.source_format == "vllm_latency_json"
    values = metrics_of(result)
    assert values["avg_latency"] == 1.2345 and values["latency_p99"] == 1.3
    assert {metric.unit for metric in result.metrics} == {"s"}
    assert result.details["latencies"] == {"count": 3}


def test_throughput_json():
    [result] = parse_upload(read("throughput.json"))
    assert result.source_format == "vllm_throughput_json"
    assert metrics_of(result)["tokens_per_second"] == 4322.3
    assert {m.name: m.better_direction for m in result.metrics}["requests_per_second"] == "higher"


def test_pr_console_paste_gives_two_runs_with_their_prose_and_the_capital_t_label():
    results = parse_upload((DEMO / "pr30014_serving_blocks.txt").read_bytes())
    assert [result.source_format for result in results] == ["vllm_serve_console"] * 2
    assert [metrics_of(result)["total_token_throughput"] for result in results] == [69219.00, 73714.89]
    assert results[0].details["preceding_text"] == "original perf"
    assert results[1].details["preceding_text"] == "quant before all gather optimization"
    assert results[0].context == {"workload": {"concurrency": 128.0}}
    assert metrics_of(results[0])["max_concurrent_requests"] == 183.0
    assert results[1].raw.startswith(b"============ Serving Benchmark Result")
    assert b"Copy link" not in results[1].raw


def test_full_console_block_with_probe_percentile_and_speculative_sections():
    [result] = parse_upload(read("vllm_console_full.txt"))
    values = metrics_of(result)
    assert values["failed"] == 3 and values["request_goodput"] == 15.90
    assert values["probe_median_e2el_ms"] == 45.20 and values["probe_completed"] == 59
    assert values["p99.9_ttft_ms"] == 300.12 and values["mean_e2el_ms"] == 3300.10
    assert (
        values["spec_decode_num_drafts"] == 44000 and values["spec_decode_acceptance_rate_position_2"] == 45.0
    )
    assert result.context == {"workload": {"concurrency": 64.0, "request_rate": 20.0}}
    assert result.raw == read("vllm_console_full.txt")


def test_console_labels_are_case_insensitive_and_trailing_spaces_do_not_matter():
    text = (
        "==== serving benchmark result ====\n"
        "SUCCESSFUL REQUESTS:   10   \t\n"
        "total TOKEN throughput (tok/s):    123.5    \n"
        "==================================================\n"
    )
    [result] = parse_upload(text.encode())
    assert metrics_of(result) == {"completed": 10, "total_token_throughput": 123.5}


def test_sglang_block_is_recognised_and_its_labels_map_to_the_same_names():
    [result] = parse_upload(read("sglang_console.txt"))
    assert result.source_format == "sglang_serve_console"
    values = metrics_of(result)
    assert (
        values["mean_e2el_ms"] == 42551.33
        and values["p95_itl_ms"] == 600.21
        and values["max_itl_ms"] == 4000.12
    )
    assert values["total_token_throughput"] == 1972.21 and values["input_throughput"] == 1408.72
    assert values["spec_decode_acceptance_length"] == 3.12
    assert result.details["backend"] == "sglang"
    assert result.context == {"workload": {"request_rate": "inf"}}


def test_lm_eval_json_metrics_stderr_direction_and_model_from_model_args():
    [result] = parse_upload(read("lm_eval_results.json"))
    assert result.source_format == "lm_eval_json"
    by_name = {metric.name: metric for metric in result.metrics}
    assert by_name["lm_eval/gsm8k/exact_match/flexible-extract"].value == 0.9712
    assert by_name["lm_eval/gsm8k/exact_match/flexible-extract"].better_direction == "higher"
    assert by_name["lm_eval/gsm8k/exact_match/strict-match/stderr"].better_direction == "none"
    assert by_name["lm_eval/wikitext/word_perplexity/none"].better_direction == "lower"
    assert "lm_eval/wikitext/word_perplexity/none/stderr" not in by_name  # "N/A"
    assert result.context["model"] == "nvidia/DeepSeek-R1-0528-FP4-v2"
    assert result.context["run_time"].startswith("2025-11-22")
    assert result.details["n_shot"] == {"gsm8k": 5, "wikitext": 0}


def test_lm_eval_markdown_table_from_the_pr_matches_the_json_names():
    [result] = parse_upload((DEMO / "pr30014_gsm8k.md").read_bytes())
    assert result.source_format == "lm_eval_markdown"
    assert metrics_of(result) == {
        "lm_eval/gsm8k/exact_match/flexible-extract": 0.9712,
        "lm_eval/gsm8k/exact_match/flexible-extract/stderr": 0.0065,
        "lm_eval/gsm8k/exact_match/strict-match": 0.9712,
        "lm_eval/gsm8k/exact_match/strict-match/stderr": 0.0065,
    }
    assert result.context["model"] == "nvidia/DeepSeek-R1-0528-FP4-v2"
    assert result.details["n_shot"] == {"gsm8k": "5"}


def test_pytorch_benchmark_format_one_record_per_metric():
    [result] = parse_upload(read("serve.pytorch.json"))
    assert result.source_format == "pytorch_benchmark_json"
    assert metrics_of(result) == {"median_ttft_ms": 95.5, "p99_tpot_ms": 31.0}
    assert result.context["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert result.context["parallelism"] == {"tp": 2}


def test_named_format_must_match_the_content():
    with pytest.raises(InvalidInput) as caught:
        parse_upload(read("latency.json"), format_name="vllm_throughput_json")
    assert caught.value.field == "format"
    [result] = parse_upload(read("older_benchmark_serving.json"), format_name="vllm_serve_json")
    assert result.source_format == "vllm_benchmark_serving_json"


def test_unknown_format_name_lists_the_accepted_ones():
    with pytest.raises(InvalidInput) as caught:
        parse_upload(b"{}", format_name="csv")
    assert "vllm_serve_json" in caught.value.details["accepted_formats"]


@pytest.mark.parametrize(
    ("body", "line", "column"),
    [(b'{"duration": 1.0,\n "completed": ', 2, 15), (b'{"a": 1\n\n"b"}', 3, 1)],
)
def test_truncated_or_broken_json_names_line_and_column(body, line, column):
    with pytest.raises(InvalidInput) as caught:
        parse_upload(body)
    assert (caught.value.details["line"], caught.value.details["column"]) == (line, column)
    assert f"line {line}, column {column}" in caught.value.message


def test_broken_line_in_json_lines_names_its_line():
    body = read("appended.jsonl") + b'{"duration": \n'
    with pytest.raises(InvalidInput) as caught:
        parse_upload(body)
    assert caught.value.details["line"] == 3


def test_unrecognised_text_and_json_list_the_accepted_formats():
    for body in (b"hello, these are my numbers: fast", b'{"foo": 1}'):
        with pytest.raises(InvalidInput) as caught:
            parse_upload(body)
        assert "accepted formats" in caught.value.message
        assert "lm_eval_json" in caught.value.details["accepted_formats"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b'{"duration": -1.0, "completed": 5, "failed": 0}', "result.duration"),
        (b'{"duration": 1.0, "completed": -5, "failed": 0}', "result.completed"),
        (b'{"duration": NaN, "completed": 5, "failed": 0}', "result.duration"),
        (b'{"duration": 1.0, "completed": 5, "failed": 0, "mean_ttft_ms": Infinity}', "result.mean_ttft_ms"),
        (b'{"avg_latency": "slow"}', "result.avg_latency"),
        (b'{"duration": 1.0, "completed": "512", "failed": 0}', "result.completed"),
        (b'{"duration": true, "completed": 5, "failed": 0}', "result.duration"),
        (b'{"duration": 1.0, "completed": 5, "failed": 0, "errors": "none"}', "result.errors"),
    ],
)
def test_wrong_types_nan_and_negative_values_name_the_field(body, field):
    with pytest.raises(InvalidInput) as caught:
        parse_upload(body)
    assert caught.value.field == field


def test_console_metric_with_text_value_names_its_line():
    text = "==== Serving Benchmark Result ====\nSuccessful requests: many\n=========================\n"
    with pytest.raises(InvalidInput) as caught:
        parse_upload(text.encode())
    assert caught.value.details["line"] == 2


def test_sglang_json_line_lines_up_with_vllm_names_and_workload():
    line = (
        b'{"backend": "sglang", "dataset_name": "random", "request_rate": Infinity, "max_concurrency": 64, '
        b'"random_input_len": 1024, "random_output_len": 256, "duration": 30.0, "completed": 500, '
        b'"total_input_tokens": 512000, "total_output_tokens": 128000, "request_throughput": 16.6, '
        b'"output_throughput": 4266.0, "mean_e2e_latency_ms": 3500.0, "p99_e2e_latency_ms": 5000.0, '
        b'"mean_ttft_ms": 200.0}'
    )
    [result] = parse_upload(line)
    assert metrics_of(result)["mean_e2el_ms"] == 3500.0 and metrics_of(result)["p99_e2el_ms"] == 5000.0
    assert "random_input_len" not in metrics_of(result)
    assert result.context["workload"] == {
        "dataset": "random",
        "concurrency": 64,
        "input_len": 1024,
        "output_len": 256,
        "request_rate": float("inf"),
    }
    normalised = normalise_context({**result.context, "hardware": "H200", "model": "m"})
    assert normalised["workload"]["request_rate"] == "inf"
