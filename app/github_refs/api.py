"""GitHub API routes: tracked refs, links to cells, the sync trigger and the webhook receiver."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Depends, Header, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlmodel import Session, col, select

from app.auth.deps import Admin, Editor, Reader
from app.core.database import SessionDep, SettingsDep
from app.core.errors import BadRequest, Conflict, PayloadTooLarge, ServiceUnavailable
from app.core.settings import Settings
from app.github_refs.models import DisplayState, GitHubRef, GitHubSyncRun, LinkTarget
from app.github_refs.queries import links_for_refs, list_refs, stale_condition
from app.github_refs.service import check_target_exists, get_ref, link_ref, track_ref, unlink_ref
from app.github_refs.sync import SyncReport, sync_lock_held, sync_once
from app.github_refs.targets import describe_links
from app.github_refs.webhooks import handle_delivery, parse_payload, verify_signature

router = APIRouter(prefix="/github", tags=["github"])


class LinkPublic(BaseModel):
    target_type: str
    target_id: int
    label: str
    url: str | None
    text_as_written: str | None
    created_by: str
    created_at: datetime


class RefPublic(BaseModel):
    id: int
    repo: str
    number: int
    kind: str
    title: str | None
    state: str | None
    display_state: str
    draft: bool
    merged: bool
    merged_at: datetime | None
    review_requested: bool
    labels: list[str]
    author: str | None
    created_at: datetime | None = Field(description="When it was opened on GitHub")
    updated_at: datetime | None = Field(description="Last change on GitHub")
    closed_at: datetime | None
    url: str
    last_synced_at: datetime | None
    last_sync_error: str | None
    not_found: bool
    stale: bool = Field(description="Open and not updated on GitHub for STALE_AFTER_DAYS")
    links: list[LinkPublic]


class RefPage(BaseModel):
    items: list[RefPublic]
    total: int
    limit: int
    offset: int


class RefCreate(BaseModel):
    ref: str = Field(description="A URL, owner/name#123, alias#123 (e.g. flashinfer#1566) or #123")
    target_type: LinkTarget | None = None
    target_id: int | None = None
    text: str | None = Field(default=None, description="Link text as written in the cell")


class LinkCreate(BaseModel):
    target_type: LinkTarget
    target_id: int
    text: str | None = None


class SyncRunPublic(BaseModel):
    id: int
    started_at: datetime
    finished_at: datetime | None
    trigger: str
    status: str
    requests: int
    not_modified: int
    refs_checked: int
    refs_changed: int
    errors: list[str]
    message: str | None


def present_refs(*, session: Session, refs: list[GitHubRef], settings: Settings) -> list[RefPublic]:
    """Turns refs into their public shape, with labelled links, in a few queries."""
    links = links_for_refs(session=session, ref_ids=[ref.id for ref in refs if ref.id is not None])
    labels = describe_links(session=session, links=[link for group in links.values() for link in group])
    stale_ids = set()
    if refs:
        stale_ids = set(
            session.exec(
                select(GitHubRef.id).where(
                    col(GitHubRef.id).in_([ref.id for ref in refs]),
                    stale_condition(stale_after_days=settings.stale_after_days),
                )
            )
        )
    return [
        RefPublic(
            id=ref.id,
            repo=ref.repo,
            number=ref.number,
            kind=ref.kind,
            title=ref.title,
            state=ref.state,
            display_state=ref.display_state,
            draft=ref.draft,
            merged=ref.merged,
            merged_at=ref.merged_at,
            review_requested=ref.review_requested,
            labels=ref.labels,
            author=ref.author,
            created_at=ref.gh_created_at,
            updated_at=ref.gh_updated_at,
            closed_at=ref.gh_closed_at,
            url=ref.url,
            last_synced_at=ref.last_synced_at,
            last_sync_error=ref.last_sync_error,
            not_found=ref.not_found,
            stale=ref.id in stale_ids,
            links=[
                LinkPublic(
                    target_type=link.target_type,
                    target_id=link.target_id,
                    label=labels[link.id].label,
                    url=labels[link.id].url,
                    text_as_written=link.text_as_written,
                    created_by=link.created_by,
                    created_at=link.created_at,
                )
                for link in links.get(ref.id, [])
            ],
        )
        for ref in refs
    ]


@router.get("/refs", response_model=RefPage, summary="Tracked PRs and issues, filtered and paginated")
def refs(
    session: SessionDep,
    settings: SettingsDep,
    _: Reader,
    state: Annotated[list[DisplayState], Query(description="Repeatable: open, draft, in_review, …")] = [],  # noqa: B006
    repo: str | None = None,
    label: str | None = None,
    stale: bool | None = None,
    target_type: LinkTarget | None = None,
    target_id: int | None = None,
    q: str | None = Query(default=None, description="Text in the title or repository"),
    limit: int = Query(default=50, ge=1, le=200),
    offset: int = Query(default=0, ge=0),
) -> RefPage:
    rows, total = list_refs(
        session=session,
        states=state,
        repo=repo,
        label=label,
        stale=stale,
        stale_after_days=settings.stale_after_days,
        target_type=target_type,
        target_id=target_id,
        search=q,
        limit=limit,
        offset=offset,
    )
    items = present_refs(session=session, refs=rows, settings=settings)
    return RefPage(items=items, total=total, limit=limit, offset=offset)


@router.get("/refs/{ref_id}", response_model=RefPublic, summary="One tracked ref with its links")
def one_ref(ref_id: int, session: SessionDep, settings: SettingsDep, _: Reader) -> RefPublic:
    return present_refs(session=session, refs=[get_ref(session=session, ref_id=ref_id)], settings=settings)[0]


@router.post("/refs", response_model=RefPublic, status_code=201, summary="Track a PR or issue (edit)")
def create_ref(body: RefCreate, session: SessionDep, settings: SettingsDep, principal: Editor) -> RefPublic:
    ref = track_ref(
        session=session,
        text=body.ref,
        default_repo=settings.github_default_repo,
        aliases=settings.github_repo_aliases,
        actor=principal.name,
        target_type=body.target_type,
        target_id=body.target_id,
        link_text=body.text,
    )
    session.commit()
    return present_refs(session=session, refs=[ref], settings=settings)[0]


@router.post(
    "/refs/{ref_id}/links", response_model=RefPublic, status_code=201, summary="Link a ref to a cell (edit)"
)
def create_link(
    ref_id: int, body: LinkCreate, session: SessionDep, settings: SettingsDep, principal: Editor
) -> RefPublic:
    ref = get_ref(session=session, ref_id=ref_id)
    check_target_exists(session=session, target_type=body.target_type, target_id=body.target_id)
    link_ref(
        session=session,
        ref=ref,
        target_type=body.target_type,
        target_id=body.target_id,
        text_as_written=body.text,
        actor=principal.name,
    )
    session.commit()
    return present_refs(session=session, refs=[ref], settings=settings)[0]


@router.delete(
    "/refs/{ref_id}/links/{target_type}/{target_id}",
    status_code=204,
    summary="Unlink a ref from a cell (edit); the only way a link goes away",
)
def delete_link(
    ref_id: int,
    target_type: LinkTarget,
    target_id: int,
    session: SessionDep,
    principal: Editor,
    reason: str | None = None,
) -> Response:
    unlink_ref(
        session=session,
        ref_id=ref_id,
        target_type=target_type,
        target_id=target_id,
        actor=principal.name,
        reason=reason,
    )
    session.commit()
    return Response(status_code=204)


def get_sync_runner(settings: SettingsDep) -> Callable[[], SyncReport]:
    """The background job the sync endpoint schedules (tests replace it with one on their session)."""
    return lambda: sync_once(settings=settings, trigger="api")


@router.post("/sync", status_code=202, summary="Start a GitHub sync in the background (admin)")
def start_sync(
    session: SessionDep,
    _: Admin,
    background: BackgroundTasks,
    runner: Annotated[Callable[[], SyncReport], Depends(get_sync_runner)],
) -> dict[str, str]:
    if sync_lock_held(session=session):
        raise Conflict("a GitHub sync is already running; try again when it has finished")
    background.add_task(runner)
    return {"status": "started", "detail": "follow it at GET /api/v1/github/sync/runs"}


@router.get("/sync/runs", response_model=list[SyncRunPublic], summary="Recent sync runs, newest first")
def sync_runs(
    session: SessionDep, _: Reader, limit: int = Query(default=20, ge=1, le=200)
) -> list[SyncRunPublic]:
    runs = session.exec(select(GitHubSyncRun).order_by(col(GitHubSyncRun.started_at).desc()).limit(limit))
    return [SyncRunPublic.model_validate(run, from_attributes=True) for run in runs]


async def webhook_body(request: Request, settings: SettingsDep) -> bytes:
    """Reads the raw body, refusing more than WEBHOOK_MAX_BYTES before and while reading it."""
    limit = settings.webhook_max_bytes
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"webhook payloads are limited to {limit} bytes", field="body")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"webhook payloads are limited to {limit} bytes", field="body")
        chunks.append(chunk)
    return b"".join(chunks)


@router.post("/webhook", summary="GitHub webhook receiver (X-Hub-Signature-256 verified)")
def webhook(
    session: SessionDep,
    settings: SettingsDep,
    body: Annotated[bytes, Depends(webhook_body)],
    x_github_event: Annotated[str | None, Header()] = None,
    x_github_delivery: Annotated[str | None, Header()] = None,
    x_hub_signature_256: Annotated[str | None, Header()] = None,
) -> JSONResponse:
    if not settings.github_webhook_secret:
        raise ServiceUnavailable(
            "webhooks are refused until GITHUB_WEBHOOK_SECRET is configured", field="GITHUB_WEBHOOK_SECRET"
        )
    verify_signature(secret=settings.github_webhook_secret, body=body, header=x_hub_signature_256)
    if not x_github_event:
        raise BadRequest("missing X-GitHub-Event header", field="X-GitHub-Event")
    if not x_github_delivery or len(x_github_delivery) > 100:
        raise BadRequest("missing or overlong X-GitHub-Delivery header", field="X-GitHub-Delivery")
    payload = parse_payload(body)
    outcome = handle_delivery(
        session=session, event=x_github_event, delivery_id=x_github_delivery, payload=payload
    )
    session.commit()
    return JSONResponse(outcome.body(), status_code=outcome.status_code)
