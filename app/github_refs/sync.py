"""The sync job: refresh every tracked ref from GitHub at the lowest request cost, one run at a time.

Per repository, a cursor remembers a moment (`since`) and the ETag of the listing
`GET /repos/{repo}/issues?state=all&sort=updated&since=…`, which returns issues and PRs alike. When
nothing in the repository changed, that listing answers 304 (free against the rate limit) and the whole
repository cost one request, however many refs it holds. Refs that did change are refreshed from the
listing itself (issues) or with one conditional GET of the pull (PRs, for draft/merged/reviewers).
Refs never synced, and repositories without a cursor yet, are fetched one by one, conditionally when an
ETag is stored. A PostgreSQL advisory lock keeps one sync at a time across replicas.

The job commits after each repository, so what it learned survives a later failure; it never deletes a
ref or a link.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import text
from sqlmodel import Session, col, select

from app.core.database import get_engine
from app.core.models import utcnow
from app.core.settings import Settings
from app.github_refs.client import (
    GitHubClient,
    GitHubError,
    GitHubUnavailable,
    RateLimited,
    RefNotFoundOnGitHub,
)
from app.github_refs.models import GitHubRef, GitHubRepoCursor, GitHubSyncRun, RefKind
from app.github_refs.snapshots import RefSnapshot
from app.github_refs.updates import apply_snapshot, mark_not_found, mark_sync_error

logger = logging.getLogger(__name__)

# An arbitrary constant shared by every replica: "the GitHub sync" in pg_locks.
SYNC_LOCK_KEY = 4_212_042_001
ACTOR = "github-sync"
# Changes land in GitHub's listing a little after their updated_at; re-reading one minute back is cheap.
CURSOR_SLACK = timedelta(minutes=1)
# A ref GitHub answered 404 for is asked again once a day (a private repository may become visible).
NOT_FOUND_RECHECK = timedelta(days=1)


@dataclass
class SyncReport:
    """What a sync run did; the CLI prints it, the API returns it, the run row stores it."""

    run_id: int | None
    status: str
    requests: int = 0
    not_modified: int = 0
    refs_checked: int = 0
    refs_changed: int = 0
    events: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    message: str | None = None

    def summary(self) -> str:
        counted = self.requests - self.not_modified
        text_ = (
            f"sync {self.status}: {self.refs_checked} refs checked, {self.refs_changed} changed, "
            f"{len(self.events)} events, {self.requests} GitHub requests ({self.not_modified} answered 304, "
            f"{counted} counted against the rate limit)"
        )
        if self.message:
            text_ += f"; {self.message}"
        return text_


class _Stop(Exception):
    """GitHub is down or the rate limit is spent: stop the whole run."""


def sync_lock_held(*, session: Session) -> bool:
    """Answers whether some connection holds the sync's advisory lock right now."""
    return bool(
        session.execute(
            text(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
                "AND ((classid::bigint << 32) | objid::bigint) = :key)"
            ),
            {"key": SYNC_LOCK_KEY},
        ).scalar()
    )


def run_sync(*, session: Session, client: GitHubClient, trigger: str = "cli") -> SyncReport:
    """Runs one sync under the advisory lock; `session` must stay on one connection (see the CLI)."""
    acquired = session.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": SYNC_LOCK_KEY}).scalar()
    if not acquired:
        run = GitHubSyncRun(
            trigger=trigger, status="skipped", finished_at=utcnow(), message="another sync is running"
        )
        session.add(run)
        session.commit()
        return SyncReport(run_id=run.id, status="skipped", message=run.message)
    try:
        return _SyncJob(session=session, client=client, trigger=trigger).run()
    finally:
        session.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": SYNC_LOCK_KEY})


