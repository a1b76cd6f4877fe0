"""The context of a run: reading what uploaders send, normalising it, and the series key.

Pure functions; no database. The series key is the sha256 of the canonical JSON (sorted keys, no spaces)
of the normalised context without `run_time`, `engine_version`, `engine_commit`, `label`, `tags`, `links`
and `status_pages`, so the runs of one configuration line up on one chart whatever version they ran.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shlex
from datetime import UTC, datetime
from typing import Any

from app.core.errors import InvalidInput

# Fields that describe one run rather than the configuration; left out of the series key.
NON_SERIES_FIELDS = ("run_time", "engine_version", "engine_commit", "label", "tags", "links", "status_pages")
PARALLELISM_FIELDS = ("tp", "dp", "ep", "pp")
WORKLOAD_INT_FIELDS = ("input_len", "output_len", "concurrency", "num_prompts")
REQUIRED_FIELDS = ("hardware", "model")
# Sizes and counts above this are typos (and would overflow an integer column).
MAX_COUNT = 2**31 - 1

# Names people use (in --metadata pairs, query parameters, JSON) → where they go in the context.
_ALIASES: dict[str, tuple[str, ...]] = {
    "hardware": ("hardware",),
    "gpu": ("hardware",),
    "gpu_type": ("hardware",),
    "gpu_name": ("hardware",),
    "gpu_count": ("gpu_count",),
    "num_gpus": ("gpu_count",),
    "gpus": ("gpu_count",),
    "model": ("model",),
    "model_id": ("model",),
    "precision": ("precision",),
    "quantization": ("precision",),
    "engine": ("engine",),
    "engine_version": ("engine_version",),
    "version": ("engine_version",),
    "vllm_version": ("engine_version",),
    "engine_commit": ("engine_commit",),
    "commit": ("engine_commit",),
    "git_commit": ("engine_commit",),
    "label": ("label",),
    "tp": ("parallelism", "tp"),
    "tensor_parallel_size": ("parallelism", "tp"),
    "dp": ("parallelism", "dp"),
    "data_parallel_size": ("parallelism", "dp"),
    "ep": ("parallelism", "ep"),
    "expert_parallel_size": ("parallelism", "ep"),
    "pp": ("parallelism", "pp"),
    "pipeline_parallel_size": ("parallelism", "pp"),
    "dp_attention": ("parallelism", "dp_attention"),
    "enable_dp_attention": ("parallelism", "dp_attention"),
    "dataset": ("workload", "dataset"),
    "dataset_name": ("workload", "dataset"),
    "isl": ("workload", "input_len"),
    "input_len": ("workload", "input_len"),
    "random_input_len": ("workload", "input_len"),
    "osl": ("workload", "output_len"),
    "output_len": ("workload", "output_len"),
    "random_output_len": ("workload", "output_len"),
    "concurrency": ("workload", "concurrency"),
    "max_concurrency": ("workload", "concurrency"),
    "num_prompts": ("workload", "num_prompts"),
    "prompts": ("workload", "num_prompts"),
    "request_rate": ("workload", "request_rate"),
    "pr": ("links",),
    "prs": ("links",),
    "issue": ("links",),
    "issues": ("links",),
    "link": ("links",),
    "links": ("links",),
    "status_page": ("status_pages",),
    "status_pages": ("status_pages",),
    "run_time": ("run_time",),
    "date": ("run_time",),
}
_BACKEND_SUFFIX = "_backend"
_TRUE = {"1", "true", "yes", "on", "y"}
_FALSE = {"0", "false", "no", "off", "n", ""}


def _field_error(field: str, problem: str) -> InvalidInput:
    return InvalidInput(f"context.{field}: {problem}", field=f"context.{field}")


def _text(value: Any, field: str, *, max_length: int = 300) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _field_error(field, f"expected text, got {type(value).__name__}")
    text = str(value).strip()
    if len(text) > max_length:
        raise _field_error(field, f"longer than {max_length} characters")
    return text or None


def _positive_int(value: Any, field: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise _field_error(field, "expected a whole number, got a boolean")
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise _field_error(field, f"expected a whole number, got {value!r}")
        value = int(value)
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise _field_error(field, f"expected a whole number, got {value!r}") from None
    if not isinstance(value, int):
        raise _field_error(field, f"expected a whole number, got {type(value).__name__}")
    if value < 0:
        raise _field_error(field, f"must not be negative, got {value}")
    if value > MAX_COUNT:
        raise _field_error(field, f"is implausibly large ({value})")
    return value


def _bool(value: Any, field: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int | str) and str(value).strip().lower() in _TRUE | _FALSE:
        return str(value).strip().lower() in _TRUE
    raise _field_error(field, f"expected true or false, got {value!r}")


def _request_rate(value: Any, field: str) -> float | str | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity"):
        return "inf"
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise _field_error(field, f"expected a number or 'inf', got {value!r}") from None
    if math.isinf(rate) and rate > 0:
        return "inf"
    if not math.isfinite(rate) or rate < 0:
        raise _field_error(field, f"expected a non-negative number or 'inf', got {value!r}")
    return rate


def _string_map(value: Any, field: str) -> dict[str, str]:
    """Accepts {"K": "V"}, ["K=V", …] or "K=V,K=V"."""
    if value is None:
        return {}
    if isinstance(value, str):
        value = [item for item in re.split(r"[,\n]", value) if item.strip()]
    if isinstance(value, list):
        pairs: dict[str, str] = {}
        for item in value:
            if not isinstance(item, str) or "=" not in item:
                raise _field_error(field, f"expected KEY=VALUE, got {item!r}")
            key, _, item_value = item.partition("=")
            pairs[key.strip()] = item_value.strip()
        value = pairs
    if not isinstance(value, dict):
        raise _field_error(field, f"expected an object of names to values, got {type(value).__name__}")
    result = {}
    for key, item_value in value.items():
        if isinstance(item_value, dict | list):
            raise _field_error(f"{field}.{key}", "expected text")
        result[str(key).strip()] = "" if item_value is None else str(item_value).strip()
    return result


def parse_flags(value: Any, field: str = "flags") -> dict[str, str]:
    """Reads CLI flags from "--a 1 --b", ["--a=1", "--b"] or {"--a": "1"} into {"--a": "1", "--b": ""}."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {str(key).strip(): "" if item is None else str(item).strip() for key, item in value.items()}
    if isinstance(value, str):
        try:
            tokens = shlex.split(value)
        except ValueError as exc:
            raise _field_error(field, f"cannot split the flags: {exc}") from None
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        tokens = [part for item in value for part in (shlex.split(item) if " " in item else [item])]
    else:
        raise _field_error(field, "expected a string, a list of strings or an object")
    flags: dict[str, str] = {}
    current: str | None = None
    for token in tokens:
        if token.startswith("-") and not re.fullmatch(r"-\d[\d.]*", token):
            name, equals, flag_value = token.partition("=")
            flags[name] = flag_value if equals else ""
            current = None if equals else name
        elif current is not None:
            flags[current] = f"{flags[current]} {token}".strip()
        else:
            raise _field_error(field, f"{token!r} does not follow a flag")
    return flags


