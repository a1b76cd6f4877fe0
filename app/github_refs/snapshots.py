"""Plain data read from GitHub's REST shapes (issues, pulls, webhook payloads); pure, no network.

Both the client (REST answers) and the webhook handler (event payloads) turn GitHub's JSON into a
`RefSnapshot`, so the sync and the webhooks apply exactly the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.github_refs.models import RefKind


@dataclass(frozen=True)
class RefSnapshot:
    """The state of one PR or issue on GitHub at `updated_at`."""

    repo: str
    number: int
    kind: RefKind
    title: str
    state: str
    draft: bool = False
    merged: bool = False
    merged_at: datetime | None = None
    labels: list[str] = field(default_factory=list)
    author: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    closed_at: datetime | None = None
    html_url: str | None = None
    # Only the pulls endpoint and pull_request events say whether reviewers were requested.
    review_requested: bool | None = None
    # True when this came from the issues endpoint for a PR: draft/merged may be missing there.
    partial_pull: bool = False


def parse_time(value: str | None) -> datetime | None:
    """Reads GitHub's ISO 8601 timestamps ("2026-11-20T10:00:00Z")."""
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def repo_of(payload: dict[str, Any]) -> str:
    """Finds `owner/name` in a pull, issue or webhook payload."""
    if base := payload.get("base"):
        return base["repo"]["full_name"]
    url = payload.get("repository_url") or payload.get("url") or ""
    parts = url.split("/repos/", 1)
    if len(parts) == 2:
        owner, name = parts[1].split("/")[:2]
        return f"{owner}/{name}"
    raise ValueError("payload names no repository")


def _labels(payload: dict[str, Any]) -> list[str]:
    return sorted(
        label["name"] if isinstance(label, dict) else str(label) for label in payload.get("labels") or []
    )


def snapshot_from_pull(payload: dict[str, Any], *, repo: str | None = None) -> RefSnapshot:
    """Reads a pulls-endpoint object (or a `pull_request` webhook's `pull_request`)."""
    reviewers = (payload.get("requested_reviewers") or []) + (payload.get("requested_teams") or [])
    merged_at = parse_time(payload.get("merged_at"))
    return RefSnapshot(
        repo=repo or repo_of(payload),
        number=int(payload["number"]),
        kind=RefKind.pull,
        title=payload.get("title") or "",
        state=payload.get("state") or "open",
        draft=bool(payload.get("draft")),
        merged=bool(payload.get("merged")) or merged_at is not None,
        merged_at=merged_at,
        labels=_labels(payload),
        author=(payload.get("user") or {}).get("login"),
        created_at=parse_time(payload.get("created_at")),
        updated_at=parse_time(payload.get("updated_at")),
        closed_at=parse_time(payload.get("closed_at")),
        html_url=payload.get("html_url"),
        review_requested=bool(reviewers),
    )


def snapshot_from_issue(payload: dict[str, Any], *, repo: str | None = None) -> RefSnapshot:
    """Reads an issues-endpoint object; for a PR it carries `pull_request` (with `merged_at`) and `draft`."""
    pull = payload.get("pull_request")
    merged_at = parse_time((pull or {}).get("merged_at"))
    return RefSnapshot(
        repo=repo or repo_of(payload),
        number=int(payload["number"]),
        kind=RefKind.pull if pull is not None else RefKind.issue,
        title=payload.get("title") or "",
        state=payload.get("state") or "open",
        draft=bool(payload.get("draft")),
        merged=merged_at is not None,
        merged_at=merged_at,
        labels=_labels(payload),
        author=(payload.get("user") or {}).get("login"),
        created_at=parse_time(payload.get("created_at")),
        updated_at=parse_time(payload.get("updated_at")),
        closed_at=parse_time(payload.get("closed_at")),
        html_url=payload.get("html_url"),
        partial_pull=pull is not None and ("draft" not in payload or "merged_at" not in pull),
    )
