"""The importer reads the team's Markdown format (the seed page and variations of it) without a database."""

import re
from pathlib import Path

import pytest

from app.status_pages.document import MarkdownImportError
from app.status_pages.markdown_export import export_markdown
from app.status_pages.markdown_import import decode_markdown, parse_markdown, split_cells
from app.status_pages.status_mapping import HealthLevel, Status

SEED = (Path(__file__).parents[2] / "app/status_pages/demo_data/dsr1-vllm-b200.md").read_text()
REFS = {"default_repo": "vllm-project/vllm", "aliases": {"flashinfer": "flashinfer-ai/flashinfer"}}


def parse(text: str):
    return parse_markdown(text, **REFS)


def entry(document, precision, component, name):
    section = next(s for s in document.sections if s.precision == precision)
    row = next(r for r in section.rows if r.component == component)
    return next(e for e in row.entries if e.name == name)


@pytest.fixture(scope="module")
def seed():
    return parse(SEED)


def test_seed_page_header_and_sections(seed):
    assert (seed.model, seed.engine, seed.hardware, seed.serving_mode) == (
        "DeepSeek-R1",
        "vLLM",
        "B200",
        "Aggregated Serving",
    )
    assert seed.health_level == HealthLevel.degraded
    assert seed.health_text.startswith("Most paths work.")
    assert [(s.precision, s.heading) for s in seed.sections] == [("FP8", "FP8 - Compatible"), ("FP4", "FP4")]
    assert [r.component for r in seed.sections[0].rows] == [
        "Gemms",
        "MOE",
        "FMHA (Prefill)",
        "MLA (Decode)",
        "MTP (Speculative Decode)",
        "Communications",
    ]
    assert (
        seed.sections[0].columns[-1] == "Related Recent PRs" and seed.sections[1].columns[-1] == "Related PRs"
    )


def test_backends_keep_groups_statuses_and_flags(seed):
    moe = next(r for r in seed.sections[0].rows if r.component == "MOE")
    assert [(e.group, e.name) for e in moe.entries if e.listed] == [
        ("TP/EP:", "Flashinfer TRTLLM-Gen"),
        ("TP/EP:", "DeepGemm"),
        ("TP-only:", "CUTLASS BlockScale MOE"),
    ]
    assert entry(seed, "FP8", "FMHA (Prefill)", "TRT-LLM Ragged Attention").status == Status.wip
    assert entry(seed, "FP4", "Gemms", "FlashInfer CUDNN").status == Status.in_review
    assert entry(seed, "FP4", "Gemms", "FlashInfer CUDNN").is_fastest
    assert entry(seed, "FP4", "Gemms", "Marlin GEMM").is_fallback
    cutlass_mla = entry(seed, "FP8", "MLA (Decode)", "CUTLASS MLA")
    assert cutlass_mla.is_default and cutlass_mla.label_as_written == "CUTLASS MLA(default)"
    assert entry(seed, "FP8", "Gemms", "DeepGemm").is_fastest
    assert entry(seed, "FP8", "Communications", "DeepEP High-Throughput").is_fastest
    comms = next(r for r in seed.sections[1].rows if r.component == "Communications")
    assert {e.group for e in comms.entries} == {"TP:", "EP (FP4-only):"}


def test_invocations_and_notes_are_attributed_to_their_backend(seed):
    deepgemm = entry(seed, "FP8", "Gemms", "DeepGemm")
    assert deepgemm.invocation.startswith("`VLLM_USE_DEEP_GEMM=1` (default)")
    assert deepgemm.is_default
    assert "requires shapes divisible by 128x128" in deepgemm.notes
    flashinfer_mla = entry(seed, "FP8", "MLA (Decode)", "FlashInfer MLA (TRTLLM)")
    assert flashinfer_mla.notes == "LSE not yet returned (pending flashinfer#1566)"
    assert [(r.repo, r.number) for r in flashinfer_mla.refs] == [("flashinfer-ai/flashinfer", 1566)]


