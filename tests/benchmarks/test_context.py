"""Normalising contexts, routing metadata pairs, and the series key (pure, no database)."""

import pytest

from app.benchmarks.context import (
    normalise_context,
    parse_flags,
    parse_run_time,
    route_pairs,
    series_key,
    upload_digest,
)
from app.core.errors import InvalidInput

BASE = {"hardware": "GB200", "gpu_count": 4, "model": "nvidia/DeepSeek-R1-0528-FP4-v2", "precision": "FP4"}


def test_normalise_fills_defaults_and_lowercases_precision_and_engine():
    context = normalise_context(BASE)
    assert context["precision"] == "fp4"
    assert context["engine"] == "vllm"
    assert context["parallelism"] == {} and context["workload"] == {} and context["links"] == []


def test_missing_hardware_and_model_are_both_named():
    with pytest.raises(InvalidInput) as caught:
        normalise_context({"precision": "fp8"})
    assert caught.value.details["missing"] == ["hardware", "model"]
    assert "hardware" in caught.value.message and "model" in caught.value.message


@pytest.mark.parametrize(
    ("context", "field"),
    [
        ({**BASE, "gpu_count": -1}, "context.gpu_count"),
        ({**BASE, "gpu_count": "four"}, "context.gpu_count"),
        ({**BASE, "parallelism": {"tp": 1.5}}, "context.parallelism.tp"),
        ({**BASE, "workload": {"concurrency": True}}, "context.workload.concurrency"),
        ({**BASE, "workload": {"request_rate": "fast"}}, "context.workload.request_rate"),
        ({**BASE, "run_time": "yesterday"}, "context.run_time"),
        ({**BASE, "hardware": ["B200"]}, "context.hardware"),
    ],
)
def test_wrong_types_name_the_field(context, field):
    with pytest.raises(InvalidInput) as caught:
        normalise_context(context)
    assert caught.value.field == field


def test_metadata_pairs_route_to_context_fields_and_the_rest_become_tags():
    routed = route_pairs(
        {
            "hardware": "B200",
            "precision": "fp4",
            "tp": "4",
            "moe_backend": "marlin",
            "ci_job": "1234",
            "pr": "#1",
        }
    )
    context = normalise_context({**routed, "model": "m"})
    assert context["hardware"] == "B200"
    assert context["parallelism"] == {"tp": 4}
    assert context["backends"] == {"moe": "marlin"}
    assert context["tags"] == {"ci_job": "1234"}
    assert context["links"] == ["#1"]


def test_flat_pairs_in_a_context_object_are_routed_too():
    context = normalise_context({**BASE, "isl": 2048, "osl": 1, "concurrency": 128, "dp_attention": "true"})
    assert context["workload"] == {"input_len": 2048, "output_len": 1, "concurrency": 128}
    assert context["parallelism"] == {"dp_attention": True}


def test_flags_read_from_strings_lists_and_objects_alike():
    expected = {"--kv-cache-dtype": "fp8", "--enable-expert-parallel": "", "--data-parallel-size": "4"}
    assert parse_flags("--kv-cache-dtype fp8 --enable-expert-parallel --data-parallel-size=4") == expected
    assert (
        parse_flags(["--kv-cache-dtype=fp8", "--enable-expert-parallel", "--data-parallel-size 4"])
        == expected
    )


def test_vllm_date_format_is_read_as_utc():
    assert parse_run_time("20251204-101500").isoformat() == "2025-12-04T10:15:00+00:00"
    assert parse_run_time("2025-12-04T12:15:00+02:00").isoformat() == "2025-12-04T10:15:00+00:00"


def test_series_key_ignores_time_version_commit_label_tags_and_links():
    one = normalise_context(
        {**BASE, "engine_version": "0.12.0", "label": "before", "run_time": "20251201-000000"}
    )
    two = normalise_context(
        {**BASE, "engine_version": "0.13.0", "engine_commit": "254a7f8", "label": "after"}
        | {"links": ["#30014"], "tags": {"ci": "7"}}
    )
    assert series_key(one) == series_key(two)
    assert len(series_key(one)) == 64


def test_series_key_changes_with_backend_workload_or_env():
    base = normalise_context({**BASE, "backends": {"moe": "marlin"}})
    assert series_key(base) != series_key(
        normalise_context({**BASE, "backends": {"moe": "flashinfer_cutlass"}})
    )
    assert series_key(base) != series_key(
        normalise_context({**BASE, "backends": {"moe": "marlin"}, "concurrency": 1})
    )
    assert series_key(base) != series_key(
        normalise_context({**BASE, "backends": {"moe": "marlin"}, "env": {"VLLM_USE_DEEP_GEMM": "1"}})
    )


def test_series_key_does_not_depend_on_key_order():
    one = normalise_context({**BASE, "env": {"A": "1", "B": "2"}})
    two = normalise_context({"env": {"B": "2", "A": "1"}, **dict(reversed(list(BASE.items())))})
    assert series_key(one) == series_key(two)


def test_digest_depends_on_bytes_format_and_context():
    context = normalise_context(BASE)
    digest = upload_digest(source_format="vllm_serve_json", context=context, raw=b"{}")
    assert digest == upload_digest(source_format="vllm_serve_json", context=dict(context), raw=b"{}")
    assert digest != upload_digest(source_format="vllm_serve_json", context=context, raw=b"{ }")
    other = normalise_context({**BASE, "hardware": "B200"})
    assert digest != upload_digest(source_format="vllm_serve_json", context=other, raw=b"{}")
