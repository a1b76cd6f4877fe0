"""Reading a week's inputs from the database, composing its review, and signing it off."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.audit.models import ChangeEvent
from app.audit.service import record_event
from app.core.errors import Conflict
from app.core.templating import format_time
from app.github_refs.models import GitHubRef, GitHubRefLink
from app.review.compose import compose_review
from app.review.models import ReviewSignoff
from app.review.schema import SignoffInfo, WeekReview
from app.review.weeks import IsoWeek, week_of

WEEKS_LISTED = 26


@dataclass
class WeekSummary:
    """One line of the list of weeks: how much happened and whether it is signed off."""

    week: str
    start: datetime
    event_count: int
    signoff: SignoffInfo | None


def get_signoff(*, session: Session, week: IsoWeek) -> ReviewSignoff | None:
    """Returns the week's sign-off, if it has one."""
    return session.exec(select(ReviewSignoff).where(ReviewSignoff.week == week.label)).first()


def signoff_info(signoff: ReviewSignoff | None) -> SignoffInfo | None:
    if signoff is None:
        return None
    return SignoffInfo(
        week=signoff.week, actor=signoff.actor, signed_at=signoff.signed_at, notes=signoff.notes
    )


def build_review(*, session: Session, week: IsoWeek, now: datetime, stale_after_days: int) -> WeekReview:
    """Composes the review of `week` from every event before its end (or now) and the tracked refs."""
    as_of = min(week.end, now)
    # Timestamps come back in UTC whatever the server's zone, so the review reads the same everywhere.
    session.execute(text("SET LOCAL TIME ZONE 'UTC'"))
    # Plain rows, not ORM objects: a year of events is read several times faster, and reading a review
    # leaves nothing in the session that a later commit could flush.
    table = ChangeEvent.__table__
    events = session.execute(
        select(*table.columns).where(table.c.occurred_at < as_of).order_by(table.c.occurred_at, table.c.id)
    )
    refs = list(session.exec(select(GitHubRef).order_by(GitHubRef.repo, GitHubRef.number)))
    links = list(session.exec(select(GitHubRefLink).order_by(GitHubRefLink.id)))
    return compose_review(
        week=week,
        now=now,
        events=events,
        refs=refs,
        links=links,
        stale_after_days=stale_after_days,
        signoff=signoff_info(get_signoff(session=session, week=week)),
    )


def sign_off(*, session: Session, week: IsoWeek, actor: str, notes: str) -> ReviewSignoff:
    """Signs `week` off once; a second sign-off is a conflict naming the first."""
    existing = get_signoff(session=session, week=week)
    if existing is None:
        signoff = ReviewSignoff(week=week.label, actor=actor, notes=notes)
        try:
            # A savepoint: losing a race on the unique week leaves the outer transaction usable.
            with session.begin_nested():
                session.add(signoff)
                session.flush()
        except IntegrityError:
            existing = get_signoff(session=session, week=week)
        else:
            record_event(
                session=session,
                actor=actor,
                kind="review.signed_off",
                subject_type="review",
                subject_id=signoff.id,
                new_value=notes,
                context={"week": week.label},
            )
            session.flush()
            return signoff
    assert existing is not None
    raise Conflict(
        f"{week.label} was already signed off by {existing.actor} at {format_time(existing.signed_at)}",
        field="week",
        details={"signed_off_by": existing.actor, "signed_at": existing.signed_at.isoformat()},
    )


def list_weeks(*, session: Session, now: datetime, limit: int = WEEKS_LISTED) -> list[WeekSummary]:
    """The current week and the weeks before it back to the first event (at most `limit`), newest first."""
    week_start = func.date_trunc("week", func.timezone("UTC", ChangeEvent.occurred_at))
    counts = {
        start.date(): count
        for start, count in session.exec(
            select(week_start, func.count()).where(ChangeEvent.occurred_at < now).group_by(week_start)
        )
    }
    signoffs = {signoff.week: signoff for signoff in session.exec(select(ReviewSignoff))}
    first = min(counts) if counts else now.date()
    weeks: list[WeekSummary] = []
    week = week_of(now)
    while len(weeks) < limit and week.start.date() >= week_of(first).start.date():
        weeks.append(
            WeekSummary(
                week=week.label,
                start=week.start,
                event_count=counts.get(week.start.date(), 0),
                signoff=signoff_info(signoffs.get(week.label)),
            )
        )
        week = week.previous()
    return weeks
