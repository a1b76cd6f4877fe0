"""Helpers that upload or store benchmark runs for the trends tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

START = datetime(2026, 10, 1, 2, 0, tzinfo=UTC)

SM120 = {
    "hardware": "RTX PRO 6000",
    "gpu_count": 1,
    "model": "Nemotron-3-Super-120B-NVFP4",
    "precision": "fp4",
    "workload": {"dataset": "random", "input_len": 1024, "output_len": 512, "concurrency": 1},
}


def serve_result(throughput: float, *, ttft: float = 50.0) -> dict[str, Any]:
    """A small `vllm bench serve --save-result` object whose numbers scale with `throughput`."""
    return {
        "completed": 100,
        "failed": 0,
        "duration": 100.0,
        "request_throughput": throughput / 512,
        "output_throughput": throughput,
        "total_token_throughput": throughput * 3,
        "median_ttft_ms": ttft,
        "p99_ttft_ms": ttft * 2,
        "median_tpot_ms": 1000 / throughput,
        "median_itl_ms": 1000 / throughput,
    }


def upload(
    client: TestClient,
    headers: dict[str, str],
    throughput: float,
    *,
    day: int,
    backend: str = "MARLIN",
    version: str = "0.19.0",
    commit: str | None = None,
    context: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Uploads one run through POST /api/v1/runs and returns the answer."""
    envelope = {
        "context": {
            **(context or SM120),
            "backends": {"moe": backend},
            "engine_version": version,
            "engine_commit": commit or f"{day:07x}abcdef",
            "run_time": (START + timedelta(days=day)).isoformat(),
        },
        "result": serve_result(throughput),
    }
    response = client.post("/api/v1/runs", json=envelope, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


STEADY = [92.0, 92.5, 91.6, 92.2, 91.9, 92.4, 92.1, 91.8, 92.3, 92.0]


def upload_history(
    client: TestClient, headers: dict[str, str], values: list[float], **kwargs: Any
) -> list[dict]:
    return [upload(client, headers, value, day=day, **kwargs) for day, value in enumerate(values)]