def _links(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str | int):
        value = [item for item in re.split(r"[,\s]+", str(value)) if item]
    if not isinstance(value, list):
        raise _field_error(field, "expected a list of PR/issue references")
    links = []
    for item in value:
        text = _text(item, field)
        if text and text not in links:
            links.append(text)
    return links


def parse_run_time(value: Any, field: str = "run_time") -> datetime | None:
    """Reads ISO 8601 or vLLM's `%Y%m%d-%H%M%S` (taken as UTC when no zone is given)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        text = value.strip()
        try:
            moment = datetime.strptime(text, "%Y%m%d-%H%M%S")
        except ValueError:
            try:
                moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                raise _field_error(field, f"expected ISO 8601 or YYYYMMDD-HHMMSS, got {value!r}") from None
    else:
        raise _field_error(field, f"expected a date and time, got {type(value).__name__}")
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def route_pairs(pairs: dict[str, Any]) -> dict[str, Any]:
    """Turns flat pairs (metadata, query parameters) into a nested raw context; unknown names become tags."""
    context: dict[str, Any] = {}
    for raw_name, value in pairs.items():
        name = raw_name.strip().lower().replace("-", "_")
        target = _ALIASES.get(name)
        if target is None and name.endswith(_BACKEND_SUFFIX) and len(name) > len(_BACKEND_SUFFIX):
            target = ("backends", name[: -len(_BACKEND_SUFFIX)])
        if target is None and name.startswith("env."):
            target = ("env", raw_name.strip()[4:])
        if target is None:
            context.setdefault("tags", {})[raw_name.strip()] = value
        elif target == ("links",) or target == ("status_pages",):
            context.setdefault(target[0], []).extend(_links(value, target[0]))
        elif len(target) == 1:
            context[target[0]] = value
        else:
            context.setdefault(target[0], {})[target[1]] = value
    return context


def merge_contexts(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """Returns `base` with `override` laid over it; nested objects merge, lists join, the override wins."""
    merged = dict(base)
    for key, value in override.items():
        if value is None:
            continue
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_contexts(merged[key], value)
        elif isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = merged[key] + [item for item in value if item not in merged[key]]
        else:
            merged[key] = value
    return merged


def normalise_context(raw: dict[str, Any]) -> dict[str, Any]:
    """Checks and normalises a raw context; raises `InvalidInput` naming the field at fault."""
    if not isinstance(raw, dict):
        raise InvalidInput("context must be a JSON object", field="context")
    known = {
        "hardware", "gpu_count", "model", "precision", "engine", "engine_version", "engine_commit",
        "backends", "env", "flags", "parallelism", "workload", "label", "tags", "links", "status_pages",
        "run_time",
    }  # fmt: skip
    flat = {key: value for key, value in raw.items() if key not in known}
    raw = merge_contexts(route_pairs(flat), {key: value for key, value in raw.items() if key in known})
    missing = [name for name in REQUIRED_FIELDS if not _text(raw.get(name), name)]
    if missing:
        raise InvalidInput(
            f"missing required context: {', '.join(missing)}",
            field=f"context.{missing[0]}",
            details={"missing": missing},
        )
    context: dict[str, Any] = {
        "hardware": _text(raw.get("hardware"), "hardware", max_length=100),
        "gpu_count": _positive_int(raw.get("gpu_count"), "gpu_count"),
        "model": _text(raw.get("model"), "model"),
        "precision": (_text(raw.get("precision"), "precision", max_length=50) or "").lower() or None,
        "engine": (_text(raw.get("engine"), "engine", max_length=50) or "vllm").lower(),
        "engine_version": _text(raw.get("engine_version"), "engine_version", max_length=100),
        "engine_commit": _text(raw.get("engine_commit"), "engine_commit", max_length=64),
        "label": _text(raw.get("label"), "label", max_length=200),
    }
    backends = _string_map(raw.get("backends"), "backends")
    context["backends"] = {key.lower(): value for key, value in sorted(backends.items()) if value}
    context["env"] = dict(sorted(_string_map(raw.get("env"), "env").items()))
    context["flags"] = dict(sorted(parse_flags(raw.get("flags")).items()))
    parallelism_raw = raw.get("parallelism") or {}
    if not isinstance(parallelism_raw, dict):
        raise _field_error("parallelism", 'expected an object such as {"tp": 4, "ep": 4}')
    parallelism: dict[str, Any] = {}
    for name in PARALLELISM_FIELDS:
        size = _positive_int(parallelism_raw.get(name), f"parallelism.{name}")
        if size is not None:
            parallelism[name] = size
    dp_attention = _bool(parallelism_raw.get("dp_attention"), "parallelism.dp_attention")
    if dp_attention is not None:
        parallelism["dp_attention"] = dp_attention
    context["parallelism"] = parallelism
    workload_raw = raw.get("workload") or {}
    if not isinstance(workload_raw, dict):
        raise _field_error("workload", 'expected an object such as {"input_len": 2048}')
    workload: dict[str, Any] = {}
    dataset = _text(workload_raw.get("dataset"), "workload.dataset", max_length=200)
    if dataset:
        workload["dataset"] = dataset
    for name in WORKLOAD_INT_FIELDS:
        number = _positive_int(workload_raw.get(name), f"workload.{name}")
        if number is not None:
            workload[name] = number
    rate = _request_rate(workload_raw.get("request_rate"), "workload.request_rate")
    if rate is not None:
        workload["request_rate"] = rate
    context["workload"] = workload
    context["tags"] = dict(sorted(_string_map(raw.get("tags"), "tags").items()))
    context["links"] = _links(raw.get("links"), "links")
    context["status_pages"] = _links(raw.get("status_pages"), "status_pages")
    run_time = parse_run_time(raw.get("run_time"))
    context["run_time"] = run_time.isoformat() if run_time else None
    return context


def canonical_json(value: Any) -> bytes:
    """The one byte form used for hashing: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def series_context(context: dict[str, Any]) -> dict[str, Any]:
    """The part of a normalised context that defines its series."""
    return {key: value for key, value in context.items() if key not in NON_SERIES_FIELDS}


