"""`statusboard upload`: against the app (TestClient), a flaky server (MockTransport), and a live server."""

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlmodel import Session

from app.auth.service import create_token
from app.benchmarks.cli import run_uploads
from app.benchmarks.uploader import context_parameters, upload_file
from app.core import migrations
from app.core.paths import PROJECT_ROOT
from app.main import create_app
from tests.conftest import make_settings
from tests.live_server import LiveServer

SAMPLES = Path(__file__).parent / "samples"
DEMO = Path(__file__).parents[2] / "app" / "benchmarks" / "demo_data"
PARAMS = context_parameters(hardware="B200", model="meta-llama/Llama-3.1-8B-Instruct", precision="fp8")


def test_many_files_are_uploaded_and_tallied(client, auth_header, capsys):
    client.headers.update(auth_header("upload"))
    files = [SAMPLES / "serve_result.json", SAMPLES / "appended.jsonl", SAMPLES / "latency.json"]
    failed = run_uploads(client=client, files=files, params=PARAMS, retries=0)
    assert not failed
    assert "4 created, 0 duplicate, 0 failed" in capsys.readouterr().out
    again = run_uploads(client=client, files=files[:1], params=PARAMS, retries=0)
    assert not again
    assert "0 created, 1 duplicate, 0 failed" in capsys.readouterr().out


def test_a_rejected_file_is_reported_and_makes_the_run_fail(client, auth_header, capsys, tmp_path):
    client.headers.update(auth_header("upload"))
    broken = tmp_path / "broken.json"
    broken.write_text('{"duration": 1.0,')
    assert run_uploads(client=client, files=[broken, SAMPLES / "latency.json"], params=PARAMS, retries=0)
    output = capsys.readouterr().out
    assert "1 created, 0 duplicate, 1 failed" in output and "not valid JSON" in output


def test_connection_errors_and_5xx_are_retried_then_succeed():
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        if len(calls) == 1:
            raise httpx.ConnectError("refused", request=request)
        if len(calls) == 2:
            return httpx.Response(503, json={"error": {"message": "database unavailable"}})
        return httpx.Response(201, json={"id": 7, "created": True})

    client = httpx.Client(base_url="http://statusboard.test", transport=httpx.MockTransport(handler))
    sleeps = []
    outcome = upload_file(
        client=client, path=SAMPLES / "latency.json", params=PARAMS, retries=3, sleep=sleeps.append
    )
    assert outcome.created == [{"id": 7, "created": True}] and not outcome.failed
    assert len(calls) == 3 and sleeps == [0.5, 1.0]
    assert calls[-1].headers["content-type"] == "application/json"
    assert ("filename", "latency.json") in calls[-1].url.params.multi_items()


def test_retries_give_up_with_the_last_error():
    client = httpx.Client(
        base_url="http://statusboard.test",
        transport=httpx.MockTransport(lambda request: httpx.Response(502, text="bad gateway")),
    )
    outcome = upload_file(
        client=client, path=SAMPLES / "latency.json", params=[], retries=2, sleep=lambda _: None
    )
    assert outcome.errors == ["HTTP 502: bad gateway"]


@pytest.fixture(scope="module")
def live(scratch_database):
    url = scratch_database("benchmarks_cli")
    migrations.upgrade(url)
    server = LiveServer(create_app(make_settings(url))).start()
    yield server, url
    server.stop()


def test_the_command_against_a_live_server(live, standalone_engine_factory):
    server, url = live
    with Session(standalone_engine_factory(url)) as session:
        _, secret = create_token(session=session, name="cli", scopes=["upload"])
        session.commit()
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update({"STATUSBOARD_TOKEN": secret, "COLUMNS": "200"})
    command = [sys.executable, "-m", "app", "upload", "--server", server.url, "--hardware", "GB200"]
    command += ["--gpu-count", "4", "--precision", "fp4", "--env", "VLLM_USE_FLASHINFER_MOE_FP4=1"]
    command += ["--model", "nvidia/DeepSeek-R1-0528-FP4-v2", str(DEMO / "pr30014_serving_blocks.txt")]
    command += [str(SAMPLES / "no-such-file.json")]
    result = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "2 created, 0 duplicate, 1 failed" in result.stdout
    assert "cannot read the file" in result.stdout


def test_the_command_without_a_token_says_how_to_give_one():
    env = {
        key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "STATUSBOARD_TOKEN")
    }
    result = subprocess.run(
        [sys.executable, "-m", "app", "upload", str(SAMPLES / "latency.json")],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1 and "STATUSBOARD_TOKEN" in result.stderr
