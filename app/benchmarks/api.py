"""Benchmark runs API: upload (envelope, raw file, console text, bulk), list with filters, one run, raw."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.auth.deps import Reader, Uploader
from app.benchmarks.formats.detect import FORMATS
from app.benchmarks.ingest import bulk_answer, context_from_parameters, ingest, split_body
from app.benchmarks.models import RunPublic, RunSummaryPublic
from app.benchmarks.service import RunFilters, get_run, list_runs, run_public
from app.core.database import SessionDep, SettingsDep
from app.core.errors import InvalidInput, PayloadTooLarge

router = APIRouter(tags=["benchmarks"])

UPLOAD_BODY = {
    "requestBody": {
        "description": (
            'A JSON envelope `{"context": {...}, "result": {...}}`, a list of envelopes (bulk), JSON lines '
            "of envelopes (`application/x-ndjson`), a raw result file with the context in query parameters, "
            "or the pasted console block as `text/plain`."
        ),
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/x-ndjson": {"schema": {"type": "string"}},
            "text/plain": {"schema": {"type": "string"}},
            "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}


class RunPage(BaseModel):
    items: list[RunSummaryPublic]
    next_cursor: str | None


async def read_limited_body(request: Request, limit: int) -> bytes:
    """Reads the body, refusing it by Content-Length first and by counting while it streams."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"the body is {int(declared)} bytes; the limit is {limit} bytes", field="body")
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise PayloadTooLarge(f"the body is over the limit of {limit} bytes", field="body")
        chunks.append(chunk)
    return b"".join(chunks)


@router.post(
    "/runs",
    summary="Upload benchmark results (needs scope upload)",
    openapi_extra=UPLOAD_BODY,
    responses={
        201: {"description": "A new run"},
        200: {"description": "The same upload again (same id), or a bulk answer with one entry per item"},
        413: {"description": "The body is over UPLOAD_MAX_BYTES"},
        422: {"description": "Invalid JSON, unrecognised format, missing context or a bad value"},
    },
)
async def upload_runs(
    request: Request, session: SessionDep, settings: SettingsDep, principal: Uploader
) -> Response:
    body = await read_limited_body(request, settings.upload_max_bytes)
    parameters = request.query_params
    format_name = parameters.get("format") or None
    if format_name is not None and format_name not in FORMATS:
        raise InvalidInput(
            f"format {format_name!r} is unknown; accepted: {', '.join(FORMATS)}",
            field="format",
            details={"accepted_formats": list(FORMATS)},
        )

    def store() -> tuple[int, dict[str, Any]]:
        items, bulk = split_body(
            body=body,
            content_type=request.headers.get("content-type", "application/octet-stream"),
            query_context=context_from_parameters(parameters.multi_items()),
            format_name=format_name,
            filename=parameters.get("filename"),
        )
        outcomes = ingest(
            session=session,
            items=items,
            actor=principal.name,
            default_repo=settings.github_default_repo,
            repo_aliases=settings.github_repo_aliases,
            bulk=bulk,
        )
        session.commit()
        if not bulk and len(outcomes) == 1:
            return outcomes[0].status, outcomes[0].answer or {}
        return 200, bulk_answer(outcomes)

    status, answer = await run_in_threadpool(store)
    return JSONResponse(answer, status_code=status)


@router.get("/runs", response_model=RunPage, summary="List runs, newest first, with filters")
def runs(
    session: SessionDep,
    _: Reader,
    hardware: str | None = None,
    model: Annotated[str | None, Query(description="Substring of the model id, any case.")] = None,
    precision: str | None = None,
    engine: str | None = None,
    backend: Annotated[
        str | None, Query(description="`component=backend`, or a backend in any component.")
    ] = None,
    label: str | None = None,
    series: Annotated[str | None, Query(description="Series key.")] = None,
    format: Annotated[str | None, Query(description="Source format.")] = None,
    since: Annotated[datetime | None, Query(description="Run time at or after (ISO 8601).")] = None,
    until: Annotated[datetime | None, Query(description="Run time before (ISO 8601).")] = None,
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> RunPage:
    filters = RunFilters(
        hardware=hardware,
        model=model,
        precision=precision,
        engine=engine,
        backend=backend,
        label=label,
        series_key=series,
        source_format=format,
        since=since,
        until=until,
    )
    page, next_cursor = list_runs(session=session, filters=filters, limit=limit, cursor=cursor)
    return RunPage(
        items=[RunSummaryPublic.model_validate(run, from_attributes=True) for run in page],
        next_cursor=next_cursor,
    )


@router.get("/runs/{run_id}", response_model=RunPublic, summary="One run: context, metrics, links")
def run(run_id: int, session: SessionDep, _: Reader) -> RunPublic:
    return run_public(session=session, run=get_run(session=session, run_id=run_id))


@router.get("/runs/{run_id}/raw", summary="The upload exactly as it was received")
def run_raw(run_id: int, session: SessionDep, _: Reader) -> Response:
    stored = get_run(session=session, run_id=run_id)
    filename = stored.raw_filename or f"run-{stored.id}{_extension(stored.raw_content_type)}"
    return Response(
        stored.raw_payload,
        media_type=stored.raw_content_type,
        headers={"Content-Disposition": f'attachment; filename="{_safe_filename(filename)}"'},
    )


def _extension(content_type: str) -> str:
    if "json" in content_type:
        return ".json"
    return ".txt" if content_type.startswith("text/") else ".bin"


def _safe_filename(name: str) -> str:
    return "".join(char if char.isalnum() or char in "._-" else "_" for char in name.rsplit("/", 1)[-1])[:200]
