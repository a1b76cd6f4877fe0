"""Benchmark pages: the run list with filters, one run, and uploading from the browser."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from app.auth.deps import OptionalPrincipal, Reader
from app.auth.models import Scope
from app.benchmarks.formats.detect import FORMATS
from app.benchmarks.ingest import UploadItem, context_from_parameters, ingest
from app.benchmarks.service import (
    RunFilters,
    filter_choices,
    get_run,
    headline_metrics,
    list_runs,
    metrics_of,
)
from app.core.database import SessionDep, SettingsDep
from app.core.errors import DomainError, Forbidden, InvalidInput, PayloadTooLarge, Unauthorized
from app.core.templating import templates
from app.github_refs.models import LinkTarget
from app.github_refs.service import refs_for_targets

router = APIRouter(tags=["pages"])

# Context fields the upload form offers; everything else can go in "more context" as KEY=VALUE lines.
FORM_CONTEXT_FIELDS = (
    "hardware", "gpu_count", "model", "precision", "engine", "engine_version", "engine_commit", "label",
    "tp", "dp", "ep", "pp", "dataset", "input_len", "output_len", "concurrency", "flags",
)  # fmt: skip
RAW_PREVIEW_BYTES = 200_000


def _parse_day(value: str | None, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"{name}: expected a date such as 2026-11-22", field=name) from None


@router.get("/benchmarks")
def benchmarks(
    request: Request,
    session: SessionDep,
    principal: Reader,
    hardware: str = "",
    model: str = "",
    precision: str = "",
    backend: str = "",
    label: str = "",
    series: str = "",
    since: str = "",
    until: str = "",
    cursor: str = "",
) -> Response:
    since_day, until_day = _parse_day(since, "since"), _parse_day(until, "until")
    filters = RunFilters(
        hardware=hardware or None,
        model=model or None,
        precision=precision or None,
        backend=backend or None,
        label=label or None,
        series_key=series or None,
        since=datetime.combine(since_day, time.min, UTC) if since_day else None,
        # `until` is inclusive on the page: runs of that whole day are shown.
        until=datetime.combine(until_day + timedelta(days=1), time.min, UTC) if until_day else None,
    )
    runs, next_cursor = list_runs(session=session, filters=filters, limit=50, cursor=cursor or None)
    chosen = {
        "hardware": hardware, "model": model, "precision": precision, "backend": backend, "label": label,
        "series": series, "since": since, "until": until,
    }  # fmt: skip
    headline = headline_metrics(session=session, run_ids=[run.id for run in runs])
    context = {
        "principal": principal,
        "runs": runs,
        "headline": headline,
        "next_cursor": next_cursor,
        "filters": chosen,
        "choices": filter_choices(session=session),
        "can_upload": bool(principal and principal.has_scope(Scope.upload)),
    }
    block = "runs" if request.headers.get("HX-Request") else None
    return templates.TemplateResponse(request, "benchmarks/list.html", context, block_name=block)


@router.get("/benchmarks/runs/{run_id}")
def run_page(request: Request, run_id: int, session: SessionDep, principal: Reader) -> Response:
    run = get_run(session=session, run_id=run_id)
    raw_text, pretty = _raw_preview(run.raw_payload)
    refs = refs_for_targets(session=session, target_type=LinkTarget.run, target_ids=[run.id]).get(run.id, [])
    context = {
        "principal": principal,
        "run": run,
        "metrics": metrics_of(session=session, run_id=run.id),
        "refs": refs,
        "raw_text": raw_text,
        "raw_pretty": pretty,
        "raw_size": len(run.raw_payload),
    }
    return templates.TemplateResponse(request, "benchmarks/run.html", context)


def _raw_preview(raw: bytes) -> tuple[str | None, bool]:
    """The upload as text for the page (one-line JSON pretty-printed), or None when too big or binary."""
    if len(raw) > RAW_PREVIEW_BYTES:
        return None, False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, False
    if "\n" not in text.strip() and text.lstrip().startswith(("{", "[")):
        try:
            return json.dumps(json.loads(text), indent=2, ensure_ascii=False), True
        except ValueError:
            pass
    return text, False


def _upload_form(request: Request, principal, *, error: DomainError | None = None, values=None, status=200):
    context = {
        "principal": principal,
        "error": error,
        "values": values or {},
        "formats": FORMATS,
        "can_upload": bool(principal and principal.has_scope(Scope.upload)),
        "results": None,
    }
    return templates.TemplateResponse(request, "benchmarks/upload.html", context, status_code=status)


@router.get("/benchmarks/upload")
def upload_form(request: Request, principal: OptionalPrincipal) -> Response:
    return _upload_form(request, principal)


@router.post("/benchmarks/upload")
async def upload_from_browser(
    request: Request, session: SessionDep, settings: SettingsDep, principal: OptionalPrincipal
) -> Response:
    if principal is None:
        raise Unauthorized("sign in with a token that has scope 'upload' to upload", field="Authorization")
    if not principal.has_scope(Scope.upload):
        raise Forbidden(f"token {principal.name!r} lacks scope 'upload'", field="scopes")
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > settings.upload_max_bytes:
        raise PayloadTooLarge(
            f"the upload is over the limit of {settings.upload_max_bytes} bytes", field="body"
        )
    form = await request.form()
    values = {key: value for key, value in form.items() if isinstance(value, str) and key != "csrf_token"}
    upload = form.get("file")
    try:
        if isinstance(upload, UploadFile) and upload.filename:
            raw = await upload.read(settings.upload_max_bytes + 1)
            if len(raw) > settings.upload_max_bytes:
                raise PayloadTooLarge(f"the file is over {settings.upload_max_bytes} bytes", field="file")
            content_type, filename = upload.content_type or "application/octet-stream", upload.filename
        else:
            raw = (values.get("text") or "").encode()
            content_type, filename = "text/plain", None
        if not raw.strip():
            raise InvalidInput("paste a result or choose a file", field="text")
        item = UploadItem(
            raw=raw,
            context=_form_context(values),
            format_name=values.get("format") or None,
            content_type=content_type,
            filename=filename,
        )

        def store():
            outcomes = ingest(
                session=session,
                items=[item],
                actor=principal.name,
                default_repo=settings.github_default_repo,
                repo_aliases=settings.github_repo_aliases,
                bulk=False,
            )
            session.commit()
            return outcomes

        outcomes = await run_in_threadpool(store)
    except DomainError as error:
        if isinstance(error, PayloadTooLarge):
            raise
        return _upload_form(request, principal, error=error, values=values, status=error.status_code)
    stored = [outcome for outcome in outcomes if outcome.answer]
    if len(outcomes) == 1 and stored:
        return RedirectResponse(f"/benchmarks/runs/{stored[0].answer['id']}", status_code=303)
    context = {
        "principal": principal,
        "error": None,
        "values": values,
        "formats": FORMATS,
        "can_upload": True,
        "results": [outcome.to_dict() for outcome in outcomes],
    }
    return templates.TemplateResponse(request, "benchmarks/upload.html", context)


def _form_context(values: dict[str, str]) -> dict[str, Any]:
    pairs: list[tuple[str, str]] = [(name, values[name]) for name in FORM_CONTEXT_FIELDS if values.get(name)]
    for field, kind in (("backends", "backend"), ("env", "env"), ("more", None), ("links", "link")):
        for line in (values.get(field) or "").splitlines():
            line = line.strip()
            if not line:
                continue
            if kind is None:
                name, equals, value = line.partition("=")
                if not equals:
                    raise InvalidInput(f"more context: expected KEY=VALUE, got {line!r}", field="more")
                pairs.append((name.strip(), value.strip()))
            else:
                pairs.append((kind, line))
    return context_from_parameters(pairs)
