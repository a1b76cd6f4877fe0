"""Turning an upload (envelope, raw file, console text, bulk list or JSON lines) into stored runs.

Each run is stored inside its own savepoint, so in a bulk upload every item is accepted or rejected on
its own; the caller commits once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.benchmarks.context import parse_flags, route_pairs, upload_digest
from app.benchmarks.formats.base import ParsedResult, load_json
from app.benchmarks.formats.detect import parse_upload
from app.benchmarks.models import BenchmarkRun
from app.benchmarks.service import get_run_by_digest, prepare_context, store_run, upload_answer
from app.core.errors import DomainError, InvalidInput

# Query parameters that are not context.
RESERVED_PARAMETERS = {"format", "filename"}
JSON_TYPES = ("application/json",)
JSON_LINES_TYPES = (
    "application/x-ndjson",
    "application/jsonl",
    "application/x-jsonlines",
    "application/json-seq",
)


@dataclass
class UploadItem:
    """One thing to parse: raw bytes plus the context and format sent with them."""

    raw: bytes
    context: dict[str, Any] = field(default_factory=dict)
    format_name: str | None = None
    content_type: str = "application/octet-stream"
    filename: str | None = None
    # An item that was already found invalid while the body was split (bulk uploads answer it per item).
    error: DomainError | None = None


@dataclass
class ItemOutcome:
    item: int
    status: int
    answer: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"item": self.item, "status": self.status}
        if self.answer is not None:
            body["run"] = self.answer
        if self.error is not None:
            body["error"] = self.error
        return body


def bulk_answer(outcomes: list[ItemOutcome]) -> dict[str, Any]:
    """The answer to an upload of several runs: one entry per run or rejected item, and the tallies."""
    return {
        "items": [outcome.to_dict() for outcome in outcomes],
        "created": sum(1 for outcome in outcomes if outcome.status == 201),
        "duplicates": sum(1 for outcome in outcomes if outcome.status == 200),
        "failed": sum(1 for outcome in outcomes if outcome.status >= 400),
    }


def context_from_parameters(pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Reads context from query parameters or form fields; repeatable `env`, `tag`, `backend`, `link`, `flag`.

    `env=KEY=VALUE`, `tag=KEY=VALUE` and `backend=COMPONENT=BACKEND` may repeat; any other name goes
    through the same routing as `--metadata` pairs (`hardware`, `tp`, `moe_backend`, …; the rest are tags).
    """
    context: dict[str, Any] = {}
    flat: dict[str, str] = {}
    for name, value in pairs:
        key = name.strip().lower()
        if key in RESERVED_PARAMETERS or value is None or (isinstance(value, str) and not value.strip()):
            continue
        if key in ("env", "tag", "tags", "backend", "backends"):
            target = {"env": "env", "tag": "tags", "tags": "tags"}.get(key, "backends")
            pair_name, equals, pair_value = value.partition("=")
            if not equals:
                raise InvalidInput(f"{name}: expected KEY=VALUE, got {value!r}", field=f"context.{target}")
            context.setdefault(target, {})[pair_name.strip()] = pair_value.strip()
        elif key in ("flag", "flags"):
            context.setdefault("flags", {}).update(parse_flags(value, "flags"))
        elif key in ("link", "links", "pr", "issue"):
            context.setdefault("links", []).append(value.strip())
        else:
            flat[name] = value
    routed = route_pairs(flat)
    for key, value in routed.items():
        if isinstance(value, dict):
            context.setdefault(key, {}).update(value)
        elif isinstance(value, list):
            context.setdefault(key, []).extend(value)
        else:
            context[key] = value
    return context


def _envelope_item(
    value: Any, *, where: str, query_context: dict[str, Any], format_name: str | None
) -> UploadItem:
    if not isinstance(value, dict) or "result" not in value:
        raise InvalidInput(f'{where}: expected an object {{"context": {{…}}, "result": …}}', field=where)
    unknown = set(value) - {"context", "result", "format", "filename"}
    if unknown:
        raise InvalidInput(f"{where}: unknown keys {sorted(unknown)}", field=f"{where}.{sorted(unknown)[0]}")
    context = value.get("context") or {}
    if not isinstance(context, dict):
        raise InvalidInput(f"{where}.context: expected an object", field=f"{where}.context")
    result = value["result"]
    if isinstance(result, str):
        raw, content_type = result.encode(), "text/plain"
    else:
        raw, content_type = json.dumps(result, ensure_ascii=False).encode(), "application/json"
    item_format = value.get("format", format_name)
    if item_format is not None and not isinstance(item_format, str):
        raise InvalidInput(f"{where}.format: expected a format name", field=f"{where}.format")
    return UploadItem(
        raw=raw,
        context={**query_context, **context},
        format_name=item_format,
        content_type=content_type,
        filename=value.get("filename") if isinstance(value.get("filename"), str) else None,
    )