class _SyncJob:
    def __init__(self, *, session: Session, client: GitHubClient, trigger: str):
        self.session = session
        self.client = client
        self.started_requests = client.stats.requests
        self.started_not_modified = client.stats.not_modified
        self.run_row = GitHubSyncRun(trigger=trigger)
        self.report = SyncReport(run_id=None, status="running")

    def run(self) -> SyncReport:
        session = self.session
        session.add(self.run_row)
        session.commit()
        self.report.run_id = self.run_row.id
        by_repo: dict[str, list[GitHubRef]] = defaultdict(list)
        for ref in session.exec(select(GitHubRef).order_by(GitHubRef.repo, GitHubRef.number)):
            by_repo[ref.repo].append(ref)
        cursors = {
            cursor.repo: cursor
            for cursor in session.exec(
                select(GitHubRepoCursor).where(col(GitHubRepoCursor.repo).in_(list(by_repo)))
            )
        }
        status = "ok"
        for repo, refs in by_repo.items():
            events_before, changed_before = len(self.report.events), self.report.refs_changed
            try:
                self._sync_repo(repo, refs, cursors.get(repo))
            except _Stop as stop:
                # Forget this repository's half-done work (its cursor must not move past unread changes);
                # refs keep their last known state, and the failed run marks the pages stale.
                session.rollback()
                del self.report.events[events_before:]
                self.report.refs_changed = changed_before
                status = "failed"
                self.report.message = str(stop)
                break
            session.commit()
        return self._finish(status)

    def _finish(self, status: str) -> SyncReport:
        report = self.report
        report.status = status
        report.requests = self.client.stats.requests - self.started_requests
        report.not_modified = self.client.stats.not_modified - self.started_not_modified
        run = self.run_row
        run.status = status
        run.finished_at = utcnow()
        run.requests = report.requests
        run.not_modified = report.not_modified
        run.refs_checked = report.refs_checked
        run.refs_changed = report.refs_changed
        run.errors = report.errors[:200]
        run.message = report.message
        self.session.add(run)
        self.session.commit()
        logger.info(report.summary())
        return report

    def _sync_repo(self, repo: str, refs: list[GitHubRef], cursor: GitHubRepoCursor | None) -> None:
        started = utcnow()
        try:
            if cursor is None:
                for ref in refs:
                    self._refresh_one(ref)
                self.session.add(GitHubRepoCursor(repo=repo, since=started - CURSOR_SLACK))
                return
            self._apply_listing(repo, refs, cursor)
            for ref in refs:
                if self._needs_own_request(ref, started):
                    self._refresh_one(ref)
        except RateLimited as exc:
            self.report.errors.append(f"{repo}: {exc}")
            raise _Stop(f"stopped at {repo}: {exc}") from None
        except GitHubUnavailable as exc:
            self.report.errors.append(f"{repo}: {exc}")
            raise _Stop(f"stopped at {repo}: {exc}") from None

    @staticmethod
    def _needs_own_request(ref: GitHubRef, started: datetime) -> bool:
        if ref.last_synced_at is None:
            return True
        if ref.not_found:
            return ref.last_synced_at < started - NOT_FOUND_RECHECK
        # A ref whose last refresh failed (not a 404) is retried, conditionally.
        return ref.last_sync_error is not None

    def _apply_listing(self, repo: str, refs: list[GitHubRef], cursor: GitHubRepoCursor) -> None:
        try:
            listing = self.client.list_updated_since(repo, cursor.since, etag=cursor.listing_etag)
        except (RateLimited, GitHubUnavailable):
            raise
        except GitHubError as exc:
            # A renamed, deleted or forbidden repository: say so and go on with the others. Its refs keep
            # their state; the ones never synced still get their own request (and a 404 if it is gone).
            self.report.errors.append(f"{repo}: {exc}")
            return
        if listing.not_modified:
            self.report.refs_checked += sum(1 for ref in refs if ref.last_synced_at is not None)
            return
        tracked = {ref.number: ref for ref in refs if ref.last_synced_at is not None and not ref.not_found}
        self.report.refs_checked += len(tracked)
        newest = cursor.since
        for snapshot in listing.snapshots:
            if snapshot.updated_at and snapshot.updated_at > newest:
                newest = snapshot.updated_at
            ref = tracked.get(snapshot.number)
            if ref is None or not _is_news(ref, snapshot):
                continue
            if snapshot.kind == RefKind.pull:
                self._refresh_pull(ref, fallback=snapshot)
            else:
                self._apply(ref, snapshot)
        new_since = max(cursor.since, newest - CURSOR_SLACK)
        # The stored ETag belongs to the listing URL with the old `since`.
        cursor.listing_etag = listing.etag if new_since == cursor.since else None
        cursor.since = new_since
        cursor.updated_at = utcnow()
        self.session.add(cursor)

    def _refresh_pull(self, ref: GitHubRef, *, fallback: RefSnapshot) -> None:
        try:
            fetched = self.client.fetch_pull(ref.repo, ref.number, etag=ref.etag)
        except RefNotFoundOnGitHub:
            self._apply(ref, fallback)
            return
        except GitHubError as exc:
            if isinstance(exc, RateLimited | GitHubUnavailable):
                raise
            self._apply(ref, fallback)
            return
        if fetched.not_modified:
            self._apply(ref, fallback)
        else:
            self._apply(ref, fetched.snapshot, etag=fetched.etag, last_modified=fetched.last_modified)

    def _refresh_one(self, ref: GitHubRef) -> None:
        """One ref by itself: conditional GET of the pull or issue (an unknown kind asks the issue first)."""
        self.report.refs_checked += 1
        try:
            if ref.kind == RefKind.pull:
                try:
                    fetched = self.client.fetch_pull(ref.repo, ref.number, etag=ref.etag)
                except RefNotFoundOnGitHub:
                    # A `/pull/N` link to what is an issue (GitHub's web UI redirects those): ask as an issue.
                    fetched = self.client.fetch_issue(ref.repo, ref.number)
            else:
                etag = ref.etag if ref.kind == RefKind.issue else None
                fetched = self.client.fetch_issue(ref.repo, ref.number, etag=etag)
                if fetched.snapshot is not None and fetched.snapshot.kind == RefKind.pull:
                    fetched = self.client.fetch_pull(ref.repo, ref.number)
        except RefNotFoundOnGitHub as exc:
            mark_not_found(session=self.session, ref=ref, message=str(exc))
            self.report.errors.append(f"{ref.short_name}: not found on GitHub")
            return
        except (RateLimited, GitHubUnavailable):
            raise
        except GitHubError as exc:
            mark_sync_error(session=self.session, ref=ref, message=str(exc))
            self.report.errors.append(f"{ref.short_name}: {exc}")
            return
        if fetched.not_modified:
            ref.last_synced_at = utcnow()
            ref.last_sync_error = None
            self.session.add(ref)
            return
        assert fetched.snapshot is not None
        self._apply(ref, fetched.snapshot, etag=fetched.etag, last_modified=fetched.last_modified)

    def _apply(
        self,
        ref: GitHubRef,
        snapshot: RefSnapshot,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> None:
        # Re-read the row under a lock: a webhook may have stored something newer since the run began.
        self.session.refresh(ref, with_for_update=True)
        before = ref.gh_updated_at
        kinds = apply_snapshot(
            session=self.session,
            ref=ref,
            snapshot=snapshot,
            actor=ACTOR,
            etag=etag,
            last_modified=last_modified,
        )
        self.report.events.extend(f"{kind} {ref.short_name}" for kind in kinds)
        if before != ref.gh_updated_at:
            self.report.refs_changed += 1


def _is_news(ref: GitHubRef, snapshot: RefSnapshot) -> bool:
    """A listed item is news when it is newer than what we store, or when our last refresh failed."""
    if ref.last_sync_error:
        return True
    return ref.gh_updated_at is None or (
        snapshot.updated_at is not None and snapshot.updated_at > ref.gh_updated_at
    )


def sync_once(*, settings: Settings, trigger: str, client: GitHubClient | None = None) -> SyncReport:
    """One sync on its own connection (the advisory lock lives on a connection, so the session keeps one)."""
    engine = get_engine(settings.database_url or "")
    client = client or GitHubClient.from_settings(settings)
    try:
        with engine.connect() as connection, Session(bind=connection, expire_on_commit=False) as session:
            return run_sync(session=session, client=client, trigger=trigger)
    finally:
        client.close()
