"""POST /api/v1/runs: every way of sending a result, idempotency, bulk, and every bad input."""

import json
from pathlib import Path

import pytest
from sqlmodel import select

from app.audit.models import ChangeEvent
from app.benchmarks.models import BenchmarkRun

SAMPLES = Path(__file__).parent / "samples"
DEMO = Path(__file__).parents[2] / "app" / "benchmarks" / "demo_data"
CONTEXT = {"hardware": "GB200", "gpu_count": 4, "model": "nvidia/DeepSeek-R1-0528-FP4-v2", "precision": "fp4"}


@pytest.fixture
def uploader(auth_header):
    return auth_header("upload", name="ci-bot")


def test_envelope_upload_creates_then_repeats_with_the_same_id(client, uploader, session):
    result = json.loads((SAMPLES / "serve_result.json").read_text())
    envelope = {"context": {**CONTEXT, "links": ["#30014"]}, "result": result}
    first = client.post("/api/v1/runs", json=envelope, headers=uploader)
    assert first.status_code == 201, first.text
    body = first.json()
    assert body["created"] is True and body["format"] == "vllm_serve_json"
    assert body["run_time"] == "2025-12-04T10:15:00+00:00"
    assert {
        "name": "total_token_throughput",
        "value": 73714.89,
        "unit": "tok/s",
        "better_direction": "higher",
    } in body["metrics"]
    assert set(body) >= {"id", "series_key", "created", "format", "run_time", "metrics", "links"}
    second = client.post("/api/v1/runs", json=envelope, headers=uploader)
    assert second.status_code == 200
    assert second.json()["id"] == body["id"] and second.json()["created"] is False
    assert len(session.exec(select(BenchmarkRun)).all()) == 1
    event = session.exec(select(ChangeEvent).where(ChangeEvent.kind == "run.uploaded")).one()
    assert event.actor == "ci-bot" and event.context["series_key"] == body["series_key"]


def test_raw_file_with_context_in_query_parameters(client, uploader):
    response = client.post(
        "/api/v1/runs",
        params=[
            ("hardware", "B200"),
            ("model", "meta-llama/Llama-3.1-8B-Instruct"),
            ("precision", "fp8"),
            ("env", "VLLM_USE_DEEP_GEMM=1"),
            ("backend", "attention=FLASHINFER"),
            ("tp", "2"),
            ("ci_job", "77"),
            ("filename", "older.json"),
        ],
        content=(SAMPLES / "older_benchmark_serving.json").read_bytes(),
        headers={**uploader, "Content-Type": "application/json"},
    )
    assert response.status_code == 201, response.text
    run = client.get(f"/api/v1/runs/{response.json()['id']}").json()
    assert run["context"]["env"] == {"VLLM_USE_DEEP_GEMM": "1"}
    assert run["context"]["backends"] == {"attention": "FLASHINFER"}
    assert run["context"]["parallelism"] == {"tp": 2}
    assert run["context"]["tags"] == {"ci_job": "77"}
    assert run["context"]["workload"]["concurrency"] == 64
    assert run["source_format"] == "vllm_benchmark_serving_json" and run["raw_filename"] == "older.json"


def test_console_text_upload_keeps_the_paste_verbatim(client, uploader):
    text = (SAMPLES / "vllm_console_full.txt").read_bytes()
    response = client.post(
        "/api/v1/runs",
        params={"hardware": "H200", "model": "m", "label": "warm"},
        content=text,
        headers={**uploader, "Content-Type": "text/plain"},
    )
    assert response.status_code == 201, response.text
    run_id = response.json()["id"]
    raw = client.get(f"/api/v1/runs/{run_id}/raw")
    assert raw.content == text and raw.headers["content-type"].startswith("text/plain")
    assert "attachment" in raw.headers["content-disposition"]


