"""The documented prose → status mapping, one case per phrase the team writes."""

import pytest

from app.status_pages.status_mapping import (
    HealthLevel,
    Status,
    health_level_from_text,
    parse_status,
    render_label,
    split_label,
    status_from_prefix,
    status_from_prose,
)


@pytest.mark.parametrize(
    ("label", "name", "status", "is_default", "is_fallback"),
    [
        ("TRT-LLM Ragged Attention (WIP)", "TRT-LLM Ragged Attention", Status.wip, False, False),
        ("FlashInfer CUDNN (in review)", "FlashInfer CUDNN", Status.in_review, False, False),
        ("CUTLASS MLA(default)", "CUTLASS MLA", None, True, False),
        ("Marlin GEMM (fallback)", "Marlin GEMM", None, False, True),
        ("DeepEP (blocked)", "DeepEP", Status.failing, False, False),
        ("PPLX (failing)", "PPLX", Status.failing, False, False),
        ("PPLX (fails)", "PPLX", Status.failing, False, False),
        ("Foo (Needs to be Evaluated)", "Foo", Status.needs_evaluation, False, False),
        ("Foo (needs evaluation)", "Foo", Status.needs_evaluation, False, False),
        ("Foo (unsupported)", "Foo", Status.unsupported, False, False),
        ("Foo (deprecated)", "Foo", Status.deprecated, False, False),
        ("Foo (WIP) (default)", "Foo", Status.wip, True, False),
        ("Foo (working)", "Foo", Status.working, False, False),
        # Parentheticals that are not statuses stay part of the name.
        ("vLLM CUTLASS BlockScale (SM90/SM100)", "vLLM CUTLASS BlockScale (SM90/SM100)", None, False, False),
        ("Flashinfer (CUTLASS, TRTLLM-Gen)", "Flashinfer (CUTLASS, TRTLLM-Gen)", None, False, False),
        ("DeepGemm", "DeepGemm", None, False, False),
    ],
)
def test_backend_labels_split_into_name_and_qualifiers(label, name, status, is_default, is_fallback):
    parsed = split_label(label)
    assert parsed.name == name
    assert parsed.qualifiers.status == status
    assert parsed.qualifiers.is_default is is_default
    assert parsed.qualifiers.is_fallback is is_fallback


@pytest.mark.parametrize(
    ("text", "status", "rest"),
    [
        ("WIP: TRT-LLM Ragged Attention", Status.wip, "TRT-LLM Ragged Attention"),
        ("In Review: Add CUDNN FP4 GEMM", Status.in_review, "Add CUDNN FP4 GEMM"),
        ("Fix w8a8 block fp8 linear", None, "Fix w8a8 block fp8 linear"),
    ],
)
def test_title_prefixes_state_a_status(text, status, rest):
    assert status_from_prefix(text) == (status, rest)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        (
            "Lacks block quant support for DeepSeek - fails with `assert self.block_quant is None`",
            Status.failing,
        ),
        ("failing on GB200", Status.failing),
        ("needs evaluation on B200", Status.needs_evaluation),
        ("num_kv_splits limited to avoid hangs", None),
        ("failsafe path", None),
    ],
)
def test_prose_in_notes_states_a_status_only_when_it_says_so(text, status):
    assert status_from_prose(text) == status


def test_health_level_follows_the_overall_health_sentence():
    assert health_level_from_text("Most paths work. DP Attention is failing with X") == HealthLevel.degraded
    assert health_level_from_text("Everything works") == HealthLevel.ok
    assert health_level_from_text("Broken: nothing starts") == HealthLevel.broken


def test_api_status_names_are_read_leniently_and_unknown_ones_list_the_allowed_values():
    assert parse_status("in review") == Status.in_review
    assert parse_status("In-Review") == Status.in_review
    with pytest.raises(ValueError, match="allowed: working, failing, wip"):
        parse_status("kaput")


def test_edited_labels_carry_an_explicit_status_that_reads_back_the_same():
    label = render_label("PPLX", Status.working, is_default=True)
    assert label == "PPLX (working) (default)"
    parsed = split_label(label)
    assert (parsed.name, parsed.qualifiers.status, parsed.qualifiers.is_default) == (
        "PPLX",
        Status.working,
        True,
    )
