"""The review's JSON API: a week's review, its Markdown export, and the sign-off."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from app.auth.deps import Editor, Reader
from app.core.database import SessionDep, SettingsDep
from app.core.models import utcnow
from app.review.markdown import render_review_markdown
from app.review.models import SignoffCreate, SignoffPublic
from app.review.schema import WeekReview
from app.review.service import WeekSummary, build_review, list_weeks, sign_off
from app.review.weeks import parse_reviewable_week

router = APIRouter(prefix="/review", tags=["review"])


@router.get("")
def review_weeks(session: SessionDep, principal: Reader) -> list[WeekSummary]:
    """The current week and the weeks before it, with their event counts and sign-offs."""
    return list_weeks(session=session, now=utcnow())


@router.get("/{week}")
def review_week(week: str, session: SessionDep, settings: SettingsDep, principal: Reader) -> WeekReview:
    """The review of an ISO week (`2026-W47`): computed from the change events before its end."""
    now = utcnow()
    iso_week = parse_reviewable_week(week, now=now)
    return build_review(session=session, week=iso_week, now=now, stale_after_days=settings.stale_after_days)


@router.get("/{week}/export.md", response_class=PlainTextResponse)
def export_week(
    week: str, request: Request, session: SessionDep, settings: SettingsDep, principal: Reader
) -> PlainTextResponse:
    """The review as Markdown for a GitHub issue or chat; links point at this server."""
    now = utcnow()
    iso_week = parse_reviewable_week(week, now=now)
    review = build_review(session=session, week=iso_week, now=now, stale_after_days=settings.stale_after_days)
    text = render_review_markdown(review, base_url=str(request.base_url))
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


@router.post("/{week}/signoff", status_code=201)
def sign_off_week(week: str, body: SignoffCreate, session: SessionDep, principal: Editor) -> SignoffPublic:
    """Signs the week off with notes (scope `edit`); a week is signed off once (409 names who did)."""
    iso_week = parse_reviewable_week(week, now=utcnow())
    signoff = sign_off(session=session, week=iso_week, actor=principal.name, notes=body.notes)
    session.commit()
    return SignoffPublic.model_validate(signoff, from_attributes=True)
