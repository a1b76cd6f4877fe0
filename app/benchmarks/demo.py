"""Demo benchmark runs: PR #30014's before/after serving runs with its gsm8k check, and issue #38971's
SM120 single-user throughput (Marlin vs FLASHINFER_CUTLASS).

The source texts live in `demo_data/` (copied from the seeds, so a fresh clone has them). Run times sit in
ISO week 2026-W47 (16–22 November 2026) so the weekly review of that week has runs to show: the #30014
"before" run on Tuesday 17th, "after" and its gsm8k check on Friday 20th, the SM120 runs on the 18th and 19th.
Loading twice stores nothing new: every upload's digest is already there.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sqlmodel import Session

from app.benchmarks.context import parse_run_time
from app.benchmarks.demo_history import gb200_prefill_nights, sm120_default_backend_nights
from app.benchmarks.formats.base import ParsedResult
from app.benchmarks.formats.detect import parse_upload
from app.benchmarks.service import store_run
from app.github_refs.models import RefKind
from app.github_refs.service import RefAddress, get_or_create_ref

DEMO_DATA = Path(__file__).parent / "demo_data"
ACTOR = "demo"

# The serve command of PR #30014's test plan, on 4×GB200 with DP4 + EP and FlashInfer TRTLLM-gen MoE.
PR_30014_CONTEXT: dict[str, Any] = {
    "hardware": "GB200",
    "gpu_count": 4,
    "model": "nvidia/DeepSeek-R1-0528-FP4-v2",
    "precision": "fp4",
    "engine": "vllm",
    "backends": {"moe": "flashinfer_trtllm"},
    "parallelism": {"tp": 1, "dp": 4, "ep": 4, "pp": 1},
    "flags": (
        "--kv-cache-dtype fp8 --tensor-parallel-size 1 --pipeline-parallel-size 1 --data-parallel-size 4 "
        "--enable-expert-parallel --max-num-seqs 1024 --max-model-len 4096 --gpu-memory-utilization 0.8 "
        "--max-num-batched-tokens 16384 --no-enable-prefix-caching"
    ),
    "workload": {
        "dataset": "random",
        "input_len": 2048,
        "output_len": 1,
        "concurrency": 128,
        "num_prompts": 512,
    },
    "links": ["vllm-project/vllm#30014"],
}

# Issue #38971: the same SM120 box and flags, two MoE backends (so two series differing only by backend).
ISSUE_38971_CONTEXT: dict[str, Any] = {
    "hardware": "RTX PRO 6000",
    "gpu_count": 1,
    "model": "Nemotron-3-Super-120B-NVFP4",
    "precision": "fp4",
    "engine": "vllm",
    "flags": "--gpu-memory-utilization 0.95 --max-num-seqs 512",
    "workload": {"concurrency": 1, "num_prompts": 1},
    "tags": {"sm": "sm120"},
    "links": ["vllm-project/vllm#38971"],
}


def _uploads() -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(file, shared context, per-run context) for every demo upload, in upload order."""
    return [
        (
            "pr30014_serving_blocks.txt",
            PR_30014_CONTEXT,
            [
                {"label": "before #30014", "run_time": "2026-11-17T09:30:00Z"},
                {"label": "after #30014", "run_time": "2026-11-20T14:00:00Z", "engine_commit": "254a7f8"},
            ],
        ),
        (
            "pr30014_gsm8k.md",
            PR_30014_CONTEXT,
            [{"label": "after #30014", "run_time": "2026-11-20T15:10:00Z", "engine_commit": "254a7f8"}],
        ),
        (
            "issue38971_marlin.json",
            {**ISSUE_38971_CONTEXT, "backends": {"moe": "MARLIN"}},
            [{"engine_version": "0.17.1", "label": "v0.17.1 default"}],
        ),
        (
            "issue38971_flashinfer_cutlass.json",
            {**ISSUE_38971_CONTEXT, "backends": {"moe": "FLASHINFER_CUTLASS"}},
            [{"engine_version": "0.19.0", "label": "v0.19.0 default"}],
        ),
    ]


def _planned_runs() -> list[tuple[datetime, ParsedResult, dict[str, Any], str, str]]:
    """Every demo run as (run time, parsed result, context, file name, content type), oldest first.

    Runs are stored in run-time order, as a CI job would upload them, so each one is judged against the
    history before it.
    """
    planned = []
    for filename, shared, per_run in _uploads():
        raw = (DEMO_DATA / filename).read_bytes()
        results = parse_upload(raw)
        if len(results) != len(per_run):
            raise RuntimeError(f"demo file {filename} holds {len(results)} runs, expected {len(per_run)}")
        content_type = "application/json" if filename.endswith(".json") else "text/plain"
        for parsed, run_context in zip(results, per_run, strict=True):
            context = {**shared, **run_context}
            when = context.get("run_time") or parsed.context.get("run_time")
            planned.append((parse_run_time(when), parsed, context, filename, content_type))
    nightly = [
        (gb200_prefill_nights(), {**PR_30014_CONTEXT, "links": []}, "gb200-prefill-nightly.json"),
        (
            sm120_default_backend_nights(),
            {**ISSUE_38971_CONTEXT, "links": []},
            "sm120-single-user-nightly.json",
        ),
    ]
    for runs, shared, filename in nightly:
        for when, raw, run_context in runs:
            (parsed,) = parse_upload(raw)
            planned.append((when, parsed, {**shared, **run_context}, filename, "application/json"))
    return sorted(planned, key=lambda item: item[0])


def load(*, session: Session) -> str:
    """Stores the demo runs that are not stored yet and says how many were new."""
    created = 0
    planned = _planned_runs()
    for _, parsed, context, filename, content_type in planned:
        _, was_created = store_run(
            session=session,
            parsed=parsed,
            supplied_context=context,
            actor=ACTOR,
            default_repo="vllm-project/vllm",
            repo_aliases={},
            raw_content_type=content_type,
            raw_filename=filename,
        )
        created += was_created
    # The PR's title as the seed shows it, until a GitHub sync brings the live one.
    get_or_create_ref(
        session=session,
        address=RefAddress("vllm-project/vllm", 30014, RefKind.pull),
        title="[Perf] Do FP4 quant before All gather on flashinfer trtllmgen MOE",
    )
    return f"benchmarks: {created} new of {len(planned)} demo runs"
