"""Sign-in with an API token into a signed session cookie, and sign-out."""

from __future__ import annotations

import hmac

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app.auth.deps import CSRF_FIELD, OptionalPrincipal
from app.auth.service import authenticate
from app.core.database import SessionDep
from app.core.errors import Forbidden
from app.core.templating import csrf_token, templates

router = APIRouter(tags=["pages"])


def _safe_next(target: str | None) -> str:
    # Only same-site paths: an open redirect would let a link send a signed-in user anywhere.
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return "/"


def _check_form_csrf(request: Request, supplied: str) -> None:
    if not hmac.compare_digest(csrf_token(request), supplied or ""):
        raise Forbidden("missing or invalid CSRF token; reload the page and try again", field=CSRF_FIELD)


@router.get("/signin")
def signin_form(request: Request, principal: OptionalPrincipal, next: str | None = None) -> Response:
    return templates.TemplateResponse(
        request, "auth/signin.html", {"principal": principal, "next": _safe_next(next), "error": None}
    )


@router.post("/signin")
def signin(
    request: Request,
    session: SessionDep,
    token: str = Form(""),
    csrf_token_value: str = Form("", alias=CSRF_FIELD),
    next: str = Form("/"),
) -> Response:
    _check_form_csrf(request, csrf_token_value)
    principal = authenticate(session=session, secret=token.strip(), via="session")
    if principal is None:
        return templates.TemplateResponse(
            request,
            "auth/signin.html",
            {"principal": None, "next": _safe_next(next), "error": "That token is not valid or was revoked."},
            status_code=401,
        )
    request.session.clear()
    request.session["token_id"] = principal.token_id
    csrf_token(request)
    return RedirectResponse(_safe_next(next), status_code=303)


@router.post("/signout")
def signout(request: Request, csrf_token_value: str = Form("", alias=CSRF_FIELD)) -> Response:
    _check_form_csrf(request, csrf_token_value)
    request.session.clear()
    return RedirectResponse("/", status_code=303)
