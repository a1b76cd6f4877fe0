"""The benchmark pages: list with filters (whole page and htmx block), run page, browser upload form."""

import re
from pathlib import Path

from sqlmodel import select

from app.benchmarks import demo
from app.benchmarks.models import BenchmarkRun

DEMO = Path(__file__).parents[2] / "app" / "benchmarks" / "demo_data"


def sign_in(client, make_token, *scopes):
    token = make_token(*scopes, name="alice")
    page = client.get("/signin")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)[1]
    response = client.post(
        "/signin", data={"token": token, "csrf_token": csrf, "next": "/"}, follow_redirects=False
    )
    assert response.status_code == 303
    # Signing in starts a new session with a new CSRF token.
    return re.search(r'name="csrf-token" content="([^"]+)"', client.get("/benchmarks/upload").text)[1]


def test_list_shows_runs_with_series_links_and_filters(client, session):
    demo.load(session=session)
    page = client.get("/benchmarks")
    assert page.status_code == 200
    assert "73714.9" in page.text and "Nemotron-3-Super-120B-NVFP4" in page.text
    assert 'href="/benchmarks?series=' in page.text
    assert 'href="/trends?series=' in page.text, "each run links to its series' trend"
    assert '<option value="moe=MARLIN">' in page.text
    filtered = client.get("/benchmarks", params={"backend": "moe=MARLIN"}, headers={"HX-Request": "true"})
    assert filtered.status_code == 200
    assert filtered.text.lstrip().startswith('<section id="runs">')
    assert "v0.17.1 default" in filtered.text and "v0.19.0 default" not in filtered.text
    # On the 20th: #30014's "after" run, its gsm8k check and the SM120 nightly.
    assert (
        client.get("/benchmarks", params={"since": "2026-11-20", "until": "2026-11-20"}).text.count(
            'href="/benchmarks/runs/'
        )
        == 3
    )


def test_a_bad_date_filter_is_a_clear_error(client):
    response = client.get("/benchmarks", params={"since": "last week"}, headers={"Accept": "text/html"})
    assert response.status_code == 422 and "2026-11-22" in response.text


def test_run_page_shows_context_metrics_refs_and_the_raw_upload(client, session):
    demo.load(session=session)
    run = session.exec(select(BenchmarkRun).where(BenchmarkRun.label == "before #30014")).one()
    page = client.get(f"/benchmarks/runs/{run.id}")
    assert page.status_code == 200
    assert "total_token_throughput" in page.text and "69219" in page.text
    assert "moe=flashinfer_trtllm" in page.text and "#30014" in page.text
    assert "Total Token throughput (tok/s):          69219.00" in page.text
    assert client.get("/benchmarks/runs/999999", headers={"Accept": "text/html"}).status_code == 404


def test_upload_form_needs_sign_in_and_scope(client, make_token):
    assert "Sign in" in client.get("/benchmarks/upload").text
    sign_in(client, make_token, "read")
    assert "lacks scope" in client.get("/benchmarks/upload").text


def test_pasting_a_console_block_stores_the_run_and_shows_it(client, make_token, session):
    csrf = sign_in(client, make_token, "upload")
    text = (DEMO / "pr30014_serving_blocks.txt").read_text().split("quant before")[0]
    response = client.post(
        "/benchmarks/upload",
        data={
            "csrf_token": csrf,
            "text": text,
            "hardware": "GB200",
            "model": "m",
            "backends": "moe=flashinfer_trtllm",
        },
        files={"file": ("", b"", "application/octet-stream")},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    run_page = client.get(response.headers["location"])
    assert "69219" in run_page.text and "alice" in run_page.text
    run = session.exec(select(BenchmarkRun)).one()
    assert run.context["backends"] == {"moe": "flashinfer_trtllm"} and run.raw_payload == text.encode()


def test_a_chosen_file_with_several_runs_lists_them(client, make_token):
    csrf = sign_in(client, make_token, "upload")
    response = client.post(
        "/benchmarks/upload",
        data={"csrf_token": csrf, "hardware": "GB200", "model": "m"},
        files={"file": ("blocks.txt", (DEMO / "pr30014_serving_blocks.txt").read_bytes(), "text/plain")},
    )
    assert response.status_code == 200
    assert "2 new, 0 already stored, 0 rejected" in response.text


def test_a_bad_paste_re_shows_the_form_with_the_error_and_the_text(client, make_token):
    csrf = sign_in(client, make_token, "upload")
    response = client.post(
        "/benchmarks/upload", data={"csrf_token": csrf, "text": "no numbers here", "hardware": "B"}
    )
    assert response.status_code == 422
    assert "accepted formats" in response.text and "no numbers here" in response.text


def test_upload_without_csrf_is_refused(client, make_token):
    sign_in(client, make_token, "upload")
    response = client.post("/benchmarks/upload", data={"text": "x"}, headers={"Accept": "text/html"})
    assert response.status_code == 403


def test_one_line_json_uploads_are_shown_indented_and_downloaded_verbatim(client, session):
    demo.load(session=session)
    run = session.exec(select(BenchmarkRun).where(BenchmarkRun.label == "v0.17.1 default")).one()
    page = client.get(f"/benchmarks/runs/{run.id}")
    assert "Shown indented" in page.text and "\n  &#34;output_throughput&#34;: 92.0" in page.text
    assert client.get(f"/api/v1/runs/{run.id}/raw").content == (DEMO / "issue38971_marlin.json").read_bytes()
