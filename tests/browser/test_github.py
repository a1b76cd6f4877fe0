"""A person opens /github, sees refs with live state chips, and narrows them with the filters."""

from __future__ import annotations

from datetime import timedelta

from playwright.sync_api import expect

from app.core.models import utcnow
from app.github_refs.models import GitHubRef, GitHubSyncRun
from tests.browser.conftest import sign_in


def seed(live_session) -> None:
    now = utcnow()
    rows = [
        GitHubRef(
            repo="vllm-project/vllm",
            number=101,
            kind="pull",
            state="closed",
            merged=True,
            merged_at=now - timedelta(days=2),
            title="Fix FP8 block linear",
            labels=["ready"],
            gh_created_at=now - timedelta(days=9),
            gh_updated_at=now - timedelta(days=2),
            last_synced_at=now,
        ),
        GitHubRef(
            repo="vllm-project/vllm",
            number=102,
            kind="pull",
            state="open",
            draft=True,
            title="WIP cutedsl all2all",
            gh_created_at=now - timedelta(days=3),
            gh_updated_at=now - timedelta(days=1),
            last_synced_at=now,
        ),
        GitHubRef(
            repo="flashinfer-ai/flashinfer",
            number=7,
            kind="issue",
            state="open",
            title="SM120 crash",
            labels=["bug"],
            gh_created_at=now - timedelta(days=60),
            gh_updated_at=now - timedelta(days=30),
            last_synced_at=now,
        ),
    ]
    live_session.add_all(rows)
    live_session.add(
        GitHubSyncRun(status="ok", finished_at=now - timedelta(minutes=3), requests=3, not_modified=3)
    )
    live_session.commit()


def test_github_page_shows_state_chips_and_filters_in_place(page, live_session):
    seed(live_session)
    page.goto("/github")
    expect(page.locator("h1")).to_have_text("GitHub pull requests and issues")
    expect(page.locator("#sync-status")).to_contain_text("Last synced successfully")
    expect(page.locator("a.ref.state-merged")).to_contain_text("#101")
    expect(page.locator("a.ref.state-draft")).to_contain_text("#102")
    expect(page.locator("a.ref.state-open")).to_contain_text("flashinfer#7")
    expect(page.locator("#refs tbody tr")).to_have_count(3)

    page.select_option("#filter-state", "draft")
    expect(page.locator("#refs tbody tr")).to_have_count(1)
    expect(page.locator("#refs tbody tr")).to_contain_text("WIP cutedsl all2all")
    assert "state=draft" in page.url, "the filtered view lives in the URL"

    page.select_option("#filter-state", "")
    expect(page.locator("#refs tbody tr")).to_have_count(3)
    page.check("#filter-stale")
    expect(page.locator("#refs tbody tr")).to_have_count(1)
    expect(page.locator("#refs tbody tr")).to_contain_text("SM120 crash")

    page.uncheck("#filter-stale")
    expect(page.locator("#refs tbody tr")).to_have_count(3)
    page.select_option("#filter-label", "ready")
    expect(page.locator("#refs tbody tr")).to_have_count(1)
    expect(page.locator("#refs tbody tr")).to_contain_text("Fix FP8 block linear")

    page.reload()
    expect(page.locator("#refs tbody tr")).to_have_count(1)
    assert page.console_errors == []


def test_an_editor_tracks_a_ref_from_the_page(page, live_session, live_token):
    sign_in(page, live_token("edit", name="alice"))
    page.goto("/github")
    page.fill("#track-ref", "flashinfer#1566")
    page.click("#track-form button[type=submit]")
    expect(page.get_by_role("status").filter(has_text="Now tracking")).to_contain_text(
        "flashinfer-ai/flashinfer#1566"
    )
    expect(page.locator("a.ref.state-unknown")).to_contain_text("flashinfer#1566")