def _is_envelope(value: Any) -> bool:
    return isinstance(value, dict) and "result" in value


def split_body(
    *,
    body: bytes,
    content_type: str,
    query_context: dict[str, Any],
    format_name: str | None,
    filename: str | None,
) -> tuple[list[UploadItem], bool]:
    """Splits a request body into upload items; returns (items, is_bulk)."""
    media_type = content_type.split(";")[0].strip().lower()
    if not body.strip():
        raise InvalidInput("the request body is empty", field="body")
    if media_type in JSON_LINES_TYPES:
        lines = [(number, line) for number, line in enumerate(body.split(b"\n"), start=1) if line.strip()]
        decoded = [(number, line, _try_json_line(line, number)) for number, line in lines]
        if not any(_is_envelope(value) for _, _, value in decoded):
            # JSON lines of raw results (an --append-result file): one raw upload.
            return [UploadItem(body, query_context, format_name, media_type, filename)], False
        items = []
        for number, line, value in decoded:
            try:
                if isinstance(value, DomainError):
                    raise value
                items.append(
                    _envelope_item(
                        value, where=f"line {number}", query_context=query_context, format_name=format_name
                    )
                )
            except DomainError as error:
                items.append(UploadItem(line, error=error))
        return items, True
    if media_type in JSON_TYPES or media_type.endswith("+json"):
        try:
            value = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            # Not one JSON document (e.g. an --append-result file): the parser reports line and column.
            return [UploadItem(body, query_context, format_name, media_type, filename)], False
        if _is_envelope(value):
            item = _envelope_item(value, where="body", query_context=query_context, format_name=format_name)
            return [item], False
        if isinstance(value, list) and value and all(_is_envelope(entry) for entry in value):
            items = []
            for index, entry in enumerate(value):
                try:
                    items.append(
                        _envelope_item(
                            entry,
                            where=f"body[{index}]",
                            query_context=query_context,
                            format_name=format_name,
                        )
                    )
                except DomainError as error:
                    items.append(UploadItem(json.dumps(entry).encode(), error=error))
            return items, True
    return [
        UploadItem(body, query_context, format_name, media_type or "application/octet-stream", filename)
    ], False


def _try_json_line(line: bytes, number: int) -> Any:
    try:
        return load_json(line, what=f"line {number}", first_line=number)
    except DomainError as error:
        return error


def ingest(
    *,
    session: Session,
    items: list[UploadItem],
    actor: str,
    default_repo: str,
    repo_aliases: dict[str, str],
    bulk: bool,
) -> list[ItemOutcome]:
    """Parses and stores every item; a single upload raises its error, a bulk one reports it per item."""
    outcomes: list[ItemOutcome] = []
    for index, item in enumerate(items):
        try:
            if item.error is not None:
                raise item.error
            results = parse_upload(item.raw, format_name=item.format_name)
            for parsed in results:
                run, created = _store_in_savepoint(
                    session=session,
                    parsed=parsed,
                    item=item,
                    actor=actor,
                    default_repo=default_repo,
                    repo_aliases=repo_aliases,
                )
                answer = upload_answer(session=session, run=run, created=created)
                outcomes.append(ItemOutcome(item=index, status=201 if created else 200, answer=answer))
        except DomainError as error:
            if not bulk and len(items) == 1 and not outcomes:
                raise
            outcomes.append(ItemOutcome(item=index, status=error.status_code, error=error.to_dict()))
    return outcomes


def _store_in_savepoint(
    *,
    session: Session,
    parsed: ParsedResult,
    item: UploadItem,
    actor: str,
    default_repo: str,
    repo_aliases: dict[str, str],
) -> tuple[BenchmarkRun, bool]:
    savepoint = session.begin_nested()
    try:
        run, created = store_run(
            session=session,
            parsed=parsed,
            supplied_context=item.context,
            actor=actor,
            default_repo=default_repo,
            repo_aliases=repo_aliases,
            raw_content_type=item.content_type,
            raw_filename=item.filename,
        )
        savepoint.commit()
        return run, created
    except IntegrityError:
        # The same upload landed concurrently: answer with the run that won.
        savepoint.rollback()
        context = prepare_context(parsed=parsed, supplied=item.context)
        digest = upload_digest(source_format=parsed.source_format, context=context, raw=parsed.raw)
        existing = get_run_by_digest(session=session, digest=digest)
        if existing is None:
            raise
        return existing, False
    except BaseException:
        savepoint.rollback()
        raise
