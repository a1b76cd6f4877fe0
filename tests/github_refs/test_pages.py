"""The /github page: refs with chips, filters, sync status, stale marking, and tracking by hand."""

from __future__ import annotations

import re
from datetime import timedelta

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.core.models import utcnow
from app.github_refs.models import GitHubRef, GitHubRefLink, GitHubSyncRun, LinkTarget
from app.github_refs.service import RefAddress, get_or_create_ref, link_ref
from app.github_refs.targets import TargetLabel, register_target_describer, unregister_target_describer


def add_ref(session: Session, number: int, **fields: object) -> GitHubRef:
    values: dict[str, object] = {
        "repo": "vllm-project/vllm",
        "number": number,
        "kind": "pull",
        "state": "open",
        "title": f"PR {number}",
        "gh_created_at": utcnow() - timedelta(days=3),
        "gh_updated_at": utcnow() - timedelta(days=1),
        "last_synced_at": utcnow(),
    }
    values.update(fields)
    ref = GitHubRef(**values)
    session.add(ref)
    session.flush()
    return ref


def sign_in(client: TestClient, make_token, *scopes: str) -> str:
    page = client.get("/signin")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    client.post("/signin", data={"token": make_token(*scopes), "csrf_token": csrf, "next": "/github"})
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get("/github").text).group(1)


def test_page_lists_refs_with_state_chips_links_and_sync_time(client: TestClient, session: Session):
    merged = add_ref(
        session, 10, merged=True, state="closed", merged_at=utcnow() - timedelta(days=2), labels=["ready"]
    )
    add_ref(session, 11, draft=True, author="alice")
    add_ref(session, 12, repo="flashinfer-ai/flashinfer", last_sync_error="GitHub answered 403: forbidden")
    register_target_describer(
        "row", lambda _s, ids: {i: TargetLabel(f"FP8 · MoE row {i}", f"/rows/{i}") for i in ids}
    )
    try:
        link_ref(session=session, ref=merged, target_type=LinkTarget.row, target_id=3, audit=False)
        link_ref(session=session, ref=merged, target_type=LinkTarget.run, target_id=8, audit=False)
        session.add(
            GitHubSyncRun(
                status="ok", finished_at=utcnow() - timedelta(minutes=5), requests=4, not_modified=3
            )
        )
        session.flush()
        html = client.get("/github", headers={"Accept": "text/html"}).text
    finally:
        unregister_target_describer("row")
    assert 'class="ref state-merged"' in html and "✔" in html and "merged 2d" in html
    assert 'class="ref state-draft"' in html and "alice" in html
    assert '<a href="/rows/3">FP8 · MoE row 3</a>' in html and "run 8" in html
    assert "flashinfer#12" in html and "GitHub answered 403: forbidden" in html
    assert "Last synced successfully" in html and "5m ago" in html
    assert "Shown data may be stale" not in html


def test_filters_narrow_the_table_and_htmx_gets_only_the_table(client: TestClient, session: Session):
    add_ref(session, 1, draft=True)
    add_ref(session, 2, labels=["bug"], gh_updated_at=utcnow() - timedelta(days=40))
    add_ref(session, 3, repo="flashinfer-ai/flashinfer")
    fragment = client.get("/github", params={"state": "draft"}, headers={"HX-Request": "true"}).text
    assert "<h1>" not in fragment and 'data-ref="vllm-project/vllm#1"' in fragment
    assert 'data-ref="vllm-project/vllm#2"' not in fragment
    stale = client.get("/github", params={"stale": "true"}).text
    assert 'data-ref="vllm-project/vllm#2"' in stale and 'data-ref="vllm-project/vllm#1"' not in stale
    assert stale.count('class="badge degraded stale-mark"') == 1
    by_label = client.get("/github", params={"label": "bug"}).text
    assert 'data-ref="vllm-project/vllm#2"' in by_label and "1 tracked ref." in by_label
    by_repo = client.get("/github", params={"repo": "flashinfer-ai/flashinfer"}).text
    assert (
        'data-ref="flashinfer-ai/flashinfer#3"' in by_repo and 'data-ref="vllm-project/vllm#1"' not in by_repo
    )


def test_a_failed_last_sync_marks_the_page_stale_but_it_still_renders(client: TestClient, session: Session):
    add_ref(session, 1)
    session.add(
        GitHubSyncRun(
            status="ok", started_at=utcnow() - timedelta(hours=2), finished_at=utcnow() - timedelta(hours=2)
        )
    )
    session.add(
        GitHubSyncRun(
            status="failed", finished_at=utcnow(), message="stopped at vllm-project/vllm: GitHub answered 502"
        )
    )
    session.flush()
    response = client.get("/github")
    assert response.status_code == 200
    assert "Shown data may be stale" in response.text and "GitHub answered 502" in response.text
    assert 'class="sync-banner stale"' in response.text


def test_editors_track_and_unlink_by_hand_with_csrf(client: TestClient, session: Session, make_token):
    assert "Track a PR or issue" not in client.get("/github").text
    csrf = sign_in(client, make_token, "edit")
    response = client.post(
        "/github/refs",
        data={
            "ref": "https://github.com/vllm-project/vllm/pull/27000",
            # A type without a describer: status pages check that their cells exist, and entry 5 does not.
            "target_type": "section",
            "target_id": "5",
            "csrf_token": csrf,
        },
    )
    assert response.status_code == 200 and "Now tracking vllm-project/vllm#27000" in response.text
    ref = session.exec(select(GitHubRef).where(GitHubRef.number == 27000)).one()
    assert ref.kind == "pull"
    bad = client.post("/github/refs", data={"ref": "nosuch#1", "csrf_token": csrf})
    assert "unknown repository alias" in bad.text
    no_csrf = client.post("/github/refs", data={"ref": "#1"})
    assert no_csrf.status_code == 403
    client.post(
        f"/github/refs/{ref.id}/unlink", data={"target_type": "section", "target_id": "5", "csrf_token": csrf}
    )
    assert session.exec(select(GitHubRefLink).where(GitHubRefLink.ref_id == ref.id)).all() == []
    assert get_or_create_ref(session=session, address=RefAddress("vllm-project/vllm", 27000)).id == ref.id
