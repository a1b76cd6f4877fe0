"""The webhook receiver: signatures, size and JSON checks, once-only deliveries, events for tracked refs."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.audit.service import list_events
from app.core.database import get_app_settings
from app.github_refs.models import GitHubRef, GitHubWebhookDelivery, LinkTarget, RefKind
from app.github_refs.service import RefAddress, get_or_create_ref, link_ref
from app.github_refs.webhooks import signature_for
from tests.conftest import make_settings

SECRET = "It's a Secret to Everybody"
URL = "/api/v1/github/webhook"


def test_signature_matches_githubs_published_test_vector():
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert signature_for(secret=SECRET, body=b"Hello, World!") == expected


@pytest.fixture
def hook_client(app, database_url: str) -> Iterator[TestClient]:
    settings = make_settings(database_url, GITHUB_WEBHOOK_SECRET=SECRET, WEBHOOK_MAX_BYTES=2000)
    app.state.settings = settings
    app.dependency_overrides[get_app_settings] = lambda: settings
    with TestClient(app) as client:
        yield client


def deliver(client: TestClient, event: str, payload: object, *, delivery: str = "d-1", secret: str = SECRET):
    body = json.dumps(payload).encode() if not isinstance(payload, bytes) else payload
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": signature_for(secret=secret, body=body),
        "Content-Type": "application/json",
    }
    return client.post(URL, content=body, headers=headers)


def pull_payload(action: str, number: int = 5, **pull: object) -> dict:
    data = {
        "number": number,
        "title": "Fix MoE",
        "state": "open",
        "draft": False,
        "merged": False,
        "merged_at": None,
        "labels": [],
        "user": {"login": "alice"},
        "created_at": "2026-11-16T10:00:00Z",
        "updated_at": "2026-11-17T10:00:00Z",
        "closed_at": None,
        "html_url": f"https://github.com/vllm-project/vllm/pull/{number}",
        "requested_reviewers": [],
        "base": {"repo": {"full_name": "vllm-project/vllm"}},
    }
    data.update(pull)
    return {
        "action": action,
        "number": number,
        "pull_request": data,
        "repository": {"full_name": "vllm-project/vllm"},
    }


def tracked(session: Session, number: int = 5) -> GitHubRef:
    ref = get_or_create_ref(session=session, address=RefAddress("vllm-project/vllm", number, RefKind.pull))
    session.flush()
    return ref


def test_a_wrong_or_missing_signature_is_401_and_stores_nothing(hook_client: TestClient, session: Session):
    tracked(session)
    wrong = deliver(hook_client, "pull_request", pull_payload("closed"), secret="not the secret")
    body = json.dumps(pull_payload("closed")).encode()
    missing = hook_client.post(
        URL, content=body, headers={"X-GitHub-Event": "ping", "X-GitHub-Delivery": "x"}
    )
    assert wrong.status_code == 401 and missing.status_code == 401
    assert wrong.json()["error"]["field"] == "X-Hub-Signature-256"
    assert session.exec(select(GitHubWebhookDelivery)).all() == []


def test_webhooks_are_refused_while_no_secret_is_configured(client: TestClient):
    response = client.post(URL, content=b"{}", headers={"X-GitHub-Event": "ping", "X-GitHub-Delivery": "1"})
    assert response.status_code == 503
    assert "GITHUB_WEBHOOK_SECRET" in response.json()["error"]["message"]


def test_oversized_and_malformed_payloads(hook_client: TestClient):
    assert deliver(hook_client, "ping", b"x" * 2001).status_code == 413
    malformed = deliver(hook_client, "ping", b"{not json")
    assert malformed.status_code == 400 and malformed.json()["error"]["field"] == "body"


def test_ping_and_other_events(hook_client: TestClient):
    assert deliver(hook_client, "ping", {"zen": "Keep it logically awesome."}).json()["status"] == "pong"
    other = deliver(hook_client, "push", {"ref": "refs/heads/main"}, delivery="d-2")
    assert other.status_code == 202 and other.json()["status"] == "ignored"


def test_pull_request_events_update_the_tracked_ref_and_record_transitions(
    hook_client: TestClient, session: Session
):
    ref = tracked(session)
    assert (
        deliver(hook_client, "pull_request", pull_payload("opened", draft=True), delivery="a").status_code
        == 200
    )
    assert ref.display_state == "draft"
    ready = pull_payload(
        "ready_for_review", updated_at="2026-11-18T10:00:00Z", requested_reviewers=[{"login": "b"}]
    )
    deliver(hook_client, "pull_request", ready, delivery="b")
    assert ref.display_state == "in_review"
    merged = pull_payload(
        "closed",
        state="closed",
        merged=True,
        merged_at="2026-11-19T09:00:00Z",
        closed_at="2026-11-19T09:00:00Z",
        updated_at="2026-11-19T09:00:01Z",
    )
    response = deliver(hook_client, "pull_request", merged, delivery="c")
    assert response.status_code == 200 and "ref.merged" in response.json()["detail"]
    events = list_events(session=session, subject_type="ref", subject_ids=[ref.id])
    assert [event.kind for event in events] == ["ref.opened", "ref.ready_for_review", "ref.merged"]
    assert events[-1].actor == "github-webhook"
    assert events[-1].occurred_at.isoformat() == "2026-11-19T09:00:00+00:00"


def test_a_redelivery_is_processed_once(hook_client: TestClient, session: Session):
    ref = tracked(session)
    closed = pull_payload("closed", state="closed", closed_at="2026-11-18T00:00:00Z")
    deliver(hook_client, "pull_request", pull_payload("opened"), delivery="first")
    assert deliver(hook_client, "pull_request", closed, delivery="same").status_code == 200
    again = deliver(hook_client, "pull_request", closed, delivery="same")
    assert again.json()["status"] == "duplicate"
    assert [e.kind for e in list_events(session=session, subject_ids=[ref.id], subject_type="ref")].count(
        "ref.closed"
    ) == 1


def test_an_older_delivery_arriving_late_does_not_undo_a_newer_state(
    hook_client: TestClient, session: Session
):
    ref = tracked(session)
    deliver(
        hook_client, "pull_request", pull_payload("opened", updated_at="2026-11-19T00:00:00Z"), delivery="new"
    )
    late = pull_payload("converted_to_draft", draft=True, updated_at="2026-11-18T00:00:00Z")
    deliver(hook_client, "pull_request", late, delivery="old")
    assert ref.display_state == "open"


def test_untracked_refs_are_ignored(hook_client: TestClient, session: Session):
    response = deliver(hook_client, "pull_request", pull_payload("opened", number=77))
    assert response.status_code == 202 and "not tracked" in response.json()["detail"]
    assert session.exec(select(GitHubRef)).all() == []


def test_issue_events_and_deletion_keep_the_links(hook_client: TestClient, session: Session):
    ref = get_or_create_ref(session=session, address=RefAddress("vllm-project/vllm", 9))
    session.flush()
    link_ref(session=session, ref=ref, target_type=LinkTarget.rule, target_id=4, audit=False)
    issue = {
        "number": 9,
        "title": "cutedsl fails on GB200",
        "state": "open",
        "labels": [{"name": "bug"}],
        "user": {"login": "carol"},
        "created_at": "2026-11-16T10:00:00Z",
        "updated_at": "2026-11-16T10:00:00Z",
        "closed_at": None,
        "html_url": "https://github.com/vllm-project/vllm/issues/9",
    }
    repo = {"full_name": "vllm-project/vllm"}
    deliver(hook_client, "issues", {"action": "labeled", "issue": issue, "repository": repo}, delivery="i1")
    assert (ref.kind, ref.labels, ref.display_state) == ("issue", ["bug"], "open")
    deleted = deliver(
        hook_client, "issues", {"action": "deleted", "issue": issue, "repository": repo}, delivery="i2"
    )
    assert deleted.status_code == 200
    assert ref.not_found and ref.display_state == "not_found"
    assert session.get(GitHubRef, ref.id) is not None


def test_a_payload_without_its_subject_is_400(hook_client: TestClient):
    response = deliver(hook_client, "pull_request", {"action": "opened"})
    assert response.status_code == 400
