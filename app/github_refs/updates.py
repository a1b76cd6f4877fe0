"""Applying GitHub's state to a tracked ref, and recording each state transition as a change event.

The sync job and the webhooks both end here, so a transition seen by both is recorded once: the second
sees no difference from the stored state.

Rule for a ref's first snapshot (it was never synced): its current state is stored without inventing
transitions we did not observe. Only what GitHub's own timestamps prove is recorded: `ref.opened` at
`created_at`, plus `ref.merged` at `merged_at` or `ref.closed` at `closed_at` when it is already
merged or closed. Draft/ready and reopen events are recorded only when a later snapshot differs from the
stored one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from app.audit.service import record_event
from app.core.models import utcnow
from app.github_refs.models import GitHubRef, RefKind
from app.github_refs.snapshots import RefSnapshot


@dataclass(frozen=True)
class Transition:
    kind: str
    occurred_at: datetime | None


@dataclass(frozen=True)
class StoredState:
    state: str | None
    draft: bool
    merged: bool


def transitions(old: StoredState, new: RefSnapshot) -> list[Transition]:
    """Lists the events between a stored state and a snapshot, each at GitHub's own time when known."""
    moment = new.updated_at
    if old.state is None:
        found = [Transition("ref.opened", new.created_at)]
        if new.merged:
            found.append(Transition("ref.merged", new.merged_at or new.closed_at or moment))
        elif new.state == "closed":
            found.append(Transition("ref.closed", new.closed_at or moment))
        return found
    if old.merged:
        return []
    found = []
    if new.merged:
        found.append(Transition("ref.merged", new.merged_at or new.closed_at or moment))
    elif old.state == "open" and new.state == "closed":
        found.append(Transition("ref.closed", new.closed_at or moment))
    elif old.state == "closed" and new.state == "open":
        found.append(Transition("ref.reopened", moment))
    if new.state == "open" and old.draft != new.draft:
        found.append(Transition("ref.converted_to_draft" if new.draft else "ref.ready_for_review", moment))
    return found


def apply_snapshot(
    *,
    session: Session,
    ref: GitHubRef,
    snapshot: RefSnapshot,
    actor: str,
    etag: str | None = None,
    last_modified: str | None = None,
) -> list[str]:
    """Stores `snapshot` on `ref`, records its transitions, and returns their kinds; older news is ignored."""
    now = utcnow()
    known = ref.state is not None and not ref.not_found and ref.gh_updated_at is not None
    if known and snapshot.updated_at and snapshot.updated_at < ref.gh_updated_at:
        # A late webhook delivery or a lagging listing: what we store is newer.
        ref.last_synced_at = now
        session.add(ref)
        return []
    draft, merged = snapshot.draft, snapshot.merged
    if snapshot.partial_pull:
        # The issues endpoint of an older GitHub did not say; keep what the pulls endpoint told us.
        draft, merged = ref.draft, ref.merged or snapshot.merged
    new = RefSnapshot(**{**snapshot.__dict__, "draft": draft, "merged": merged})
    found = transitions(StoredState(ref.state, ref.draft, ref.merged), new)
    old_display = ref.display_state if ref.state is not None else None
    ref.kind = snapshot.kind.value if snapshot.kind != RefKind.unknown else ref.kind
    ref.title = snapshot.title
    ref.state = snapshot.state
    ref.draft = draft
    ref.merged = merged
    ref.merged_at = (snapshot.merged_at or ref.merged_at) if merged else None
    if snapshot.review_requested is not None:
        ref.review_requested = snapshot.review_requested
    ref.labels = list(snapshot.labels)
    ref.author = snapshot.author
    ref.gh_created_at = snapshot.created_at
    ref.gh_updated_at = snapshot.updated_at
    ref.gh_closed_at = snapshot.closed_at
    ref.html_url = snapshot.html_url or ref.html_url
    if etag is not None:
        ref.etag = etag
        ref.last_modified = last_modified
    ref.last_synced_at = now
    ref.last_sync_error = None
    ref.not_found = False
    session.add(ref)
    for transition in found:
        record_event(
            session=session,
            actor=actor,
            kind=transition.kind,
            subject_type="ref",
            subject_id=ref.id,
            old_value=old_display,
            new_value=ref.display_state,
            context={
                "repo": ref.repo,
                "number": ref.number,
                "title": ref.title,
                "kind": ref.kind,
                # The weekly review judges staleness in past weeks from this, not from today's updated_at.
                "updated_at": ref.gh_updated_at.isoformat() if ref.gh_updated_at else None,
            },
            occurred_at=transition.occurred_at or now,
        )
    return [transition.kind for transition in found]


def mark_not_found(*, session: Session, ref: GitHubRef, message: str) -> None:
    """Marks a ref GitHub answered 404/410 for; the ref and its links stay."""
    ref.not_found = True
    ref.last_sync_error = message
    ref.last_synced_at = utcnow()
    session.add(ref)


def mark_sync_error(*, session: Session, ref: GitHubRef, message: str) -> None:
    """Notes why a ref could not be refreshed; its last known state stays as it was."""
    ref.last_sync_error = message
    session.add(ref)
