"""The review API: a week as JSON and Markdown, reproducible past weeks, sign-off rules, bad weeks."""

from __future__ import annotations

from sqlmodel import select

from app.audit.models import ChangeEvent
from app.core.models import utcnow
from app.review.weeks import week_of
from tests.review.factories import EventLog
from tests.review.scenario import SERIES_B200, W47, store_scenario

W47_URL = f"/api/v1/review/{W47.label}"


def test_a_week_as_json_starts_with_the_ranked_summary(client, session):
    store_scenario(session)
    response = client.get(W47_URL)
    assert response.status_code == 200
    body = response.json()
    assert (body["week"], body["start"]) == ("2026-W47", "2026-11-16T00:00:00Z")
    assert body["needs_attention"][0]["title"] == "DeepGemm (FP8 · MOE) on dsr1-b200 is failing"
    assert body["pages"][0]["health_at_start"] == "ok"
    assert body["pages"][0]["health_now"] == "degraded"
    assert [item["number"] for item in body["github"]["activity"]["merged"]] == [30014]
    assert body["benchmarks"]["improvements"][0]["label"] == "#30014"
    assert body["compatibility"]["fixed"][0]["backend_b"] == "pplx"
    assert body["signoff"] is None


def test_markdown_export_links_to_this_server(client, session):
    store_scenario(session)
    response = client.get(f"{W47_URL}/export.md")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.text.startswith("# Weekly health review · 2026-W47\n")
    assert "(http://testserver/pages/dsr1-b200)" in response.text


def test_a_past_week_reads_the_same_after_later_events(client, session):
    store_scenario(session)
    before = client.get("/api/v1/review/2026-W46").json()
    assert [item["category"] for item in before["needs_attention"]] == [
        "stale_blocking_ref",
        "overdue_series",
    ]
    assert before["pages"][0]["health_now"] == "ok"
    later = EventLog()
    later.page_imported(
        "2026-11-20 10:00", page_id=1, slug="dsr1-b200", title="DSR1 on B200", health="broken"
    )
    later.page_imported(
        "2026-11-20 10:00", page_id=2, slug="dsr1-gb200", title="DSR1 on GB200", health="broken"
    )
    later.ref(
        "2026-11-20 11:00", action="merged", ref_id=10, repo="vllm-project/vllm", number=25696, title="Fix"
    )
    later.run_uploaded("2026-11-20 12:00", run_id=5, series_key=SERIES_B200, hardware="B200")
    later.store(session)
    after = client.get("/api/v1/review/2026-W46").json()
    assert after == before
    assert [page["slug"] for page in client.get(W47_URL).json()["pages"]] == ["dsr1-b200", "dsr1-gb200"]


def test_malformed_weeks_are_422_with_the_expected_form(client):
    for week in ("2026-W60", "abc"):
        response = client.get(f"/api/v1/review/{week}")
        assert response.status_code == 422, week
        error = response.json()["error"]
        assert error["field"] == "week"
        assert "YYYY-Www" in error["message"]
    assert client.get("/api/v1/review/abc/export.md").status_code == 422


def test_a_future_week_is_422(client):
    future = week_of(utcnow()).next().label
    response = client.get(f"/api/v1/review/{future}")
    assert response.status_code == 422
    assert "is in the future" in response.json()["error"]["message"]


def test_sign_off_is_stored_audited_and_shown(client, session, auth_header):
    response = client.post(
        f"{W47_URL}/signoff",
        json={"notes": "  Ship the fix for DeepGemm.  "},
        headers=auth_header("edit", name="alice"),
    )
    assert response.status_code == 201
    assert response.json()["actor"] == "alice"
    assert response.json()["notes"] == "Ship the fix for DeepGemm."
    signoff = client.get(W47_URL).json()["signoff"]
    assert (signoff["actor"], signoff["notes"]) == ("alice", "Ship the fix for DeepGemm.")
    (event,) = session.exec(select(ChangeEvent).where(ChangeEvent.kind == "review.signed_off")).all()
    assert (event.actor, event.subject_type, event.context) == ("alice", "review", {"week": "2026-W47"})
    weeks = {item["week"]: item for item in client.get("/api/v1/review").json()}
    assert weeks["2026-W47"]["signoff"]["actor"] == "alice"


def test_signing_off_twice_is_409_naming_the_first_sign_off(client, auth_header):
    assert (
        client.post(f"{W47_URL}/signoff", json={}, headers=auth_header("edit", name="alice")).status_code
        == 201
    )
    response = client.post(
        f"{W47_URL}/signoff", json={"notes": "me too"}, headers=auth_header("edit", name="bob")
    )
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["message"].startswith("2026-W47 was already signed off by alice at ")
    assert error["details"]["signed_off_by"] == "alice"


def test_signing_off_needs_scope_edit_and_a_reviewable_week(client, auth_header):
    assert client.post(f"{W47_URL}/signoff", json={}).status_code == 401
    assert (
        client.post(f"{W47_URL}/signoff", json={}, headers=auth_header("read", "upload")).status_code == 403
    )
    future = week_of(utcnow()).next().label
    response = client.post(f"/api/v1/review/{future}/signoff", json={}, headers=auth_header("edit"))
    assert response.status_code == 422
    too_long = client.post(f"{W47_URL}/signoff", json={"notes": "x" * 20_001}, headers=auth_header("edit"))
    assert (too_long.status_code, too_long.json()["error"]["field"]) == (422, "notes")
    assert client.get(W47_URL).json()["signoff"] is None


def test_the_weeks_list_starts_at_the_current_week_and_counts_events(client, session):
    store_scenario(session)
    weeks = client.get("/api/v1/review").json()
    assert weeks[0]["week"] == week_of(utcnow()).label
    counts = {item["week"]: item["event_count"] for item in weeks}
    assert counts["2026-W47"] == 13
    assert counts["2026-W46"] == 0
    assert weeks[-1]["week"] == "2026-W44"
