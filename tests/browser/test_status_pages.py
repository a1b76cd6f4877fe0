"""A person browses the B200 status page, filters it, opens the compatibility grid and edits a status."""

import re

import pytest
from playwright.sync_api import expect

from app.status_pages import demo
from tests.browser.conftest import sign_in

SLUG = "deepseek-r1-vllm-b200-aggregated-serving"


@pytest.fixture
def demo_data(live_session):
    demo.load(session=live_session)
    live_session.commit()


def test_open_the_b200_page_filter_failing_and_switch_to_fp4(page, demo_data):
    page.goto("/")
    page.get_by_role("link", name="DSR1 Status with vLLM: Aggregated Serving on B200").click()
    expect(page.locator("h1")).to_have_text("DSR1 Status with vLLM: Aggregated Serving on B200")
    expect(page.locator(".health-banner .badge")).to_have_text("degraded")
    expect(page.locator(".tab.active")).to_have_text("FP8 - Compatible")

    page.locator(".status-filter label.chip.status-failing").click()
    expect(page).to_have_url(re.compile(r"status=failing"))
    entries = page.locator("#matrix div.entry")
    expect(entries).to_have_count(1)
    expect(entries.first).to_have_attribute("data-status", "failing")
    expect(entries.first).to_contain_text("FlashInfer CUTLASS")

    page.locator("#filters input[value=failing]").uncheck()
    expect(page).not_to_have_url(re.compile(r"status=failing"))
    page.get_by_role("link", name="FP4", exact=True).click()
    expect(page).to_have_url(re.compile(r"precision=FP4"))
    expect(page.locator(".tab.active")).to_have_text("FP4")
    expect(page.locator("#matrix")).to_contain_text("FlashInfer CUDNN")
    expect(page.locator('#matrix [data-component="Communications"]')).to_contain_text(
        "AllGather-ReduceScatter"
    )
    assert page.console_errors == []


def test_a_shared_filtered_link_reproduces_the_view_without_javascript(page, demo_data):
    page.goto(f"/pages/{SLUG}?precision=FP4&status=in_review")
    expect(page.locator("#matrix div.entry")).to_have_count(1)
    expect(page.locator("#filters input[value=in_review]")).to_be_checked()


def test_the_compatibility_grid_shows_the_cutedsl_failure(page, demo_data):
    page.goto(f"/pages/{SLUG}")
    page.get_by_role("link", name="Compatibility").click()
    page.select_option("#axis-a", "MOE")
    page.select_option("#axis-b", "Communications")
    cell = page.locator('td[data-a="flashinfer_cutedsl"][data-b="deepep_low_latency"]')
    expect(cell).to_contain_text("fails")
    expect(cell).to_contain_text("invalid resource handle")
    expect(cell.locator("a.ref")).to_contain_text("#37931")
    other = page.locator('td[data-a="flashinfer_cutedsl"][data-b="flashinfer_nvlink_one_sided"]')
    expect(other).to_contain_text("('standard',) activation format")


def test_sign_in_change_a_status_with_a_reason_and_see_it_in_the_history(page, demo_data, live_token):
    sign_in(page, live_token("edit", name="erin"))
    page.goto(f"/pages/{SLUG}")
    pplx = page.locator("#matrix div.entry", has_text="PPLX")
    pplx.get_by_role("link", name="edit").click()
    editor = page.locator("#editor .editor")
    expect(editor).to_be_visible()
    editor.locator("#edit-status").select_option("failing")
    editor.locator("#edit-reason").fill("PPLX hangs on B200 at startup")
    editor.get_by_role("button", name="Save").click()
    expect(page.locator("#editor .editor")).to_have_count(0)
    expect(page.locator("#matrix div.entry", has_text="PPLX")).to_have_attribute("data-status", "failing")
    page.locator("#matrix div.entry", has_text="PPLX").get_by_role("link", name="history").click()
    row = page.locator("table.history tbody tr").first
    expect(row).to_contain_text("entry.status_changed")
    expect(row).to_contain_text("erin")
    expect(row).to_contain_text("PPLX hangs on B200 at startup")
    expect(row.locator(".old")).to_have_text("working")
    expect(row.locator(".new")).to_have_text("failing")
    assert page.console_errors == []


def test_an_editor_changes_the_health_and_adds_a_backend(page, demo_data, live_token):
    sign_in(page, live_token("edit", name="frank"))
    page.goto(f"/pages/{SLUG}")
    page.get_by_text("Edit health").click()
    page.select_option("#health-level", "broken")
    page.fill("#health-reason", "DP attention crashes at start")
    page.get_by_role("button", name="Save health").click()
    expect(page.locator(".health-banner .badge")).to_have_text("broken")
    adding = page.locator("form", has=page.get_by_role("button", name="Add backend"))
    adding.locator("select[name=row]").select_option(label="FP8 · Communications")
    adding.locator("input[name=name]").fill("NIXL EP")
    adding.locator("select[name=status]").select_option("wip")
    adding.locator("input[name=reason]").fill("PR under way")
    adding.get_by_role("button", name="Add backend").click()
    expect(
        page.locator('#matrix [data-component="Communications"] div.entry', has_text="NIXL EP")
    ).to_have_attribute("data-status", "wip")
    page.get_by_role("link", name="History", exact=True).click()
    expect(page.locator("table.history")).to_contain_text("page.health_changed")
    expect(page.locator("table.history")).to_contain_text("entry.added")
    assert page.console_errors == []
