"""A person opens the home page and the API docs and sees what they expect."""

from playwright.sync_api import expect

from tests.browser.conftest import sign_in


def test_home_page_shows_navigation_and_the_empty_state(page):
    page.goto("/")
    expect(page).to_have_title("Status pages · statusboard")
    nav = page.get_by_role("navigation", name="Main")
    for label in ("Status", "GitHub", "Benchmarks", "Review"):
        expect(nav.get_by_role("link", name=label)).to_be_visible()
    expect(page.locator("h1")).to_have_text("Status pages")
    assert page.evaluate("typeof htmx") == "object", "htmx must load from the pinned local copy"
    assert page.console_errors == []


def test_api_docs_render_locally_with_the_endpoints(page):
    page.goto("/docs")
    expect(page.locator(".swagger-ui .title").first).to_contain_text("statusboard")
    expect(page.get_by_text("/healthz").first).to_be_visible()


def test_sign_in_with_a_token_and_sign_out(page, live_token):
    sign_in(page, live_token("edit", name="alice"))
    expect(page.locator(".who")).to_contain_text("alice")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()


def test_a_wrong_token_is_refused_with_a_message(page):
    page.goto("/signin")
    page.fill("#token", "sb_not-a-real-token")
    page.click("form.stack button[type=submit]")
    expect(page.get_by_role("alert")).to_contain_text("not valid")
