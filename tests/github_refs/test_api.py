"""The GitHub API: listing with filters and pagination, tracking and linking by hand, the sync trigger."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlmodel import Session

from app.audit.service import list_events
from app.core.models import utcnow
from app.github_refs.api import get_sync_runner
from app.github_refs.models import GitHubRef, GitHubSyncRun, LinkTarget
from app.github_refs.service import link_ref
from app.github_refs.sync import SYNC_LOCK_KEY, run_sync
from app.github_refs.targets import TargetLabel, register_target_describer, unregister_target_describer
from tests.benchmarks.test_store_run import parsed as parsed_benchmark
from tests.benchmarks.test_store_run import store as store_benchmark_run

REFS = "/api/v1/github/refs"


def add_ref(session: Session, number: int, **fields: object) -> GitHubRef:
    values: dict[str, object] = {
        "repo": "vllm-project/vllm",
        "number": number,
        "kind": "pull",
        "state": "open",
        "title": f"PR {number}",
        "gh_updated_at": utcnow() - timedelta(days=1),
        "last_synced_at": utcnow(),
    }
    values.update(fields)
    ref = GitHubRef(**values)
    session.add(ref)
    session.flush()
    return ref


def test_list_filters_by_state_repo_label_and_staleness(client: TestClient, session: Session):
    add_ref(session, 1, draft=True)
    add_ref(session, 2, merged=True, state="closed", labels=["ready"])
    add_ref(session, 3, gh_updated_at=utcnow() - timedelta(days=30), labels=["ready", "bug"])
    add_ref(session, 4, review_requested=True)
    add_ref(session, 5, repo="flashinfer-ai/flashinfer", kind="issue", state="closed")
    add_ref(session, 6, not_found=True)

    def numbers(**params: object) -> list[int]:
        response = client.get(REFS, params=params)
        assert response.status_code == 200, response.text
        return sorted(item["number"] for item in response.json()["items"])

    assert numbers() == [1, 2, 3, 4, 5, 6]
    assert numbers(state="draft") == [1]
    assert numbers(state=["merged", "closed"]) == [2, 5]
    assert numbers(state="in_review") == [4]
    assert numbers(state="open") == [3]
    assert numbers(state="not_found") == [6]
    assert numbers(repo="flashinfer-ai/flashinfer") == [5]
    assert numbers(label="ready") == [2, 3]
    assert numbers(stale="true") == [3]
    stale_item = client.get(REFS, params={"stale": "true"}).json()["items"][0]
    assert stale_item["stale"] is True and stale_item["display_state"] == "open"


def test_list_paginates_and_rejects_bad_parameters(client: TestClient, session: Session):
    for number in range(1, 8):
        add_ref(session, number, gh_updated_at=utcnow() - timedelta(hours=number))
    page = client.get(REFS, params={"limit": 3, "offset": 3}).json()
    assert page["total"] == 7 and [item["number"] for item in page["items"]] == [4, 5, 6]
    assert client.get(REFS, params={"limit": 0}).status_code == 422
    bad_state = client.get(REFS, params={"state": "sideways"})
    assert bad_state.status_code == 422 and bad_state.json()["error"]["field"].startswith("state")


def test_track_a_ref_by_hand_and_link_it_with_a_registered_describer(
    client: TestClient, session: Session, auth_header
):
    register_target_describer(
        "entry",
        lambda _session, ids: {i: TargetLabel(f"FP8 · MoE · entry {i}", f"/e/{i}") for i in ids if i < 100},
    )
    try:
        headers = auth_header("edit", name="alice")
        created = client.post(
            REFS,
            json={"ref": "flashinfer#1566", "target_type": "entry", "target_id": 12, "text": "FI fix"},
            headers=headers,
        )
        assert created.status_code == 201, created.text
        body = created.json()
        assert (body["repo"], body["number"], body["display_state"]) == (
            "flashinfer-ai/flashinfer",
            1566,
            "unknown",
        )
        assert body["links"][0]["label"] == "FP8 · MoE · entry 12" and body["links"][0]["url"] == "/e/12"
        assert body["links"][0]["created_by"] == "alice"
        missing = client.post(
            f"{REFS}/{body['id']}/links", json={"target_type": "entry", "target_id": 500}, headers=headers
        )
        assert missing.status_code == 404 and "entry 500" in missing.json()["error"]["message"]
        run, _ = store_benchmark_run(session, parsed_benchmark())
        other = client.post(
            f"{REFS}/{body['id']}/links", json={"target_type": "run", "target_id": run.id}, headers=headers
        )
        assert other.status_code == 201
        labels = {link["label"] for link in other.json()["links"]}
        assert "FP8 · MoE · entry 12" in labels and any(
            label.startswith(f"run {run.id} · GB200") for label in labels
        )

        removed = client.delete(
            f"{REFS}/{body['id']}/links/entry/12", params={"reason": "wrong PR"}, headers=headers
        )
        assert removed.status_code == 204
        assert [link["target_type"] for link in client.get(f"{REFS}/{body['id']}").json()["links"]] == ["run"]
        kinds = [event.kind for event in list_events(session=session, kind_prefix="ref.")]
        assert kinds == ["ref.linked", "ref.linked", "ref.unlinked"]
        again = client.delete(f"{REFS}/{body['id']}/links/entry/12", headers=headers)
        assert again.status_code == 404
    finally:
        unregister_target_describer("entry")


def test_track_refuses_unknown_aliases_and_needs_the_edit_scope(client: TestClient, auth_header):
    unknown = client.post(REFS, json={"ref": "nosuchrepo#1"}, headers=auth_header("edit"))
    assert unknown.status_code == 422
    assert "unknown repository alias 'nosuchrepo'" in unknown.json()["error"]["message"]
    half = client.post(REFS, json={"ref": "#5", "target_type": "entry"}, headers=auth_header("edit"))
    assert half.status_code == 422 and half.json()["error"]["field"] == "target_id"
    assert client.post(REFS, json={"ref": "#5"}).status_code == 401
    assert client.post(REFS, json={"ref": "#5"}, headers=auth_header("read")).status_code == 403
    assert client.get(f"{REFS}/424242").status_code == 404


def test_sync_endpoint_needs_admin_runs_in_the_background_and_refuses_while_running(
    app, client: TestClient, session: Session, auth_header, github_client, fake_github, engine
):
    fake_github.add("vllm-project/vllm", 1)
    add_ref(session, 1, state=None, last_synced_at=None, title=None)
    app.dependency_overrides[get_sync_runner] = lambda: (
        lambda: run_sync(session=session, client=github_client, trigger="api")
    )
    assert client.post("/api/v1/github/sync", headers=auth_header("edit")).status_code == 403

    response = client.post("/api/v1/github/sync", headers=auth_header("admin"))

    assert response.status_code == 202
    runs = client.get("/api/v1/github/sync/runs").json()
    assert runs[0]["status"] == "ok" and runs[0]["trigger"] == "api" and runs[0]["requests"] == 1
    print(runs, fake_github.requests)
    assert client.get(REFS).json()["items"][0]["display_state"] == "open"
    with engine.connect() as other:
        other.execute(text("SELECT pg_advisory_lock(:key)"), {"key": SYNC_LOCK_KEY})
        try:
            busy = client.post("/api/v1/github/sync", headers=auth_header("admin"))
        finally:
            other.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": SYNC_LOCK_KEY})
    assert busy.status_code == 409
    assert session.get(GitHubSyncRun, runs[0]["id"]).requests == 1


def test_list_filters_by_the_cell_that_links_the_ref(client: TestClient, session: Session):
    linked = add_ref(session, 1)
    add_ref(session, 2)
    # "section" has no describer (status pages describe pages, rows, entries and rules), so no cell is needed.
    link_ref(session=session, ref=linked, target_type=LinkTarget.section, target_id=12, audit=False)
    page = client.get(REFS, params={"target_type": "section", "target_id": 12}).json()
    assert [item["number"] for item in page["items"]] == [1]
    assert page["items"][0]["links"][0]["label"] == "section 12"
    assert client.get(REFS, params={"target_type": "section", "target_id": 13}).json()["total"] == 0