def series_key(context: dict[str, Any]) -> str:
    """sha256 hex of the canonical JSON of the series context."""
    return hashlib.sha256(canonical_json(series_context(context))).hexdigest()


def upload_digest(*, source_format: str, context: dict[str, Any], raw: bytes) -> str:
    """sha256 hex identifying an upload: its format, its normalised context and its raw bytes."""
    digest = hashlib.sha256()
    digest.update(b"statusboard-run-v1\n")
    digest.update(source_format.encode() + b"\n")
    digest.update(canonical_json(context) + b"\n")
    digest.update(raw)
    return digest.hexdigest()


def series_label(context: dict[str, Any]) -> str:
    """A readable one-line name of a series context: hardware, model, precision, backends, workload."""
    hardware = context.get("hardware")
    if hardware and context.get("gpu_count"):
        hardware = f"{context['gpu_count']}×{hardware}"
    parts = [
        str(hardware or ""),
        str(context.get("model") or "").rsplit("/", 1)[-1],
        str(context.get("precision") or ""),
    ]
    backends = context.get("backends") or {}
    if backends:
        parts.append(" ".join(f"{name}={backend}" for name, backend in sorted(backends.items())))
    workload = context.get("workload") or {}
    shape = [
        f"{label}{workload[key]}"
        for key, label in (("input_len", "ISL "), ("output_len", "OSL "), ("concurrency", "c"))
        if workload.get(key) is not None
    ]
    if shape:
        parts.append("/".join(shape))
    return " · ".join(part for part in parts if part)