def test_two_blocks_in_one_paste_answer_per_run(client, uploader):
    response = client.post(
        "/api/v1/runs",
        params={**CONTEXT, "isl": 2048, "osl": 1},
        content=(DEMO / "pr30014_serving_blocks.txt").read_bytes(),
        headers={**uploader, "Content-Type": "text/plain"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["created"] == 2 and body["failed"] == 0
    keys = {item["run"]["series_key"] for item in body["items"]}
    assert len(keys) == 1


def test_bulk_list_accepts_and_rejects_each_item_on_its_own(client, uploader, session):
    good = {"context": CONTEXT, "result": {"duration": 1.0, "completed": 3, "failed": 0}}
    bad = {"context": {"precision": "fp8"}, "result": {"duration": 1.0, "completed": 3, "failed": 0}}
    negative = {"context": CONTEXT, "result": {"duration": -1.0, "completed": 3, "failed": 0}}
    response = client.post("/api/v1/runs", json=[good, bad, negative, good], headers=uploader)
    assert response.status_code == 200
    body = response.json()
    assert [item["status"] for item in body["items"]] == [201, 422, 422, 200]
    assert body["items"][1]["error"]["details"]["missing"] == ["hardware", "model"]
    assert body["items"][2]["error"]["field"] == "result.duration"
    assert (body["created"], body["duplicates"], body["failed"]) == (1, 1, 2)
    assert len(session.exec(select(BenchmarkRun)).all()) == 1


def test_bulk_json_lines_of_envelopes(client, uploader):
    lines = [
        json.dumps({"context": CONTEXT, "result": {"duration": 1.0, "completed": 1, "failed": 0}}),
        "{not json",
        json.dumps({"context": CONTEXT, "result": (SAMPLES / "sglang_console.txt").read_text()}),
    ]
    response = client.post(
        "/api/v1/runs",
        content="\n".join(lines).encode(),
        headers={**uploader, "Content-Type": "application/x-ndjson"},
    )
    assert response.status_code == 200, response.text
    items = response.json()["items"]
    assert [item["status"] for item in items] == [201, 422, 201]
    assert items[1]["error"]["details"]["line"] == 2
    assert items[2]["run"]["format"] == "sglang_serve_console"


def test_append_result_file_as_json_lines_is_several_runs(client, uploader):
    response = client.post(
        "/api/v1/runs",
        params={"hardware": "RTX PRO 6000", "model": "m"},
        content=(SAMPLES / "appended.jsonl").read_bytes(),
        headers={**uploader, "Content-Type": "application/x-ndjson"},
    )
    assert response.status_code == 200, response.text
    assert [item["status"] for item in response.json()["items"]] == [201, 201]


def test_lm_eval_markdown_takes_the_model_from_its_settings_line(client, uploader):
    response = client.post(
        "/api/v1/runs",
        params={"hardware": "GB200"},
        content=(DEMO / "pr30014_gsm8k.md").read_bytes(),
        headers={**uploader, "Content-Type": "text/plain"},
    )
    assert response.status_code == 201, response.text
    run = client.get(f"/api/v1/runs/{response.json()['id']}").json()
    assert run["model"] == "nvidia/DeepSeek-R1-0528-FP4-v2"


GOOD = b'{"duration": 1.0, "completed": 1, "failed": 0}'
JSON = "application/json"


@pytest.mark.parametrize(
    ("content", "content_type", "params", "field", "fragment"),
    [
        (b'{"duration": 1.0,\n "completed": ', JSON, CONTEXT, "body", "line 2, column 15"),
        (b"just some words", "text/plain", CONTEXT, "body", "accepted formats"),
        (GOOD, JSON, {"precision": "fp8"}, "context.hardware", "hardware, model"),
        (GOOD, JSON, {**CONTEXT, "gpu_count": "x"}, "context.gpu_count", "whole number"),
        (b'{"duration": NaN, "completed": 1, "failed": 0}', JSON, CONTEXT, "result.duration", "finite"),
        (GOOD, JSON, {**CONTEXT, "format": "csv"}, "format", "vllm_serve_json"),
    ],
)
def test_bad_uploads_are_422_naming_the_field_and_store_nothing(
    client, uploader, session, content, content_type, params, field, fragment
):
    response = client.post(
        "/api/v1/runs", params=params, content=content, headers={**uploader, "Content-Type": content_type}
    )
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["field"] == field and fragment in error["message"]
    assert session.exec(select(BenchmarkRun)).all() == []


def test_no_token_is_401_and_no_upload_scope_is_403(client, auth_header):
    envelope = {"context": CONTEXT, "result": {"duration": 1.0, "completed": 1, "failed": 0}}
    assert client.post("/api/v1/runs", json=envelope).status_code == 401
    assert client.post("/api/v1/runs", json=envelope, headers=auth_header("read")).status_code == 403


def test_a_body_over_the_limit_is_413_by_content_length_and_while_streaming(app, client, uploader, settings):
    settings.upload_max_bytes = 100
    big = b"{" + b" " * 200 + b"}"
    declared = client.post(
        "/api/v1/runs", content=big, headers={**uploader, "Content-Type": "application/json"}
    )
    assert declared.status_code == 413

    def chunks():
        yield b"{" + b" " * 80
        yield b" " * 80 + b"}"

    streamed = client.post(
        "/api/v1/runs", content=chunks(), headers={**uploader, "Content-Type": "application/json"}
    )
    assert streamed.status_code == 413


def test_nan_and_nul_in_kept_details_are_stored_safely(client, uploader):
    body = b'{"duration": 1.0, "completed": 1, "failed": 0, "burstiness": NaN, '
    body += b'"note": "a\\u0000b", "x": {"y": NaN}}'
    response = client.post(
        "/api/v1/runs", params=CONTEXT, content=body, headers={**uploader, "Content-Type": "application/json"}
    )
    assert response.status_code == 201, response.text
    run = client.get(f"/api/v1/runs/{response.json()['id']}").json()
    assert run["details"]["setup"]["burstiness"] == "nan" and run["details"]["other"]["x"] == {"y": "nan"}
    assert run["context"]["tags"] == {"note": "ab"}


def test_an_overlong_metric_name_or_huge_count_is_422(client, uploader):
    long_name = "x" * 300
    body = f'{{"duration": 1.0, "completed": 1, "failed": 0, "{long_name}": 1}}'.encode()
    response = client.post(
        "/api/v1/runs", params=CONTEXT, content=body, headers={**uploader, "Content-Type": "application/json"}
    )
    assert response.status_code == 422
    huge = client.post(
        "/api/v1/runs",
        params={**CONTEXT, "gpu_count": 10**12},
        content=b'{"duration": 1.0, "completed": 1, "failed": 0}',
        headers={**uploader, "Content-Type": "application/json"},
    )
    assert huge.status_code == 422 and huge.json()["error"]["field"] == "context.gpu_count"
