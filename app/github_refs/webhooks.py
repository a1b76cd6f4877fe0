"""GitHub webhooks: signature check, once-only deliveries, `pull_request` and `issues` events."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy.dialects.postgresql import insert
from sqlmodel import Session, select

from app.core.errors import BadRequest, Unauthorized
from app.github_refs.models import GitHubRef, GitHubWebhookDelivery
from app.github_refs.snapshots import snapshot_from_issue, snapshot_from_pull
from app.github_refs.updates import apply_snapshot, mark_not_found

ACTOR = "github-webhook"
PULL_REQUEST_ACTIONS = {
    "opened",
    "edited",
    "closed",
    "reopened",
    "converted_to_draft",
    "ready_for_review",
    "labeled",
    "unlabeled",
    "synchronize",
    # Not required, but they carry the reviewers that make a PR "in review".
    "review_requested",
    "review_request_removed",
}
ISSUE_ACTIONS = {"opened", "edited", "closed", "reopened", "labeled", "unlabeled", "deleted"}


@dataclass(frozen=True)
class WebhookOutcome:
    status_code: int
    status: str
    detail: str

    def body(self) -> dict[str, str]:
        return {"status": self.status, "detail": self.detail}


def signature_for(*, secret: str, body: bytes) -> str:
    """`sha256=` + HMAC-SHA256 of the raw body, as GitHub sends in `X-Hub-Signature-256`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify_signature(*, secret: str, body: bytes, header: str | None) -> None:
    """Raises Unauthorized unless `header` is the body's signature (constant-time comparison)."""
    if not header:
        raise Unauthorized("missing X-Hub-Signature-256 header", field="X-Hub-Signature-256")
    if not hmac.compare_digest(signature_for(secret=secret, body=body), header.strip()):
        raise Unauthorized("X-Hub-Signature-256 does not match the body", field="X-Hub-Signature-256")


def parse_payload(body: bytes) -> dict[str, Any]:
    """Reads the JSON body; malformed JSON or a non-object is a 400."""
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadRequest(f"the webhook body is not valid JSON ({exc})", field="body") from None
    if not isinstance(payload, dict):
        raise BadRequest("the webhook body must be a JSON object", field="body")
    return payload


def handle_delivery(
    *, session: Session, event: str, delivery_id: str, payload: dict[str, Any]
) -> WebhookOutcome:
    """Processes one verified delivery once; a redelivered id changes nothing."""
    action = payload.get("action") if isinstance(payload.get("action"), str) else None
    repo, number = _subject(event, payload)
    inserted = session.execute(
        insert(GitHubWebhookDelivery)
        .values(
            delivery_id=delivery_id, event=event, action=action, repo=repo, number=number, outcome="received"
        )
        .on_conflict_do_nothing(index_elements=["delivery_id"])
        .returning(GitHubWebhookDelivery.delivery_id)
    ).first()
    if inserted is None:
        return WebhookOutcome(200, "duplicate", f"delivery {delivery_id} was already processed")
    outcome = _process(session=session, event=event, action=action, repo=repo, number=number, payload=payload)
    delivery = session.get(GitHubWebhookDelivery, delivery_id)
    if delivery is not None:
        delivery.outcome = f"{outcome.status}: {outcome.detail}"[:200]
        session.add(delivery)
    return outcome


def _subject(event: str, payload: dict[str, Any]) -> tuple[str | None, int | None]:
    if event not in ("pull_request", "issues"):
        return None, None
    item = payload.get("pull_request" if event == "pull_request" else "issue")
    repo = (payload.get("repository") or {}).get("full_name")
    if not isinstance(item, dict) or not isinstance(item.get("number"), int) or not isinstance(repo, str):
        key = "pull_request" if event == "pull_request" else "issue"
        raise BadRequest(f"a {event} payload needs {key}.number and repository.full_name", field="body")
    return repo, item["number"]


def _process(
    *,
    session: Session,
    event: str,
    action: str | None,
    repo: str | None,
    number: int | None,
    payload: dict[str, Any],
) -> WebhookOutcome:
    if event == "ping":
        return WebhookOutcome(200, "pong", str(payload.get("zen") or "webhook configured"))
    if event not in ("pull_request", "issues"):
        return WebhookOutcome(202, "ignored", f"event {event!r} is not used")
    handled = PULL_REQUEST_ACTIONS if event == "pull_request" else ISSUE_ACTIONS
    if action not in handled:
        return WebhookOutcome(202, "ignored", f"action {action!r} of {event} is not used")
    ref = session.exec(
        select(GitHubRef).where(GitHubRef.repo == repo, GitHubRef.number == number).with_for_update()
    ).first()
    if ref is None:
        return WebhookOutcome(202, "ignored", f"{repo}#{number} is not tracked")
    if event == "issues" and action == "deleted":
        mark_not_found(session=session, ref=ref, message="deleted on GitHub (issues webhook)")
        return WebhookOutcome(200, "processed", f"{ref.short_name} marked deleted; its links stay")
    if event == "pull_request":
        snapshot = snapshot_from_pull(payload["pull_request"], repo=repo)
    else:
        snapshot = snapshot_from_issue(payload["issue"], repo=repo)
    kinds = apply_snapshot(session=session, ref=ref, snapshot=snapshot, actor=ACTOR)
    detail = f"{ref.short_name} {action}" + (f" ({', '.join(kinds)})" if kinds else "")
    return WebhookOutcome(200, "processed", detail)
