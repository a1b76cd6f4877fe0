"""The review pages: `/review` (the current week so far) and `/review/{week}`, with the sign-off form."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError

from app.auth.deps import OptionalPrincipal, Reader
from app.auth.models import Scope
from app.auth.service import Principal
from app.core.database import SessionDep, SettingsDep
from app.core.errors import DomainError, Forbidden, InvalidInput
from app.core.models import utcnow
from app.core.templating import templates
from app.review.markdown import render_review_markdown
from app.review.models import NOTES_MAX_CHARS, SignoffCreate
from app.review.schema import ATTENTION_LABELS, REF_ACTIONS
from app.review.service import build_review, get_signoff, list_weeks, sign_off, signoff_info
from app.review.weeks import IsoWeek, parse_reviewable_week, week_of

router = APIRouter(tags=["pages"])


def _page(
    request: Request,
    *,
    session: SessionDep,
    settings: SettingsDep,
    principal: Principal | None,
    week: IsoWeek,
) -> Response:
    now = utcnow()
    review = build_review(session=session, week=week, now=now, stale_after_days=settings.stale_after_days)
    context: dict[str, Any] = {
        "principal": principal,
        "review": review,
        "weeks": list_weeks(session=session, now=now),
        "current_week": week_of(now).label,
        "markdown": render_review_markdown(review, base_url=str(request.base_url)),
        "attention_labels": ATTENTION_LABELS,
        "ref_actions": REF_ACTIONS,
        **_signoff_context(principal, review.signoff, week.label),
    }
    return templates.TemplateResponse(request, "review/week.html", context)


def _signoff_context(principal: Principal | None, signoff: Any, week: str, error: str | None = None) -> dict:
    return {
        "signoff": signoff,
        "signoff_week": week,
        "can_sign_off": principal is not None and principal.has_scope(Scope.edit),
        "signoff_error": error,
        "notes_max_chars": NOTES_MAX_CHARS,
    }


@router.get("/review")
def current_review(
    request: Request, session: SessionDep, settings: SettingsDep, principal: Reader, week: str | None = None
) -> Response:
    """The current week so far; `?week=2026-W47` (the week picker's form) redirects to that week's page."""
    if week:
        iso_week = parse_reviewable_week(week, now=utcnow())
        return RedirectResponse(f"/review/{iso_week.label}", status_code=303)
    return _page(request, session=session, settings=settings, principal=principal, week=week_of(utcnow()))


@router.get("/review/{week}")
def week_review(
    week: str, request: Request, session: SessionDep, settings: SettingsDep, principal: Reader
) -> Response:
    iso_week = parse_reviewable_week(week, now=utcnow())
    return _page(request, session=session, settings=settings, principal=principal, week=iso_week)


@router.post("/review/{week}/signoff")
def sign_off_from_page(
    week: str,
    request: Request,
    session: SessionDep,
    principal: OptionalPrincipal,
    notes: str = Form(""),
) -> Response:
    """htmx answers with the sign-off block (errors keep their status); a plain form is redirected back."""
    iso_week = parse_reviewable_week(week, now=utcnow())
    failure: DomainError | None = None
    if principal is None or not principal.has_scope(Scope.edit):
        failure = Forbidden("Signing off needs a token with scope edit; sign in with one.", field="scopes")
    else:
        try:
            body = SignoffCreate.model_validate({"notes": notes})
            sign_off(session=session, week=iso_week, actor=principal.name, notes=body.notes)
            session.commit()
        except ValidationError:
            failure = InvalidInput(f"notes: at most {NOTES_MAX_CHARS} characters", field="notes")
        except DomainError as exc:
            # Nothing was written (a conflict is found before any insert sticks): nothing to roll back.
            failure = exc
    if "hx-request" not in request.headers:
        if failure is not None:
            raise failure
        return RedirectResponse(f"/review/{iso_week.label}#signoff", status_code=303)
    signoff = signoff_info(get_signoff(session=session, week=iso_week))
    error = failure.message if failure else None
    context = {"principal": principal, **_signoff_context(principal, signoff, iso_week.label, error)}
    return templates.TemplateResponse(
        request,
        "review/week.html",
        context,
        block_name="signoff",
        status_code=failure.status_code if failure else 200,
        # Widgets that show sign-offs (the list of weeks, the Markdown) listen for this and reload.
        headers=None if failure else {"HX-Trigger": "review-signed-off"},
    )
