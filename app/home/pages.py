"""The home page: every status page with its health at a glance."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.auth.deps import Reader
from app.core.database import SessionDep
from app.core.templating import templates
from app.status_pages.service import list_pages

router = APIRouter(tags=["pages"])


@router.get("/", include_in_schema=False)
def home(request: Request, session: SessionDep, principal: Reader) -> Response:
    pages = list_pages(session=session)
    return templates.TemplateResponse(request, "home.html", {"principal": principal, "pages": pages})
