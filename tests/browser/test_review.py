"""A reviewer opens a week with seeded events, reads the summary, exports Markdown and signs the week off."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import sign_in
from tests.review.scenario import store_scenario


def test_review_a_week_export_markdown_and_sign_it_off(page, live_session, live_token):
    store_scenario(live_session)
    live_session.commit()
    sign_in(page, live_token("edit", name="reviewer"))

    page.goto("/review/2026-W47")
    expect(page.locator("h1")).to_have_text("Weekly health review · 2026-W47")
    summary = page.locator("#needs-attention .attention-item")
    expect(summary).to_have_count(6)
    expect(summary.first).to_contain_text("New failure")
    expect(summary.first).to_contain_text("DeepGemm (FP8 · MOE) on dsr1-b200 is failing")
    expect(page.locator("#needs-attention .attention-item.open_regression")).to_contain_text("-20.0%")
    expect(page.locator("#pages tbody tr").first).to_contain_text("degraded")

    page.get_by_text("Markdown for a GitHub issue or chat").click()
    markdown = page.locator("#markdown-export pre")
    expect(markdown).to_be_visible()
    expect(markdown).to_contain_text("## Needs attention")
    page.get_by_role("button", name="Copy Markdown").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    export = page.request.get(page.locator("#export-markdown").get_attribute("href"))
    assert export.ok and export.text().startswith("# Weekly health review · 2026-W47")
    assert "| 1 | New failure |" in export.text()

    page.fill("#signoff-notes", "Reviewed in the Monday sync; DeepGemm fix is **top priority**.")
    page.get_by_role("button", name="Sign off 2026-W47").click()
    expect(page.locator("#signoff .signed-off")).to_contain_text("Signed off by reviewer")
    expect(page.locator("#signoff .signoff-notes strong")).to_have_text("top priority")
    # The list of weeks and the Markdown follow without a reload.
    expect(page.locator(".review-weeks li[aria-current=page]")).to_contain_text("signed off")
    expect(page.locator("#markdown-export pre")).to_contain_text("Signed off** by reviewer")

    page.reload()
    expect(page.locator("#signoff .signed-off")).to_contain_text("Signed off by reviewer")
    expect(page.locator(".review-weeks li[aria-current=page]")).to_contain_text("signed off")

    page.fill("#week-picker", "2026-W46")
    page.get_by_role("button", name="Open").click()
    expect(page.locator("h1")).to_have_text("Weekly health review · 2026-W46")
    expect(page.get_by_role("button", name="Sign off 2026-W46")).to_be_visible()
    assert page.console_errors == []


def test_signing_off_a_week_someone_else_just_signed_off_shows_who(page, live_session, live_token):
    from app.review.service import sign_off
    from app.review.weeks import parse_week

    sign_in(page, live_token("edit", name="second"))
    page.goto("/review/2026-W46")
    sign_off(session=live_session, week=parse_week("2026-W46"), actor="first", notes="done")
    live_session.commit()
    page.get_by_role("button", name="Sign off 2026-W46").click()
    expect(page.get_by_role("alert")).to_contain_text("2026-W46 was already signed off by first")
    expect(page.locator("#signoff .signed-off")).to_contain_text("Signed off by first")
