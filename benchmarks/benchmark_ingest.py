"""Benchmark ingest: parsing a near-limit `--save-detailed` upload, and storing many runs through the API."""

from __future__ import annotations

import json
import random
import time

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.auth.service import create_token
from app.benchmarks.formats.detect import parse_upload
from app.core.database import get_engine
from app.main import create_app
from benchmarks.support import bench_database
from tests.conftest import make_settings


def detailed_result(requests: int) -> bytes:
    """A serve result with per-request lists, like `--save-detailed` writes (≈ 1.5 KiB per request)."""
    rng = random.Random(7)
    result = {
        "date": "20261120-140000", "model_id": "m", "num_prompts": requests, "request_rate": "inf",
        "duration": 100.0, "completed": requests, "failed": 0, "total_input_tokens": requests * 2048,
        "total_output_tokens": requests * 128, "request_throughput": requests / 100.0,
        "output_throughput": requests * 1.28, "total_token_throughput": requests * 21.76,
        "mean_ttft_ms": 120.0, "median_ttft_ms": 110.0, "std_ttft_ms": 20.0, "p99_ttft_ms": 300.0,
        "input_lens": [2048] * requests, "output_lens": [128] * requests,
        "ttfts": [rng.random() for _ in range(requests)],
        "itls": [[rng.random() / 50 for _ in range(40)] for _ in range(requests)],
        "generated_texts": ["lorem ipsum " * 40 for _ in range(requests)], "errors": [""] * requests,
    }  # fmt: skip
    return json.dumps(result).encode()


def run() -> list[str]:
    lines = []
    body = detailed_result(12_000)
    started = time.perf_counter()
    [parsed] = parse_upload(body)
    elapsed = time.perf_counter() - started
    lines.append(f"parse a {len(body) / 2**20:.1f} MiB --save-detailed serve JSON: {elapsed * 1000:.0f} ms")

    with bench_database("bench_ingest") as url:
        app = create_app(make_settings(url))
        with Session(get_engine(url)) as session:
            _, secret = create_token(session=session, name="bench", scopes=["upload"])
            session.commit()
        with TestClient(app) as client:
            headers = {"Authorization": f"Bearer {secret}"}
            context = {"hardware": "B200", "model": "m", "precision": "fp8"}
            count = 200
            started = time.perf_counter()
            for index in range(count):
                result = {
                    "duration": 10.0,
                    "completed": 100,
                    "failed": 0,
                    "output_throughput": 1000.0 + index,
                }
                response = client.post(
                    "/api/v1/runs", json={"context": context, "result": result}, headers=headers
                )
                assert response.status_code == 201, response.text
            elapsed = time.perf_counter() - started
            each = elapsed / count * 1000
            lines.append(f"{count} single-run uploads: {count / elapsed:.0f} runs/s ({each:.1f} ms each)")
            started = time.perf_counter()
            response = client.post(
                "/api/v1/runs",
                content=body,
                params=context,
                headers={**headers, "Content-Type": "application/json"},
            )
            assert response.status_code == 201, response.text
            took = (time.perf_counter() - started) * 1000
            lines.append(f"upload the {len(body) / 2**20:.1f} MiB detailed result: {took:.0f} ms")
            started = time.perf_counter()
            for _ in range(20):
                assert client.get("/api/v1/runs", params={"hardware": "B200", "limit": 50}).status_code == 200
            lines.append(
                f"GET /api/v1/runs (50 of {count + 1}): {(time.perf_counter() - started) / 20 * 1000:.1f} ms"
            )
    return lines
