"""Status page HTML: the filtered matrix (htmx or plain forms), pivot, compatibility grid, history, edits."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from jinja2_fragments import render_block
from starlette.datastructures import QueryParams

from app.auth.deps import Editor, Reader
from app.auth.models import Scope
from app.core.database import SessionDep, SettingsDep
from app.core.errors import DomainError
from app.core.templating import templates
from app.github_refs.models import LinkTarget
from app.github_refs.service import refs_for_targets
from app.status_pages import compat, editing, service, view
from app.status_pages.models import StatusPage
from app.status_pages.status_mapping import ALLOWED_HEALTH_LEVELS, ALLOWED_STATUSES

router = APIRouter(tags=["pages"])
templates.env.filters["cell"] = view.render_cell
templates.env.globals.update(
    status_labels=view.STATUS_LABELS,
    copyable_command=view.copyable_command,
    link_title=view.link_title,
    all_statuses=ALLOWED_STATUSES,
)


def _is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


def _wants_block(request: Request, element_id: str) -> bool:
    """An htmx request aimed at one element gets only that block; boosted requests get whole pages."""
    return _is_htmx(request) and request.headers.get("HX-Target") == element_id


def _can_edit(principal) -> bool:
    return principal is not None and principal.has_scope(Scope.edit)


def _page_context(request: Request, session, page: StatusPage, principal, filters: view.Filters) -> dict:
    loaded = service.load_page(session=session, page=page)
    return {
        "principal": principal,
        "can_edit": _can_edit(principal),
        "page": page,
        "loaded": loaded,
        "filters": filters,
        "precision": view.chosen_precision(loaded, filters),
        "matrix": view.build_matrix(loaded, filters),
        "options": view.filter_options(loaded),
        "page_refs": loaded.page_refs,
        "recipes": loaded.recipes,
        "health_levels": ALLOWED_HEALTH_LEVELS,
        "failing_rules": [rule for rule in loaded.rules if rule.outcome == "fails"],
    }


@router.get("/pages/{slug}", include_in_schema=False)
def page_view(slug: str, request: Request, session: SessionDep, principal: Reader) -> Response:
    page = service.get_page(session=session, slug=slug)
    context = _page_context(request, session, page, principal, view.Filters.from_query(request.query_params))
    block = "matrix" if _wants_block(request, "matrix") else None
    return templates.TemplateResponse(request, "status_pages/page.html", context, block_name=block)


@router.get("/pages/{slug}/pivot", include_in_schema=False)
def pivot_view(slug: str, request: Request, session: SessionDep, principal: Reader) -> Response:
    page = service.get_page(session=session, slug=slug)
    loaded = service.load_page(session=session, page=page)
    filters = view.Filters.from_query(request.query_params)
    precision = view.chosen_precision(loaded, filters)
    components, backends, cells = view.pivot(loaded, precision)
    context = {
        "principal": principal,
        "page": page,
        "loaded": loaded,
        "precision": precision,
        "components": components,
        "backends": backends,
        "cells": cells,
    }
    return templates.TemplateResponse(request, "status_pages/pivot.html", context)


def _compat_context(request: Request, session, page: StatusPage | None, principal) -> dict:
    rules = compat.list_rules(session=session, page=page)
    known: dict[str, list[str]] = {}
    if page is not None:
        loaded = service.load_page(session=session, page=page)
        for section in loaded.sections:
            for row in loaded.rows.get(section.id, []):
                names = known.setdefault(row.component, [])
                names += [e.name for e in loaded.entries.get(row.id, []) if e.name not in names]
    components = compat.components_of(rules, known)
    failing_pairs = [(rule.component_a, rule.component_b) for rule in rules if rule.outcome == "fails"]
    default_a, default_b = failing_pairs[0] if failing_pairs else (components + ["", ""])[:2]
    axis_a = request.query_params.get("a") or default_a
    axis_b = request.query_params.get("b") or default_b
    return {
        "principal": principal,
        "can_edit": _can_edit(principal),
        "page": page,
        "components": components,
        "grid": compat.build_grid(rules, axis_a, axis_b, known),
        "rule_refs": refs_for_targets(
            session=session, target_type=LinkTarget.rule, target_ids=[r.id for r in rules]
        ),
        "rules": rules,
    }


@router.get("/pages/{slug}/compat", include_in_schema=False)
def page_compat_view(slug: str, request: Request, session: SessionDep, principal: Reader) -> Response:
    page = service.get_page(session=session, slug=slug)
    context = _compat_context(request, session, page, principal)
    block = "grid" if _wants_block(request, "grid") else None
    return templates.TemplateResponse(request, "status_pages/compat.html", context, block_name=block)


@router.get("/compat", include_in_schema=False)
def compat_view(request: Request, session: SessionDep, principal: Reader) -> Response:
    context = _compat_context(request, session, None, principal)
    block = "grid" if _wants_block(request, "grid") else None
    return templates.TemplateResponse(request, "status_pages/compat.html", context, block_name=block)


@router.get("/pages/{slug}/history", include_in_schema=False)
def history_view(slug: str, request: Request, session: SessionDep, principal: Reader) -> Response:
    page = service.get_page(session=session, slug=slug)
    events = service.page_history(session=session, page=page)
    context = {"principal": principal, "page": page, "events": events, "entry": None}
    return templates.TemplateResponse(request, "status_pages/history.html", context)


@router.get("/pages/{slug}/entries/{entry_id}/history", include_in_schema=False)
def entry_history_view(slug: str, entry_id: int, request: Request, session: SessionDep, principal: Reader):
    page = service.get_page(session=session, slug=slug)
    entry = service.get_entry(session=session, entry_id=entry_id)
    events = service.entry_history(session=session, entry=entry)
    context = {"principal": principal, "page": page, "events": events, "entry": entry}
    return templates.TemplateResponse(request, "status_pages/history.html", context)


def _editor(
    request: Request,
    session,
    slug: str,
    entry_id: int,
    principal,
    *,
    error: str | None = None,
    back: str = "",
) -> Response:
    page = service.get_page(session=session, slug=slug)
    entry = service.get_entry(session=session, entry_id=entry_id)
    context = {
        "principal": principal,
        "page": page,
        "entry": entry,
        "error": error,
        "back": back,
        "statuses": ALLOWED_STATUSES,
    }
    block = "editor" if _is_htmx(request) and not request.headers.get("HX-Boosted") else None
    return templates.TemplateResponse(request, "status_pages/edit_entry.html", context, block_name=block)


@router.get("/pages/{slug}/entries/{entry_id}/edit", include_in_schema=False)
def edit_entry_view(slug: str, entry_id: int, request: Request, session: SessionDep, principal: Editor):
    return _editor(request, session, slug, entry_id, principal, back=request.query_params.get("back", ""))


@router.post("/pages/{slug}/entries/{entry_id}", include_in_schema=False)
def edit_entry(
    slug: str,
    entry_id: int,
    request: Request,
    session: SessionDep,
    principal: Editor,
    status: str = Form(...),
    reason: str = Form(""),
    notes: str = Form(""),
    invocation: str = Form(""),
    is_default: bool = Form(False),
    is_fastest: bool = Form(False),
    back: str = Form(""),
) -> Response:
    entry = service.get_entry(session=session, entry_id=entry_id)
    changes = {
        "status": status,
        "notes": notes.replace("\r\n", "\n"),
        "invocation": invocation.replace("\r\n", "\n"),
        "is_default": is_default,
        "is_fastest": is_fastest,
    }
    try:
        editing.update_entry(
            session=session, entry=entry, changes=changes, reason=reason, actor=principal.name
        )
    except DomainError as exc:
        session.rollback()
        response = _editor(request, session, slug, entry_id, principal, error=exc.message, back=back)
        response.headers.update({"HX-Retarget": "#editor", "HX-Reswap": "innerHTML"})
        return response
    session.commit()
    if not _is_htmx(request):
        return RedirectResponse(f"/pages/{slug}?{back}", status_code=303)
    page = service.get_page(session=session, slug=slug)
    filters = view.Filters.from_query(QueryParams(back))
    context = {"request": request, **_page_context(request, session, page, principal, filters)}
    html = render_block(templates.env, "status_pages/page.html", "matrix", context)
    # The editor closes: an out-of-band swap empties it while the matrix is replaced.
    html += '<div id="editor" hx-swap-oob="true"></div>'
    return Response(html, media_type="text/html", headers={"HX-Trigger": "entry-updated"})


def _redirect_back(slug: str, back: str = "") -> RedirectResponse:
    return RedirectResponse(f"/pages/{slug}?{back}" if back else f"/pages/{slug}", status_code=303)


@router.post("/pages/{slug}/entries/{entry_id}/remove", include_in_schema=False)
def remove_entry(slug: str, entry_id: int, session: SessionDep, principal: Editor, reason: str = Form("")):
    entry = service.get_entry(session=session, entry_id=entry_id)
    editing.remove_entry(session=session, entry=entry, reason=reason, actor=principal.name)
    session.commit()
    return _redirect_back(slug)


@router.post("/pages/{slug}/health", include_in_schema=False)
def edit_health(
    slug: str,
    session: SessionDep,
    principal: Editor,
    health_level: str = Form(...),
    health_text: str = Form(...),
    reason: str = Form(""),
) -> Response:
    page = service.get_page(session=session, slug=slug)
    editing.update_health(
        session=session, page=page, level=health_level, text=health_text, reason=reason, actor=principal.name
    )
    session.commit()
    return _redirect_back(slug)


@router.post("/pages/{slug}/rows", include_in_schema=False)
def add_row(
    slug: str,
    session: SessionDep,
    principal: Editor,
    precision: str = Form(...),
    component: str = Form(...),
    reason: str = Form(""),
) -> Response:
    page = service.get_page(session=session, slug=slug)
    editing.add_row(
        session=session,
        page=page,
        precision=precision,
        component=component,
        reason=reason,
        actor=principal.name,
    )
    session.commit()
    return _redirect_back(slug, urlencode({"precision": precision}))


@router.post("/pages/{slug}/rows/remove", include_in_schema=False)
def remove_row(
    slug: str,
    session: SessionDep,
    principal: Editor,
    row_id: int = Form(..., alias="row"),
    reason: str = Form(""),
):
    row = editing.get_row(session=session, row_id=row_id)
    editing.remove_row(session=session, row=row, reason=reason, actor=principal.name)
    session.commit()
    return _redirect_back(slug)


@router.post("/pages/{slug}/entries", include_in_schema=False)
def add_entry(
    slug: str,
    session: SessionDep,
    principal: Editor,
    row_id: int = Form(..., alias="row"),
    name: str = Form(...),
    group: str = Form(""),
    status: str = Form("working"),
    is_default: bool = Form(False),
    reason: str = Form(""),
) -> Response:
    row = editing.get_row(session=session, row_id=row_id)
    editing.add_entry(
        session=session,
        row=row,
        name=name,
        group=group,
        status=status,
        is_default=is_default,
        reason=reason,
        actor=principal.name,
    )
    session.commit()
    return _redirect_back(slug)


@router.post("/compat/rules", include_in_schema=False)
def add_rule(
    session: SessionDep,
    settings: SettingsDep,
    principal: Editor,
    component_a: str = Form(...),
    backend_a: str = Form(...),
    component_b: str = Form(...),
    backend_b: str = Form(...),
    outcome: str = Form(...),
    precision: str = Form(""),
    hardware: str = Form(""),
    error_text: str = Form(""),
    issue: str = Form(""),
    page: str = Form(""),
    reason: str = Form(""),
) -> Response:
    status_page = service.get_page(session=session, slug=page) if page else None
    values = {
        "component_a": component_a,
        "backend_a": backend_a,
        "component_b": component_b,
        "backend_b": backend_b,
        "outcome": outcome,
        "precision": precision or None,
        "hardware": hardware or None,
        "error_text": error_text,
    }
    compat.add_rule(
        session=session,
        values=values,
        page=status_page,
        issue=issue or None,
        reason=reason,
        actor=principal.name,
        default_repo=settings.github_default_repo,
        aliases=settings.github_repo_aliases,
    )
    session.commit()
    target = f"/pages/{page}/compat" if page else "/compat"
    return RedirectResponse(f"{target}?{urlencode({'a': component_a, 'b': component_b})}", status_code=303)


@router.post("/compat/rules/{rule_id}/remove", include_in_schema=False)
def remove_rule(
    rule_id: int, session: SessionDep, principal: Editor, reason: str = Form(""), back: str = Form("/compat")
) -> Response:
    rule = compat.get_rule(session=session, rule_id=rule_id)
    compat.remove_rule(session=session, rule=rule, reason=reason, actor=principal.name)
    session.commit()
    return RedirectResponse(back if back.startswith("/") else "/compat", status_code=303)
