"""A person pastes a console block, sees the run with its metrics, and filters the run list."""

from pathlib import Path

from playwright.sync_api import expect

from app.benchmarks import demo
from tests.browser.conftest import sign_in

BLOCK = (
    Path(__file__).parents[2] / "app" / "benchmarks" / "demo_data" / "pr30014_serving_blocks.txt"
).read_text()


def test_paste_a_console_block_and_see_the_run(page, live_token):
    sign_in(page, live_token("upload", name="carol"))
    page.goto("/benchmarks")
    page.get_by_role("link", name="Upload a result").click()
    page.fill("#text", BLOCK.split("quant before")[0])
    page.fill("input[name=hardware]", "GB200")
    page.fill("input[name=gpu_count]", "4")
    page.fill("input[name=model]", "nvidia/DeepSeek-R1-0528-FP4-v2")
    page.fill("textarea[name=backends]", "moe=flashinfer_trtllm")
    page.get_by_role("button", name="Upload").click()
    expect(page.locator("h1")).to_contain_text("Run #")
    metrics = page.locator("table.metrics")
    expect(metrics).to_contain_text("total_token_throughput")
    expect(metrics).to_contain_text("69,219")
    expect(page.locator("table.context")).to_contain_text("moe=flashinfer_trtllm")
    expect(page.locator("pre.raw")).to_contain_text("Serving Benchmark Result")
    assert page.console_errors == []


def test_a_bad_paste_shows_the_reason(page, live_token):
    sign_in(page, live_token("upload"))
    page.goto("/benchmarks/upload")
    page.fill("#text", "these are not numbers")
    page.fill("input[name=hardware]", "B200")
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("alert")).to_contain_text("accepted formats")


def test_the_list_filters_in_place_and_keeps_the_filter_in_the_url(page, live_session):
    demo.load(session=live_session)
    live_session.commit()
    page.goto("/benchmarks")
    rows = page.locator("table.runs tbody tr")
    # 5 runs from the seeds and 23 nightly runs of demo history around them.
    expect(rows).to_have_count(28)
    page.select_option("select[name=backend]", "moe=MARLIN")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("v0.17.1 default")
    assert "backend=moe%3DMARLIN" in page.url
    page.select_option("select[name=backend]", "")
    page.select_option("select[name=hardware]", "GB200")
    expect(rows).to_have_count(14)
    rows.filter(has_text="after #30014").first.get_by_role("link", name="#", exact=False).first.click()
    expect(page.locator("h1")).to_contain_text("after #30014")
    assert page.console_errors == []
