"""Reading tracked refs for pages and the API: filters that run in SQL, link lists, sync health."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, func, or_, text, true
from sqlmodel import Session, col, select

from app.core.models import utcnow
from app.github_refs.models import (
    DisplayState,
    GitHubRef,
    GitHubRefLink,
    GitHubSyncRun,
    LinkTarget,
    RefKind,
)


def _display_state_condition(state: DisplayState) -> ColumnElement[bool]:
    """The SQL twin of `GitHubRef.display_state`, so filters and pagination happen in the database."""
    is_open = and_(GitHubRef.state == "open", ~col(GitHubRef.not_found), ~col(GitHubRef.merged))
    reviewed = and_(GitHubRef.kind == RefKind.pull.value, col(GitHubRef.review_requested))
    conditions = {
        DisplayState.not_found: col(GitHubRef.not_found),
        DisplayState.merged: and_(col(GitHubRef.merged), ~col(GitHubRef.not_found)),
        DisplayState.draft: and_(is_open, col(GitHubRef.draft)),
        DisplayState.in_review: and_(is_open, ~col(GitHubRef.draft), reviewed),
        DisplayState.open: and_(is_open, ~col(GitHubRef.draft), ~reviewed),
        DisplayState.closed: and_(
            GitHubRef.state == "closed", ~col(GitHubRef.merged), ~col(GitHubRef.not_found)
        ),
        DisplayState.unknown: and_(col(GitHubRef.state).is_(None), ~col(GitHubRef.not_found)),
    }
    return conditions[state]


def stale_condition(*, stale_after_days: int, now: datetime | None = None) -> ColumnElement[bool]:
    """Open refs not updated on GitHub for `stale_after_days`."""
    cutoff = (now or utcnow()) - timedelta(days=stale_after_days)
    return and_(
        GitHubRef.state == "open",
        ~col(GitHubRef.not_found),
        ~col(GitHubRef.merged),
        col(GitHubRef.gh_updated_at) < cutoff,
    )


def list_refs(
    *,
    session: Session,
    states: Sequence[DisplayState] = (),
    repo: str | None = None,
    label: str | None = None,
    stale: bool | None = None,
    stale_after_days: int = 14,
    target_type: LinkTarget | None = None,
    target_id: int | None = None,
    search: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> tuple[list[GitHubRef], int]:
    """Lists tracked refs filtered as asked, most recently updated on GitHub first, and the total count."""
    conditions: list[ColumnElement[bool]] = []
    if states:
        conditions.append(or_(*(_display_state_condition(state) for state in states)))
    if repo:
        conditions.append(GitHubRef.repo == repo)
    if label:
        conditions.append(col(GitHubRef.labels).contains([label]))
    if stale is not None:
        condition = stale_condition(stale_after_days=stale_after_days)
        conditions.append(condition if stale else ~condition)
    if search:
        pattern = f"%{search.strip()}%"
        conditions.append(or_(col(GitHubRef.title).ilike(pattern), col(GitHubRef.repo).ilike(pattern)))
    if target_type is not None:
        linked = select(GitHubRefLink.ref_id).where(GitHubRefLink.target_type == target_type.value)
        if target_id is not None:
            linked = linked.where(GitHubRefLink.target_id == target_id)
        conditions.append(col(GitHubRef.id).in_(linked))
    where = and_(true(), *conditions)
    total = session.exec(select(func.count()).select_from(GitHubRef).where(where)).one()
    rows = session.exec(
        select(GitHubRef)
        .where(where)
        .order_by(col(GitHubRef.gh_updated_at).desc().nulls_first(), col(GitHubRef.id).desc())
        .limit(limit)
        .offset(offset)
    )
    return list(rows), total


def links_for_refs(*, session: Session, ref_ids: Iterable[int]) -> dict[int, list[GitHubRefLink]]:
    """Returns each ref's links, in one query."""
    ids = list(set(ref_ids))
    result: dict[int, list[GitHubRefLink]] = defaultdict(list)
    if not ids:
        return result
    rows = session.exec(
        select(GitHubRefLink)
        .where(col(GitHubRefLink.ref_id).in_(ids))
        .order_by(GitHubRefLink.target_type, GitHubRefLink.target_id)
    )
    for link in rows:
        result[link.ref_id].append(link)
    return result


def known_repos_and_labels(*, session: Session) -> tuple[list[str], list[str]]:
    """The repositories and labels among tracked refs, for filter menus."""
    repos = list(session.exec(select(GitHubRef.repo).distinct().order_by(GitHubRef.repo)))
    labels = session.execute(
        text("SELECT DISTINCT jsonb_array_elements_text(labels) AS label FROM github_ref ORDER BY label")
    ).scalars()
    return repos, list(labels)


@dataclass(frozen=True)
class SyncHealth:
    """When GitHub was last synced successfully, the last attempt, and whether pages should say stale."""

    last_success: GitHubSyncRun | None
    last_run: GitHubSyncRun | None
    stale: bool


def sync_health(*, session: Session, interval_seconds: int, now: datetime | None = None) -> SyncHealth:
    """Pages are stale when the last run failed or no run succeeded within three sync intervals."""
    now = now or utcnow()
    finished = col(GitHubSyncRun.finished_at).is_not(None)
    last_run = session.exec(
        select(GitHubSyncRun)
        .where(finished, GitHubSyncRun.status != "skipped")
        .order_by(col(GitHubSyncRun.started_at).desc())
        .limit(1)
    ).first()
    last_success = session.exec(
        select(GitHubSyncRun)
        .where(GitHubSyncRun.status == "ok")
        .order_by(col(GitHubSyncRun.started_at).desc())
        .limit(1)
    ).first()
    too_old = last_success is None or (
        last_success.finished_at is not None
        and last_success.finished_at < now - timedelta(seconds=3 * interval_seconds)
    )
    failed = last_run is not None and last_run.status == "failed"
    return SyncHealth(last_success=last_success, last_run=last_run, stale=too_old or failed)
