"""The review pages: the current week, a past week's sections, and the htmx sign-off form."""

from __future__ import annotations

from app.core.models import utcnow
from app.review.weeks import week_of
from tests.auth.test_session_signin import sign_in
from tests.review.scenario import W47, store_scenario

HTML = {"Accept": "text/html"}


def test_review_opens_on_the_current_week_with_the_list_of_weeks(client, session):
    store_scenario(session)
    current = week_of(utcnow()).label
    html = client.get("/review").text
    assert f"Weekly health review · {current}" in html
    assert 'href="/review/2026-W46"' in html and 'href="/review/2026-W44"' in html


def test_a_week_page_shows_every_section_with_links(client, session):
    store_scenario(session)
    html = client.get(f"/review/{W47.label}").text
    for section in ("needs-attention", "pages", "github", "benchmarks", "compatibility", "markdown-export"):
        assert f'id="{section}"' in html
    assert "DeepGemm (FP8 · MOE) on dsr1-b200 is failing" in html
    assert 'href="/compare?a=22&amp;b=23"' in html
    assert 'href="/pages/dsr1-b200"' in html
    assert "illegal memory access with E8M0 scales" in html
    assert 'href="/api/v1/review/2026-W47/export.md"' in html


def test_a_malformed_or_future_week_page_is_a_422_page(client):
    response = client.get("/review/2026-W60", headers=HTML)
    assert response.status_code == 422
    assert "YYYY-Www" in response.text
    future = week_of(utcnow()).next().label
    assert client.get(f"/review/{future}", headers=HTML).status_code == 422


def test_anonymous_readers_are_asked_to_sign_in_to_sign_off(client):
    html = client.get(f"/review/{W47.label}").text
    assert "Sign in</a> with an <code>edit</code> token" in html
    assert 'hx-post="/review/2026-W47/signoff"' not in html


def test_signing_off_through_htmx_returns_the_signed_block(client, make_token):
    csrf = sign_in(client, make_token("edit", name="alice"))
    assert 'hx-post="/review/2026-W47/signoff"' in client.get(f"/review/{W47.label}").text
    headers = {"HX-Request": "true", "X-CSRF-Token": csrf}
    response = client.post(
        f"/review/{W47.label}/signoff", data={"notes": "**All** reviewed"}, headers=headers
    )
    assert (response.status_code, response.headers["hx-trigger"]) == (200, "review-signed-off")
    assert '<section id="signoff"' in response.text and "<html" not in response.text
    assert '<span class="signoff-actor">alice</span>' in response.text
    assert "<strong>All</strong> reviewed" in response.text
    again = client.post(f"/review/{W47.label}/signoff", data={"notes": "again"}, headers=headers)
    assert again.status_code == 409
    assert "already signed off by alice" in again.text


def test_signing_off_from_the_page_needs_csrf_and_scope_edit(client, make_token):
    csrf = sign_in(client, make_token("read", name="reader"))
    headers = {"HX-Request": "true"}
    assert (
        client.post(f"/review/{W47.label}/signoff", data={"notes": "x"}, headers=headers).status_code == 403
    )
    refused = client.post(
        f"/review/{W47.label}/signoff", data={"notes": "x"}, headers={**headers, "X-CSRF-Token": csrf}
    )
    assert refused.status_code == 403
    assert "scope edit" in refused.text


def test_a_plain_form_post_redirects_back_to_the_week(client, make_token):
    csrf = sign_in(client, make_token("edit", name="alice"))
    response = client.post(
        f"/review/{W47.label}/signoff", data={"notes": "ok", "csrf_token": csrf}, follow_redirects=False
    )
    assert (response.status_code, response.headers["location"]) == (303, "/review/2026-W47#signoff")
    assert (
        'Signed off</strong> by <span class="signoff-actor">alice</span>'
        in client.get("/review/2026-W47").text
    )


def test_the_week_picker_redirects_to_the_chosen_week(client):
    response = client.get("/review", params={"week": "2026-W45"}, follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, "/review/2026-W45")
    assert client.get("/review", params={"week": "nope"}, headers=HTML).status_code == 422


def test_a_page_imported_in_the_week_says_when(client, session):
    store_scenario(session)
    assert "imported 2026-11-02 09:00 UTC" in client.get("/review/2026-W45").text
    assert "imported 2026-11-02" not in client.get("/review/2026-W46").text