def test_a_backend_the_notes_say_fails_becomes_a_failing_entry_outside_the_list(seed):
    failing = entry(seed, "FP8", "MOE", "FlashInfer CUTLASS")
    assert failing.status == Status.failing and failing.listed is False
    assert "assert self.block_quant is None" in failing.notes


def test_pr_links_keep_the_line_as_written_and_source_refs_are_read(seed):
    gemms = seed.sections[0].rows[0]
    first = gemms.refs[0]
    assert (first.repo, first.number, first.kind, first.title) == (
        "vllm-project/vllm",
        25696,
        "pull",
        "Fix w8a8 block fp8 linear",
    )
    assert (
        first.text_as_written
        == "[#25696](https://github.com/vllm-project/vllm/pull/25696) Fix w8a8 block fp8 linear"
    )
    mla = seed.sections[0].rows[3]
    assert any(
        s.path == "vllm/platforms/cuda.py" and (s.line_start, s.line_end) == (269, 291)
        for s in mla.source_refs
    )


def test_compatibility_prose_becomes_rules(seed):
    rules = {(r.backend_a, r.backend_b): r for r in seed.rules}
    fails = rules[("FlashInfer TRTLLM", "FlashInfer All2Allv (MNNVL)")]
    assert fails.outcome == "fails" and fails.precision == "FP4"
    assert fails.error_text == "With FlashInfer TRTLLM MOE: Can only use AG-RS or Naive"
    assert rules[("FlashInfer TRTLLM", "AllGather-ReduceScatter (AG-RS)")].outcome == "works"
    assert rules[("FlashInfer CUTLASS", "FlashInfer All2Allv (MNNVL)")].outcome == "works"
    assert rules[("AllGather-ReduceScatter (AG-RS)", "FP8")].outcome == "fails"


def test_recipe_section_keeps_headings_prose_and_code(seed):
    recipe = seed.recipes[0]
    assert recipe.title.startswith("Example Usage")
    kinds = [block.kind for block in recipe.blocks]
    assert kinds.count("code") == 3 and "heading" in kinds
    assert (
        recipe.blocks[3].language == "bash" and "vllm serve nvidia/DeepSeek-R1-FP4" in recipe.blocks[3].text
    )


def _tables(text):
    return [
        split_cells(line) for line in text.split("\n") if line.startswith("|") and not re.match(r"^\|-", line)
    ]


def test_round_trip_gives_the_same_model_and_the_same_cells(seed):
    exported = export_markdown(seed)
    assert parse(exported) == seed
    original, written = _tables(SEED), _tables(exported)
    assert len(original) == len(written)
    for before, after in zip(original, written, strict=True):
        assert [" ".join(c.split()) for c in before] == [" ".join(c.split()) for c in after]


OTHER_SHAPE = """# Qwen3 Status with SGLang: Disaggregated Serving on H200

**Overall Health**: Everything works.

## BF16

| Component | Owner | Backends | Links | Fastest | Notes |
|---|---|---|---|---|---|
| Attention | alice | - FA3 (default)<br>- Triton (WIP) | sgl#12 | FA3 | FA3: fails on long context |
| MOE | bob | - Triton | https://github.com/sgl-project/sglang/pull/77 | Triton | |
"""


