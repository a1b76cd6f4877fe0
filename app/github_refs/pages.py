"""The /github page: tracked refs with state, age, sync status and the cells that link them."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.auth.deps import Editor, Reader
from app.core.database import SessionDep, SettingsDep
from app.core.errors import DomainError, InvalidInput
from app.core.models import utcnow
from app.core.templating import templates
from app.github_refs.models import DisplayState, LinkTarget
from app.github_refs.queries import known_repos_and_labels, links_for_refs, list_refs, sync_health
from app.github_refs.service import track_ref, unlink_ref
from app.github_refs.targets import describe_links

router = APIRouter(tags=["pages"])
PAGE_SIZE = 50
FLASH_KEY = "github_flash"


def _optional_int(value: str | None, field: str) -> int | None:
    if value is None or not value.strip():
        return None
    if not value.strip().isdigit():
        raise InvalidInput(f"{field} must be a whole number", field=field)
    return int(value)


@router.get("/github", include_in_schema=False)
def github_page(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    principal: Reader,
    state: str | None = None,
    repo: str | None = None,
    label: str | None = None,
    stale: bool = False,
    q: str | None = None,
    page: int = Query(default=1, ge=1),
) -> Response:
    # The outcome of the last form post, kept in the session (never reflected from the URL).
    flash = request.session.pop(FLASH_KEY, None) or {}
    # An empty select ("any") arrives as `state=`; anything else must name a state.
    try:
        display_state = DisplayState(state) if state else None
    except ValueError:
        raise InvalidInput(f"unknown state {state!r}", field="state") from None
    refs, total = list_refs(
        session=session,
        states=[display_state] if display_state else [],
        repo=repo or None,
        label=label or None,
        stale=True if stale else None,
        stale_after_days=settings.stale_after_days,
        search=q or None,
        limit=PAGE_SIZE,
        offset=(page - 1) * PAGE_SIZE,
    )
    links = links_for_refs(session=session, ref_ids=[ref.id for ref in refs])
    labels = describe_links(session=session, links=[link for group in links.values() for link in group])
    repos, all_labels = known_repos_and_labels(session=session)
    filters = {"state": state or "", "repo": repo or "", "label": label or "", "q": q or ""}
    if stale:
        filters["stale"] = "true"
    query = {key: value for key, value in filters.items() if value}
    context = {
        "principal": principal,
        "refs": refs,
        "links": links,
        "link_labels": labels,
        "total": total,
        "page": page,
        "pages": max(1, -(-total // PAGE_SIZE)),
        "filters": filters,
        "query_for_page": lambda number: urlencode({**query, "page": number}),
        "states": list(DisplayState),
        "repos": repos,
        "all_labels": all_labels,
        "health": sync_health(session=session, interval_seconds=settings.github_sync_interval_seconds),
        "stale_after_days": settings.stale_after_days,
        "stale_cutoff": utcnow() - timedelta(days=settings.stale_after_days),
        "target_types": list(LinkTarget),
        "can_edit": principal is not None and principal.has_scope("edit"),
        "tracked": flash.get("tracked"),
        "error": flash.get("error"),
    }
    partial = request.headers.get("HX-Request") and not request.headers.get("HX-Boosted")
    block = "refs_table" if partial else None
    return templates.TemplateResponse(request, "github_refs/index.html", context, block_name=block)


@router.post("/github/refs", include_in_schema=False)
def track_from_form(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    principal: Editor,
    ref: Annotated[str, Form()] = "",
    target_type: Annotated[str, Form()] = "",
    target_id: Annotated[str, Form()] = "",
    text: Annotated[str, Form()] = "",
) -> Response:
    try:
        link_type = LinkTarget(target_type) if target_type else None
    except ValueError:
        return _back(request, error=f"unknown link target type {target_type!r}")
    try:
        tracked = track_ref(
            session=session,
            text=ref,
            default_repo=settings.github_default_repo,
            aliases=settings.github_repo_aliases,
            actor=principal.name,
            target_type=link_type,
            target_id=_optional_int(target_id, "target_id"),
            link_text=text.strip() or None,
        )
    except DomainError as exc:
        session.rollback()
        return _back(request, error=exc.message)
    session.commit()
    return _back(request, tracked=tracked.short_name)


@router.post("/github/refs/{ref_id}/unlink", include_in_schema=False)
def unlink_from_form(
    ref_id: int,
    session: SessionDep,
    principal: Editor,
    target_type: Annotated[LinkTarget, Form()],
    target_id: Annotated[int, Form()],
) -> Response:
    unlink_ref(
        session=session,
        ref_id=ref_id,
        target_type=target_type,
        target_id=target_id,
        actor=principal.name,
        reason="unlinked on /github",
    )
    session.commit()
    return RedirectResponse("/github", status_code=303)


def _back(request: Request, **message: str) -> RedirectResponse:
    request.session[FLASH_KEY] = message
    return RedirectResponse("/github", status_code=303)
