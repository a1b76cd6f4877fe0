"""Status pages JSON API: list, read, import, export, edit, history, compatibility rules."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import PlainTextResponse
from starlette.concurrency import run_in_threadpool

from app.audit.models import ChangeEventPublic
from app.auth.deps import Editor, Reader
from app.core.database import SessionDep, SettingsDep
from app.core.errors import PayloadTooLarge, UnsupportedMediaType
from app.github_refs.models import LinkTarget
from app.github_refs.service import refs_for_targets
from app.status_pages import compat, editing, service
from app.status_pages.importing import read_markdown_upload, store_document, stored_document
from app.status_pages.markdown_export import export_markdown
from app.status_pages.schemas import (
    ChangePublic,
    EntryCreate,
    EntryPublic,
    EntryUpdate,
    HealthUpdate,
    ImportResultPublic,
    ImportWarningPublic,
    PagePublic,
    PageSummaryPublic,
    RowCreate,
    RuleCreate,
    RulePublic,
    page_public,
    ref_public,
    rule_public,
    summary_public,
)

router = APIRouter(tags=["status pages"])
MARKDOWN_TYPES = ("text/markdown", "text/x-markdown", "text/plain")


def _loaded(session, slug: str) -> PagePublic:
    page = service.get_page(session=session, slug=slug)
    return page_public(service.load_page(session=session, page=page))


@router.get("/pages", response_model=list[PageSummaryPublic])
def list_pages(session: SessionDep, _: Reader) -> list[PageSummaryPublic]:
    """Every status page with its health, counts and last change."""
    return [summary_public(summary) for summary in service.list_pages(session=session)]


@router.get("/pages/{slug}", response_model=PagePublic)
def read_page(slug: str, session: SessionDep, _: Reader) -> PagePublic:
    """The whole structured page: sections, rows, backend entries, refs, recipes and rules."""
    return _loaded(session, slug)


@router.post("/pages/import", response_model=ImportResultPublic, status_code=200)
async def import_page(
    request: Request,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    principal: Editor,
    slug: str | None = Query(None, description="Slug of the page to create or update; derived when absent."),
) -> ImportResultPublic:
    """Imports a status page from its Markdown (`Content-Type: text/markdown`); re-importing updates it."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type not in MARKDOWN_TYPES:
        raise UnsupportedMediaType(
            f"send the page as text/markdown, not {content_type or 'no content type'}", field="Content-Type"
        )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > settings.import_max_bytes:
        raise PayloadTooLarge(
            f"the Markdown is {declared} bytes; the limit is {settings.import_max_bytes} (IMPORT_MAX_BYTES)",
            field="body",
        )
    body = await request.body()
    # Parsing and storing are blocking work: they run in the thread pool, off the event loop.
    return await run_in_threadpool(
        _import_markdown,
        body,
        response,
        session,
        settings,
        principal.name,
        service.slugify(slug) if slug else None,
    )


def _import_markdown(body: bytes, response: Response, session, settings, actor: str, slug: str | None):
    document = read_markdown_upload(
        body,
        max_bytes=settings.import_max_bytes,
        default_repo=settings.github_default_repo,
        aliases=settings.github_repo_aliases,
    )
    result = store_document(session=session, document=document, slug=slug, actor=actor)
    session.commit()
    response.status_code = 201 if result.created else 200
    return ImportResultPublic(
        created=result.created,
        changes=result.changes,
        warnings=[ImportWarningPublic(line=w.line, message=w.message) for w in result.warnings],
        page=page_public(service.load_page(session=session, page=result.page)),
    )


@router.get("/pages/{slug}/export.md", response_class=PlainTextResponse)
def export_page(slug: str, session: SessionDep, _: Reader) -> PlainTextResponse:
    """The page as Markdown in the team's format."""
    page = service.get_page(session=session, slug=slug)
    text = export_markdown(stored_document(session=session, page=page))
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


@router.patch("/pages/{slug}", response_model=ChangePublic)
def update_page_health(slug: str, body: HealthUpdate, session: SessionDep, principal: Editor) -> ChangePublic:
    """Changes the page's health level/text, with a reason."""
    page = service.get_page(session=session, slug=slug)
    changed = editing.update_health(
        session=session,
        page=page,
        level=body.health_level,
        text=body.health_text,
        reason=body.reason,
        actor=principal.name,
    )
    session.commit()
    return ChangePublic(changed=changed)


@router.get("/pages/{slug}/history", response_model=list[ChangeEventPublic])
def page_history(slug: str, session: SessionDep, _: Reader) -> list[ChangeEventPublic]:
    """Every change to the page, newest first: who, when, what, old, new, why."""
    page = service.get_page(session=session, slug=slug)
    return [
        ChangeEventPublic.model_validate(event) for event in service.page_history(session=session, page=page)
    ]