def test_other_column_names_orders_and_unknown_columns_are_kept():
    document = parse(OTHER_SHAPE)
    section = document.sections[0]
    assert section.precision == "BF16" and document.engine == "SGLang" and document.hardware == "H200"
    attention = section.rows[0]
    assert attention.extra_cells == {"Owner": "alice"}
    fa3 = attention.entries[0]
    assert fa3.is_default and fa3.is_fastest and fa3.status == Status.failing
    assert attention.entries[1].status == Status.wip
    assert [w.message for w in document.warnings if "sgl#12" in w.message], "unknown alias is a warning"
    assert document.warnings[0].line == 9
    assert (section.rows[1].refs[0].repo, section.rows[1].refs[0].number) == ("sgl-project/sglang", 77)
    exported = export_markdown(document)
    assert "| Component | Owner | Backends | Links | Fastest | Notes |" in exported
    assert "| **" not in exported.split("## BF16")[1], "components written plain stay plain"
    assert parse(exported) == document


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("Title\n\nJust prose, no table.\n", 0, "no recognisable status table"),
        ("T\n\n## FP8\n\n| Component | Backends |\n|---|---|\n| A | - x | extra |\n", 7, "3 cells"),
        ("T\n\n## FP8\n\n| Name | Value |\n|---|---|\n| a | b |\n", 5, "unknown section shape"),
        ("T\n\n## FP8\n\n| Component | Backends |\n| A | - x |\n", 5, "header separator"),
        ("T\n\n## FP8\n\n| Component | Backends |\n|---|---|\n| A | - x |\n| A | - y |\n", 8, "twice"),
    ],
)
def test_bad_documents_are_refused_with_the_line_and_the_reason(text, line, reason):
    with pytest.raises(MarkdownImportError) as caught:
        parse(text)
    assert caught.value.line == line
    assert reason in caught.value.reason


def test_binary_and_non_utf8_input_is_refused():
    with pytest.raises(MarkdownImportError, match="binary data"):
        decode_markdown(b"title\n\x00\x01")
    with pytest.raises(MarkdownImportError, match="not UTF-8"):
        decode_markdown(b"title\n\xff\xfe\xfa")
    assert decode_markdown("caf\u00e9\r\n".encode()) == "caf\u00e9\n"


def test_copy_buttons_take_the_commands_that_enable_a_backend():
    from app.status_pages.view import copyable_command

    assert copyable_command("`VLLM_USE_DEEP_GEMM=1` (default), `VLLM_USE_DEEP_GEMM_E8M0=1` (default)") == (
        "VLLM_USE_DEEP_GEMM=1 VLLM_USE_DEEP_GEMM_E8M0=1"
    )
    assert copyable_command("Default on SM100\nSelection: `vllm/x.py:1-2`\nDisable: `VLLM_DISABLE_X=1`") == ""
    assert copyable_command("cannot be selected (`VLLM_X=MARLIN` crashes with MoE models)") == ""


def test_edited_notes_are_written_back_into_the_row_cell_labelled_for_reimport():
    from app.status_pages.editing import rewrite_attributed

    cell = "CUTLASS MLA: num_kv_splits limited to avoid hangs\nBoth support FP8 compute"
    replaced = rewrite_attributed(
        cell, "num_kv_splits limited to avoid hangs", "hangs fixed", label="CUTLASS MLA"
    )
    assert replaced == "CUTLASS MLA: hangs fixed\nBoth support FP8 compute"
    assert rewrite_attributed(cell, "num_kv_splits limited to avoid hangs", "", label="CUTLASS MLA") == (
        "Both support FP8 compute"
    )
    added = rewrite_attributed("**A**: `X=1`", "", "`Y=1`", label="**B**", separate=True)
    assert added == "**A**: `X=1`\n\n**B**: `Y=1`"
    assert rewrite_attributed("", "", "a | b", label="PPLX") == "PPLX: a \\| b"


def test_a_wip_pr_title_naming_a_backend_links_it_and_sets_its_status():
    text = (
        "T on B200\n\n**Overall Health**: ok\n\n## FP8\n\n"
        "| Component | Backends | Related PRs |\n|---|---|---|\n"
        "| Attention | - FlashInfer<br>- TRT-LLM Ragged Attention | "
        "[#26397](https://github.com/vllm-project/vllm/pull/26397) WIP: TRT-LLM Ragged Attention<br>"
        "[#26107](https://github.com/vllm-project/vllm/pull/26107) In Review: Add CUDNN FP4 GEMM |\n"
    )
    document = parse(text)
    ragged = entry(document, "FP8", "Attention", "TRT-LLM Ragged Attention")
    assert ragged.status == Status.wip and [r.number for r in ragged.refs] == [26397]
    assert entry(document, "FP8", "Attention", "FlashInfer").status == Status.working
    assert parse(export_markdown(document)) == document
