"""Nightly demo history around the seeds' figures, so the detector has baselines to judge the seed runs by.

The seeds give single numbers: #30014's 69219.00 → 73714.89 total tok/s, #38971's ~92 (Marlin) vs ~74
(FLASHINFER_CUTLASS) single-user tok/s. A trend needs history, so the demo reconstructs the nightly runs a
CI job would have uploaded: ten nights around each "before" figure with ±0.4% noise (a fixed seed), then the
nights after the change around the "after" figure. Every such run says so in its `source` tag; nothing here
is presented as a measurement. The detector then finds, on its own, the #38971 regression (the default MoE
backend switched to FLASHINFER_CUTLASS in v0.19.0) and the #30014 improvement.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

SOURCE_TAG = "statusboard demo: nightly history reconstructed around the figures quoted in the seed"
NOISE = 0.004


def _noisy(rng: random.Random, value: float) -> float:
    return value * (1 + rng.uniform(-NOISE, NOISE))


def _nights(first: datetime, count: int) -> list[datetime]:
    return [first + timedelta(days=day) for day in range(count)]


def gb200_prefill_nights() -> list[tuple[datetime, bytes, dict[str, Any]]]:
    """#30014's serving workload on 4×GB200, nightly: ten nights before the PR, one after it merged."""
    rng = random.Random(30014)
    plan = [(night, 69219.00, "0.12.0") for night in _nights(datetime(2026, 11, 7, 2, 15, tzinfo=UTC), 10)]
    plan.append((datetime(2026, 11, 21, 2, 15, tzinfo=UTC), 73714.89, "0.12.1"))
    runs = []
    for night, level, version in plan:
        total = _noisy(rng, level)
        scale = total / 69219.00
        result = {
            "date": night.strftime("%Y%m%d-%H%M%S"),
            "backend": "vllm",
            "model_id": "nvidia/DeepSeek-R1-0528-FP4-v2",
            "num_prompts": 512,
            "max_concurrency": 128,
            "duration": round(15.15 / scale, 2),
            "completed": 512,
            "failed": 0,
            "total_input_tokens": 1048064,
            "total_output_tokens": 512,
            "request_throughput": round(33.80 * scale, 2),
            "output_throughput": round(33.80 * scale, 2),
            "total_token_throughput": round(total, 2),
            "source": SOURCE_TAG,
        }
        runs.append((night, json.dumps(result).encode(), {"label": "nightly", "engine_version": version}))
    return runs


def sm120_default_backend_nights() -> list[tuple[datetime, bytes, dict[str, Any]]]:
    """#38971's single-user run with the engine's default MoE backend: Marlin until v0.17.1, then
    FLASHINFER_CUTLASS from v0.19.0 (the change the issue reports)."""
    rng = random.Random(38971)
    plan = [(night, 92.0, "0.17.1") for night in _nights(datetime(2026, 11, 6, 2, 45, tzinfo=UTC), 10)]
    plan += [(night, 74.0, "0.19.0") for night in _nights(datetime(2026, 11, 19, 2, 45, tzinfo=UTC), 2)]
    runs = []
    for night, level, version in plan:
        result = {
            "date": night.strftime("%Y%m%d-%H%M%S"),
            "model_id": "Nemotron-3-Super-120B-NVFP4",
            "num_prompts": 1,
            "max_concurrency": 1,
            "output_throughput": round(_noisy(rng, level), 2),
            "source": SOURCE_TAG,
        }
        runs.append((night, json.dumps(result).encode(), {"label": "nightly", "engine_version": version}))
    return runs