@router.patch("/entries/{entry_id}", response_model=EntryPublic)
def update_entry(entry_id: int, body: EntryUpdate, session: SessionDep, principal: Editor) -> EntryPublic:
    """Changes a backend entry's status, flags, notes or invocation; `reason` is required."""
    entry = service.get_entry(session=session, entry_id=entry_id)
    editing.update_entry(
        session=session,
        entry=entry,
        changes=body.model_dump(exclude={"reason"}),
        reason=body.reason,
        actor=principal.name,
    )
    session.commit()
    return _entry_public(session, entry.id)


@router.delete("/entries/{entry_id}", status_code=204)
def delete_entry(
    entry_id: int, session: SessionDep, principal: Editor, reason: str | None = None
) -> Response:
    """Removes a backend entry (`?reason=` required)."""
    entry = service.get_entry(session=session, entry_id=entry_id)
    editing.remove_entry(session=session, entry=entry, reason=reason, actor=principal.name)
    session.commit()
    return Response(status_code=204)


@router.post("/pages/{slug}/rows", status_code=201)
def create_row(slug: str, body: RowCreate, session: SessionDep, principal: Editor) -> dict[str, int]:
    """Adds a component row to one precision's table."""
    page = service.get_page(session=session, slug=slug)
    row = editing.add_row(
        session=session,
        page=page,
        precision=body.precision,
        component=body.component,
        reason=body.reason,
        actor=principal.name,
    )
    session.commit()
    return {"id": row.id}


@router.delete("/rows/{row_id}", status_code=204)
def delete_row(row_id: int, session: SessionDep, principal: Editor, reason: str | None = None) -> Response:
    """Removes a component row and its backends (`?reason=` required)."""
    row = editing.get_row(session=session, row_id=row_id)
    editing.remove_row(session=session, row=row, reason=reason, actor=principal.name)
    session.commit()
    return Response(status_code=204)


@router.post("/rows/{row_id}/entries", response_model=EntryPublic, status_code=201)
def create_entry(row_id: int, body: EntryCreate, session: SessionDep, principal: Editor) -> EntryPublic:
    """Adds a backend to a component row."""
    row = editing.get_row(session=session, row_id=row_id)
    entry = editing.add_entry(
        session=session,
        row=row,
        name=body.name,
        group=body.group,
        status=body.status,
        is_default=body.is_default,
        reason=body.reason,
        actor=principal.name,
    )
    session.commit()
    return _entry_public(session, entry.id)


def _entry_public(session, entry_id: int) -> EntryPublic:
    entry = service.get_entry(session=session, entry_id=entry_id)
    refs = refs_for_targets(session=session, target_type=LinkTarget.entry, target_ids=[entry.id])[entry.id]
    return EntryPublic(
        id=entry.id,
        name=entry.name,
        group=entry.group_label or None,
        status=entry.status,
        is_default=entry.is_default,
        is_fastest=entry.is_fastest,
        is_fallback=entry.is_fallback,
        listed=entry.listed,
        invocation=entry.invocation,
        notes=entry.notes,
        refs=[ref_public(*pair) for pair in refs],
    )


@router.get("/compat", response_model=list[RulePublic])
def list_compat(
    session: SessionDep,
    _: Reader,
    page: str | None = Query(None, description="Only this page's rules (and rules of no page)."),
    hardware: str | None = None,
    component: str | None = None,
    backend: str | None = None,
    outcome: str | None = None,
) -> list[RulePublic]:
    """Compatibility rules, filtered."""
    status_page = service.get_page(session=session, slug=page) if page else None
    rules = compat.list_rules(
        session=session,
        page=status_page,
        hardware=hardware,
        component=component,
        backend=backend,
        outcome=outcome,
    )
    refs = refs_for_targets(session=session, target_type=LinkTarget.rule, target_ids=[r.id for r in rules])
    return [rule_public(rule, refs) for rule in rules]


@router.post("/compat", response_model=RulePublic, status_code=201)
def create_compat(
    body: RuleCreate, session: SessionDep, settings: SettingsDep, principal: Editor
) -> RulePublic:
    """Adds a compatibility rule; `issue` links the report (URL, owner/name#123, alias#123 or #123)."""
    page = service.get_page(session=session, slug=body.page) if body.page else None
    values = body.model_dump(exclude={"page", "issue", "reason"})
    rule = compat.add_rule(
        session=session,
        values=values,
        page=page,
        issue=body.issue,
        reason=body.reason,
        actor=principal.name,
        default_repo=settings.github_default_repo,
        aliases=settings.github_repo_aliases,
    )
    session.commit()
    return rule_public(rule, {})


@router.delete("/compat/{rule_id}", status_code=204)
def delete_compat(
    rule_id: int, session: SessionDep, principal: Editor, reason: str | None = None
) -> Response:
    """Removes a compatibility rule (`?reason=` required)."""
    rule = compat.get_rule(session=session, rule_id=rule_id)
    compat.remove_rule(session=session, rule=rule, reason=reason, actor=principal.name)
    session.commit()
    return Response(status_code=204)
