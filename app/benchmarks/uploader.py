"""The HTTP side of `statusboard upload`: send files to a server, retry what may pass later, tally."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

RETRY_STATUSES = {500, 502, 503, 504}


@dataclass
class FileOutcome:
    """What happened to one file: one entry per run it held, or one error."""

    path: str
    created: list[dict[str, Any]] = field(default_factory=list)
    duplicates: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors)


def content_type_for(path: Path, data: bytes) -> str:
    """Chooses how to send a file: JSON, JSON lines, or text (console blocks, lm-eval tables)."""
    name = path.name.lower()
    if name.endswith((".jsonl", ".ndjson")):
        return "application/x-ndjson"
    if name.endswith(".json"):
        return "application/json"
    stripped = data.lstrip()
    if stripped.startswith((b"{", b"[")):
        return "application/json"
    return "text/plain; charset=utf-8"


def _error_text(response: httpx.Response) -> str:
    try:
        error = response.json().get("error", {})
    except ValueError:
        return f"HTTP {response.status_code}: {response.text[:200]}"
    return f"HTTP {response.status_code}: {error.get('message', response.text[:200])}"


def upload_file(
    *,
    client: httpx.Client,
    path: Path,
    params: list[tuple[str, str]],
    retries: int = 3,
    backoff_seconds: float = 0.5,
    sleep: Callable[[float], None] = time.sleep,
) -> FileOutcome:
    """Uploads one file, retrying connection errors and 5xx answers with exponential backoff."""
    outcome = FileOutcome(path=str(path))
    try:
        data = path.read_bytes()
    except OSError as exc:
        outcome.errors.append(f"cannot read the file: {exc.strerror or exc}")
        return outcome
    headers = {"Content-Type": content_type_for(path, data)}
    query = [*params, ("filename", path.name)]
    response: httpx.Response | None = None
    for attempt in range(retries + 1):
        try:
            response = client.post("/api/v1/runs", params=query, content=data, headers=headers)
        except httpx.TransportError as exc:
            if attempt == retries:
                outcome.errors.append(f"cannot reach the server: {exc}")
                return outcome
        else:
            if response.status_code not in RETRY_STATUSES or attempt == retries:
                break
        sleep(backoff_seconds * 2**attempt)
    assert response is not None
    if response.status_code >= 400:
        outcome.errors.append(_error_text(response))
        return outcome
    body = response.json()
    if "items" not in body:
        (outcome.created if body.get("created") else outcome.duplicates).append(body)
        return outcome
    for item in body["items"]:
        if item["status"] == 201:
            outcome.created.append(item["run"])
        elif item["status"] == 200:
            outcome.duplicates.append(item["run"])
        else:
            outcome.errors.append(f"run {item['item'] + 1}: {item['error'].get('message')}")
    return outcome


def context_parameters(
    *,
    hardware: str | None = None,
    gpu_count: int | None = None,
    model: str | None = None,
    precision: str | None = None,
    engine: str | None = None,
    engine_version: str | None = None,
    engine_commit: str | None = None,
    label: str | None = None,
    backends: list[str] | None = None,
    env: list[str] | None = None,
    tags: list[str] | None = None,
    links: list[str] | None = None,
    flags: str | None = None,
    parallelism: dict[str, Any] | None = None,
    workload: dict[str, Any] | None = None,
    run_format: str | None = None,
) -> list[tuple[str, str]]:
    """The query parameters that carry the context the uploader gave on the command line."""
    pairs: list[tuple[str, str]] = []
    single = {
        "hardware": hardware,
        "gpu_count": gpu_count,
        "model": model,
        "precision": precision,
        "engine": engine,
        "engine_version": engine_version,
        "engine_commit": engine_commit,
        "label": label,
        "flags": flags,
        "format": run_format,
        **(parallelism or {}),
        **(workload or {}),
    }
    pairs.extend((name, str(value)) for name, value in single.items() if value is not None)
    for name, values in (("backend", backends), ("env", env), ("tag", tags), ("link", links)):
        pairs.extend((name, value) for value in values or [])
    return pairs
